// SPDX-License-Identifier: MIT
#pragma once
// VulkanDeviceInfo: what bk knows about one physical device, queried once when devices are
// listed. Only property queries happen here (no logical device, no allocations), so listing
// stays cheap. The struct is immutable afterwards and may be read from any thread.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "devices/vulkan/vk_api.h"

namespace bk {

struct VulkanDeviceInfo {
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  uint32_t api_version = 0;  // the version bk may use: min(device, instance)
  VkPhysicalDeviceProperties props{};
  VkPhysicalDeviceMemoryProperties memory{};

  std::string driver_name;  // from VK_KHR_driver_properties / Vulkan 1.2; empty when absent
  std::string driver_info;
  std::optional<std::array<uint8_t, VK_UUID_SIZE>> device_uuid;  // absent when all zero
  std::optional<VkPhysicalDevicePCIBusInfoPropertiesEXT> pci;    // VK_EXT_pci_bus_info

  VkDeviceSize max_allocation_size = 0;  // maintenance3: the largest single VkDeviceMemory
  VkDeviceSize max_buffer_size = 0;      // maintenance4: the largest VkBuffer; 0 when unknown
  uint32_t subgroup_size = 0;
  bool compute_subgroup_shuffle = false;  // subgroupShuffle in compute shaders (the lane mul_mat)
  uint32_t compute_queue_family = 0;
  uint32_t timestamp_valid_bits = 0;  // of the compute queue's timestamps; 0: it writes none

  bool has_memory_budget = false;     // VK_EXT_memory_budget
  bool storage_buffer_16bit = false;  // storageBuffer16BitAccess: kernels need it
  bool shader_float16 = false;        // shaderFloat16: F16 arithmetic (the F16 peak kernel)
  bool texel_rgba32f = false;         // R32G32B32A32_SFLOAT uniform texel buffers (F32 reads)
  bool texel_rgba16f = false;         // R16G16B16A16_SFLOAT ones (F16 weights of the texel mul_mat)
  bool texel_rgba16ui = false;        // R16G16B16A16_UINT ones (BF16 weights, converted in the shader)
  bool texel_r32ui = false;           // R32_UINT ones (quantized weights, as words, decoded in the shader)
  bool needs_timeline_khr = false;    // timeline semaphores come from the KHR extension (1.1)
  std::vector<std::string> enabled_extensions;  // device extensions to enable at creation

  // A CPU-type device (a software driver such as lavapipe): kernels and grids are chosen
  // differently for it (vk_ops.cpp, vk_pipelines.cpp), as llvmpipe runs invocations lane by lane.
  bool is_cpu() const noexcept { return props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU; }

  // The compute queue writes timestamps that events can turn into seconds.
  bool has_timestamps() const noexcept {
    return timestamp_valid_bits > 0 && props.limits.timestampPeriod > 0;
  }
};

// Budget and usage of one heap right now (VK_EXT_memory_budget), or the heap size and the
// bytes this process allocated there when the extension is absent.
struct VulkanHeapBudget {
  VkDeviceSize budget = 0;
  VkDeviceSize usage = 0;
  bool from_extension = false;
};

// Fills `out` for `physical`. Returns false and sets `why` when bk cannot use the device (API
// older than 1.1, no compute queue, no timeline semaphores).
bool vulkan_query_device(const VulkanInstanceFns& fn, VkPhysicalDevice physical, uint32_t instance_api,
                         VulkanDeviceInfo& out, std::string& why);

// The driver's budget and usage per heap; empty when the device has no VK_EXT_memory_budget.
std::vector<VulkanHeapBudget> vulkan_query_budgets(const VulkanInstanceFns& fn, const VulkanDeviceInfo& info);

// "1.3.230"
std::string vulkan_version_string(uint32_t version);
// The driver version decoded the way its vendor packs it ("535.104.5.0" for NVIDIA).
std::string vulkan_driver_version_string(uint32_t vendor_id, uint32_t version);
// "discrete_gpu", "integrated_gpu", "virtual_gpu", "cpu", "other"
const char* vulkan_device_type_name(VkPhysicalDeviceType type) noexcept;
// "6d657361-3232-2e33-2e36-000000000000"
std::string vulkan_uuid_string(const std::array<uint8_t, VK_UUID_SIZE>& uuid);
// "0000:65:00.0"
std::string vulkan_pci_string(const VkPhysicalDevicePCIBusInfoPropertiesEXT& pci);

}  // namespace bk
