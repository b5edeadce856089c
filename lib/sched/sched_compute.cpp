// SPDX-License-Identifier: MIT
// Scheduler: evaluating the splits (copies, events, pipelining).
#include <fmt/format.h>

#include <chrono>

#include "bk/error.h"
#include "bk/tensor.h"
#include "sched/scheduler_impl.h"

namespace bk {
void Scheduler::Impl::check_leafs_allocated() const {
  for (int32_t id = 0; id < sgraph_.leaf_count(); ++id) {
    const Tensor& leaf = sgraph_.tensor(id);
    if (leaf.data != nullptr) continue;
    throw Error(
        ErrorCode::invalid_argument,
        fmt::format("'{}' has no memory: it was only assumed to live in '{}'; allocate it (and set its "
                    "data) before compute",
                    leaf.name, state_.fixed[static_cast<size_t>(id)]->name()));
  }
}

void Scheduler::Impl::rewire_sources(bool to_copies) noexcept {
  for (const SourceRewire& r : plan_.rewires) {
    Tensor& node = sgraph_.tensor(r.node);
    const auto slot = static_cast<size_t>(r.slot);
    node.src[slot] = to_copies ? &input_copy(static_cast<size_t>(r.input), cur_copy_)
                               : &sgraph_.tensor(sgraph_.sources(r.node)[slot]);
  }
}

void Scheduler::Impl::build_split_graphs() {
  if (!split_graphs_.empty() || plan_.splits.empty()) return;
  const auto nodes = graph_->nodes();
  for (const Split& s : plan_.splits) {
    split_graphs_.push_back(
        Graph::borrow(nodes.subspan(static_cast<size_t>(s.begin), static_cast<size_t>(s.end - s.begin))));
  }
}

Event* Scheduler::Impl::slot_event(int b) noexcept {
  if (events_.empty()) return nullptr;
  return events_[static_cast<size_t>(b) * static_cast<size_t>(options_.copies) +
                 static_cast<size_t>(cur_copy_)]
      .get();
}

void Scheduler::Impl::wait_for_readers(int b) {
  int16_t& reader = pending_reader_[static_cast<size_t>(b)];
  if (reader < 0) return;
  backend(reader).synchronize();
  reader = -1;
}

// Backend `reader` may still read `owner`'s memory after this call returns (an asynchronous copy,
// or a split reading a result in place): `owner` gets no new work until `reader` finished. One
// reader is tracked per owner, so an earlier, different reader is waited for now.
void Scheduler::Impl::note_reader(int owner, int reader) {
  int16_t& pending = pending_reader_[static_cast<size_t>(owner)];
  if (pending >= 0 && pending != reader) backend(pending).synchronize();
  pending = static_cast<int16_t>(reader);
}

void Scheduler::Impl::blocking_copy(const Tensor& src, Tensor& dst) {
  if (dst.buffer->copy_tensor(src, dst)) return;
  const size_t n = src.nbytes();
  staging_.resize(n);
  src.buffer->get_tensor(src, staging_.data(), 0, n);
  dst.buffer->set_tensor(dst, staging_.data(), 0, n);
}

void Scheduler::Impl::copy_input(const SplitInput& input, size_t index) {
  const Tensor& src = sgraph_.tensor(input.tensor);
  Tensor& dst = input_copy(index, cur_copy_);
  Backend& to = backend(input.to);
  Event* slot = slot_event(input.to);
  const int32_t storage = sgraph_.storage(input.tensor);
  // Leafs that are not weights hold the caller's data: copy them now, before it can change.
  const bool caller_data = sgraph_.is_leaf(storage) && !sgraph_.tensor(storage).has_flag(kTensorWeight);
  if (!caller_data) {
    if (slot != nullptr)
      to.wait(*slot);
    else
      to.synchronize();
    if (to.copy_tensor_async(backend(input.from), src, dst)) {
      note_reader(input.from, input.to);
      return;
    }
    backend(input.from).synchronize();
  }
  if (slot != nullptr)
    slot->synchronize();
  else
    to.synchronize();
  blocking_copy(src, dst);
}

void Scheduler::Impl::run_split(size_t s) {
  const Split& split = plan_.splits[s];
  wait_for_readers(split.backend);
  for (int32_t d = split.dep_begin; d < split.dep_end; ++d)
    backend(plan_.deps[static_cast<size_t>(d)]).synchronize();
  for (int32_t k = split.input_begin; k < split.input_end; ++k) {
    copy_input(plan_.inputs[static_cast<size_t>(k)], static_cast<size_t>(k));
  }
  if (profile_) (*profile_)[s].copy_s = seconds_until_idle();
  backend(split.backend).compute(split_graphs_[s]);
  if (profile_) (*profile_)[s].compute_s = seconds_until_idle();
  for (int32_t d = split.dep_begin; d < split.dep_end; ++d)
    note_reader(plan_.deps[static_cast<size_t>(d)], split.backend);
  // After every split, not only those that copy: a later split on the same backend reads the
  // copies an earlier one made, and the event must mark the last reader of this copy slot.
  if (Event* e = slot_event(split.backend)) e->record(backend(split.backend));
}

void Scheduler::Impl::run_splits() {
  for (size_t s = 0; s < plan_.splits.size(); ++s) run_split(s);
}

void Scheduler::Impl::compute(Graph& graph) {
  if (!allocated_ || graph_ != &graph) alloc_graph(graph);
  check_leafs_allocated();
  if (!events_made_ && options_.copies > 1) {
    for (const SchedBackend& b : backends_) {
      for (int c = 0; c < options_.copies; ++c)
        events_.push_back(b.device->caps().events ? b.device->create_event() : nullptr);
    }
    events_made_ = true;
  }
  build_split_graphs();
  // The caller's graph is left as it was, also when a backend throws.
  rewire_sources(true);
  try {
    run_splits();
  } catch (...) {
    rewire_sources(false);
    throw;
  }
  rewire_sources(false);
  cur_copy_ = (cur_copy_ + 1) % options_.copies;
}

std::vector<SplitTime> Scheduler::Impl::compute_profiled(Graph& graph) {
  synchronize();
  if (!allocated_ || graph_ != &graph) alloc_graph(graph);
  std::vector<SplitTime> times(plan_.splits.size());
  profile_ = &times;
  mark_ = std::chrono::steady_clock::now();
  try {
    compute(graph);
  } catch (...) {
    profile_ = nullptr;
    throw;
  }
  profile_ = nullptr;
  synchronize();
  return times;
}

// Waits for every backend, then returns the seconds since the last mark and marks now.
double Scheduler::Impl::seconds_until_idle() {
  synchronize();
  const auto now = std::chrono::steady_clock::now();
  const double seconds = std::chrono::duration<double>(now - mark_).count();
  mark_ = now;
  return seconds;
}

void Scheduler::Impl::synchronize() {
  for (const SchedBackend& b : backends_) b.backend->synchronize();
  for (int16_t& r : pending_reader_) r = -1;
}

}  // namespace bk
