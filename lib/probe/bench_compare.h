// SPDX-License-Identifier: MIT
#pragma once
// Noise-aware regression check for `bkctl bench --baseline`: is a new median worse than the
// baseline's by more than the tolerance plus what the two runs' own noise allows?
//
// The noise allowance is 3 standard errors of the difference of the two medians, with each
// median's standard error estimated from its run as 1.2533 * cv * value / sqrt(samples) (the
// large-sample standard error of a median). A noisy test thus needs a larger drop to count,
// a steady one does not hide a real drop behind the tolerance. Pure functions.
//
// Below kMinCompareSamples samples, or above kMaxCompareCv spread, on either side, that estimate
// is itself unreliable (3 or 4 samples on a loaded host gave false regressions): such a pair is
// inconclusive and says which side and why, unless it dropped by more than kGrossDrop (to half
// or less), which no noise explains and stays a regression.

#include <cstddef>
#include <string>

namespace bk {

struct Measured {
  double median = 0;
  double cv = 0;
  size_t samples = 0;
};

inline constexpr size_t kMinCompareSamples = 5;
inline constexpr double kMaxCompareCv = 0.2;
inline constexpr double kGrossDrop = 0.5;

struct Verdict {
  double change = 0;   // relative change in the "better" direction: -0.3 is 30% worse
  double allowed = 0;  // tolerance + noise allowance, as a fraction of the baseline
  bool regression = false;
  std::string inconclusive;  // why the pair cannot be judged ("now 3 samples, fewer than 5"); empty: judged
};

// higher_is_better: rates (GFLOP/s, GB/s); false for latencies. tolerance: 0.1 for 10%.
Verdict compare_to_baseline(const Measured& baseline, const Measured& current, double tolerance,
                            bool higher_is_better);

}  // namespace bk
