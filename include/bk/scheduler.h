// SPDX-License-Identifier: MIT
#pragma once
// Scheduler: runs one graph across several backends.
//
// Backends come in priority order and the last one must be a CPU device (the fallback that
// reads host memory). schedule() decides, for every tensor, the backend and why (the passes:
// pins -> preallocated tensors and weights -> expansion -> upgrade -> fill-in), then cuts the
// graph into splits, contiguous runs of nodes on one backend, with the inputs each must copy in
// . reserve() adds the compute buffer every backend needs (measure mode, nothing is
// allocated); alloc_graph() allocates those buffers and places every tensor without memory;
// compute() evaluates the splits in order.
//
// Scheduling the same graph again: while nothing the scheduler reads from it has changed
// (its tensors and their order, dtypes, shapes, strides, ops and parameters, sources, views,
// flags, the memory they already have) and no pin or assumed buffer was added, schedule(),
// reserve() and alloc_graph() keep the last decisions and memory plan, checked field by field,
// instead of deriving them again; alloc_graph() still places every tensor. Any change makes
// them derive everything anew. Names and data are not read.
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

#include <cstddef>
#include <memory>
#include <vector>

#include "bk/api.h"
#include "bk/device.h"
#include "bk/graph.h"
#include "bk/sched_report.h"

namespace bk {

struct BK_API SchedOptions {
  bool offload = true;  // let a device take a host-weight op it asks for (Device::offload_op)
  int copies = 1;       // pipeline copies of every split input, >= 1
};

// Where one evaluation's time went, per split (Scheduler::compute_profiled), in host seconds.
struct BK_API SplitTime {
  double copy_s = 0;     // copying the split's inputs in, until they arrived
  double compute_s = 0;  // computing its nodes, until the backend finished
};

class BK_API Scheduler {
 public:
  // Throws Error(invalid_argument) for no backends, a null or repeated one, a last backend that
  // is not a CPU device, or copies < 1.
  explicit Scheduler(std::vector<Backend*> backends, SchedOptions options = {});
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Keeps `tensor` on backend `backend` (an index into the constructor's list): a node runs
  // there, a leaf without memory lives there. Takes effect at the next schedule(). Throws
  // Error(invalid_argument) for a bad index.
  void pin(const Tensor& tensor, size_t backend);
  void clear_pins() noexcept;
  // Plans as if `tensor` (a weight not loaded yet) lived in a buffer of `type`, so that a
  // model's schedule can be explained without its memory. compute() refuses while it has none.
  void assume_buffer(const Tensor& tensor, const BufferType& type);

  void schedule(Graph& graph);
  // schedule(), then the compute buffer bytes per backend (in the constructor's order). Forgets
  // an earlier allocation: call alloc_graph() before computing.
  std::vector<size_t> reserve(Graph& graph);
  void alloc_graph(Graph& graph);
  // Throws Error(invalid_argument) when a leaf still has no memory (see assume_buffer).
  void compute(Graph& graph);
  void synchronize();
  // compute() and synchronize() with every split timed on its own: the host clock around its
  // input copies and around its compute, each waited for, so nothing overlaps and the sum is
  // more than compute() takes when copies pipeline. One entry per split of report().splits.
  // For reports (bkctl bench); compute() is the fast path.
  std::vector<SplitTime> compute_profiled(Graph& graph);

  size_t backend_count() const noexcept;
  Backend& backend(size_t index) const noexcept;
  const SchedOptions& options() const noexcept;
  // Compute buffer bytes of a backend in the last memory plan (0 before reserve/alloc_graph).
  size_t compute_buffer_size(size_t backend) const noexcept;
  // The decision record of the last schedule(): where every node runs and why.
  SchedReport report() const;

  // The implementation, for lib/sched and its tests (sched/scheduler_impl.h); not an API.
  class Impl;
  Impl& impl() noexcept { return *impl_; }
  const Impl& impl() const noexcept { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace bk
