#pragma once
// The CPU's compute stream, "CPU". Synchronous: compute() returns when the graph is done, so
// synchronize() has nothing to wait for.
//
// Used by one thread at a time (like every Backend); the thread count is how many worker threads
// its kernels may use, default cpu_default_threads() (the physical cores).

#include "core/device.h"

namespace bk {

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(Device& device);

  std::string name() const override { return "CPU"; }
  Device& device() const override { return *device_; }

  // Evaluates the nodes in graph order. Views need no work (allocation already pointed them at
  // their source); any other op throws Error(unsupported) naming the op and the node.
  void compute(Graph& graph) override;

  int threads() const noexcept { return threads_; }
  // Throws Error(invalid_argument) unless threads >= 1.
  void set_threads(int threads);

 private:
  void compute_node(Tensor& node);

  Device* device_;
  int threads_;
};

// set_threads for a Backend reached only through the interfaces (the CPU reg's
// proc_address("set_threads") returns it). Throws Error(invalid_argument) when backend is not a
// CPU backend or threads < 1.
void cpu_set_threads(Backend& backend, int threads);

}  // namespace bk
