#pragma once
// The memory check behind `bkctl alloc`: fill a device buffer with a pattern through
// Buffer::write, read it back through Buffer::read and compare.
//
// Word i (64-bit, little-endian) of buffer b holds pattern_word(b, i), the splitmix64 mix of a
// per-buffer seed plus i. The mix is a bijection, so every word of a buffer differs from every
// other and from the words of other buffers' same offsets: a stuck or aliased address line reads
// back a word that belongs elsewhere and never matches, which a constant fill would miss. A
// trailing partial word holds the low bytes of its pattern word.
//
// Transfers go through one host staging area in chunks, so checking a 20 GiB buffer needs only
// the chunk in host memory. Errors from the buffer (bk::Error) propagate.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/buffer.h"

namespace bkctl {

inline constexpr size_t kPatternChunkBytes = size_t{64} << 20;

uint64_t pattern_word(size_t buffer_index, uint64_t word_index) noexcept;

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

// Writes buffer b's pattern over the whole buffer; returns the seconds spent inside
// Buffer::write (pattern generation excluded, so the figure is the transfer's).
double write_pattern(bk::Buffer& buffer, size_t buffer_index, PatternStaging& staging);

VerifyResult verify_pattern(const bk::Buffer& buffer, size_t buffer_index, PatternStaging& staging);

}  // namespace bkctl
