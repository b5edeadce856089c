// SPDX-License-Identifier: MIT
#pragma once
// CudaDevice: one GPU as a bk device ("CUDA0", "CUDA1", ... in the runtime's order, which
// CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER control).
//
// Listing is cheap: construction only stores what cuda_properties.h queried. memory() calls
// cudaMemGetInfo, which creates the device's primary context on first use (the only way to
// learn what CUDA itself can allocate); describe() also reads NVML telemetry.
//
// Type: gpu, or igpu for integrated GPUs (Jetson), which share system memory.
//
// Threading: the getters may be called from any thread.

#include <memory>
#include <string>

#include "bk/device.h"
#include "devices/cuda/cuda_buffer.h"
#include "devices/cuda/cuda_options.h"
#include "devices/cuda/cuda_properties.h"

namespace bk {

class CudaDevice final : public Device {
 public:
  CudaDevice(BackendReg& reg, CudaDeviceInfo info, const CudaOptions& options);

  std::string name() const override { return name_; }
  std::string description() const override { return info_.name; }
  DeviceType type() const override { return info_.integrated ? DeviceType::igpu : DeviceType::gpu; }
  // Throws Error(device_error) when the context cannot be created.
  MemoryInfo memory() const override;
  DeviceCaps caps() const override;
  // The PCI bus id ("0000:65:00.0"), as the Vulkan plugin reports the same GPU; the UUID when
  // the runtime gives no bus id.
  std::string stable_id() const override;
  BackendReg& reg() const override { return reg_; }
  // Writes compute_capability, sm_count, pci_bus_id, uuid, driver/runtime versions, limits,
  // cublas (where it was loaded from, or why not) and telemetry (NVML readings, or the reason
  // they are absent).
  void describe(Properties& out) const override;
  // NVML's readings (cuda_nvml.h); none without NVML.
  std::vector<TelemetryReading> telemetry() const override;

  // Every op of ops.h for float tensors of any layout; MUL_MAT only when cuBLAS loads.
  bool supports_op(const Tensor& node) const override;
  std::string unsupported_reason(const Tensor& node) const override;
  // Only this device's own device memory.
  bool supports_buffer_type(const BufferType& type) const override { return &type == &device_buffers_; }
  // A MUL_MAT over at least 32 activation rows is worth moving host weights over.
  bool offload_op(const Tensor& node) const override;

  BufferType& buffer_type() override { return device_buffers_; }
  BufferType* host_buffer_type() override { return &host_buffers_; }
  std::unique_ptr<Backend> init_backend() override;
  std::unique_ptr<Event> create_event() override;
  std::unique_ptr<Event> create_timing_event() override;

  int ordinal() const noexcept { return info_.ordinal; }
  const CudaDeviceInfo& info() const noexcept { return info_; }
  const CudaOptions& options() const noexcept { return options_; }
  // True when `tensor` lives in this device's memory (compute() refuses anything else).
  bool holds(const Tensor& tensor) const noexcept;

 private:
  BackendReg& reg_;
  CudaDeviceInfo info_;
  std::string name_;
  CudaOptions options_;
  CudaBufferType device_buffers_;
  CudaHostBufferType host_buffers_;
};

}  // namespace bk
