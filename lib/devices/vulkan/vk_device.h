// SPDX-License-Identifier: MIT
#pragma once
// VulkanDevice: one physical device as a bk device ("Vulkan0", "Vulkan1", ... in the order the
// loader enumerates them).
//
// Listing is cheap: construction only stores the properties queried by vk_properties.h. The
// logical device (VulkanContext) is created on first allocation, backend or event, and kept
// until the device is destroyed at process exit.
//
// Type: discrete and virtual GPUs are gpu, integrated ones igpu, and software rasterisers such
// as lavapipe (VK_PHYSICAL_DEVICE_TYPE_CPU) cpu, so init_best never prefers them to a real GPU;
// describe() gives the Vulkan type string.
//
// Threading: the getters and context() may be called from any thread.

#include <memory>
#include <mutex>
#include <string>

#include "bk/device.h"
#include "devices/vulkan/vk_buffer.h"
#include "devices/vulkan/vk_memory.h"
#include "devices/vulkan/vk_options.h"
#include "devices/vulkan/vk_properties.h"

namespace bk {

class VulkanContext;

class VulkanDevice : public Device {
 public:
  VulkanDevice(BackendReg& reg, const VulkanInstanceFns& fn, VulkanDeviceInfo info, size_t index,
               const VulkanOptions& options);
  ~VulkanDevice() override;

  std::string name() const override { return name_; }
  std::string description() const override { return info_.props.deviceName; }
  DeviceType type() const override;
  // Device-local heaps: the driver's budget minus usage with VK_EXT_memory_budget, else the
  // heap size minus what this process allocated there.
  MemoryInfo memory() const override;
  DeviceCaps caps() const override;
  // The PCI bus id ("0000:65:00.0") with VK_EXT_pci_bus_info, else the device UUID.
  std::string stable_id() const override;
  BackendReg& reg() const override { return reg_; }
  void describe(Properties& out) const override;

  // Every op of core/ops.h within the limits vk_ops.h states; leafs and views always.
  bool supports_op(const Tensor& node) const override;
  std::string unsupported_reason(const Tensor& node) const override;
  bool supports_buffer_type(const BufferType& type) const override;
  // GPUs (discrete, virtual, integrated) ask for batched mul_mats (is_batched_mul_mat) whose
  // weights are in host memory; a CPU-type device such as lavapipe never does: it runs on the
  // host's own cores, slower than the CPU backend, so the copy buys nothing.
  bool offload_op(const Tensor& node) const override;

  BufferType& buffer_type() override { return device_buffers_; }
  BufferType* host_buffer_type() override;
  std::unique_ptr<Backend> init_backend() override;
  std::unique_ptr<Event> create_event() override;
  // Timestamps on the compute queue; Error(unsupported) when its family writes none.
  std::unique_ptr<Event> create_timing_event() override;

  // The logical device, created on first call. Throws Error(device_error) naming the device
  // when the driver refuses; a later call tries again.
  VulkanContext& context();
  const VulkanDeviceInfo& info() const noexcept { return info_; }
  const VulkanOptions& options() const noexcept { return options_; }
  // True when device buffers are read and written through a host mapping, false when through
  // staging copies (known exactly once the context exists, predicted from the properties before).
  bool device_buffers_mapped() const;
  // Kernel pipelines created so far: 0 until something was computed (listing creates none).
  size_t pipelines_created() const;

 private:
  BackendReg& reg_;
  const VulkanInstanceFns& fn_;
  VulkanDeviceInfo info_;
  std::string name_;
  VulkanOptions options_;
  VulkanHeapUsage heap_usage_;
  VulkanBufferType device_buffers_;
  VulkanBufferType host_buffers_;
  bool has_host_buffers_;
  mutable std::mutex context_mutex_;
  std::unique_ptr<VulkanContext> context_;
};

}  // namespace bk
