// SPDX-License-Identifier: MIT
#include "probe/mem_pattern.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "probe/bench_timer.h"
#include "probe/verify/rng.h"

namespace bk {
namespace {

constexpr uint64_t kSeed = 0x6b6b63746c5f6b62ULL;  // arbitrary; fixed so runs are comparable

using verify::splitmix64_mix;  // a bijection: distinct words in, distinct words out

using Clock = std::chrono::steady_clock;

size_t words_for(size_t bytes) { return (bytes + sizeof(uint64_t) - 1) / sizeof(uint64_t); }

void fill_chunk(uint64_t* words, PatternKind kind, size_t buffer_index, size_t first_word, size_t count) {
  for (size_t i = 0; i < count; ++i) words[i] = pattern_word(kind, buffer_index, first_word + i);
}

// Compares a chunk that was read back with the pattern; `bytes` may end in a partial word.
void compare_chunk(const uint64_t* words, PatternKind kind, size_t buffer_index, size_t offset, size_t bytes,
                   VerifyResult& result) {
  const size_t first_word = offset / sizeof(uint64_t);
  for (size_t i = 0; i < words_for(bytes); ++i) {
    uint64_t expected = pattern_word(kind, buffer_index, first_word + i);
    uint64_t got = words[i];
    const size_t word_bytes = std::min(sizeof(uint64_t), bytes - i * sizeof(uint64_t));
    if (word_bytes < sizeof(uint64_t)) {
      // Only the low bytes of a tail word were transferred (little-endian byte order).
      const uint64_t mask = (uint64_t{1} << (8 * word_bytes)) - 1;
      expected &= mask;
      got &= mask;
    }
    if (expected == got) continue;
    if (result.mismatches++ == 0)
      result.first = PatternMismatch{offset + i * sizeof(uint64_t), expected, got};
  }
}

}  // namespace

std::string_view pattern_kind_name(PatternKind kind) noexcept {
  switch (kind) {
    case PatternKind::random:
      return "random";
    case PatternKind::address:
      return "address";
    case PatternKind::walking_ones:
      return "walking_ones";
  }
  return "?";
}

uint64_t pattern_word(size_t buffer_index, uint64_t word_index) noexcept {
  const uint64_t buffer_seed = splitmix64_mix(kSeed + static_cast<uint64_t>(buffer_index));
  return splitmix64_mix(buffer_seed + word_index);
}

uint64_t pattern_word(PatternKind kind, size_t buffer_index, uint64_t word_index) noexcept {
  switch (kind) {
    case PatternKind::address:
      return word_index * sizeof(uint64_t);
    case PatternKind::walking_ones:
      return uint64_t{1} << (word_index % 64);
    case PatternKind::random:
      break;
  }
  return pattern_word(buffer_index, word_index);
}

PatternStaging::PatternStaging(size_t max_buffer_bytes, size_t chunk_bytes)
    : chunk_bytes_(std::max(sizeof(uint64_t),
                            std::min(max_buffer_bytes, chunk_bytes) / sizeof(uint64_t) * sizeof(uint64_t))),
      words_(words_for(chunk_bytes_)) {}

double write_pattern(Buffer& buffer, size_t buffer_index, PatternStaging& staging, PatternKind kind) {
  double seconds = 0;
  for (size_t offset = 0; offset < buffer.size(); offset += staging.chunk_bytes()) {
    const size_t bytes = std::min(staging.chunk_bytes(), buffer.size() - offset);
    fill_chunk(staging.words(), kind, buffer_index, offset / sizeof(uint64_t), words_for(bytes));
    const Clock::time_point start = Clock::now();
    buffer.write(offset, staging.words(), bytes);
    seconds += seconds_since(start);
  }
  return seconds;
}

VerifyResult verify_pattern(const Buffer& buffer, size_t buffer_index, PatternStaging& staging,
                            PatternKind kind) {
  VerifyResult result;
  for (size_t offset = 0; offset < buffer.size(); offset += staging.chunk_bytes()) {
    const size_t bytes = std::min(staging.chunk_bytes(), buffer.size() - offset);
    // Poison the staging words so a read that silently transfers nothing cannot pass.
    std::memset(staging.words(), 0xA5, words_for(bytes) * sizeof(uint64_t));
    const Clock::time_point start = Clock::now();
    buffer.read(offset, staging.words(), bytes);
    result.read_seconds += seconds_since(start);
    compare_chunk(staging.words(), kind, buffer_index, offset, bytes, result);
  }
  return result;
}

}  // namespace bk
