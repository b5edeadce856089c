// SPDX-License-Identifier: MIT
#pragma once
// Simulated devices: CPU-backed devices with their own buffer type, a declared subset of ops and
// dtypes, and a memory size that allocations honour. They let the scheduler's multi-device
// decisions be tested, and shown with `bkctl sched`, on machines without a GPU.
//
// A simulated device's memory is host memory, but its buffer type is not a host one: for the
// scheduler it is device memory, so data moving to and from it shows up as copies. Its backend
// runs the CPU device's kernels on that memory, so results are real. It is labelled simulated
// everywhere (is_simulated(), its description, describe()).
//
// Two ways in: the plugin libbk-sim.so reads BK_SIM_DEVICES when the registry loads it (zero
// devices, status "BK_SIM_DEVICES is not set", without it), and tests call make_sim_reg()
// directly. Ownership and threading are those of device.h; memory accounting is thread-safe.

#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bk/device.h"
#include "devices/sim/sim_config.h"

namespace bk {

class SimDevice;

class SimBufferType final : public BufferType {
 public:
  explicit SimBufferType(SimDevice& device) noexcept : device_(&device) {}

  std::string name() const override;
  Device& device() const override;
  // Throws Error(out_of_memory) when the device's declared memory would be exceeded, and
  // Error(invalid_argument) past max_size().
  std::unique_ptr<Buffer> alloc(size_t size) override;
  size_t alignment() const override;
  size_t max_size() const override;
  bool is_host() const override { return false; }

 private:
  SimDevice* device_;
};

class SimDevice final : public Device {
 public:
  SimDevice(BackendReg& reg, SimDeviceConfig config);

  std::string name() const override { return config_.name; }
  std::string description() const override;
  DeviceType type() const override { return config_.type; }
  MemoryInfo memory() const override;
  DeviceCaps caps() const override;
  bool is_simulated() const override { return true; }
  BackendReg& reg() const override { return *reg_; }
  void describe(Properties& out) const override;

  // What the configuration declares (ops, dtypes); computing needs the CPU's kernels for them.
  bool supports_op(const Tensor& node) const override;
  std::string unsupported_reason(const Tensor& node) const override;
  // Its own buffer type, and the buffer types of devices listed in reads= ("CPU": host ones).
  bool supports_buffer_type(const BufferType& type) const override;
  bool offload_op(const Tensor& node) const override;

  BufferType& buffer_type() override { return buffer_type_; }
  std::unique_ptr<Backend> init_backend() override;
  std::unique_ptr<Event> create_event() override;

  const SimDeviceConfig& config() const noexcept { return config_; }
  // Accounting of the declared memory; reserve() throws Error(out_of_memory).
  void reserve(size_t bytes);
  void release(size_t bytes) noexcept;

 private:
  bool supports_types(const Tensor& node) const;

  BackendReg* reg_;
  SimDeviceConfig config_;
  SimBufferType buffer_type_;
  std::atomic<size_t> used_{0};
};

// A reg ("Sim") holding one device per entry of `config` (BK_SIM_DEVICES syntax). Throws
// Error(invalid_argument) for a malformed config. `status` is what status() says when the
// config has no devices.
std::unique_ptr<BackendReg> make_sim_reg(std::string_view config,
                                         std::string status = "no simulated devices configured");

// fault=hang and hang_init: blocks the calling thread until the process exits. Nothing wakes it,
// on purpose: it stands for a kernel or a driver call that never comes back.
[[noreturn]] void sim_hang_forever();

}  // namespace bk
