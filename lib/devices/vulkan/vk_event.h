#pragma once
// VulkanEvent: a point in a VulkanBackend's stream, as (timeline semaphore, value).
//
// record() submits what the backend recorded so far and remembers the value its timeline will
// reach when that is done; synchronize() waits for it on the host, and another stream of the
// same device waits for it on the device (VulkanBackend::wait). An event never recorded is
// already reached. Downloads queued with get_tensor_async are delivered by the backend's
// synchronize(), not by the event.
//
// Threading: one thread at a time.

#include <cstdint>
#include <memory>

#include "core/device.h"

namespace bk {

class VulkanDevice;
class VulkanTimeline;

class VulkanEvent : public Event {
 public:
  explicit VulkanEvent(VulkanDevice& device) : device_(device) {}

  Device& device() const override;
  // Throws Error(invalid_argument) unless backend is a VulkanBackend of this device.
  void record(Backend& backend) override;
  void synchronize() override;

  const std::shared_ptr<VulkanTimeline>& timeline() const noexcept { return timeline_; }
  uint64_t value() const noexcept { return value_; }

 private:
  VulkanDevice& device_;
  std::shared_ptr<VulkanTimeline> timeline_;
  uint64_t value_ = 0;
};

}  // namespace bk
