// SPDX-License-Identifier: MIT
#include "devices/vulkan/vk_properties.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace bk {
namespace {

std::vector<std::string> device_extensions(const VulkanInstanceFns& fn, VkPhysicalDevice physical) {
  uint32_t count = 0;
  if (fn.vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, nullptr) != VK_SUCCESS) return {};
  std::vector<VkExtensionProperties> props(count);
  if (fn.vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, props.data()) < 0) return {};
  std::vector<std::string> names;
  for (uint32_t i = 0; i < count; ++i) names.emplace_back(props[i].extensionName);
  return names;
}

bool has(const std::vector<std::string>& names, const char* name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::vector<VkQueueFamilyProperties> queue_families(const VulkanInstanceFns& fn, VkPhysicalDevice physical) {
  uint32_t count = 0;
  fn.vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  fn.vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, families.data());
  return families;
}

// A compute family without graphics where there is one (it runs beside the display's work),
// else any compute family.
std::optional<uint32_t> pick_compute_family(const std::vector<VkQueueFamilyProperties>& families) {
  std::optional<uint32_t> any;
  for (uint32_t i = 0; i < families.size(); ++i) {
    const VkQueueFlags flags = families[i].queueFlags;
    if ((flags & VK_QUEUE_COMPUTE_BIT) == 0 || families[i].queueCount == 0) continue;
    if ((flags & VK_QUEUE_GRAPHICS_BIT) == 0) return i;
    if (!any) any = i;
  }
  return any;
}

bool timeline_supported(const VulkanInstanceFns& fn, VkPhysicalDevice physical) {
  VkPhysicalDeviceTimelineSemaphoreFeatures timeline{};
  timeline.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES;
  VkPhysicalDeviceFeatures2 features{};
  features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  features.pNext = &timeline;
  fn.vkGetPhysicalDeviceFeatures2(physical, &features);
  return timeline.timelineSemaphore == VK_TRUE;
}

// Kernels read and write F16 / BF16 tensors as 16-bit storage-buffer elements.
bool storage16_supported(const VulkanInstanceFns& fn, VkPhysicalDevice physical) {
  VkPhysicalDevice16BitStorageFeatures storage16{};
  storage16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES;
  VkPhysicalDeviceFeatures2 features{};
  features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  features.pNext = &storage16;
  fn.vkGetPhysicalDeviceFeatures2(physical, &features);
  return storage16.storageBuffer16BitAccess == VK_TRUE;
}

// shaderFloat16 (Vulkan 1.2, or VK_KHR_shader_float16_int8 on 1.1): F16 arithmetic in shaders.
bool float16_supported(const VulkanInstanceFns& fn, VkPhysicalDevice physical) {
  VkPhysicalDeviceShaderFloat16Int8Features f16{};
  f16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES;
  VkPhysicalDeviceFeatures2 features{};
  features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  features.pNext = &f16;
  fn.vkGetPhysicalDeviceFeatures2(physical, &features);
  return f16.shaderFloat16 == VK_TRUE;
}

// One vkGetPhysicalDeviceProperties2 call with every structure the device can answer chained.
void query_properties(const VulkanInstanceFns& fn, const std::vector<std::string>& exts,
                      VulkanDeviceInfo& out) {
  VkPhysicalDeviceProperties2 props2{};
  props2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  void** next = &props2.pNext;
  auto chain = [&next](auto& s, VkStructureType type) {
    s.sType = type;
    *next = &s;
    next = &s.pNext;
  };
  VkPhysicalDeviceIDProperties id{};
  VkPhysicalDeviceMaintenance3Properties m3{};
  VkPhysicalDeviceSubgroupProperties subgroup{};
  VkPhysicalDeviceDriverProperties driver{};
  VkPhysicalDeviceMaintenance4Properties m4{};
  VkPhysicalDevicePCIBusInfoPropertiesEXT pci{};
  chain(id, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES);
  chain(m3, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES);
  chain(subgroup, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES);
  const bool has_driver =
      out.api_version >= VK_API_VERSION_1_2 || has(exts, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME);
  const bool has_m4 = out.api_version >= VK_API_VERSION_1_3 || has(exts, VK_KHR_MAINTENANCE_4_EXTENSION_NAME);
  const bool has_pci = has(exts, VK_EXT_PCI_BUS_INFO_EXTENSION_NAME);
  if (has_driver) chain(driver, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES);
  if (has_m4) chain(m4, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_PROPERTIES);
  if (has_pci) chain(pci, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT);
  fn.vkGetPhysicalDeviceProperties2(out.physical, &props2);

  out.props = props2.properties;
  out.max_allocation_size = m3.maxMemoryAllocationSize;
  out.subgroup_size = subgroup.subgroupSize;
  out.compute_subgroup_shuffle = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0 &&
                                 (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_SHUFFLE_BIT) != 0;
  if (has_m4) out.max_buffer_size = m4.maxBufferSize;
  if (has_pci) out.pci = pci;
  if (has_driver) {
    out.driver_name = driver.driverName;
    out.driver_info = driver.driverInfo;
  }
  std::array<uint8_t, VK_UUID_SIZE> uuid{};
  std::memcpy(uuid.data(), id.deviceUUID, VK_UUID_SIZE);
  if (std::any_of(uuid.begin(), uuid.end(), [](uint8_t b) { return b != 0; })) out.device_uuid = uuid;
}

}  // namespace

bool vulkan_query_device(const VulkanInstanceFns& fn, VkPhysicalDevice physical, uint32_t instance_api,
                         VulkanDeviceInfo& out, std::string& why) {
  out.physical = physical;
  VkPhysicalDeviceProperties basic{};
  fn.vkGetPhysicalDeviceProperties(physical, &basic);
  out.api_version = std::min(basic.apiVersion, instance_api);
  if (out.api_version < VK_API_VERSION_1_1) {
    why = fmt::format("'{}' supports only Vulkan {}; bk needs 1.1", basic.deviceName,
                      vulkan_version_string(basic.apiVersion));
    return false;
  }
  const std::vector<std::string> exts = device_extensions(fn, physical);
  query_properties(fn, exts, out);
  fn.vkGetPhysicalDeviceMemoryProperties(physical, &out.memory);

  const std::vector<VkQueueFamilyProperties> families = queue_families(fn, physical);
  const auto family = pick_compute_family(families);
  if (!family) {
    why = fmt::format("'{}' has no compute queue", basic.deviceName);
    return false;
  }
  out.compute_queue_family = *family;
  out.timestamp_valid_bits = families[*family].timestampValidBits;

  const bool timeline_ext = has(exts, VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME);
  if ((out.api_version < VK_API_VERSION_1_2 && !timeline_ext) || !timeline_supported(fn, physical)) {
    why = fmt::format("'{}' has no timeline semaphores (Vulkan 1.2); update its driver", basic.deviceName);
    return false;
  }
  out.needs_timeline_khr = out.api_version < VK_API_VERSION_1_2;
  if (out.needs_timeline_khr) out.enabled_extensions.emplace_back(VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME);
  out.storage_buffer_16bit = storage16_supported(fn, physical);
  const bool f16_ext = has(exts, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);
  if (out.api_version >= VK_API_VERSION_1_2 || f16_ext) {
    out.shader_float16 = float16_supported(fn, physical);
    if (out.shader_float16 && out.api_version < VK_API_VERSION_1_2) {
      out.enabled_extensions.emplace_back(VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);
    }
  }
  const auto uniform_texels = [&](VkFormat format) {
    VkFormatProperties p{};
    fn.vkGetPhysicalDeviceFormatProperties(physical, format, &p);
    return (p.bufferFeatures & VK_FORMAT_FEATURE_UNIFORM_TEXEL_BUFFER_BIT) != 0;
  };
  out.texel_rgba32f = uniform_texels(VK_FORMAT_R32G32B32A32_SFLOAT);
  out.texel_rgba16f = uniform_texels(VK_FORMAT_R16G16B16A16_SFLOAT);
  out.texel_rgba16ui = uniform_texels(VK_FORMAT_R16G16B16A16_UINT);
  out.texel_r32ui = uniform_texels(VK_FORMAT_R32_UINT);
  out.has_memory_budget = has(exts, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
  if (out.has_memory_budget) out.enabled_extensions.emplace_back(VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
  return true;
}

std::vector<VulkanHeapBudget> vulkan_query_budgets(const VulkanInstanceFns& fn,
                                                   const VulkanDeviceInfo& info) {
  if (!info.has_memory_budget) return {};
  VkPhysicalDeviceMemoryBudgetPropertiesEXT budget{};
  budget.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT;
  VkPhysicalDeviceMemoryProperties2 props{};
  props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2;
  props.pNext = &budget;
  fn.vkGetPhysicalDeviceMemoryProperties2(info.physical, &props);
  std::vector<VulkanHeapBudget> out(props.memoryProperties.memoryHeapCount);
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = {budget.heapBudget[i], budget.heapUsage[i], true};
  }
  return out;
}

std::string vulkan_version_string(uint32_t version) {
  return fmt::format("{}.{}.{}", VK_API_VERSION_MAJOR(version), VK_API_VERSION_MINOR(version),
                     VK_API_VERSION_PATCH(version));
}

std::string vulkan_driver_version_string(uint32_t vendor_id, uint32_t version) {
  constexpr uint32_t kNvidia = 0x10de;
  if (vendor_id == kNvidia) {
    // 10.8.8.6 bits, written as nvidia-smi writes it: "580.159.04" (the last field only when set).
    const uint32_t tertiary = version & 0x3fu;
    return fmt::format("{}.{}.{:02}{}", version >> 22, (version >> 14) & 0xffu, (version >> 6) & 0xffu,
                       tertiary != 0 ? fmt::format(".{}", tertiary) : std::string());
  }
#ifdef _WIN32
  constexpr uint32_t kIntel = 0x8086;
  if (vendor_id == kIntel) return fmt::format("{}.{}", version >> 14, version & 0x3fffu);
#endif
  return vulkan_version_string(version);
}

const char* vulkan_device_type_name(VkPhysicalDeviceType type) noexcept {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return "discrete_gpu";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return "integrated_gpu";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return "virtual_gpu";
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return "cpu";
    default:
      return "other";
  }
}

std::string vulkan_uuid_string(const std::array<uint8_t, VK_UUID_SIZE>& u) {
  std::string s;
  for (size_t i = 0; i < u.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    s += fmt::format("{:02x}", u[i]);
  }
  return s;
}

std::string vulkan_pci_string(const VkPhysicalDevicePCIBusInfoPropertiesEXT& pci) {
  return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", pci.pciDomain, pci.pciBus, pci.pciDevice, pci.pciFunction);
}

}  // namespace bk
