// SPDX-License-Identifier: MIT
#include "probe/bench_compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace bk {
namespace {

constexpr double kMedianStdErr = 1.2533;  // sqrt(pi / 2)
constexpr double kSigmas = 3;

double relative_stderr(const Measured& m) noexcept {
  const double n = static_cast<double>(std::max<size_t>(m.samples, 1));
  return kMedianStdErr * m.cv / std::sqrt(n);
}

std::string unreliable(const char* side, const Measured& m) {
  if (m.samples < kMinCompareSamples)
    return fmt::format("{} {} samples, fewer than {}", side, m.samples, kMinCompareSamples);
  if (m.cv > kMaxCompareCv)
    return fmt::format("{} cv {:.0f}%, above {:.0f}%", side, 100 * m.cv, 100 * kMaxCompareCv);
  return {};
}

}  // namespace

Verdict compare_to_baseline(const Measured& baseline, const Measured& current, double tolerance,
                            bool higher_is_better) {
  Verdict v;
  if (baseline.median <= 0) return v;
  const double ratio = current.median / baseline.median;
  v.change = higher_is_better ? ratio - 1 : 1 - ratio;
  const double noise = std::hypot(relative_stderr(baseline), relative_stderr(current) * ratio);
  v.allowed = tolerance + kSigmas * noise;
  std::string why = unreliable("baseline", baseline);
  if (why.empty()) why = unreliable("now", current);
  if (why.empty()) {
    v.regression = v.change < -v.allowed;
  } else if (v.change < -kGrossDrop) {  // the unreliable side's noise estimate cannot excuse it
    v.regression = true;
  } else {
    v.inconclusive = std::move(why);
  }
  return v;
}

}  // namespace bk
