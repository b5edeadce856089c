// SPDX-License-Identifier: MIT
#pragma once
// CudaDeviceScope: makes one GPU the calling thread's current device for a block, and restores
// the previous one after it.
//
// The CUDA runtime keeps the current device per thread; every entry point of this plugin that
// touches a device (allocation, transfers, launches) opens a scope first, so callers that
// alternate between GPUs, or use the runtime themselves, never see their device change.

#include <string>

namespace bk {

class CudaDeviceScope {
 public:
  // Throws Error(device_error) naming `who` when the device cannot be made current.
  CudaDeviceScope(int ordinal, const std::string& who);
  ~CudaDeviceScope();
  CudaDeviceScope(const CudaDeviceScope&) = delete;
  CudaDeviceScope& operator=(const CudaDeviceScope&) = delete;

 private:
  int previous_ = -1;
  int ordinal_;
};

}  // namespace bk
