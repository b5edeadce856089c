// SPDX-License-Identifier: MIT
#pragma once
// Scheduler::Impl: the scheduler's state and algorithms behind the public facade
// (bk/scheduler.h, whose comment is the contract). Internal to lib/sched; the scheduler's own
// tests reach it through Scheduler::impl() to check invariants of the passes' output.

#include <chrono>
#include <memory>
#include <span>
#include <vector>

#include "bk/device.h"
#include "bk/graph.h"
#include "bk/scheduler.h"
#include "sched/graph_arenas.h"
#include "sched/graph_signature.h"
#include "sched/sched_graph.h"
#include "sched/sched_state.h"
#include "sched/splits.h"

namespace bk {

// Nested in a BK_API class, so it would be exported unless hidden explicitly.
class __attribute__((visibility("hidden"))) Scheduler::Impl {
 public:
  Impl(std::vector<Backend*> backends, SchedOptions options);
  ~Impl();
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  // The public operations; bk/scheduler.h says what each does and throws.
  void pin(const Tensor& tensor, size_t backend);
  void clear_pins() noexcept;
  void assume_buffer(const Tensor& tensor, const BufferType& type);
  void schedule(Graph& graph);
  std::vector<size_t> reserve(Graph& graph);
  void alloc_graph(Graph& graph);
  void compute(Graph& graph);
  void synchronize();
  std::vector<SplitTime> compute_profiled(Graph& graph);

  // The last schedule.
  std::span<const SchedBackend> backends() const noexcept { return backends_; }
  const SchedOptions& options() const noexcept { return options_; }
  const SchedGraph& sched_graph() const noexcept { return sgraph_; }
  const SchedState& state() const noexcept { return state_; }
  const SplitPlan& split_plan() const noexcept { return plan_; }
  // The last memory plan (reserve() or alloc_graph()); nullptr when the last schedule has none.
  const AllocPlan* memory_plan() const noexcept { return planned_ ? &allocator_.last_plan() : nullptr; }
  size_t compute_buffer_size(size_t backend) const noexcept;
  // Bytes of its backend's compute buffer that split `split` reaches (0 without a plan).
  size_t split_compute_bytes(size_t split) const noexcept;
  // The copy tensor of split input `input` for pipeline copy `copy`.
  Tensor& input_copy(size_t input, int copy) const noexcept;
  int current_copy() const noexcept { return cur_copy_; }

 private:
  AllocRequest& alloc_request();
  void prepare_copies();
  void check_leafs_allocated() const;
  void rewire_sources(bool to_copies) noexcept;
  void build_split_graphs();
  void run_splits();
  void run_split(size_t s);
  double seconds_until_idle();
  void copy_input(const SplitInput& input, size_t index);
  void blocking_copy(const Tensor& src, Tensor& dst);
  Event* slot_event(int backend) noexcept;
  void wait_for_readers(int backend);
  void note_reader(int owner, int reader);
  Backend& backend(int b) const noexcept { return *backends_[static_cast<size_t>(b)].backend; }

  std::vector<SchedBackend> backends_;
  SchedOptions options_;
  std::vector<TensorPin> pins_;
  std::vector<TensorHome> homes_;

  Graph* graph_ = nullptr;
  SchedGraph sgraph_;
  SchedState state_;
  SplitPlan plan_;
  GraphSignature signature_;  // of the graph the last schedule is for; cleared by new constraints
  bool planned_ = false;      // the memory plan is for the last schedule
  bool allocated_ = false;

  GraphArenas allocator_;
  std::vector<BufferType*> arenas_;
  std::vector<int16_t> arena_of_;
  std::vector<uint8_t> copied_;
  std::vector<ExtraTensor> extras_;
  std::vector<ExtraRead> reads_;
  AllocRequest request_;  // the last memory plan's request, over the vectors above
  std::vector<std::unique_ptr<Tensor>> copy_pool_;

  std::vector<Graph> split_graphs_;
  std::vector<std::unique_ptr<Event>> events_;  // per backend * copies; null without events
  bool events_made_ = false;
  std::vector<int16_t> pending_reader_;  // per backend: who may still read its memory
  std::vector<uint8_t> staging_;
  int cur_copy_ = 0;
  std::vector<SplitTime>* profile_ = nullptr;   // set during compute_profiled
  std::chrono::steady_clock::time_point mark_;  // compute_profiled: when the last timing ended
};

}  // namespace bk
