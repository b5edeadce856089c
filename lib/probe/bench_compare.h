// SPDX-License-Identifier: MIT
#pragma once
// Noise-aware regression check for `bkctl bench --baseline`: is a new median worse than the
// baseline's by more than the tolerance plus what the two runs' own noise allows?
//
// The noise allowance is 3 standard errors of the difference of the two medians, with each
// median's standard error estimated from its run as 1.2533 * cv * value / sqrt(samples) (the
// large-sample standard error of a median). A noisy test thus needs a larger drop to count,
// a steady one does not hide a real drop behind the tolerance. Pure functions.

#include <cstddef>

namespace bk {

struct Measured {
  double median = 0;
  double cv = 0;
  size_t samples = 0;
};

struct Verdict {
  double change = 0;   // relative change in the "better" direction: -0.3 is 30% worse
  double allowed = 0;  // tolerance + noise allowance, as a fraction of the baseline
  bool regression = false;
};

// higher_is_better: rates (GFLOP/s, GB/s); false for latencies. tolerance: 0.1 for 10%.
Verdict compare_to_baseline(const Measured& baseline, const Measured& current, double tolerance,
                            bool higher_is_better) noexcept;

}  // namespace bk
