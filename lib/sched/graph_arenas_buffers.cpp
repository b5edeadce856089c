// SPDX-License-Identifier: MIT
// GraphArenas: the arenas' buffers, placing tensors, and the single-buffer-type helpers.
#include "sched/graph_arenas.h"

#include "bk/tensor.h"

namespace bk {
namespace {

bool fits(const MultiBuffer* buffers, const std::vector<size_t>& chunks) {
  if (buffers == nullptr || buffers->parts().size() < chunks.size()) return false;
  for (size_t c = 0; c < chunks.size(); ++c) {
    if (buffers->parts()[c]->size() < chunks[c]) return false;
  }
  return true;
}

}  // namespace

void GraphArenas::release_placements() noexcept {
  for (const auto& [t, buffer] : placed_) {
    if (t->buffer != buffer) continue;  // placed elsewhere since, by its owner: not ours to undo
    t->buffer = nullptr;
    t->data = nullptr;
  }
  placed_.clear();
}

const MultiBuffer* GraphArenas::buffers(size_t arena) const noexcept {
  return arena < buffers_.size() ? buffers_[arena].get() : nullptr;
}

void GraphArenas::grow_buffers(const AllocRequest& r) {
  buffers_.resize(r.arenas.size());
  for (size_t a = 0; a < r.arenas.size(); ++a) {
    const std::vector<size_t>& chunks = plan_.chunk_sizes[a];
    if (chunks.empty() || fits(buffers_[a].get(), chunks)) continue;
    buffers_[a].reset();  // free first: the device may not hold the old and the new at once
    std::vector<std::unique_ptr<Buffer>> parts;
    for (size_t size : chunks) parts.push_back(r.arenas[a]->alloc(size));
    buffers_[a] = std::make_unique<MultiBuffer>(std::move(parts));
    buffers_[a]->set_usage(BufferUsage::compute);
  }
}

void GraphArenas::place_tensors(const AllocRequest& r) {
  const SchedGraph& g = *r.graph;
  auto place = [this](Tensor& t, size_t arena, const ArenaPlace& p) {
    buffers_[arena]->parts()[static_cast<size_t>(p.chunk)]->place_tensor(t, p.offset);
    placed_.emplace_back(&t, t.buffer);
  };
  for (size_t i = 0; i < r.extras.size(); ++i) {
    place(*r.extras[i].tensor, static_cast<size_t>(r.extras[i].arena), plan_.extra_place[i]);
  }
  for (int32_t id = 0; id < g.size(); ++id) {
    const ArenaPlace& p = plan_.place[static_cast<size_t>(id)];
    if (p.chunk >= 0) place(g.tensor(id), static_cast<size_t>(r.arena_of[static_cast<size_t>(id)]), p);
  }
  for (int32_t id = g.leaf_count(); id < g.size(); ++id) {
    Tensor& t = g.tensor(id);
    if (g.storage(id) == id || t.buffer != nullptr || g.tensor(g.storage(id)).buffer == nullptr) continue;
    Buffer::init_view(t);
    placed_.emplace_back(&t, t.buffer);
  }
}

const AllocPlan& GraphArenas::allocate(const AllocRequest& r) {
  plan(r);
  return allocate_planned(r);
}

const AllocPlan& GraphArenas::allocate_planned(const AllocRequest& r) {
  release_placements();
  grow_buffers(r);
  place_tensors(r);
  return plan_;
}

AllocRequest GraphArenas::single_type_request(const Graph& graph, BufferType& type) {
  release_placements();
  single_graph_.build(graph);
  single_type_ = &type;
  single_arena_of_.assign(static_cast<size_t>(single_graph_.size()), -1);
  for (int32_t id = 0; id < single_graph_.size(); ++id) {
    const Tensor& t = single_graph_.tensor(id);
    const Tensor& storage = single_graph_.tensor(single_graph_.storage(id));
    if (single_graph_.storage(id) == id && t.buffer == nullptr && storage.buffer == nullptr) {
      single_arena_of_[static_cast<size_t>(id)] = 0;
    }
  }
  AllocRequest r;
  r.graph = &single_graph_;
  r.arenas = std::span<BufferType* const>(&single_type_, 1);
  r.arena_of = single_arena_of_;
  return r;
}

size_t GraphArenas::reserve(const Graph& graph, BufferType& type) {
  return plan(single_type_request(graph, type)).arena_bytes(0);
}

void GraphArenas::alloc_graph(const Graph& graph, BufferType& type) {
  allocate(single_type_request(graph, type));
}

}  // namespace bk
