// SPDX-License-Identifier: MIT
// The public GraphAllocator: one arena of GraphArenas.
#include "bk/graph_allocator.h"

#include "sched/graph_arenas.h"

namespace bk {

GraphAllocator::GraphAllocator() : arenas_(std::make_unique<GraphArenas>()) {}
GraphAllocator::~GraphAllocator() = default;

size_t GraphAllocator::reserve(const Graph& graph, BufferType& type) { return arenas_->reserve(graph, type); }
void GraphAllocator::alloc_graph(const Graph& graph, BufferType& type) { arenas_->alloc_graph(graph, type); }
void GraphAllocator::release_placements() noexcept { arenas_->release_placements(); }

}  // namespace bk
