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
  while (static_cast<int>(timing.samples.size()) < options.max_samples) {
    const double seconds = run();
    if (!std::isfinite(seconds) || seconds < 0) {
      throw Error(ErrorCode::invalid_argument,
                  "time_repeated: a run measured " + std::to_string(seconds) + " s (broken timer)");
    }
    timing.samples.push_back(seconds);
    const bool enough = static_cast<int>(timing.samples.size()) >= options.min_samples;
    if (enough && now_seconds() - start >= options.budget_s) break;
  }
  timing.stats = summarize(timing.samples);
  return timing;
}

}  // namespace bk
