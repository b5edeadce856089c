// SPDX-License-Identifier: MIT
#include "devices/vulkan/vk_descriptors.h"

#include <array>

#include "devices/vulkan/vk_context.h"
#include "devices/vulkan/vk_error.h"
#include "devices/vulkan/vk_pipelines.h"

namespace bk {

VulkanDescriptorArena::~VulkanDescriptorArena() {
  for (VkBufferView view : views_) ctx_.fn().vkDestroyBufferView(ctx_.device(), view, nullptr);
  for (VkDescriptorPool pool : pools_) ctx_.fn().vkDestroyDescriptorPool(ctx_.device(), pool, nullptr);
}

void VulkanDescriptorArena::add_pool() {
  // Any mix of the two layouts: every binding may be a storage buffer, bindings 0 and 1 texels.
  std::array<VkDescriptorPoolSize, 2> sizes{};
  sizes[0].type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  sizes[0].descriptorCount = kSetsPerPool * VulkanPipelines::kBindings;
  sizes[1].type = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
  sizes[1].descriptorCount = kSetsPerPool * 2;
  VkDescriptorPoolCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
  info.maxSets = kSetsPerPool;
  info.poolSizeCount = static_cast<uint32_t>(sizes.size());
  info.pPoolSizes = sizes.data();
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

VkBufferView VulkanDescriptorArena::texel_view(VkBuffer buffer, VkDeviceSize offset, VkDeviceSize range,
                                               VkFormat format) {
  VkBufferViewCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO;
  info.buffer = buffer;
  info.format = format;
  info.offset = offset;
  info.range = range;
  views_.reserve(views_.size() + 1);  // so push_back cannot throw with the view unrecorded
  VkBufferView view = VK_NULL_HANDLE;
  vk_check(ctx_.fn().vkCreateBufferView(ctx_.device(), &info, nullptr, &view), "vkCreateBufferView",
           ctx_.name());
  views_.push_back(view);
  return view;
}

void VulkanDescriptorArena::reset() {
  for (VkBufferView view : views_) ctx_.fn().vkDestroyBufferView(ctx_.device(), view, nullptr);
  views_.clear();
  for (VkDescriptorPool pool : pools_) ctx_.fn().vkResetDescriptorPool(ctx_.device(), pool, 0);
  current_ = 0;
  used_in_current_ = 0;
}

}  // namespace bk
