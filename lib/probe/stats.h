// SPDX-License-Identifier: MIT
#pragma once
// Summary statistics of repeated measurements (seconds, GB/s, ...), shared by bkctl bench and
// bkctl smoke. Medians, not means, are what gets reported: this is a shared, noisy machine and
// one descheduled repetition must not move the result. The coefficient of variation (stddev /
// mean) says how spread the samples are, and is what baseline comparisons scale by; the
// median's confidence interval says how well the median itself is known.
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
  // A 95% confidence interval of the median, distribution-free (order statistics ranked by the
  // binomial's normal approximation); [min, max] below 6 samples, where no narrower pair of
  // order statistics reaches 95%.
  double median_low = 0;
  double median_high = 0;
};

// The interval's half-width relative to the median: (high - low) / 2 / |median|; 0 when the
// median is 0.
double median_spread(const SampleStats& stats) noexcept;

// Throws Error(invalid_argument) for an empty set or a non-finite sample (a NaN would make
// every order statistic meaningless, so it is refused rather than sorted somewhere).
SampleStats summarize(std::span<const double> samples);

}  // namespace bk
