#pragma once
// CudaEvent: a cudaEvent_t (without timing) on one GPU.
//
// record() marks the point reached so far in a CUDA backend's stream of the same device;
// synchronize() blocks the calling thread until that point; CudaBackend::wait() makes another
// stream (of any GPU) wait on the device, without involving the host. An event never recorded
// is already complete.

#include <cuda_runtime_api.h>

#include "core/device.h"

namespace bk {

class CudaDevice;

class CudaEvent final : public Event {
 public:
  // Throws Error(device_error) naming the device when the event cannot be created.
  explicit CudaEvent(CudaDevice& device);
  ~CudaEvent() override;
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;

  Device& device() const override;
  // Throws Error(invalid_argument) when backend is not a CUDA backend of this device.
  void record(Backend& backend) override;
  void synchronize() override;

  cudaEvent_t get() const noexcept { return event_; }

 private:
  CudaDevice& device_;
  cudaEvent_t event_ = nullptr;
};

}  // namespace bk
