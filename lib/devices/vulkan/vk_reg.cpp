// SPDX-License-Identifier: MIT
#include "devices/vulkan/vk_reg.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <exception>

#include "bk/error.h"
#include "devices/vulkan/vk_device.h"
#include "devices/vulkan/vk_error.h"
#include "devices/vulkan/vk_loader.h"
#include "devices/vulkan/vk_properties.h"

namespace bk {
namespace {

constexpr const char* kDriverHint =
    "install a Vulkan driver (e.g. mesa-vulkan-drivers) or check VK_DRIVER_FILES / VK_ICD_FILENAMES";

bool has_instance_extension(const VulkanGlobalFns& g, const char* name) {
  uint32_t count = 0;
  if (g.vkEnumerateInstanceExtensionProperties(nullptr, &count, nullptr) != VK_SUCCESS) return false;
  std::vector<VkExtensionProperties> props(count);
  if (g.vkEnumerateInstanceExtensionProperties(nullptr, &count, props.data()) < 0) return false;
  return std::any_of(props.begin(), props.begin() + count, [name](const VkExtensionProperties& p) {
    return std::strcmp(p.extensionName, name) == 0;
  });
}

}  // namespace

VulkanReg::VulkanReg(const VulkanOptions& options) : options_(options) {
  loader_ = VulkanLoader::open(status_);
  if (!loader_) return;
  if (!create_instance()) return;
  list_devices();
}

VulkanReg::~VulkanReg() {
  devices_.clear();
  if (instance_ != VK_NULL_HANDLE) fn_.vkDestroyInstance(instance_, nullptr);
}

std::vector<Device*> VulkanReg::devices() {
  std::vector<Device*> out;
  for (const auto& d : devices_) out.push_back(d.get());
  return out;
}

bool VulkanReg::create_instance() {
  const VulkanGlobalFns& g = loader_->global();
  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "bk";
  app.pEngineName = "bk";
  app.apiVersion = std::min(loader_->api_version(), VK_API_VERSION_1_3);
  std::vector<const char*> extensions;
  VkInstanceCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  info.pApplicationInfo = &app;
  // Portability drivers (MoltenVK) are listed only when asked for.
  if (has_instance_extension(g, VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME)) {
    extensions.push_back(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);
    info.flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
  }
  info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();

  const VkResult result = g.vkCreateInstance(&info, nullptr, &instance_);
  if (result == VK_ERROR_INCOMPATIBLE_DRIVER) {
    status_ = fmt::format("no Vulkan driver found (vkCreateInstance: VK_ERROR_INCOMPATIBLE_DRIVER); {}",
                          kDriverHint);
    return false;
  }
  if (result != VK_SUCCESS) {
    instance_ = VK_NULL_HANDLE;
    status_ = fmt::format("vkCreateInstance failed with {}; {}", vk_result_name(result), kDriverHint);
    return false;
  }
  try {
    fn_ = loader_->load_instance(instance_);
  } catch (const Error& e) {
    status_ = e.what();
    return false;
  }
  return true;
}

void VulkanReg::list_devices() {
  uint32_t count = 0;
  VkResult result = fn_.vkEnumeratePhysicalDevices(instance_, &count, nullptr);
  std::vector<VkPhysicalDevice> physical(count);
  if (result == VK_SUCCESS && count != 0)
    result = fn_.vkEnumeratePhysicalDevices(instance_, &count, physical.data());
  if (result < 0) {
    status_ =
        fmt::format("vkEnumeratePhysicalDevices failed with {}; {}", vk_result_name(result), kDriverHint);
    return;
  }
  physical.resize(count);  // VK_INCOMPLETE: a device vanished between the two calls
  if (physical.empty()) {
    status_ = fmt::format("the Vulkan loader found no devices; {}", kDriverHint);
    return;
  }
  const uint32_t instance_api = std::min(loader_->api_version(), VK_API_VERSION_1_3);
  std::vector<std::string> skipped;
  for (VkPhysicalDevice p : physical) {
    VulkanDeviceInfo info;
    std::string why;
    if (!vulkan_query_device(fn_, p, instance_api, info, why)) {
      skipped.push_back(std::move(why));
      continue;
    }
    devices_.push_back(
        std::make_unique<VulkanDevice>(*this, fn_, std::move(info), devices_.size(), options_));
  }
  if (devices_.empty()) status_ = fmt::format("no usable Vulkan device: {}", fmt::join(skipped, "; "));
}

BackendReg& vulkan_reg() {
  static VulkanReg reg(vulkan_options_from_env());
  return reg;
}

}  // namespace bk
