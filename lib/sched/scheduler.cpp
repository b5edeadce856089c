// SPDX-License-Identifier: MIT
// Scheduler: construction, schedule, reserve and allocation. Compute is in sched_compute.cpp.
#include "sched/scheduler_impl.h"

#include <fmt/format.h>

#include <algorithm>

#include "bk/error.h"
#include "bk/tensor.h"
#include "sched/passes.h"

namespace bk {
namespace {

std::vector<SchedBackend> describe_backends(const std::vector<Backend*>& backends) {
  if (backends.empty())
    throw Error(ErrorCode::invalid_argument, "the scheduler needs at least one backend (the CPU)");
  std::vector<SchedBackend> out;
  for (Backend* b : backends) {
    if (b == nullptr) throw Error(ErrorCode::invalid_argument, "the scheduler was given a null backend");
    for (const SchedBackend& seen : out) {
      if (seen.backend == b) {
        throw Error(ErrorCode::invalid_argument, fmt::format("backend {} is listed twice", b->name()));
      }
    }
    out.push_back({b, &b->device(), &b->device().buffer_type()});
  }
  if (out.back().device->type() != DeviceType::cpu) {
    throw Error(
        ErrorCode::invalid_argument,
        fmt::format("the last backend must be a CPU device (the fallback for every op), not {}; list the "
                    "CPU last",
                    out.back().device->name()));
  }
  return out;
}

}  // namespace

Scheduler::Impl::Impl(std::vector<Backend*> backends, SchedOptions options)
    : backends_(describe_backends(backends)), options_(options) {
  if (options_.copies < 1) {
    throw Error(
        ErrorCode::invalid_argument,
        fmt::format("the scheduler needs at least 1 copy of each split input, got {}", options_.copies));
  }
  pending_reader_.assign(backends_.size(), -1);
}

Scheduler::Impl::~Impl() { allocator_.release_placements(); }

void Scheduler::Impl::pin(const Tensor& tensor, size_t backend) {
  if (backend >= backends_.size()) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("cannot pin '{}' to backend {}: there are {} backends", tensor.name, backend,
                            backends_.size()));
  }
  pins_.emplace_back(&tensor, static_cast<int>(backend));
  signature_.clear();
}

void Scheduler::Impl::clear_pins() noexcept {
  pins_.clear();
  signature_.clear();
}

void Scheduler::Impl::assume_buffer(const Tensor& tensor, const BufferType& type) {
  homes_.emplace_back(&tensor, &type);
  signature_.clear();
}

// The same graph, unchanged since it was scheduled under the same pins and homes, gets the same
// schedule and memory plan: they are kept (a graph evaluated again, as ggml's allocator keeps
// its plan for a graph that fits it). Placements are made again either way. The signature is
// recorded for a graph scheduled twice in a row, so that graphs scheduled once (a new graph
// each time) do not pay for it.
void Scheduler::Impl::schedule(Graph& graph) {
  allocator_.release_placements();
  allocated_ = false;
  const bool again = graph_ == &graph;
  if (again && signature_.matches(graph)) return;
  signature_.clear();
  planned_ = false;
  split_graphs_.clear();
  graph_ = &graph;
  sgraph_.build(graph);
  state_.prepare(sgraph_, backends_, options_, pins_, homes_);
  run_passes(state_);
  pass_splits(state_, plan_);
  if (again) signature_.record(graph);
}

void Scheduler::Impl::prepare_copies() {
  const size_t needed = plan_.inputs.size() * static_cast<size_t>(options_.copies);
  while (copy_pool_.size() < needed) copy_pool_.push_back(std::make_unique<Tensor>());
  extras_.clear();
  for (size_t k = 0; k < plan_.inputs.size(); ++k) {
    const SplitInput& input = plan_.inputs[k];
    const Tensor& src = sgraph_.tensor(input.tensor);
    for (int c = 0; c < options_.copies; ++c) {
      Tensor& copy = input_copy(k, c);
      copy = Tensor{};
      copy.type = src.type;
      copy.ne = src.ne;
      copy.nb = src.nb;
      copy.flags = kTensorInput;
      copy.name = src.name;
      copy.name += '@';
      copy.name += backends_[static_cast<size_t>(input.to)].device->name();
      if (options_.copies > 1) copy.name += fmt::format("#{}", c);
      extras_.push_back({&copy, input.to});
    }
  }
}

AllocRequest& Scheduler::Impl::alloc_request() {
  arenas_.clear();
  for (const SchedBackend& b : backends_) arenas_.push_back(b.compute_type);
  const auto n = static_cast<size_t>(sgraph_.size());
  arena_of_.assign(n, -1);
  for (int32_t id = 0; id < sgraph_.size(); ++id) {
    if (state_.fixed[static_cast<size_t>(id)] == nullptr && sgraph_.storage(id) == id) {
      arena_of_[static_cast<size_t>(id)] = state_.backend(id);
    }
  }
  copied_.assign(n, 0);
  for (const SourceRewire& r : plan_.rewires)
    copied_[static_cast<size_t>(r.node)] |= static_cast<uint8_t>(1u << r.slot);
  prepare_copies();
  reads_.clear();
  for (const Split& split : plan_.splits) {
    for (int32_t k = split.input_begin; k < split.input_end; ++k) {
      reads_.push_back({split.begin, plan_.inputs[static_cast<size_t>(k)].tensor});
    }
  }
  request_.graph = &sgraph_;
  request_.arenas = arenas_;
  request_.arena_of = arena_of_;
  request_.copied = copied_;
  request_.extras = extras_;
  request_.reads = reads_;
  return request_;
}

std::vector<size_t> Scheduler::Impl::reserve(Graph& graph) {
  schedule(graph);
  if (!planned_) allocator_.plan(alloc_request());
  planned_ = true;
  const AllocPlan& p = allocator_.last_plan();
  std::vector<size_t> sizes(backends_.size());
  for (size_t b = 0; b < sizes.size(); ++b) sizes[b] = p.arena_bytes(b);
  return sizes;
}

void Scheduler::Impl::alloc_graph(Graph& graph) {
  schedule(graph);
  if (planned_) {
    allocator_.allocate_planned(request_);
  } else {
    allocator_.allocate(alloc_request());
  }
  planned_ = allocated_ = true;
}

size_t Scheduler::Impl::compute_buffer_size(size_t backend) const noexcept {
  const AllocPlan* p = memory_plan();
  return p != nullptr && backend < p->chunk_sizes.size() ? p->arena_bytes(backend) : 0;
}

size_t Scheduler::Impl::split_compute_bytes(size_t split) const noexcept {
  const AllocPlan* p = memory_plan();
  if (p == nullptr || split >= plan_.splits.size()) return 0;
  const Split& s = plan_.splits[split];
  const auto arena = static_cast<size_t>(s.backend);
  size_t most = 0;
  for (int32_t i = s.begin; i < s.end; ++i) most = std::max(most, p->extent_bytes(arena, i));
  for (size_t e = 0; e < extras_.size(); ++e) {
    const size_t input = e / static_cast<size_t>(options_.copies);
    if (static_cast<int32_t>(input) < s.input_begin || static_cast<int32_t>(input) >= s.input_end) continue;
    const ArenaPlace& place = p->extra_place[e];
    size_t before = 0;
    for (int32_t c = 0; c < place.chunk; ++c) before += p->chunk_sizes[arena][static_cast<size_t>(c)];
    most = std::max(most, before + place.offset + extras_[e].tensor->nbytes());
  }
  return most;
}

Tensor& Scheduler::Impl::input_copy(size_t input, int copy) const noexcept {
  return *copy_pool_[input * static_cast<size_t>(options_.copies) + static_cast<size_t>(copy)];
}

// The public facade: every call forwards to the implementation.

Scheduler::Scheduler(std::vector<Backend*> backends, SchedOptions options)
    : impl_(std::make_unique<Impl>(std::move(backends), options)) {}
Scheduler::~Scheduler() = default;

void Scheduler::pin(const Tensor& tensor, size_t backend) { impl_->pin(tensor, backend); }
void Scheduler::clear_pins() noexcept { impl_->clear_pins(); }
void Scheduler::assume_buffer(const Tensor& tensor, const BufferType& type) {
  impl_->assume_buffer(tensor, type);
}
void Scheduler::schedule(Graph& graph) { impl_->schedule(graph); }
std::vector<size_t> Scheduler::reserve(Graph& graph) { return impl_->reserve(graph); }
void Scheduler::alloc_graph(Graph& graph) { impl_->alloc_graph(graph); }
void Scheduler::compute(Graph& graph) { impl_->compute(graph); }
void Scheduler::synchronize() { impl_->synchronize(); }
std::vector<SplitTime> Scheduler::compute_profiled(Graph& graph) { return impl_->compute_profiled(graph); }
size_t Scheduler::backend_count() const noexcept { return impl_->backends().size(); }
Backend& Scheduler::backend(size_t index) const noexcept { return *impl_->backends()[index].backend; }
const SchedOptions& Scheduler::options() const noexcept { return impl_->options(); }
size_t Scheduler::compute_buffer_size(size_t backend) const noexcept {
  return impl_->compute_buffer_size(backend);
}

}  // namespace bk
