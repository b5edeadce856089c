// SPDX-License-Identifier: MIT
#pragma once
// VulkanContext: the logical device of one physical device, created on first use (a buffer
// allocation or a backend), never while devices are listed.
//
// It owns the VkDevice, its device-level function table, the compute queue (shared by every
// stream of the device, so submissions are serialised here), the memory-type choices and the
// chunk limit, and the device's synchronous transfer engine. The kernel pipelines live here too,
// created on first use.
//
// Lifetime: owned by its VulkanDevice; every Buffer, Backend and Event of the device must be
// destroyed before it. Threading: submit(), transfer() and the getters may be called from any
// thread.

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "devices/vulkan/vk_api.h"
#include "devices/vulkan/vk_memory.h"
#include "devices/vulkan/vk_options.h"
#include "devices/vulkan/vk_properties.h"

namespace bk {

class VulkanPipelines;
class VulkanTransfer;

class VulkanContext {
 public:
  // Throws Error(device_error), Error(unsupported) or Error(out_of_memory) naming the device
  // when the driver refuses to create the device.
  VulkanContext(std::string name, const VulkanInstanceFns& instance_fn, const VulkanDeviceInfo& info,
                VulkanHeapUsage& heap_usage, const VulkanOptions& options);
  ~VulkanContext();
  VulkanContext(const VulkanContext&) = delete;
  VulkanContext& operator=(const VulkanContext&) = delete;

  const std::string& name() const noexcept { return name_; }
  const VulkanDeviceInfo& info() const noexcept { return info_; }
  const VulkanDeviceFns& fn() const noexcept { return fn_; }
  VkDevice device() const noexcept { return device_; }
  uint32_t queue_family() const noexcept { return info_.compute_queue_family; }
  const VulkanOptions& options() const noexcept { return options_; }

  // One vkQueueSubmit on the compute queue, serialised with every other stream's.
  void submit(const VkSubmitInfo& info);

  uint32_t memory_type(VulkanMemoryKind kind) const noexcept;
  // Bytes per VkDeviceMemory chunk: the driver's allocation and buffer limits (or the
  // BK_VULKAN_MAX_CHUNK override), rounded down to 4096.
  size_t chunk_limit() const noexcept { return chunk_limit_; }
  static size_t chunk_limit_for(const VulkanDeviceInfo& info, const VulkanOptions& options) noexcept;
  // Device buffers are host-mapped (no staging) when their memory type allows it.
  bool device_memory_mappable() const noexcept;
  VulkanHeapUsage& heap_usage() noexcept { return heap_usage_; }
  std::vector<VulkanHeapBudget> heap_budgets() const;

  // Synchronous transfers between host memory and allocations.
  VulkanTransfer& transfer() noexcept { return *transfer_; }

  // The compute pipelines, their layouts created on first call and each kernel's pipeline on
  // its first dispatch (so creating a context for a transfer compiles nothing).
  VulkanPipelines& pipelines();
  // How many kernel pipelines exist so far (for tests and describe()).
  size_t pipelines_created() const;

 private:
  void create_device();
  void load_device_functions();
  void choose_memory_types();

  std::string name_;
  const VulkanInstanceFns& instance_fn_;
  const VulkanDeviceInfo& info_;
  VulkanHeapUsage& heap_usage_;
  VulkanOptions options_;

  VkDevice device_ = VK_NULL_HANDLE;
  VulkanDeviceFns fn_;
  VkQueue queue_ = VK_NULL_HANDLE;
  std::mutex queue_mutex_;
  uint32_t device_memory_type_ = 0;
  uint32_t host_memory_type_ = 0;
  size_t chunk_limit_ = 0;
  std::unique_ptr<VulkanTransfer> transfer_;
  mutable std::mutex pipelines_mutex_;
  std::unique_ptr<VulkanPipelines> pipelines_;
};

}  // namespace bk
