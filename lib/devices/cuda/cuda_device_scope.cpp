// SPDX-License-Identifier: MIT
#include "devices/cuda/cuda_device_scope.h"

#include <cuda_runtime_api.h>

#include "devices/cuda/cuda_error.h"

namespace bk {

CudaDeviceScope::CudaDeviceScope(int ordinal, const std::string& who) : ordinal_(ordinal) {
  cuda_check(cudaGetDevice(&previous_), "cudaGetDevice", who);
  if (previous_ != ordinal_) cuda_check(cudaSetDevice(ordinal_), "cudaSetDevice", who);
}

CudaDeviceScope::~CudaDeviceScope() {
  // Restoring cannot fail for a device that was current a moment ago; a destructor must not throw.
  if (previous_ != ordinal_ && previous_ >= 0) cudaSetDevice(previous_);
}

}  // namespace bk
