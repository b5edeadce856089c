// SPDX-License-Identifier: MIT
#pragma once
// VulkanEvent: a point in a VulkanBackend's stream, as (timeline semaphore, value).
//
// record() submits what the backend recorded so far and remembers the value its timeline will
// reach when that is done; synchronize() waits for it on the host, and another stream of the
// same device waits for it on the device (VulkanBackend::wait). An event never recorded is
// already reached. Downloads queued with get_tensor_async are delivered by the backend's
// synchronize(), not by the event.
//
// A timing event (VulkanDevice::create_timing_event) also writes a timestamp into the stream
// when it is recorded (vkCmdWriteTimestamp at the bottom of the pipe, so after every earlier
// command finished), into a one-query pool it owns; seconds_since() turns two of them into
// seconds with the device's timestampPeriod, modulo the queue's valid timestamp bits.
//
// Threading: one thread at a time.

#include <cstdint>
#include <memory>

#include "bk/device.h"
#include "devices/vulkan/vk_api.h"

namespace bk {

class VulkanContext;
class VulkanDevice;
class VulkanTimeline;

class VulkanEvent : public Event {
 public:
  VulkanEvent(VulkanDevice& device, bool timing) : device_(device), timing_(timing) {}
  ~VulkanEvent() override;
  VulkanEvent(const VulkanEvent&) = delete;
  VulkanEvent& operator=(const VulkanEvent&) = delete;

  Device& device() const override;
  // Throws Error(invalid_argument) unless backend is a VulkanBackend of this device.
  void record(Backend& backend) override;
  void synchronize() override;
  double seconds_since(const Event& start) const override;

  const std::shared_ptr<VulkanTimeline>& timeline() const noexcept { return timeline_; }
  uint64_t value() const noexcept { return value_; }

 private:
  void write_timestamp(VkCommandBuffer commands, VulkanContext& ctx);
  // The timestamp written by the last record(); waits for it. Throws Error(invalid_argument)
  // when never recorded.
  uint64_t timestamp() const;

  VulkanDevice& device_;
  bool timing_;
  std::shared_ptr<VulkanTimeline> timeline_;
  uint64_t value_ = 0;
  VulkanContext* ctx_ = nullptr;  // set with pool_
  VkQueryPool pool_ = VK_NULL_HANDLE;
};

}  // namespace bk
