// SPDX-License-Identifier: MIT
#include "sched/arena_planner.h"

#include <fmt/format.h>

#include <algorithm>

#include "bk/error.h"
#include "bk/units.h"

namespace bk {

void ArenaPlanner::reset(size_t alignment, size_t max_size) {
  alignment_ = alignment == 0 ? 1 : alignment;
  max_size_ = max_size / alignment_ * alignment_;
  for (Chunk& c : chunks_) c.free.clear();
  chunks_.clear();
  high_.clear();
}

size_t ArenaPlanner::total() const noexcept {
  size_t sum = 0;
  for (size_t h : high_) sum += h;
  return sum;
}

bool ArenaPlanner::take_free(size_t size, ArenaPlace& place) {
  Chunk* best_chunk = nullptr;
  size_t best_index = 0;
  for (Chunk& c : chunks_) {
    for (size_t i = 0; i < c.free.size(); ++i) {
      const Block& b = c.free[i];
      if (b.size >= size && (best_chunk == nullptr || b.size < best_chunk->free[best_index].size)) {
        best_chunk = &c;
        best_index = i;
      }
    }
  }
  if (best_chunk == nullptr) return false;
  Block& b = best_chunk->free[best_index];
  place = {static_cast<int32_t>(best_chunk - chunks_.data()), b.offset};
  b.offset += size;
  b.size -= size;
  if (b.size == 0) best_chunk->free.erase(best_chunk->free.begin() + static_cast<std::ptrdiff_t>(best_index));
  return true;
}

ArenaPlace ArenaPlanner::take_end(size_t size) {
  size_t i = 0;
  while (i < chunks_.size() && max_size_ - chunks_[i].end < size) ++i;
  if (i == chunks_.size()) {
    chunks_.emplace_back();
    high_.push_back(0);
  }
  Chunk& c = chunks_[i];
  const ArenaPlace place{static_cast<int32_t>(i), c.end};
  c.end += size;
  high_[i] = std::max(high_[i], c.end);
  return place;
}

ArenaPlace ArenaPlanner::alloc(size_t size) {
  size = aligned(size);
  if (size > max_size_) {
    throw Error(
        ErrorCode::invalid_argument,
        fmt::format("a tensor of {} ({} bytes) is larger than the {} one buffer of this type can hold; "
                    "split the tensor or use a device with larger buffers",
                    format_bytes(size), size, format_bytes(max_size_)));
  }
  if (size == 0) {
    if (chunks_.empty()) take_end(0);
    return {0, 0};
  }
  ArenaPlace place;
  if (take_free(size, place)) return place;
  return take_end(size);
}

void ArenaPlanner::free(ArenaPlace place, size_t size) {
  size = aligned(size);
  if (size == 0 || place.chunk < 0) return;
  Chunk& c = chunks_[static_cast<size_t>(place.chunk)];
  auto it = std::lower_bound(c.free.begin(), c.free.end(), place.offset,
                             [](const Block& b, size_t offset) { return b.offset < offset; });
  Block block{place.offset, size};
  if (it != c.free.begin() && std::prev(it)->offset + std::prev(it)->size == block.offset) {
    --it;
    block = {it->offset, it->size + size};
    it = c.free.erase(it);
  }
  if (it != c.free.end() && block.offset + block.size == it->offset) {
    block.size += it->size;
    it = c.free.erase(it);
  }
  if (block.offset + block.size == c.end) {
    c.end = block.offset;
  } else {
    c.free.insert(it, block);
  }
}

}  // namespace bk
