// SPDX-License-Identifier: MIT
#include "devices/cuda/cuda_event.h"

#include <fmt/format.h>

#include "bk/error.h"
#include "devices/cuda/cuda_backend.h"
#include "devices/cuda/cuda_device.h"
#include "devices/cuda/cuda_device_scope.h"
#include "devices/cuda/cuda_error.h"

namespace bk {

CudaEvent::CudaEvent(CudaDevice& device, bool timing) : device_(device), timing_(timing) {
  CudaDeviceScope scope(device_.ordinal(), device_.name());
  cuda_check(cudaEventCreateWithFlags(&event_, timing ? cudaEventDefault : cudaEventDisableTiming),
             "cudaEventCreateWithFlags", device_.name());
}

CudaEvent::~CudaEvent() { cudaEventDestroy(event_); }

Device& CudaEvent::device() const { return device_; }

void CudaEvent::record(Backend& backend) {
  auto* cuda = dynamic_cast<CudaBackend*>(&backend);
  if (cuda == nullptr || &cuda->device() != &device_) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("an event of {} can only be recorded on a {} backend, not on '{}'",
                            device_.name(), device_.name(), backend.name()));
  }
  CudaDeviceScope scope(device_.ordinal(), device_.name());
  cuda_check(cudaEventRecord(event_, cuda->stream()), "cudaEventRecord", device_.name());
  recorded_ = true;
}

void CudaEvent::synchronize() {
  cuda_check(cudaEventSynchronize(event_), "cudaEventSynchronize", device_.name());
}

double CudaEvent::seconds_since(const Event& start) const {
  if (!timing_) return Event::seconds_since(start);
  const auto* begin = dynamic_cast<const CudaEvent*>(&start);
  if (begin == nullptr || &begin->device_ != &device_ || !begin->timing_) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("seconds_since needs two timing events of {}; the start is an event of {}",
                            device_.name(), start.device().name()));
  }
  if (!recorded_ || !begin->recorded_) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("a timing event of {} was never recorded, so it has no time", device_.name()));
  }
  CudaDeviceScope scope(device_.ordinal(), device_.name());
  float ms = 0;
  cuda_check(cudaEventElapsedTime(&ms, begin->event_, event_), "cudaEventElapsedTime", device_.name());
  return static_cast<double>(ms) * 1e-3;
}

}  // namespace bk
