// SPDX-License-Identifier: MIT
#include "devices/cuda/cuda_device.h"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "bk/tensor.h"
#include "devices/cuda/cuda_backend.h"
#include "devices/cuda/cuda_blas.h"
#include "devices/cuda/cuda_device_scope.h"
#include "devices/cuda/cuda_error.h"
#include "devices/cuda/cuda_event.h"
#include "devices/cuda/cuda_ops.h"

namespace bk {

CudaDevice::CudaDevice(BackendReg& reg, CudaDeviceInfo info, const CudaOptions& options)
    : reg_(reg),
      info_(std::move(info)),
      name_(fmt::format("CUDA{}", info_.ordinal)),
      options_(options),
      device_buffers_(*this),
      host_buffers_(*this) {}

MemoryInfo CudaDevice::memory() const {
  CudaDeviceScope scope(info_.ordinal, name_);
  MemoryInfo m;
  cuda_check(cudaMemGetInfo(&m.free, &m.total), "cudaMemGetInfo", name_);
  return m;
}

DeviceCaps CudaDevice::caps() const {
  DeviceCaps caps;
  caps.async = true;
  caps.host_buffer = true;
  caps.buffer_from_host_ptr = false;
  caps.events = true;
  caps.event_timing = true;
  return caps;
}

std::string CudaDevice::stable_id() const { return info_.pci_bus_id.empty() ? info_.uuid : info_.pci_bus_id; }

bool CudaDevice::supports_op(const Tensor& node) const { return unsupported_reason(node).empty(); }

std::string CudaDevice::unsupported_reason(const Tensor& node) const {
  std::string why = cuda_unsupported_reason(node);
  if (why.empty() && node.op == Op::mul_mat) cublas_library(&why);
  return why.empty() ? why : fmt::format("{}: {}", name_, why);
}

bool CudaDevice::offload_op(const Tensor& node) const { return is_batched_mul_mat(node); }

bool CudaDevice::holds(const Tensor& tensor) const noexcept {
  return tensor.buffer != nullptr && &tensor.buffer->type() == &device_buffers_;
}

std::unique_ptr<Backend> CudaDevice::init_backend() { return std::make_unique<CudaBackend>(*this); }

std::unique_ptr<Event> CudaDevice::create_event() { return std::make_unique<CudaEvent>(*this, false); }

std::unique_ptr<Event> CudaDevice::create_timing_event() { return std::make_unique<CudaEvent>(*this, true); }

}  // namespace bk
