// SPDX-License-Identifier: MIT
#include "probe/bench_timer.h"

#include <chrono>
#include <cmath>
#include <string>

#include "bk/error.h"

namespace bk {

double now_seconds() noexcept {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double seconds_since(std::chrono::steady_clock::time_point start) noexcept {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

bool timing_done(std::span<const double> samples, double elapsed, const TimingOptions& options) {
  const auto n = static_cast<int>(samples.size());
  if (n >= options.max_samples) return true;
  if (n < options.min_samples || elapsed < options.budget_s) return false;
  if (elapsed >= options.budget_s * (1 + options.ci_overtime)) return true;
  return median_spread(summarize(samples)) <= options.ci_target;
}

Timing time_repeated(const std::function<double()>& run, const TimingOptions& options) {
  if (options.min_samples < 1 || options.max_samples < options.min_samples) {
    throw Error(ErrorCode::invalid_argument, "time_repeated: need 1 <= min_samples <= max_samples");
  }
  // A run slower than the budget is warm after one: more warm-up would only spend wall time.
  const double warm_start = now_seconds();
  for (int i = 0; i < options.warmup; ++i) {
    run();
    if (now_seconds() - warm_start >= options.budget_s) break;
  }
  Timing timing;
  const double start = now_seconds();
  do {
    const double seconds = run();
    if (!std::isfinite(seconds) || seconds < 0) {
      throw Error(ErrorCode::invalid_argument,
                  "time_repeated: a run measured " + std::to_string(seconds) + " s (broken timer)");
    }
    timing.samples.push_back(seconds);
  } while (!timing_done(timing.samples, now_seconds() - start, options));
  timing.stats = summarize(timing.samples);
  timing.ci_met = median_spread(timing.stats) <= options.ci_target;
  return timing;
}

}  // namespace bk
