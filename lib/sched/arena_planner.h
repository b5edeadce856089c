// SPDX-License-Identifier: MIT
#pragma once
// ArenaPlanner: plans offsets inside the memory of one buffer type, without touching memory.
//
// Blocks are taken best-fit from freed space, else from the end of the first chunk that stays
// within max_size, else from a new chunk; freed blocks merge with their neighbours, and a block
// freed at the end of a chunk shrinks it. A chunk becomes one Buffer when the plan is
// allocated, so that no buffer exceeds the buffer type's max size. Sizes are rounded up to the
// alignment. Not thread-safe.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace bk {

struct ArenaPlace {
  int32_t chunk = -1;  // -1: not placed
  size_t offset = 0;
};

class ArenaPlanner {
 public:
  // alignment: a power of two; max_size: the most one chunk may hold.
  void reset(size_t alignment, size_t max_size);
  // Throws Error(invalid_argument) when size exceeds max_size.
  ArenaPlace alloc(size_t size);
  void free(ArenaPlace place, size_t size);

  size_t aligned(size_t size) const noexcept { return (size + alignment_ - 1) & ~(alignment_ - 1); }
  // The largest extent each chunk reached: the buffer sizes the plan needs.
  std::span<const size_t> chunk_sizes() const noexcept { return high_; }
  size_t total() const noexcept;

 private:
  struct Block {
    size_t offset, size;
  };
  struct Chunk {
    std::vector<Block> free;  // sorted by offset, never touching `end`
    size_t end = 0;
  };
  bool take_free(size_t size, ArenaPlace& place);
  ArenaPlace take_end(size_t size);

  size_t alignment_ = 1;
  size_t max_size_ = SIZE_MAX;
  std::vector<Chunk> chunks_;
  std::vector<size_t> high_;
};

}  // namespace bk
