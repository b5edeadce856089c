// SPDX-License-Identifier: MIT
// `bkctl bench`: timing one repetition of work queued on a backend, on the device where it
// can say how long the work took, on the host otherwise.
#include "bk/device.h"
#include "commands/bench/cli.h"

namespace bkctl {

RepetitionClock::RepetitionClock(bk::Device& device, bk::Backend& backend) : backend_(backend) {
  if (!device.caps().event_timing) return;
  start_ = device.create_timing_event();
  stop_ = device.create_timing_event();
}

double RepetitionClock::time(const std::function<void()>& submit) {
  if (!start_) {
    const double t0 = bk::now_seconds();
    submit();
    backend_.synchronize();
    return bk::now_seconds() - t0;
  }
  start_->record(backend_);
  submit();
  stop_->record(backend_);
  stop_->synchronize();
  // Outside the measurement: lets the backend recycle what the repetition used (descriptor
  // sets, staging), so thousands of repetitions do not pile up.
  backend_.synchronize();
  return stop_->seconds_since(*start_);
}

}  // namespace bkctl
