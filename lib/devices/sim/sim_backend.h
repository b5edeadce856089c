// SPDX-License-Identifier: MIT
#pragma once
// The stream of a simulated device. compute() checks that every node is one the device declares,
// then runs the CPU device's kernels on the simulated memory.
//
// Synchronous by default, like the CPU's. With async=yes in BK_SIM_DEVICES the work runs on a
// SimQueue: compute() snapshots the nodes (shapes, strides, sources and data pointers as they are
// at the call, which is what a real device records into a command buffer) and returns at once;
// copy_tensor_async() from another simulated or a host stream is queued behind the source
// stream's work so far; wait() queues a wait for the event; synchronize() drains the queue and
// rethrows the first error a job met. The faults of sim_config.h (wrong_results, hang) are
// injected here. SimEvent marks a point in such a queue (trivially reached
// for a synchronous stream). Internal to the sim device.

#include <chrono>
#include <cstdint>
#include <memory>

#include "bk/device.h"
#include "devices/sim/sim_queue.h"

namespace bk {

class SimDevice;

class SimBackend final : public Backend {
 public:
  explicit SimBackend(SimDevice& device);
  ~SimBackend() override;

  std::string name() const override;
  Device& device() const override;
  // Throws Error(unsupported) naming the node for an op or dtype the device does not declare;
  // the CPU kernels' own errors come from compute() when synchronous, else from synchronize().
  void compute(Graph& graph) override;
  void set_tensor_async(Tensor& tensor, const void* src, size_t offset, size_t size) override;
  void get_tensor_async(const Tensor& tensor, void* dst, size_t offset, size_t size) override;
  // Queued on an asynchronous stream (false on a synchronous one); throws
  // Error(invalid_argument) at once when the sizes differ.
  bool copy_tensor_async(Backend& src_backend, const Tensor& src, Tensor& dst) override;
  void synchronize() override;
  void wait(Event& event) override;

  // The queue of an asynchronous stream, nullptr for a synchronous one.
  SimQueue* queue() const noexcept { return queue_.get(); }

 private:
  void check_ops(const Graph& graph) const;

  SimDevice* device_;
  std::unique_ptr<Backend> cpu_;
  long long computes_ = 0;                               // graphs computed so far, for jitter=N
  std::chrono::steady_clock::time_point first_compute_;  // for onset=DUR
  std::unique_ptr<SimQueue> queue_;                      // last: its jobs use cpu_, so it is destroyed first
};

class SimEvent final : public Event {
 public:
  explicit SimEvent(SimDevice& device) noexcept : device_(&device) {}
  Device& device() const override;
  // Marks the work submitted to the backend's queue so far (nothing for a synchronous stream).
  void record(Backend& backend) override;
  void synchronize() override;
  // The point last recorded: a queue (nullptr: a synchronous stream, always reached) and ticket.
  SimQueue* queue() const noexcept { return queue_; }
  uint64_t ticket() const noexcept { return ticket_; }

 private:
  SimDevice* device_;
  SimQueue* queue_ = nullptr;
  uint64_t ticket_ = 0;
};

}  // namespace bk
