#include "devices/cuda/cuda_event.h"

#include <fmt/format.h>

#include "devices/cuda/cuda_backend.h"
#include "devices/cuda/cuda_device.h"
#include "devices/cuda/cuda_device_scope.h"
#include "devices/cuda/cuda_error.h"

namespace bk {

CudaEvent::CudaEvent(CudaDevice& device) : device_(device) {
  CudaDeviceScope scope(device_.ordinal(), device_.name());
  cuda_check(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming), "cudaEventCreateWithFlags",
             device_.name());
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
}

void CudaEvent::synchronize() {
  cuda_check(cudaEventSynchronize(event_), "cudaEventSynchronize", device_.name());
}

}  // namespace bk
