// SPDX-License-Identifier: MIT
#pragma once
// Calibrated repetition for bkctl bench: warm-up runs first (compiling shaders, faulting pages,
// waking clocks), then as many measured runs as fit a time budget, between a minimum (so that
// the median and cv mean something) and a maximum (so that a microsecond test stays bounded).
//
// The caller's `run` does one repetition and returns the seconds it measured itself, so that a
// device with timing events can report device time and the others host time after
// synchronizing. The budget is wall time, so a slow run still yields min_samples samples; the
// warm-up stops early (after at least one run) once it has taken the budget itself. On a noisy
// machine the budget may not pin the median down: measuring then goes on past it until the
// median's 95% interval is tight, for at most a set overtime, and says whether it got there.
//
// Errors: whatever `run` throws propagates; Error(invalid_argument) for a non-finite or
// negative measurement (a broken timer must not become a number). Not thread-safe per call.

#include <chrono>
#include <functional>
#include <span>
#include <vector>

#include "probe/stats.h"

namespace bk {

struct TimingOptions {
  double budget_s = 0.5;  // wall seconds of measured runs (after warm-up)
  int warmup = 2;         // unmeasured runs first
  int min_samples = 3;
  int max_samples = 2000;
  // Past the budget, measuring goes on while the median's interval is wider than ci_target of
  // it (median_spread, stats.h), for at most ci_overtime times the budget more.
  double ci_target = 0.03;
  double ci_overtime = 0.5;
};

struct Timing {
  std::vector<double> samples;  // seconds per run, in the order measured
  SampleStats stats;            // summarize(samples)
  bool ci_met = true;           // median_spread(stats) <= ci_target when measuring stopped
};

Timing time_repeated(const std::function<double()>& run, const TimingOptions& options);

// Whether measuring stops after these samples, `elapsed` wall seconds into it: at max_samples;
// never below min_samples or before the budget; then once the median's interval is within
// ci_target, or the overtime is spent.
bool timing_done(std::span<const double> samples, double elapsed, const TimingOptions& options);

// Seconds since an arbitrary fixed point (steady clock), for callers that time host-side.
double now_seconds() noexcept;

// Seconds of the steady clock since `start`.
double seconds_since(std::chrono::steady_clock::time_point start) noexcept;

}  // namespace bk
