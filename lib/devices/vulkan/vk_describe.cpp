// SPDX-License-Identifier: MIT
// VulkanDevice::describe: the properties `bkctl devices --verbose` and --json show.

#include <fmt/format.h>

#include "devices/vulkan/vk_context.h"
#include "devices/vulkan/vk_device.h"

namespace bk {
namespace {

const char* vendor_name(uint32_t id) noexcept {
  switch (id) {
    case 0x1002:
      return "AMD";
    case 0x1010:
      return "Imagination";
    case 0x106b:
      return "Apple";
    case 0x10de:
      return "NVIDIA";
    case 0x13b5:
      return "ARM";
    case 0x1414:
      return "Microsoft";
    case 0x5143:
      return "Qualcomm";
    case 0x8086:
      return "Intel";
    case VK_VENDOR_ID_MESA:
      return "Mesa";
    default:
      return "unknown";
  }
}

std::vector<std::string> memory_flags(VkMemoryPropertyFlags flags) {
  static constexpr std::pair<VkMemoryPropertyFlags, const char*> kNames[] = {
      {VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, "device_local"},
      {VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, "host_visible"},
      {VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, "host_coherent"},
      {VK_MEMORY_PROPERTY_HOST_CACHED_BIT, "host_cached"},
      {VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT, "lazily_allocated"},
      {VK_MEMORY_PROPERTY_PROTECTED_BIT, "protected"},
  };
  std::vector<std::string> out;
  for (const auto& [bit, name] : kNames) {
    if ((flags & bit) != 0) out.emplace_back(name);
  }
  return out;
}

void set_triple(Properties& out, const std::string& key, const uint32_t (&v)[3]) {
  for (int i = 0; i < 3; ++i) out.set(fmt::format("{}.{}", key, i), v[i]);
}

}  // namespace

void VulkanDevice::describe(Properties& out) const {
  const VkPhysicalDeviceProperties& p = info_.props;
  out.set("vulkan_device_type", vulkan_device_type_name(p.deviceType));
  out.set("vendor", vendor_name(p.vendorID));
  out.set("vendor_id", p.vendorID);
  out.set("device_id", p.deviceID);
  out.set("driver_name", info_.driver_name);
  out.set("driver_info", info_.driver_info);
  out.set("driver_version", vulkan_driver_version_string(p.vendorID, p.driverVersion));
  out.set("api_version", vulkan_version_string(p.apiVersion));
  if (info_.device_uuid) {
    out.set("device_uuid", vulkan_uuid_string(*info_.device_uuid));
  } else {
    out.set_null("device_uuid");
  }
  if (info_.pci) {
    out.set("pci_bus_id", vulkan_pci_string(*info_.pci));
  } else {
    out.set_null("pci_bus_id");
  }
  out.set("subgroup_size", info_.subgroup_size);
  out.set("compute_queue_family", info_.compute_queue_family);
  out.set("timestamp_valid_bits", info_.timestamp_valid_bits);
  out.set("timestamp_period_ns", p.limits.timestampPeriod);

  const std::vector<VulkanHeapBudget> budgets = vulkan_heap_budgets(fn_, info_, heap_usage_);
  out.set("memory_budget_source",
          info_.has_memory_budget ? "VK_EXT_memory_budget" : "heap size minus this process's allocations");
  for (uint32_t i = 0; i < info_.memory.memoryHeapCount; ++i) {
    const VkMemoryHeap& heap = info_.memory.memoryHeaps[i];
    const std::string at = fmt::format("memory_heaps.{}.", i);
    out.set(at + "index", i);
    out.set(at + "size", heap.size);
    out.set(at + "device_local", (heap.flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) != 0);
    out.set(at + "budget", budgets[i].budget);
    out.set(at + "usage", budgets[i].usage);
  }
  for (uint32_t i = 0; i < info_.memory.memoryTypeCount; ++i) {
    const VkMemoryType& t = info_.memory.memoryTypes[i];
    const std::string at = fmt::format("memory_types.{}.", i);
    out.set(at + "index", i);
    out.set(at + "heap", t.heapIndex);
    out.set_list(at + "flags", memory_flags(t.propertyFlags));
  }

  const VkPhysicalDeviceLimits& l = p.limits;
  out.set("limits.max_memory_allocation_size", info_.max_allocation_size);
  out.set("limits.max_storage_buffer_range", l.maxStorageBufferRange);
  out.set("limits.min_storage_buffer_offset_alignment", l.minStorageBufferOffsetAlignment);
  set_triple(out, "limits.max_compute_work_group_count", l.maxComputeWorkGroupCount);
  set_triple(out, "limits.max_compute_work_group_size", l.maxComputeWorkGroupSize);
  out.set("limits.max_compute_work_group_invocations", l.maxComputeWorkGroupInvocations);
  out.set("limits.max_compute_shared_memory_size", l.maxComputeSharedMemorySize);
  if (info_.max_buffer_size != 0) {
    out.set("limits.max_buffer_size", info_.max_buffer_size);
  } else {
    out.set_null("limits.max_buffer_size");
  }
  out.set("buffer_chunk_size", VulkanContext::chunk_limit_for(info_, options_));
  out.set("device_buffer_transfers", device_buffers_mapped() ? "mapped" : "staging");
  out.set("storage_buffer_16bit", info_.storage_buffer_16bit);
  out.set("shader_float16", info_.shader_float16);
  out.set("texel_rgba32f", info_.texel_rgba32f);
  out.set("texel_rgba16f", info_.texel_rgba16f);
  out.set("texel_rgba16ui", info_.texel_rgba16ui);
  out.set("texel_r32ui", info_.texel_r32ui);
  out.set("pipelines_created", pipelines_created());
}

}  // namespace bk
