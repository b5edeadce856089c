// SPDX-License-Identifier: MIT
#pragma once
// CudaEvent: a cudaEvent_t on one GPU, without timing (create_event: cheapest to record and
// wait on) or with it (create_timing_event: seconds_since is cudaEventElapsedTime).
//
// record() marks the point reached so far in a CUDA backend's stream of the same device;
// synchronize() blocks the calling thread until that point; CudaBackend::wait() makes another
// stream (of any GPU) wait on the device, without involving the host. An event never recorded
// is already complete.

#include <cuda_runtime_api.h>

#include "bk/device.h"

namespace bk {

class CudaDevice;

class CudaEvent final : public Event {
 public:
  // Throws Error(device_error) naming the device when the event cannot be created.
  CudaEvent(CudaDevice& device, bool timing);
  ~CudaEvent() override;
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;

  Device& device() const override;
  // Throws Error(invalid_argument) when backend is not a CUDA backend of this device.
  void record(Backend& backend) override;
  void synchronize() override;
  double seconds_since(const Event& start) const override;

  cudaEvent_t get() const noexcept { return event_; }

 private:
  CudaDevice& device_;
  bool timing_;
  bool recorded_ = false;
  cudaEvent_t event_ = nullptr;
};

}  // namespace bk
