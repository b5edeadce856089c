// SPDX-License-Identifier: MIT
#pragma once
// VulkanReg: the Vulkan backend family, one per process, made by the plugin's entry point.
//
// Construction opens the loader, creates an instance and lists the physical devices; it never
// fails for a missing loader or driver: devices() is then empty and status() says why. It
// creates no logical device (see VulkanContext). The reg lives until the process exits;
// devices are destroyed before the instance.

#include <memory>
#include <string>
#include <vector>

#include "bk/device.h"
#include "devices/vulkan/vk_api.h"
#include "devices/vulkan/vk_options.h"

namespace bk {

class VulkanDevice;
class VulkanLoader;

class VulkanReg : public BackendReg {
 public:
  explicit VulkanReg(const VulkanOptions& options);
  ~VulkanReg() override;
  VulkanReg(const VulkanReg&) = delete;
  VulkanReg& operator=(const VulkanReg&) = delete;

  std::string name() const override { return "Vulkan"; }
  std::vector<Device*> devices() override;
  std::string status() const override { return status_; }

 private:
  bool create_instance();
  void list_devices();

  VulkanOptions options_;
  std::unique_ptr<VulkanLoader> loader_;
  VkInstance instance_ = VK_NULL_HANDLE;
  VulkanInstanceFns fn_;
  std::vector<std::unique_ptr<VulkanDevice>> devices_;
  std::string status_;
};

// The process-wide reg, created on first call (reading VulkanOptions from the environment).
BackendReg& vulkan_reg();

}  // namespace bk
