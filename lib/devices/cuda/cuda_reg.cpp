// SPDX-License-Identifier: MIT
#include "devices/cuda/cuda_reg.h"

#include <fmt/format.h>

#include "devices/cuda/cuda_backend.h"
#include "devices/cuda/cuda_device.h"
#include "devices/cuda/cuda_error.h"
#include "devices/cuda/cuda_properties.h"

namespace bk {

CudaReg::CudaReg(const CudaOptions& options) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count <= 0) {
    cudaGetLastError();
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    status_ = cuda_no_device_status(err, driver, runtime);
    return;
  }
  std::vector<std::string> skipped;
  for (int i = 0; i < count; ++i) {
    CudaDeviceInfo info;
    std::string why;
    if (!cuda_query_device(i, info, why)) {
      skipped.push_back(std::move(why));
      continue;
    }
    devices_.push_back(std::make_unique<CudaDevice>(*this, std::move(info), options));
  }
  if (devices_.empty()) status_ = fmt::format("no usable CUDA device: {}", fmt::join(skipped, "; "));
}

CudaReg::~CudaReg() = default;

std::vector<Device*> CudaReg::devices() {
  std::vector<Device*> out;
  for (const auto& d : devices_) out.push_back(d.get());
  return out;
}

void* CudaReg::proc_address(const std::string& name) {
  // Function-to-object pointer casts are conditionally supported; every POSIX compiler supports
  // them (dlsym relies on it).
  if (name == "cuda_set_tf32") return reinterpret_cast<void*>(&cuda_set_tf32);
  return nullptr;
}

BackendReg& cuda_reg() {
  static CudaReg reg(cuda_options_from_env());
  return reg;
}

}  // namespace bk
