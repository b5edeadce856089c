// SPDX-License-Identifier: MIT
#include "probe/stats.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "bk/error.h"

namespace bk {

namespace {

double median_of_sorted(const std::vector<double>& sorted) {
  const size_t n = sorted.size();
  return n % 2 == 1 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

double coefficient_of_variation(const std::vector<double>& values, double mean) {
  if (values.size() < 2 || mean == 0) return 0;
  double squares = 0;
  for (double v : values) squares += (v - mean) * (v - mean);
  return std::sqrt(squares / static_cast<double>(values.size() - 1)) / std::fabs(mean);
}

// The order statistics bounding the median's 95% interval, by 1-based rank: the
// floor(n / 2 - 1.96 sqrt(n) / 2)-th and the ceil(1 + n / 2 + 1.96 sqrt(n) / 2)-th.
void median_interval(const std::vector<double>& sorted, double& low, double& high) {
  const size_t n = sorted.size();
  if (n < 6) {
    low = sorted.front();
    high = sorted.back();
    return;
  }
  const double middle = 0.5 * static_cast<double>(n), half = 0.98 * std::sqrt(static_cast<double>(n));
  const auto lo = static_cast<size_t>(std::max(1.0, std::floor(middle - half)));
  const auto hi = std::min(n, static_cast<size_t>(std::ceil(1 + middle + half)));
  low = sorted[lo - 1];
  high = sorted[hi - 1];
}

}  // namespace

double median_spread(const SampleStats& stats) noexcept {
  return stats.median == 0 ? 0 : (stats.median_high - stats.median_low) / 2 / std::fabs(stats.median);
}

SampleStats summarize(std::span<const double> samples) {
  if (samples.empty()) throw Error(ErrorCode::invalid_argument, "summarize: no samples");
  std::vector<double> sorted(samples.begin(), samples.end());
  double sum = 0;
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (!std::isfinite(sorted[i])) {
      throw Error(ErrorCode::invalid_argument, "summarize: sample " + std::to_string(i) + " is not finite");
    }
    sum += sorted[i];
  }
  std::sort(sorted.begin(), sorted.end());
  SampleStats stats;
  stats.count = sorted.size();
  stats.median = median_of_sorted(sorted);
  stats.min = sorted.front();
  stats.max = sorted.back();
  stats.mean = sum / static_cast<double>(sorted.size());
  stats.cv = coefficient_of_variation(sorted, stats.mean);
  median_interval(sorted, stats.median_low, stats.median_high);
  return stats;
}

}  // namespace bk
