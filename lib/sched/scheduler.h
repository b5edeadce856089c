#pragma once
// Scheduler: runs one graph across several backends.
//
// Backends come in priority order and the last one must be a CPU device (the fallback that
// reads host memory). schedule() decides, for every tensor, the backend and why (passes.h:
// pins -> preallocated tensors and weights -> expansion -> upgrade -> fill-in), then cuts the
// graph into splits, contiguous runs of nodes on one backend, with the inputs each must copy in
// (splits.h). reserve() adds the compute buffer every backend needs (measure mode, nothing is
// allocated); alloc_graph() allocates those buffers and places every tensor without memory;
// compute() evaluates the splits in order.
//
// Copies and pipelining: each split input has `copies` copies, used in turn by successive
// compute() calls, so that a backend can start the next evaluation while another still reads
// the previous one. Before a copy is overwritten the scheduler waits for its last reader: with
// an Event where the device has them, else by synchronizing that backend. A backend whose
// memory another one copies asynchronously, or reads in place, is not given new work until that
// reader finished.
//
// compute() is asynchronous (it returns when the work is submitted; synchronize() waits) and
// points the sources of nodes that read a copied input at the copy for the duration of the
// call only: backends read a graph's tensors while compute() runs, and the caller's graph is
// left as it was. Outputs and inputs keep their own tensors, so callers set inputs and read
// outputs as usual (Buffer::set_tensor / get_tensor) between alloc_graph() and compute().
//
// Ownership: backends, graphs and assumed buffer types are the caller's and must outlive the
// scheduler's use of them; the scheduler owns the compute buffers and the copy tensors.
// Errors: Error(invalid_argument) for bad arguments and graphs that cannot be placed,
// Error(unsupported) for nodes no backend runs, Error(out_of_memory) from buffer allocation,
// and whatever a backend throws from compute. Not thread-safe: one thread drives a scheduler.
// No compile-time limits on backends, splits, inputs or copies.

#include <chrono>
#include <memory>
#include <span>
#include <vector>

#include "core/device.h"
#include "core/graph.h"
#include "sched/graph_allocator.h"
#include "sched/sched_graph.h"
#include "sched/sched_state.h"
#include "sched/splits.h"

namespace bk {

// Where one evaluation's time went, per split (Scheduler::compute_profiled), in host seconds.
struct SplitTime {
  double copy_s = 0;     // copying the split's inputs in, until they arrived
  double compute_s = 0;  // computing its nodes, until the backend finished
};

class Scheduler {
 public:
  // Throws Error(invalid_argument) for no backends, a null or repeated one, a last backend that
  // is not a CPU device, or copies < 1.
  explicit Scheduler(std::vector<Backend*> backends, SchedOptions options = {});
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Keeps `tensor` on backends()[backend]: a node runs there, a leaf without memory lives there.
  // Takes effect at the next schedule(). Throws Error(invalid_argument) for a bad index.
  void pin(const Tensor& tensor, size_t backend);
  void clear_pins() noexcept;
  // Plans as if `tensor` (a weight not loaded yet) lived in a buffer of `type`, so that a
  // model's schedule can be explained without its memory. compute() refuses while it has none.
  void assume_buffer(const Tensor& tensor, const BufferType& type);

  void schedule(Graph& graph);
  // schedule(), then the compute buffer bytes per backend (index as backends()). Forgets an
  // earlier allocation: call alloc_graph() before computing.
  std::vector<size_t> reserve(Graph& graph);
  void alloc_graph(Graph& graph);
  // Throws Error(invalid_argument) when a leaf still has no memory (see assume_buffer).
  void compute(Graph& graph);
  void synchronize();
  // compute() and synchronize() with every split timed on its own: the host clock around its
  // input copies and around its compute, each waited for, so nothing overlaps and the sum is
  // more than compute() takes when copies pipeline. One entry per split of split_plan(). For
  // reports (bkctl bench); compute() is the fast path.
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

  GraphAllocator allocator_;
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
