// SPDX-License-Identifier: MIT
#pragma once
// An event of the null device: a point in one of its streams. A null stream finishes each call
// before returning, so every recorded point has been reached and synchronize() returns at once;
// a real device would record a fence or a counter here and wait for it. Timing is not offered
// (caps().event_timing is false), so seconds_since is bk::Event's, which throws unsupported.

#include "bk/device.h"

namespace bk {

class NullDevice;

class NullEvent final : public Event {
 public:
  explicit NullEvent(NullDevice& device) noexcept : device_(&device) {}

  Device& device() const override;
  // Throws Error(invalid_argument) unless backend is a stream of this event's device.
  void record(Backend& backend) override;
  void synchronize() override {}

 private:
  NullDevice* device_;
};

}  // namespace bk
