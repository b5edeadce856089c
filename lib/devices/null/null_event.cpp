// SPDX-License-Identifier: MIT
#include "devices/null/null_event.h"

#include <fmt/format.h>

#include "bk/error.h"
#include "devices/null/null_device.h"

namespace bk {

Device& NullEvent::device() const { return *device_; }

void NullEvent::record(Backend& backend) {
  if (&backend.device() != device_) {
    throw Error(
        ErrorCode::invalid_argument,
        fmt::format("an event of {} cannot record a point in {}'s stream", device_->name(), backend.name()));
  }
}

}  // namespace bk
