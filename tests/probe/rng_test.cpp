// SPDX-License-Identifier: MIT
// The probe's one random generator (probe/verify/rng.h).
#include <gtest/gtest.h>

#include <set>

#include "probe/verify/rng.h"

namespace bk::verify {
namespace {

TEST(SplitMix64, IsTheReferenceAlgorithm) {
  // The first output of splitmix64 from state 0, as in Vigna's splitmix64.c.
  SplitMix64 rng(0);
  EXPECT_EQ(rng.next(), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(splitmix64_mix(0x9E3779B97F4A7C15ull), 0xE220A8397B1DCDAFull) << "next() is mix(state + gamma)";
}

TEST(SplitMix64, TheSeedDecidesTheStream) {
  SplitMix64 a(7), b(7), c(8);
  for (int i = 0; i < 100; ++i) {
    const uint64_t x = a.next();
    EXPECT_EQ(x, b.next());
    EXPECT_NE(x, c.next());
  }
}

TEST(SplitMix64, UniformValuesStayInTheirRange) {
  SplitMix64 rng(1);
  int negative = 0;
  for (int i = 0; i < 10000; ++i) {
    const double u = rng.unit();
    EXPECT_GE(u, 0.0);
    EXPECT_LT(u, 1.0);
    const double v = rng.uniform(-2.0, 3.0);
    EXPECT_GE(v, -2.0);
    EXPECT_LT(v, 3.0);
    const double s = rng.signed_uniform(0.1, 1.0);
    EXPECT_GE(std::abs(s), 0.1);
    EXPECT_LT(std::abs(s), 1.0);
    negative += s < 0;
  }
  EXPECT_GT(negative, 4000);  // both signs, about evenly
  EXPECT_LT(negative, 6000);
}

TEST(SplitMix64, BelowCoversEveryValueAndNoOther) {
  SplitMix64 rng(2);
  std::set<uint64_t> seen;
  for (int i = 0; i < 1000; ++i) {
    const uint64_t v = rng.below(7);
    EXPECT_LT(v, 7u);
    seen.insert(v);
  }
  EXPECT_EQ(seen.size(), 7u);
}

}  // namespace
}  // namespace bk::verify
