// SPDX-License-Identifier: MIT
#pragma once
// The burn-in's timeline (smoke_burnin.cpp): windows of about a second, each closed after the
// run that ends it with the device's telemetry read then, a progress line every 5 s, and the
// throughput-drop rule judged over the windows. Not thread-safe: one burn-in's thread.

#include <chrono>
#include <optional>
#include <string_view>
#include <vector>

#include "bk/device.h"
#include "probe/smoke_checks.h"

namespace bk {

class BurnInTimeline {
 public:
  // `settings` (duration, progress) must outlive it; `flops` is one run's.
  BurnInTimeline(Device& device, const SmokeSettings& settings, double flops);

  // A run of `seconds` just ended, `wrong` when its result failed the checks.
  void add_run(double seconds, bool wrong);
  // Closes the last window.
  void finish();
  double elapsed() const;     // seconds since construction
  double cores_busy() const;  // this process's CPU seconds over the seconds since construction
  std::vector<SmokeSample>& samples() { return samples_; }

 private:
  using Clock = std::chrono::steady_clock;
  void close_window(double t);

  Device& device_;
  const SmokeSettings& settings_;
  double flops_;
  Clock::time_point start_;
  double cpu_start_;  // this process's CPU seconds at construction
  double window_start_ = 0;
  double window_cpu_start_;
  double next_progress_;  // when the next progress line is due
  SmokeSample window_;
  double busy_ = 0;  // seconds of the window's runs
  size_t wrong_ = 0;
  std::vector<SmokeSample> samples_;
};

// A reading by name, or nothing when the device did not give it.
std::optional<double> telemetry_value(const std::vector<TelemetryReading>& readings, std::string_view name);

// A burn-in's throughput drop: the baseline is the median GFLOP/s of the windows in its first
// minute (the first quarter of a shorter run); after it, the worst stretch is the lowest median
// over consecutive windows spanning a tenth of the run (1 to 10 s), so that one descheduled
// second does not count as throttling. Nothing when no window follows the baseline. The
// process's CPU share (median cores busy) is taken over the same windows.
struct ThroughputDrop {
  double baseline_gflops = 0;
  double worst_gflops = 0;
  double baseline_cores = 0;
  double worst_cores = 0;  // in the worst stretch
  double worst_at = 0;     // the end of the worst stretch, seconds
  double drop = 0;         // 1 - worst / baseline
};
std::optional<ThroughputDrop> throughput_drop(const std::vector<SmokeSample>& timeline,
                                              double duration_seconds);

}  // namespace bk
