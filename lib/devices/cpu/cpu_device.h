// SPDX-License-Identifier: MIT
#pragma once
// The one CPU device, "CPU": the host processor and system memory.
//
// Construction and the property getters are cheap (the brand is read from /proc once, memory on
// each memory() call); only describe() and init_backend() load the hwloc topology. Owned by the
// CPU reg (cpu_reg.h); thread-safe to query.

#include "bk/device.h"
#include "devices/cpu/cpu_buffer.h"

namespace bk {

class CpuDevice final : public Device {
 public:
  explicit CpuDevice(BackendReg& reg) noexcept : reg_(&reg), buffer_type_(*this) {}

  std::string name() const override { return "CPU"; }
  std::string description() const override;
  DeviceType type() const override { return DeviceType::cpu; }
  MemoryInfo memory() const override;
  DeviceCaps caps() const override;
  BackendReg& reg() const override { return *reg_; }

  // Writes brand, arch, topology {packages, cores, pus, numa_nodes, caches[{name, level, size,
  // count}], and loaded/reason}, isa_features and default_threads.
  void describe(Properties& out) const override;
  // cpu_mhz and temperature_c where the host has them (cpu_telemetry.h).
  std::vector<TelemetryReading> telemetry() const override;

  // Truthful per node: every op of core/op.h in every dtype its builder allows, any strides
  // (kernels/op_support.cpp lists the rules); false for a node made by hand that breaks them.
  bool supports_op(const Tensor& node) const override;
  // Names the op, the node, the dtypes and the broken rule; empty when supported.
  std::string unsupported_reason(const Tensor& node) const override;
  // Any host buffer type: the CPU reads host memory directly.
  bool supports_buffer_type(const BufferType& type) const override { return type.is_host(); }

  BufferType& buffer_type() override { return buffer_type_; }
  std::unique_ptr<Buffer> buffer_from_host_ptr(void* ptr, size_t size) override;
  std::unique_ptr<Backend> init_backend() override;

 private:
  BackendReg* reg_;
  CpuBufferType buffer_type_;
};

}  // namespace bk
