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
#include "sched/sched_graph.h"
#include "sched/sched_state.h"
#include "sched/splits.h"

namespace bk {

class [[gnu::visibility("hidden")]] Scheduler::Impl {  // nested in a BK_API class, so hide it explicitly
 public:
  // Throws Error(invalid_argument) for no backends, a null or repeated one, a last backend that
  // is not a CPU device, or copies < 1.
  Impl(std::vector<Backend*> backends, SchedOptions options);
  ~Impl();
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  // Keeps `tensor` on backends()[backend]: a node runs there, a leaf without memory lives there.
  // Takes effect at the next schedule(). Throws Error(invalid_argument) for a bad index.
  void pin(const Tensor& tensor, size_t backend);
  void clear_pins() noexcept;
  // Plans as if `tensor` (a weight not loaded yet) lived in a buffer of `type`, so that a
  // model's schedule can be explained without its memory. compute() refuses while it has none.
  void assume_buffer(const Tensor& tensor, const BufferType& type);

  void schedule(Graph & graph);
  // schedule(), then the compute buffer bytes per backend (index as backends()). Forgets an
  // earlier allocation: call alloc_graph() before computing.
  std::vector<size_t> reserve(Graph & graph);
  void alloc_graph(Graph & graph);
  // Throws Error(invalid_argument) when a leaf still has no memory (see assume_buffer).
  void compute(Graph & graph);
  void synchronize();
  // compute() and synchronize() with every split timed on its own: the host clock around its
  // input copies and around its compute, each waited for, so nothing overlaps and the sum is
  // more than compute() takes when copies pipeline. One entry per split of split_plan(). For
  // reports (bkctl bench); compute() is the fast path.
  std::vector<SplitTime> compute_profiled(Graph & graph);

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
  AllocRequest alloc_request();
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
  bool planned_ = false;
  bool allocated_ = false;

  GraphArenas allocator_;
  std::vector<BufferType*> arenas_;
  std::vector<int16_t> arena_of_;
  std::vector<uint8_t> copied_;
  std::vector<ExtraTensor> extras_;
  std::vector<ExtraRead> reads_;
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
