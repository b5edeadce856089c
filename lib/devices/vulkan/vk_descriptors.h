#pragma once
// VulkanDescriptorArena: descriptor sets for the dispatches a stream records, from pools that
// grow on demand and are recycled all at once.
//
// Every dispatch needs its own set (its bindings differ), and a set may be reused only once
// the GPU has finished the commands that use it, which the stream knows at synchronize():
// reset() is called there, after the wait. Owned by one VulkanBackend; one thread at a time.

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

  // A set of `layout` (VulkanPipelines::kBindings storage buffers). Throws Error from vk_check.
  VkDescriptorSet allocate(VkDescriptorSetLayout layout);
  // Makes every set free again. Only when no submitted command still uses one.
  void reset();

  static constexpr uint32_t kSetsPerPool = 256;

 private:
  void add_pool();

  VulkanContext& ctx_;
  std::vector<VkDescriptorPool> pools_;
  size_t current_ = 0;  // the pool sets come from
  uint32_t used_in_current_ = 0;
};

}  // namespace bk
