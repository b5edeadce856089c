// SPDX-License-Identifier: MIT
#pragma once
// Summary statistics of repeated measurements (seconds, GB/s, ...), shared by bkctl bench and
// bkctl smoke. Medians, not means, are what gets reported: this is a shared, noisy machine and
// one descheduled repetition must not move the result. The coefficient of variation (stddev /
// mean) says how far to trust the median, and is what baseline comparisons scale by.
//
// Pure functions; no state, safe from any thread.

#include <cstddef>
#include <span>

namespace bk {

struct SampleStats {
  size_t count = 0;
  double median = 0;
  double min = 0;
  double max = 0;
  double mean = 0;
  double cv = 0;  // sample standard deviation / mean; 0 for one sample or a zero mean
};

// Throws Error(invalid_argument) for an empty set or a non-finite sample (a NaN would make
// every order statistic meaningless, so it is refused rather than sorted somewhere).
SampleStats summarize(std::span<const double> samples);

}  // namespace bk
