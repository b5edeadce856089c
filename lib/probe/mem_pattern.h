// SPDX-License-Identifier: MIT
#pragma once
// Memory pattern checks through the Buffer interface: fill a device buffer with a pattern via
// Buffer::write, read it back via Buffer::read and compare. Used by `bkctl alloc` (the random
// pattern) and by `bkctl smoke`'s memory check (all three). Moved here from app/alloc_check so
// that both share one implementation.
//
// Patterns, word i being the i-th 64-bit little-endian word of the buffer:
//   random        splitmix64 of a per-buffer seed plus i (the output function of
//                 probe/verify/rng.h, verify::splitmix64_mix): a bijection, so every word differs
//                 from every other and from other buffers' words at the same offset, and a stuck
//                 or aliased address line reads back a word that belongs elsewhere.
//   address       i * 8, the word's own byte offset ("address in address"): catches aliasing
//                 with an easy-to-read first mismatch.
//   walking_ones  1 << (i % 64): each data line is driven alone, so a stuck or shorted bit shows.
// A trailing partial word holds the low bytes of its pattern word.
//
// Transfers go through one host staging area in chunks, so checking a 20 GiB buffer needs only
// the chunk in host memory. Errors from the buffer (bk::Error) propagate. Not thread-safe.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "bk/buffer.h"

namespace bk {

inline constexpr size_t kPatternChunkBytes = size_t{64} << 20;

enum class PatternKind { random, address, walking_ones };
std::string_view pattern_kind_name(PatternKind kind) noexcept;  // "random", "address", "walking_ones"

uint64_t pattern_word(size_t buffer_index, uint64_t word_index) noexcept;  // the random pattern
uint64_t pattern_word(PatternKind kind, size_t buffer_index, uint64_t word_index) noexcept;

// Host memory the transfers go through; one can serve buffers of any size in turn.
class PatternStaging {
 public:
  // Holds min(max_buffer_bytes, chunk_bytes) bytes, at least one word.
  explicit PatternStaging(size_t max_buffer_bytes, size_t chunk_bytes = kPatternChunkBytes);
  size_t chunk_bytes() const noexcept { return chunk_bytes_; }
  uint64_t* words() noexcept { return words_.data(); }

 private:
  size_t chunk_bytes_;
  std::vector<uint64_t> words_;
};

struct PatternMismatch {
  size_t offset = 0;  // byte offset of the first differing word
  uint64_t expected = 0;
  uint64_t got = 0;
};

struct VerifyResult {
  size_t mismatches = 0;  // differing words (a partial tail word counts as one)
  std::optional<PatternMismatch> first;
  double read_seconds = 0;  // time inside Buffer::read only, not the comparison
  bool ok() const noexcept { return mismatches == 0; }
};

// Writes the pattern over the whole buffer; returns the seconds spent inside Buffer::write
// (pattern generation excluded, so the figure is the transfer's).
double write_pattern(Buffer& buffer, size_t buffer_index, PatternStaging& staging,
                     PatternKind kind = PatternKind::random);

VerifyResult verify_pattern(const Buffer& buffer, size_t buffer_index, PatternStaging& staging,
                            PatternKind kind = PatternKind::random);

}  // namespace bk
