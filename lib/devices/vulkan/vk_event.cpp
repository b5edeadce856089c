#include "devices/vulkan/vk_event.h"

#include <fmt/format.h>

#include "core/error.h"
#include "devices/vulkan/vk_backend.h"
#include "devices/vulkan/vk_device.h"
#include "devices/vulkan/vk_stream.h"

namespace bk {

Device& VulkanEvent::device() const { return device_; }

void VulkanEvent::record(Backend& backend) {
  auto* vulkan = dynamic_cast<VulkanBackend*>(&backend);
  if (vulkan == nullptr || &vulkan->device() != &device_) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("an event of {} cannot record a point in backend {} of device {}", device_.name(),
                            backend.name(), backend.device().name()));
  }
  vulkan->flush();
  timeline_ = vulkan->stream().timeline();
  value_ = vulkan->stream().last_submitted();
}

void VulkanEvent::synchronize() {
  if (timeline_) timeline_->wait(value_);
}

}  // namespace bk
