// SPDX-License-Identifier: MIT
#include "devices/vulkan/vk_event.h"

#include <fmt/format.h>

#include "bk/error.h"
#include "devices/vulkan/vk_backend.h"
#include "devices/vulkan/vk_context.h"
#include "devices/vulkan/vk_device.h"
#include "devices/vulkan/vk_error.h"
#include "devices/vulkan/vk_stream.h"

namespace bk {

VulkanEvent::~VulkanEvent() {
  // A pending timestamp write must finish before its pool goes.
  if (pool_ == VK_NULL_HANDLE) return;
  try {
    synchronize();
  } catch (const Error&) {  // a lost device writes nothing more
  }
  ctx_->fn().vkDestroyQueryPool(ctx_->device(), pool_, nullptr);
}

Device& VulkanEvent::device() const { return device_; }

void VulkanEvent::record(Backend& backend) {
  auto* vulkan = dynamic_cast<VulkanBackend*>(&backend);
  if (vulkan == nullptr || &vulkan->device() != &device_) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("an event of {} cannot record a point in backend {} of device {}", device_.name(),
                            backend.name(), backend.device().name()));
  }
  VulkanStream& stream = vulkan->stream();
  if (timing_) write_timestamp(stream.commands(), stream.context());
  vulkan->flush();
  timeline_ = stream.timeline();
  value_ = stream.last_submitted();
}

void VulkanEvent::write_timestamp(VkCommandBuffer commands, VulkanContext& ctx) {
  const VulkanDeviceFns& fn = ctx.fn();
  if (pool_ == VK_NULL_HANDLE) {
    VkQueryPoolCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
    info.queryType = VK_QUERY_TYPE_TIMESTAMP;
    info.queryCount = 1;
    vk_check(fn.vkCreateQueryPool(ctx.device(), &info, nullptr, &pool_), "vkCreateQueryPool", device_.name());
    ctx_ = &ctx;
  }
  fn.vkCmdResetQueryPool(commands, pool_, 0, 1);
  fn.vkCmdWriteTimestamp(commands, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool_, 0);
}

void VulkanEvent::synchronize() {
  if (timeline_) timeline_->wait(value_);
}

uint64_t VulkanEvent::timestamp() const {
  if (!timeline_ || pool_ == VK_NULL_HANDLE) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("a timing event of {} was never recorded, so it has no time", device_.name()));
  }
  timeline_->wait(value_);
  uint64_t ticks = 0;
  vk_check(ctx_->fn().vkGetQueryPoolResults(ctx_->device(), pool_, 0, 1, sizeof ticks, &ticks, sizeof ticks,
                                            VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
           "vkGetQueryPoolResults", device_.name());
  return ticks;
}

double VulkanEvent::seconds_since(const Event& start) const {
  if (!timing_) return Event::seconds_since(start);
  const auto* begin = dynamic_cast<const VulkanEvent*>(&start);
  if (begin == nullptr || &begin->device_ != &device_ || !begin->timing_) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("seconds_since needs two timing events of {}; the start is an event of {}",
                            device_.name(), start.device().name()));
  }
  const VulkanDeviceInfo& info = device_.info();
  const uint64_t mask =
      info.timestamp_valid_bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << info.timestamp_valid_bits) - 1;
  const uint64_t ticks = (timestamp() - begin->timestamp()) & mask;
  return static_cast<double>(ticks) * static_cast<double>(info.props.limits.timestampPeriod) * 1e-9;
}

}  // namespace bk
