// SPDX-License-Identifier: MIT
#pragma once
// The CUDA backend family, "CUDA": one CudaDevice per GPU the runtime sees.
//
// The runtime is linked statically and finds the driver (libcuda.so.1) itself when the reg is
// created. Without a driver, or with no GPU, the reg has zero devices and status() says why in
// one line ("CUDA driver not found (cudaGetDeviceCount: cudaErrorInsufficientDriver, 35)");
// that is "not present", not an error, and nothing is printed.
//
// Extra entry point, through proc_address: "cuda_set_tf32" -> void (*)(bk::Backend&, bool)
// (see cuda_backend.h).

#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

#include "bk/device.h"
#include "devices/cuda/cuda_options.h"

namespace bk {

class CudaDevice;

class CudaReg final : public BackendReg {
 public:
  explicit CudaReg(const CudaOptions& options);
  ~CudaReg() override;

  std::string name() const override { return "CUDA"; }
  std::vector<Device*> devices() override;
  std::string status() const override { return status_; }
  void* proc_address(const std::string& name) override;

 private:
  std::string status_;
  std::vector<std::unique_ptr<CudaDevice>> devices_;
};

// The plugin's reg, created on first call with the options from the environment.
BackendReg& cuda_reg();

}  // namespace bk
