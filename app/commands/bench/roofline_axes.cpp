// SPDX-License-Identifier: MIT
// The roofline's axes: see roofline_axes.h.
#include "commands/bench/roofline_axes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace bkctl::roofline {
namespace {

constexpr double kMinLog2 = -12, kMaxLog2 = 20, kMinOctaves = 6;
constexpr double kMaxDecades = 7;

// Grows [lo, hi] (exponents) to at least `span`, as evenly as the limits allow.
void widen(double& lo, double& hi, double span, double min, double max) {
  const double missing = span - (hi - lo);
  if (missing <= 0) return;
  lo -= std::floor(missing / 2);
  hi += std::ceil(missing / 2);
  if (lo < min) {
    hi += min - lo;
    lo = min;
  }
  if (hi > max) {
    lo = std::max(min, lo - (hi - max));
    hi = max;
  }
}

}  // namespace

double LogAxis::px(double v) const {
  const double t = (std::log(std::clamp(v, lo, hi)) - std::log(lo)) / (std::log(hi) - std::log(lo));
  return px_lo + t * (px_hi - px_lo);
}

LogAxis fit_x_axis(double min_ai, double max_ai, double px_left, double px_right) {
  // Air beyond the extremes: a point on the frame reads as cut off, and labels go to the right
  // of their points first, so that side gets more.
  double lo = std::floor(std::log2(min_ai) - 0.25), hi = std::ceil(std::log2(max_ai) + 0.6);
  lo = std::clamp(lo, kMinLog2, kMaxLog2 - kMinOctaves);
  hi = std::clamp(hi, lo + 1, kMaxLog2);
  widen(lo, hi, kMinOctaves, kMinLog2, kMaxLog2);
  // A label every octave up to 8 of them, else every 2 or 4: "1/16 1/4 1 4 16", never crowded.
  const double step = hi - lo <= 8 ? 1 : hi - lo <= 16 ? 2 : 4;
  lo = std::floor(lo / step) * step;
  hi = std::ceil(hi / step) * step;
  LogAxis axis{std::exp2(lo), std::exp2(hi), px_left, px_right, {}};
  for (double e = lo; e <= hi; e += step) axis.ticks.push_back(std::exp2(e));
  return axis;
}

LogAxis fit_y_axis(double min_rate, double max_rate, double px_bottom, double px_top) {
  // In half decades, with at least 30 % of air beyond the extremes (a tenth of a decade: room
  // for a marker on the edge).
  double hi = std::ceil(2 * std::log10(max_rate * 1.3)) / 2;
  double lo = std::floor(2 * std::log10(min_rate / 1.3)) / 2;
  lo = std::clamp(lo, hi - kMaxDecades, hi - 1);
  LogAxis axis{std::pow(10, lo), std::pow(10, hi), px_bottom, px_top, {}};
  // Decades; where fewer than three fit, the 3s between them as well (1, 3, 10, 30, 100).
  for (double e = std::ceil(lo); e <= hi + 1e-9; ++e) axis.ticks.push_back(std::pow(10, e));
  if (axis.ticks.size() < 3) {
    for (double e = std::floor(lo); e <= hi; ++e) {
      const double v = 3 * std::pow(10, e);
      if (axis.contains(v)) axis.ticks.push_back(v);
    }
    std::sort(axis.ticks.begin(), axis.ticks.end());
  }
  return axis;
}

std::string ai_label(double ai) {
  if (ai < 1) return fmt::format("1/{}", std::lround(1 / ai));
  return fmt::format("{}", std::llround(ai));
}

std::string rate_label(double rate) {
  const struct {
    double scale;
    const char* suffix;
  } units[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
  for (const auto& u : units) {
    if (rate >= u.scale * 0.999) return fmt::format("{:.3g}{}", rate / u.scale, u.suffix);
  }
  return fmt::format("{:.3g}", rate);
}

}  // namespace bkctl::roofline
