// SPDX-License-Identifier: MIT
#include "devices/vulkan/vk_stream.h"

#include <fmt/format.h>

#include "devices/vulkan/vk_context.h"
#include "devices/vulkan/vk_error.h"

namespace bk {
namespace {

void record_barrier(const VulkanDeviceFns& fn, VkCommandBuffer cb, VkPipelineStageFlags dst_stage,
                    VkAccessFlags dst_access) {
  VkMemoryBarrier barrier{};
  barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  barrier.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
  barrier.dstAccessMask = dst_access;
  fn.vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, dst_stage, 0, 1, &barrier, 0, nullptr, 0,
                          nullptr);
}

}  // namespace

VulkanTimeline::VulkanTimeline(VulkanContext& ctx) : ctx_(ctx) {
  VkSemaphoreTypeCreateInfo type{};
  type.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO;
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  type.initialValue = 0;
  VkSemaphoreCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
  info.pNext = &type;
  vk_check(ctx.fn().vkCreateSemaphore(ctx.device(), &info, nullptr, &semaphore_), "vkCreateSemaphore",
           ctx.name(), "a timeline semaphore for a stream");
}

VulkanTimeline::~VulkanTimeline() { ctx_.fn().vkDestroySemaphore(ctx_.device(), semaphore_, nullptr); }

uint64_t VulkanTimeline::completed() const {
  uint64_t value = 0;
  vk_check(ctx_.fn().vkGetSemaphoreCounterValue(ctx_.device(), semaphore_, &value),
           "vkGetSemaphoreCounterValue", ctx_.name());
  return value;
}

void VulkanTimeline::wait(uint64_t value) const {
  VkSemaphoreWaitInfo info{};
  info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
  info.semaphoreCount = 1;
  info.pSemaphores = &semaphore_;
  info.pValues = &value;
  constexpr uint64_t kNanos = kWaitTimeoutSeconds * 1000'000'000ull;
  vk_check(ctx_.fn().vkWaitSemaphores(ctx_.device(), &info, kNanos), "vkWaitSemaphores", ctx_.name(),
           fmt::format("waiting up to {} s for submitted work to finish", kWaitTimeoutSeconds));
}

VulkanStream::VulkanStream(VulkanContext& ctx) : ctx_(ctx) {
  VkCommandPoolCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT | VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  info.queueFamilyIndex = ctx.queue_family();
  vk_check(ctx.fn().vkCreateCommandPool(ctx.device(), &info, nullptr, &pool_), "vkCreateCommandPool",
           ctx.name());
  try {
    timeline_ = std::make_shared<VulkanTimeline>(ctx);
  } catch (...) {
    ctx.fn().vkDestroyCommandPool(ctx.device(), pool_, nullptr);
    throw;
  }
}

VulkanStream::~VulkanStream() {
  try {
    if (submitted_ != 0) timeline_->wait(submitted_);
  } catch (const std::exception&) {
    // A lost or hung device: nothing more can be done here, and destructors must not throw.
  }
  ctx_.fn().vkDestroyCommandPool(ctx_.device(), pool_, nullptr);
}

VkCommandBuffer VulkanStream::commands() {
  if (current_ != VK_NULL_HANDLE) return current_;
  reclaim();
  VkCommandBuffer cb = VK_NULL_HANDLE;
  if (!free_.empty()) {
    cb = free_.back();
    free_.pop_back();
  } else {
    VkCommandBufferAllocateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    info.commandPool = pool_;
    info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    info.commandBufferCount = 1;
    vk_check(ctx_.fn().vkAllocateCommandBuffers(ctx_.device(), &info, &cb), "vkAllocateCommandBuffers",
             ctx_.name());
  }
  VkCommandBufferBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  const VkResult result = ctx_.fn().vkBeginCommandBuffer(cb, &begin);
  if (result != VK_SUCCESS) free_.push_back(cb);
  vk_check(result, "vkBeginCommandBuffer", ctx_.name());
  current_ = cb;
  return cb;
}

void VulkanStream::barrier() {
  record_barrier(ctx_.fn(), commands(), VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                 VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
}

void VulkanStream::wait_for(std::shared_ptr<VulkanTimeline> timeline, uint64_t value) {
  if (value == 0 || timeline == timeline_) return;  // own work is in order already
  waits_.emplace_back(std::move(timeline), value);
}

uint64_t VulkanStream::submit() {
  if (current_ == VK_NULL_HANDLE && waits_.empty()) return submitted_;
  VkCommandBuffer cb = current_;
  current_ = VK_NULL_HANDLE;
  if (cb != VK_NULL_HANDLE) {
    // Device writes become visible to the host once the timeline value is reached.
    record_barrier(ctx_.fn(), cb, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    const VkResult ended = ctx_.fn().vkEndCommandBuffer(cb);
    if (ended != VK_SUCCESS) free_.push_back(cb);
    vk_check(ended, "vkEndCommandBuffer", ctx_.name());
  }
  std::vector<VkSemaphore> wait_semaphores;
  std::vector<uint64_t> wait_values;
  std::vector<VkPipelineStageFlags> wait_stages;
  for (const auto& [timeline, value] : waits_) {
    wait_semaphores.push_back(timeline->handle());
    wait_values.push_back(value);
    wait_stages.push_back(VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
  }
  const uint64_t signal = submitted_ + 1;
  VkSemaphore signal_semaphore = timeline_->handle();
  VkTimelineSemaphoreSubmitInfo values{};
  values.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO;
  values.waitSemaphoreValueCount = static_cast<uint32_t>(wait_values.size());
  values.pWaitSemaphoreValues = wait_values.data();
  values.signalSemaphoreValueCount = 1;
  values.pSignalSemaphoreValues = &signal;
  VkSubmitInfo info{};
  info.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  info.pNext = &values;
  info.waitSemaphoreCount = static_cast<uint32_t>(wait_semaphores.size());
  info.pWaitSemaphores = wait_semaphores.data();
  info.pWaitDstStageMask = wait_stages.data();
  info.commandBufferCount = cb != VK_NULL_HANDLE ? 1 : 0;
  info.pCommandBuffers = &cb;
  info.signalSemaphoreCount = 1;
  info.pSignalSemaphores = &signal_semaphore;
  waits_.clear();
  try {
    ctx_.submit(info);
  } catch (...) {
    if (cb != VK_NULL_HANDLE) free_.push_back(cb);
    throw;
  }
  submitted_ = signal;
  if (cb != VK_NULL_HANDLE) in_flight_.push_back({signal, cb});
  return signal;
}

void VulkanStream::wait(uint64_t value) {
  if (value == 0) return;
  timeline_->wait(value);
  reclaim();
}

bool VulkanStream::idle() const {
  if (current_ != VK_NULL_HANDLE || !waits_.empty()) return false;
  return submitted_ == 0 || timeline_->completed() >= submitted_;
}

void VulkanStream::reclaim() {
  if (in_flight_.empty()) return;
  const uint64_t done = timeline_->completed();
  while (!in_flight_.empty() && in_flight_.front().value <= done) {
    free_.push_back(in_flight_.front().commands);
    in_flight_.pop_front();
  }
}

}  // namespace bk
