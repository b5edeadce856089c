// VulkanDevice::describe: the properties `bkctl devices --verbose` and --json show.

#include <nlohmann/json.hpp>

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

nlohmann::json memory_flags(VkMemoryPropertyFlags flags) {
  static constexpr std::pair<VkMemoryPropertyFlags, const char*> kNames[] = {
      {VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, "device_local"},
      {VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, "host_visible"},
      {VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, "host_coherent"},
      {VK_MEMORY_PROPERTY_HOST_CACHED_BIT, "host_cached"},
      {VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT, "lazily_allocated"},
      {VK_MEMORY_PROPERTY_PROTECTED_BIT, "protected"},
  };
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [bit, name] : kNames) {
    if ((flags & bit) != 0) out.push_back(name);
  }
  return out;
}

nlohmann::json triple(const uint32_t (&v)[3]) { return nlohmann::json::array({v[0], v[1], v[2]}); }

}  // namespace

void VulkanDevice::describe(nlohmann::json& out) const {
  const VkPhysicalDeviceProperties& p = info_.props;
  out["vulkan_device_type"] = vulkan_device_type_name(p.deviceType);
  out["vendor"] = vendor_name(p.vendorID);
  out["vendor_id"] = p.vendorID;
  out["device_id"] = p.deviceID;
  out["driver_name"] = info_.driver_name;
  out["driver_info"] = info_.driver_info;
  out["driver_version"] = vulkan_driver_version_string(p.vendorID, p.driverVersion);
  out["api_version"] = vulkan_version_string(p.apiVersion);
  out["device_uuid"] =
      info_.device_uuid ? nlohmann::json(vulkan_uuid_string(*info_.device_uuid)) : nlohmann::json();
  out["pci_bus_id"] = info_.pci ? nlohmann::json(vulkan_pci_string(*info_.pci)) : nlohmann::json();
  out["subgroup_size"] = info_.subgroup_size;
  out["compute_queue_family"] = info_.compute_queue_family;
  out["timestamp_valid_bits"] = info_.timestamp_valid_bits;
  out["timestamp_period_ns"] = p.limits.timestampPeriod;

  const std::vector<VulkanHeapBudget> budgets = vulkan_heap_budgets(fn_, info_, heap_usage_);
  out["memory_budget_source"] =
      info_.has_memory_budget ? "VK_EXT_memory_budget" : "heap size minus this process's allocations";
  nlohmann::json heaps = nlohmann::json::array();
  for (uint32_t i = 0; i < info_.memory.memoryHeapCount; ++i) {
    const VkMemoryHeap& heap = info_.memory.memoryHeaps[i];
    heaps.push_back({{"index", i},
                     {"size", heap.size},
                     {"device_local", (heap.flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) != 0},
                     {"budget", budgets[i].budget},
                     {"usage", budgets[i].usage}});
  }
  out["memory_heaps"] = std::move(heaps);
  nlohmann::json types = nlohmann::json::array();
  for (uint32_t i = 0; i < info_.memory.memoryTypeCount; ++i) {
    const VkMemoryType& t = info_.memory.memoryTypes[i];
    types.push_back({{"index", i}, {"heap", t.heapIndex}, {"flags", memory_flags(t.propertyFlags)}});
  }
  out["memory_types"] = std::move(types);

  const VkPhysicalDeviceLimits& l = p.limits;
  nlohmann::json limits = {
      {"max_memory_allocation_size", info_.max_allocation_size},
      {"max_storage_buffer_range", l.maxStorageBufferRange},
      {"min_storage_buffer_offset_alignment", l.minStorageBufferOffsetAlignment},
      {"max_compute_work_group_count", triple(l.maxComputeWorkGroupCount)},
      {"max_compute_work_group_size", triple(l.maxComputeWorkGroupSize)},
      {"max_compute_work_group_invocations", l.maxComputeWorkGroupInvocations},
      {"max_compute_shared_memory_size", l.maxComputeSharedMemorySize},
  };
  limits["max_buffer_size"] =
      info_.max_buffer_size != 0 ? nlohmann::json(info_.max_buffer_size) : nlohmann::json();
  out["limits"] = std::move(limits);
  out["buffer_chunk_size"] = VulkanContext::chunk_limit_for(info_, options_);
  out["device_buffer_transfers"] = device_buffers_mapped() ? "mapped" : "staging";
  out["storage_buffer_16bit"] = info_.storage_buffer_16bit;
  out["shader_float16"] = info_.shader_float16;
  out["texel_rgba32f"] = info_.texel_rgba32f;
  out["texel_rgba16f"] = info_.texel_rgba16f;
  out["texel_rgba16ui"] = info_.texel_rgba16ui;
  out["pipelines_created"] = pipelines_created();
}

}  // namespace bk
