// SPDX-License-Identifier: MIT
// GraphArenas: liveness and planning (measure mode). Buffers and placement are in
// graph_allocator_buffers.cpp.
#include "sched/graph_arenas.h"

#include "bk/tensor.h"

namespace bk {
namespace {

bool is_elementwise(Op op) noexcept {
  return op == Op::add || op == Op::mul || op == Op::scale || op == Op::silu || op == Op::gelu;
}

bool slot_copied(const AllocRequest& r, int32_t id, size_t slot) noexcept {
  return !r.copied.empty() && (r.copied[static_cast<size_t>(id)] & (1u << slot)) != 0;
}

constexpr uint32_t kKeepFlags = kTensorInput | kTensorOutput | kTensorWeight;

}  // namespace

size_t AllocPlan::arena_bytes(size_t arena) const noexcept {
  size_t total = 0;
  for (size_t c : chunk_sizes[arena]) total += c;
  return total;
}

size_t AllocPlan::extent_bytes(size_t arena, int32_t node_index) const noexcept {
  const NodeExtent& e = node_extent[static_cast<size_t>(node_index)];
  if (e.chunk < 0) return 0;
  size_t before = 0;
  for (int32_t c = 0; c < e.chunk; ++c) before += chunk_sizes[arena][static_cast<size_t>(c)];
  return before + e.end;
}

size_t GraphArenas::size_of(int32_t id) const { return sizes_[static_cast<size_t>(id)]; }

// Each tensor's aligned size in its arena, once: the planner asks for it several times a node.
void GraphArenas::measure_sizes(const AllocRequest& r) {
  sizes_.assign(static_cast<size_t>(r.graph->size()), 0);
  for (int32_t id = 0; id < r.graph->size(); ++id) {
    const int16_t a = r.arena_of[static_cast<size_t>(id)];
    if (a < 0) continue;
    sizes_[static_cast<size_t>(id)] = planners_[static_cast<size_t>(a)].aligned(
        r.arenas[static_cast<size_t>(a)]->alloc_size(r.graph->tensor(id)));
  }
}

void GraphArenas::count_uses(const AllocRequest& r) {
  const SchedGraph& g = *r.graph;
  const auto n = static_cast<size_t>(g.size());
  uses_.assign(n, 0);
  keep_.assign(n, 0);
  moved_.assign(n, 0);
  for (int32_t id = 0; id < g.size(); ++id) {
    const Tensor& t = g.tensor(id);
    if (g.is_leaf(id) || (t.flags & kKeepFlags) != 0) keep_[static_cast<size_t>(g.storage(id))] = 1;
    if (g.is_leaf(id) || op_is_view(t.op)) continue;
    const auto& sources = g.sources(id);
    for (size_t j = 0; j < sources.size(); ++j) {
      if (sources[j] >= 0 && !slot_copied(r, id, j)) ++uses_[static_cast<size_t>(g.storage(sources[j]))];
    }
  }
  for (const ExtraRead& read : r.reads) ++uses_[static_cast<size_t>(g.storage(read.tensor))];
}

void GraphArenas::place_leading(const AllocRequest& r) {
  plan_.extra_place.resize(r.extras.size());
  for (size_t i = 0; i < r.extras.size(); ++i) {
    const ExtraTensor& e = r.extras[i];
    ArenaPlanner& p = planners_[static_cast<size_t>(e.arena)];
    plan_.extra_place[i] = p.alloc(p.aligned(r.arenas[static_cast<size_t>(e.arena)]->alloc_size(*e.tensor)));
  }
  for (int32_t id = 0; id < r.graph->leaf_count(); ++id) {
    const int16_t a = r.arena_of[static_cast<size_t>(id)];
    if (a >= 0) plan_.place[static_cast<size_t>(id)] = planners_[static_cast<size_t>(a)].alloc(size_of(id));
  }
}

bool GraphArenas::try_in_place(const AllocRequest& r, int32_t id) {
  const SchedGraph& g = *r.graph;
  const Tensor& node = g.tensor(id);
  if (!is_elementwise(node.op) || !node.is_contiguous()) return false;
  const auto& sources = g.sources(id);
  for (size_t j = 0; j < sources.size(); ++j) {
    const int32_t s = sources[j];
    if (s < 0 || slot_copied(r, id, j) || g.storage(s) != s) continue;
    const auto si = static_cast<size_t>(s);
    const Tensor& src = g.tensor(s);
    int32_t reads_here = 0;
    for (size_t k = 0; k < sources.size(); ++k) {
      reads_here += (sources[k] >= 0 && !slot_copied(r, id, k) && g.storage(sources[k]) == s) ? 1 : 0;
    }
    if (keep_[si] || moved_[si] || uses_[si] != reads_here || plan_.place[si].chunk < 0) continue;
    if (r.arena_of[si] != r.arena_of[static_cast<size_t>(id)] || src.type != node.type || src.ne != node.ne ||
        !src.is_contiguous() || size_of(s) != size_of(id)) {
      continue;
    }
    plan_.place[static_cast<size_t>(id)] = plan_.place[si];
    moved_[si] = 1;
    return true;
  }
  return false;
}

void GraphArenas::place_node(const AllocRequest& r, int32_t id) {
  const int16_t a = r.arena_of[static_cast<size_t>(id)];
  const int32_t index = id - r.graph->leaf_count();
  if (a < 0 || r.graph->storage(id) != id) return;
  if (!try_in_place(r, id))
    plan_.place[static_cast<size_t>(id)] = planners_[static_cast<size_t>(a)].alloc(size_of(id));
  const ArenaPlace& p = plan_.place[static_cast<size_t>(id)];
  plan_.node_extent[static_cast<size_t>(index)] = {p.chunk, p.offset + size_of(id)};
}

void GraphArenas::release(const AllocRequest& r, int32_t id) {
  const int32_t st = r.graph->storage(id);
  const auto i = static_cast<size_t>(st);
  if (--uses_[i] != 0 || keep_[i] || moved_[i] || r.arena_of[i] < 0 || plan_.place[i].chunk < 0) return;
  planners_[static_cast<size_t>(r.arena_of[i])].free(plan_.place[i], size_of(st));
}

const AllocPlan& GraphArenas::plan(const AllocRequest& r) {
  const SchedGraph& g = *r.graph;
  planners_.resize(r.arenas.size());
  for (size_t a = 0; a < r.arenas.size(); ++a)
    planners_[a].reset(r.arenas[a]->alignment(), r.arenas[a]->max_size());
  plan_.place.assign(static_cast<size_t>(g.size()), ArenaPlace{});
  plan_.node_extent.assign(static_cast<size_t>(g.node_count()), NodeExtent{});
  measure_sizes(r);
  count_uses(r);
  place_leading(r);
  size_t next_read = 0;
  for (int32_t i = 0; i < g.node_count(); ++i) {
    for (; next_read < r.reads.size() && r.reads[next_read].before_node <= i; ++next_read) {
      release(r, r.reads[next_read].tensor);
    }
    const int32_t id = g.node_id(i);
    place_node(r, id);
    if (g.is_view(id)) continue;
    const auto& sources = g.sources(id);
    for (size_t j = 0; j < sources.size(); ++j) {
      if (sources[j] >= 0 && !slot_copied(r, id, j)) release(r, sources[j]);
    }
  }
  plan_.chunk_sizes.resize(r.arenas.size());
  for (size_t a = 0; a < r.arenas.size(); ++a) {
    const auto sizes = planners_[a].chunk_sizes();
    plan_.chunk_sizes[a].assign(sizes.begin(), sizes.end());
  }
  return plan_;
}

}  // namespace bk
