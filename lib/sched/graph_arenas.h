// SPDX-License-Identifier: MIT
#pragma once
// GraphArenas: plans and allocates the memory of a graph's tensors from their liveness.
//
// Memory is planned per arena (one buffer type each). A tensor's block is reused once its last
// reader ran; an element-wise node (add, mul, scale, silu, gelu) takes its source's block in
// place when that source dies there and has the same dtype, shape and size; views and cpy
// nodes use their source's memory. Leafs, inputs, outputs, weights and extras (split input
// copies) are never reused. An arena whose plan exceeds its buffer type's max size is split into
// chunks, allocated as the parts of a MultiBuffer.
//
// plan() is measure mode: offsets and sizes, no memory touched. allocate() plans, grows the
// arenas' buffers when the plan needs more (freeing the old ones first) and places every
// planned tensor (Buffer::place_tensor, then Buffer::init_view for views). Tensors it placed
// keep pointing into its buffers until release_placements() or the next allocate(); the
// buffers live as long as the allocator. Throws Error(invalid_argument) for a tensor larger
// than its buffer type's max size, Error(out_of_memory) when a buffer cannot be had. Not
// thread-safe.

#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "core/multi_buffer.h"
#include "sched/arena_planner.h"
#include "sched/sched_graph.h"

namespace bk {

struct ExtraTensor {
  Tensor* tensor = nullptr;
  int16_t arena = -1;
};

// A read outside the nodes (a split copying its input): tensor id read just before node index.
struct ExtraRead {
  int32_t before_node = 0;
  int32_t tensor = -1;
};

struct AllocRequest {
  const SchedGraph* graph = nullptr;
  std::span<BufferType* const> arenas;
  std::span<const int16_t> arena_of;    // per id: its arena; -1: not ours (has memory, or a view)
  std::span<const uint8_t> copied;      // per id: bit j set = source slot j is read from a copy
  std::span<const ExtraTensor> extras;  // placed first and kept
  std::span<const ExtraRead> reads;     // sorted by before_node
};

struct NodeExtent {
  int32_t chunk = -1;  // -1: the node placed nothing
  size_t end = 0;      // one past its block in that chunk
};

struct AllocPlan {
  std::vector<ArenaPlace> place;                 // per id
  std::vector<ArenaPlace> extra_place;           // per extra
  std::vector<NodeExtent> node_extent;           // per node index
  std::vector<std::vector<size_t>> chunk_sizes;  // per arena

  size_t arena_bytes(size_t arena) const noexcept;
  // Bytes of the arena up to the end of what node i placed (chunks before it counted whole).
  size_t extent_bytes(size_t arena, int32_t node_index) const noexcept;
};

class GraphArenas {
 public:
  const AllocPlan& plan(const AllocRequest& request);
  const AllocPlan& allocate(const AllocRequest& request);
  // allocate() without planning again: the last plan, for the request it was made for.
  const AllocPlan& allocate_planned(const AllocRequest& request);
  // Forgets where this allocator put tensors (buffer and data back to null), except those
  // placed in another buffer since.
  void release_placements() noexcept;

  // The whole graph in one buffer type (no scheduler): every tensor without memory.
  size_t reserve(const Graph& graph, BufferType& type);
  void alloc_graph(const Graph& graph, BufferType& type);

  // The current buffers of an arena; nullptr before the first allocate().
  const MultiBuffer* buffers(size_t arena) const noexcept;
  const AllocPlan& last_plan() const noexcept { return plan_; }

 private:
  void count_uses(const AllocRequest& r);
  void place_leading(const AllocRequest& r);
  void place_node(const AllocRequest& r, int32_t id);
  bool try_in_place(const AllocRequest& r, int32_t id);
  void release(const AllocRequest& r, int32_t id);
  void measure_sizes(const AllocRequest& r);
  size_t size_of(int32_t id) const;
  void grow_buffers(const AllocRequest& r);
  void place_tensors(const AllocRequest& r);
  AllocRequest single_type_request(const Graph& graph, BufferType& type);

  std::vector<ArenaPlanner> planners_;
  std::vector<size_t> sizes_;  // per id: aligned bytes in its arena (0: not ours)
  std::vector<int32_t> uses_;
  std::vector<uint8_t> keep_;
  std::vector<uint8_t> moved_;
  AllocPlan plan_;
  std::vector<std::unique_ptr<MultiBuffer>> buffers_;
  std::vector<std::pair<Tensor*, Buffer*>> placed_;  // and the buffer it was placed in
  // For reserve() / alloc_graph() without a scheduler.
  SchedGraph single_graph_;
  std::vector<int16_t> single_arena_of_;
  BufferType* single_type_ = nullptr;
};

}  // namespace bk
