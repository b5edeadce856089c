// SPDX-License-Identifier: MIT
#include "sched/arena_planner.h"

#include <gtest/gtest.h>

#include "bk/error.h"

namespace bk {
namespace {

TEST(ArenaPlanner, ReusesFreedBlocksBestFit) {
  ArenaPlanner p;
  p.reset(64, SIZE_MAX);
  const ArenaPlace a = p.alloc(100);  // 128
  const ArenaPlace b = p.alloc(300);  // 320
  const ArenaPlace c = p.alloc(64);
  p.alloc(64);  // keeps c's block from touching the end
  EXPECT_EQ(a.offset, 0u);
  EXPECT_EQ(b.offset, 128u);
  EXPECT_EQ(c.offset, 448u);
  p.free(a, 100);
  p.free(b, 300);  // merges with a: [0, 448)
  p.free(c, 64);   // merges too: [0, 512)
  const ArenaPlace d = p.alloc(200);
  EXPECT_EQ(d.offset, 0u);
  EXPECT_EQ(p.total(), 576u);
}

TEST(ArenaPlanner, PicksTheSmallestBlockThatFits) {
  ArenaPlanner p;
  p.reset(1, SIZE_MAX);
  const ArenaPlace big = p.alloc(1000);
  p.alloc(1);
  const ArenaPlace small = p.alloc(100);
  p.alloc(1);
  p.free(big, 1000);
  p.free(small, 100);
  EXPECT_EQ(p.alloc(90).offset, small.offset);
  EXPECT_EQ(p.alloc(500).offset, big.offset);
}

TEST(ArenaPlanner, FreeingTheLastBlockShrinksTheEnd) {
  ArenaPlanner p;
  p.reset(16, SIZE_MAX);
  p.alloc(16);
  const ArenaPlace b = p.alloc(32);
  p.free(b, 32);
  EXPECT_EQ(p.alloc(64).offset, 16u);  // from the end again, not a fragment
  EXPECT_EQ(p.total(), 80u);
}

TEST(ArenaPlanner, StartsANewChunkPastTheMaxSize) {
  ArenaPlanner p;
  p.reset(64, 1024);
  EXPECT_EQ(p.alloc(600).chunk, 0);
  const ArenaPlace second = p.alloc(600);
  EXPECT_EQ(second.chunk, 1);
  EXPECT_EQ(second.offset, 0u);
  EXPECT_EQ(p.alloc(300).chunk, 0);  // still fits beside the first
  ASSERT_EQ(p.chunk_sizes().size(), 2u);
  EXPECT_LE(p.chunk_sizes()[0], 1024u);
  EXPECT_LE(p.chunk_sizes()[1], 1024u);
}

TEST(ArenaPlanner, RefusesABlockLargerThanTheMaxSize) {
  ArenaPlanner p;
  p.reset(64, 1024);
  EXPECT_THROW(p.alloc(1025), Error);
}

}  // namespace
}  // namespace bk
