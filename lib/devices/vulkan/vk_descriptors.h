// SPDX-License-Identifier: MIT
#pragma once
// VulkanDescriptorArena: descriptor sets for the dispatches a stream records, from pools that
// grow on demand and are recycled all at once.
//
// Every dispatch needs its own set (its bindings differ), and a set may be reused only once
// the GPU has finished the commands that use it, which the stream knows at synchronize():
// reset() is called there, after the wait. The texel-buffer views the texel kernels bind live
// as long, so they are made here too, one per binding (creating one is a small host
// allocation), and destroyed at reset(). Owned by one VulkanBackend; one thread at a time.

#include <cstddef>
#include <vector>

#include "devices/vulkan/vk_api.h"

namespace bk {

class VulkanContext;

class VulkanDescriptorArena {
 public:
  explicit VulkanDescriptorArena(VulkanContext& ctx) : ctx_(ctx) {}
  ~VulkanDescriptorArena();
  VulkanDescriptorArena(const VulkanDescriptorArena&) = delete;
  VulkanDescriptorArena& operator=(const VulkanDescriptorArena&) = delete;

  // A set of `layout` (one of VulkanPipelines' set layouts). Throws Error from vk_check.
  VkDescriptorSet allocate(VkDescriptorSetLayout layout);
  // A `format` view of `range` bytes of `buffer` from `offset`, valid until reset(). The caller
  // has checked the device's texel-buffer alignment, element limits and format support.
  // Throws Error from vk_check.
  VkBufferView texel_view(VkBuffer buffer, VkDeviceSize offset, VkDeviceSize range, VkFormat format);
  // Makes every set free again and destroys the views. Only when no submitted command still
  // uses one.
  void reset();

  static constexpr uint32_t kSetsPerPool = 256;

 private:
  void add_pool();

  VulkanContext& ctx_;
  std::vector<VkDescriptorPool> pools_;
  size_t current_ = 0;  // the pool sets come from
  uint32_t used_in_current_ = 0;
  std::vector<VkBufferView> views_;
};

}  // namespace bk
