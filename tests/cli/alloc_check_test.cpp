// SPDX-License-Identifier: MIT
// The pattern check behind `bkctl alloc`: it must pass on good memory and catch every way memory
// goes wrong that a constant fill would miss (aliased addresses, swapped buffers, reads that
// transfer nothing, a bad tail byte).

#include "commands/alloc/check.h"

#include <gtest/gtest.h>

#include <cstring>
#include <unordered_set>
#include <vector>

#include "bk/cpu.h"
#include "bk/device.h"

namespace bkctl {
namespace {

constexpr size_t kSmallChunk = 4096;

bk::Device& cpu_device() { return *bk::cpu_reg().devices().at(0); }

std::unique_ptr<bk::Buffer> cpu_buffer(size_t size) { return cpu_device().buffer_type().alloc(size); }

// Host memory whose upper half is wired onto the lower half, like a stuck address line.
class AliasedBufferType final : public bk::BufferType {
 public:
  std::string name() const override { return "aliased"; }
  bk::Device& device() const override { return cpu_device(); }
  std::unique_ptr<bk::Buffer> alloc(size_t size) override;
  size_t alignment() const override { return 8; }
  bool is_host() const override { return true; }
};

class AliasedBuffer final : public bk::Buffer {
 public:
  AliasedBuffer(bk::BufferType& type, size_t size) : bk::Buffer(type, size), memory_(size / 2) {}
  void* base() const override { return nullptr; }

 protected:
  void do_write(size_t offset, const void* src, size_t size) override {
    for (size_t i = 0; i < size; ++i)
      memory_[(offset + i) % memory_.size()] = static_cast<const uint8_t*>(src)[i];
  }
  void do_read(size_t offset, void* dst, size_t size) const override {
    for (size_t i = 0; i < size; ++i) static_cast<uint8_t*>(dst)[i] = memory_[(offset + i) % memory_.size()];
  }
  void do_fill(size_t offset, uint8_t value, size_t size) override {
    for (size_t i = 0; i < size; ++i) memory_[(offset + i) % memory_.size()] = value;
  }

 private:
  std::vector<uint8_t> memory_;
};

std::unique_ptr<bk::Buffer> AliasedBufferType::alloc(size_t size) {
  return std::make_unique<AliasedBuffer>(*this, size);
}

// A device whose reads "succeed" without transferring anything.
class SilentReadBuffer final : public bk::Buffer {
 public:
  SilentReadBuffer(bk::BufferType& type, size_t size) : bk::Buffer(type, size) {}
  void* base() const override { return nullptr; }

 protected:
  void do_write(size_t, const void*, size_t) override {}
  void do_read(size_t, void*, size_t) const override {}
  void do_fill(size_t, uint8_t, size_t) override {}
};

TEST(PatternWord, EveryWordOfABufferDiffers) {
  std::unordered_set<uint64_t> seen;
  constexpr uint64_t kWords = 1 << 18;
  for (uint64_t i = 0; i < kWords; ++i) seen.insert(pattern_word(0, i));
  EXPECT_EQ(seen.size(), kWords);
}

TEST(PatternWord, BuffersGetDifferentPatterns) {
  for (uint64_t i = 0; i < 1024; ++i) {
    EXPECT_NE(pattern_word(0, i), pattern_word(1, i)) << "word " << i;
    EXPECT_NE(pattern_word(1, i), pattern_word(2, i)) << "word " << i;
  }
}

TEST(PatternStaging, HoldsAtMostOneChunkAndAtLeastOneWord) {
  EXPECT_EQ(PatternStaging(size_t{1} << 30).chunk_bytes(), kPatternChunkBytes);
  EXPECT_EQ(PatternStaging(100).chunk_bytes(), 96U);
  EXPECT_EQ(PatternStaging(3).chunk_bytes(), 8U);
}

TEST(VerifyPattern, GoodMemoryPassesAcrossChunksAndATail) {
  const size_t size = 3 * kSmallChunk + 5;
  auto buffer = cpu_buffer(size);
  PatternStaging staging(size, kSmallChunk);
  write_pattern(*buffer, 0, staging);
  const VerifyResult result = verify_pattern(*buffer, 0, staging);
  EXPECT_TRUE(result.ok());
  EXPECT_EQ(result.mismatches, 0U);
  EXPECT_FALSE(result.first.has_value());
}

TEST(VerifyPattern, WritesThePatternWordsInLittleEndianOrder) {
  auto buffer = cpu_buffer(64);
  PatternStaging staging(64);
  write_pattern(*buffer, 3, staging);
  uint64_t word = 0;
  buffer->read(40, &word, sizeof(word));
  EXPECT_EQ(word, pattern_word(3, 5));
}

TEST(VerifyPattern, ReportsTheFirstCorruptedWord) {
  const size_t size = 2 * kSmallChunk;
  auto buffer = cpu_buffer(size);
  PatternStaging staging(size, kSmallChunk);
  write_pattern(*buffer, 0, staging);
  const uint64_t bad = pattern_word(0, 513) ^ 0x10;  // one flipped bit in the second chunk
  buffer->write(513 * 8, &bad, sizeof(bad));
  buffer->write(600 * 8, &bad, sizeof(bad));
  const VerifyResult result = verify_pattern(*buffer, 0, staging);
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.mismatches, 2U);
  ASSERT_TRUE(result.first.has_value());
  EXPECT_EQ(result.first->offset, 513U * 8);
  EXPECT_EQ(result.first->expected, pattern_word(0, 513));
  EXPECT_EQ(result.first->got, bad);
}

TEST(VerifyPattern, CatchesABadByteInAPartialTailWord) {
  const size_t size = kSmallChunk + 3;
  auto buffer = cpu_buffer(size);
  PatternStaging staging(size, kSmallChunk);
  write_pattern(*buffer, 0, staging);
  uint8_t last = 0;
  buffer->read(size - 1, &last, 1);
  last = static_cast<uint8_t>(last ^ 0xFF);
  buffer->write(size - 1, &last, 1);
  const VerifyResult result = verify_pattern(*buffer, 0, staging);
  EXPECT_EQ(result.mismatches, 1U);
  ASSERT_TRUE(result.first.has_value());
  EXPECT_EQ(result.first->offset, kSmallChunk);
}

TEST(VerifyPattern, CatchesAliasedAddresses) {
  AliasedBufferType type;
  const size_t size = 4 * kSmallChunk;
  auto buffer = type.alloc(size);
  PatternStaging staging(size, kSmallChunk);
  write_pattern(*buffer, 0, staging);
  const VerifyResult result = verify_pattern(*buffer, 0, staging);
  // The upper half overwrote the lower half, so exactly the lower half's words are wrong.
  EXPECT_EQ(result.mismatches, size / 2 / 8);
  ASSERT_TRUE(result.first.has_value());
  EXPECT_EQ(result.first->offset, 0U);
  EXPECT_EQ(result.first->got, pattern_word(0, size / 2 / 8));
}

TEST(VerifyPattern, CatchesAReadThatTransfersNothing) {
  AliasedBufferType type;
  SilentReadBuffer buffer(type, 1024);
  PatternStaging staging(1024);
  write_pattern(buffer, 0, staging);
  EXPECT_EQ(verify_pattern(buffer, 0, staging).mismatches, 1024U / 8);
}

TEST(VerifyPattern, CatchesBuffersThatAreSwapped) {
  auto buffer = cpu_buffer(1024);
  PatternStaging staging(1024);
  write_pattern(*buffer, 0, staging);
  EXPECT_EQ(verify_pattern(*buffer, 1, staging).mismatches, 1024U / 8);
}

}  // namespace
}  // namespace bkctl
