// SPDX-License-Identifier: MIT
#pragma once
// VulkanLoader: the Vulkan loader (libvulkan.so.1), opened at run time.
//
// The plugin links nothing from Vulkan, so it loads on machines without the loader and then
// reports zero devices with the reason. The library is never closed: loaders and drivers keep
// process-wide state (threads, atexit handlers) that does not survive being unmapped, and the
// plugin itself lives until the process exits.

#include <memory>
#include <string>

#include "devices/vulkan/vk_api.h"

namespace bk {

class VulkanLoader {
 public:
  // Opens the loader; returns nullptr and sets `why` when it is missing or unusable.
  static std::unique_ptr<VulkanLoader> open(std::string& why);

  const VulkanGlobalFns& global() const noexcept { return global_; }
  // Fills the instance-level table for `instance`. Throws Error(device_error) naming a
  // missing entry point.
  VulkanInstanceFns load_instance(VkInstance instance) const;
  // The newest API version the loader supports (at least 1.1).
  uint32_t api_version() const noexcept { return api_version_; }

 private:
  VulkanLoader() = default;

  PFN_vkGetInstanceProcAddr get_instance_proc_ = nullptr;
  VulkanGlobalFns global_;
  uint32_t api_version_ = 0;
};

}  // namespace bk
