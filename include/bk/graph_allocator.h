// SPDX-License-Identifier: MIT
#pragma once
// GraphAllocator: gives every tensor of a graph that has no memory yet a place in one buffer
// type, reusing memory by liveness (a tensor's block is taken over once its last reader ran;
// element-wise nodes compute in place where their source dies). The scheduler does the same per
// backend; this is the allocator for a graph that runs on one device.
//
// Ownership: the allocator owns the buffers; tensors it placed point into them until
// release_placements(), the next alloc_graph() or its destruction. The graph must outlive those
// placements (destroying the allocator frees the memory but leaves the tensors pointing at it).
// Errors: Error(invalid_argument) for a tensor larger than the buffer type's max
// size, Error(out_of_memory) when a buffer cannot be had. Not thread-safe.

#include <cstddef>
#include <memory>

#include "bk/api.h"
#include "bk/buffer.h"
#include "bk/graph.h"

namespace bk {

class GraphArenas;

class BK_API GraphAllocator {
 public:
  GraphAllocator();
  ~GraphAllocator();
  GraphAllocator(const GraphAllocator&) = delete;
  GraphAllocator& operator=(const GraphAllocator&) = delete;

  // Bytes the graph would need in `type` (measure mode: nothing is allocated or placed).
  size_t reserve(const Graph& graph, BufferType& type);
  // Allocates (growing its buffers when the graph needs more) and places every tensor without
  // memory; views point into their sources.
  void alloc_graph(const Graph& graph, BufferType& type);
  // Forgets where tensors were placed (their buffer and data back to null).
  void release_placements() noexcept;

 private:
  std::unique_ptr<GraphArenas> arenas_;
};

}  // namespace bk
