#include "devices/vulkan/vk_descriptors.h"

#include "devices/vulkan/vk_context.h"
#include "devices/vulkan/vk_error.h"
#include "devices/vulkan/vk_pipelines.h"

namespace bk {

VulkanDescriptorArena::~VulkanDescriptorArena() {
  for (VkDescriptorPool pool : pools_) ctx_.fn().vkDestroyDescriptorPool(ctx_.device(), pool, nullptr);
}

void VulkanDescriptorArena::add_pool() {
  VkDescriptorPoolSize size{};
  size.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  size.descriptorCount = kSetsPerPool * VulkanPipelines::kBindings;
  VkDescriptorPoolCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
  info.maxSets = kSetsPerPool;
  info.poolSizeCount = 1;
  info.pPoolSizes = &size;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  vk_check(ctx_.fn().vkCreateDescriptorPool(ctx_.device(), &info, nullptr, &pool), "vkCreateDescriptorPool",
           ctx_.name());
  pools_.push_back(pool);
}

VkDescriptorSet VulkanDescriptorArena::allocate(VkDescriptorSetLayout layout) {
  if (pools_.empty()) add_pool();
  if (used_in_current_ == kSetsPerPool) {
    ++current_;
    used_in_current_ = 0;
    if (current_ == pools_.size()) add_pool();
  }
  VkDescriptorSetAllocateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  info.descriptorPool = pools_[current_];
  info.descriptorSetCount = 1;
  info.pSetLayouts = &layout;
  VkDescriptorSet set = VK_NULL_HANDLE;
  vk_check(ctx_.fn().vkAllocateDescriptorSets(ctx_.device(), &info, &set), "vkAllocateDescriptorSets",
           ctx_.name());
  ++used_in_current_;
  return set;
}

void VulkanDescriptorArena::reset() {
  for (VkDescriptorPool pool : pools_) ctx_.fn().vkResetDescriptorPool(ctx_.device(), pool, 0);
  current_ = 0;
  used_in_current_ = 0;
}

}  // namespace bk
