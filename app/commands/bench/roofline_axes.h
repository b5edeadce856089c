// SPDX-License-Identifier: MIT
#pragma once
// The roofline's two logarithmic axes, fitted to what is drawn: arithmetic intensity in powers
// of two, the rate in whole or half decades. A fixed range left most of the plot empty on a slow
// device and cut points off on a fast one.

#include <string>
#include <vector>

namespace bkctl::roofline {

struct LogAxis {
  double lo = 1, hi = 10;       // data values at the two ends
  double px_lo = 0, px_hi = 1;  // their pixel positions (for y, px_lo is the bottom)
  std::vector<double> ticks;    // data values, each with a grid line and a label
  double px(double v) const;    // clamped to the axis, so that nothing is drawn outside it
  bool contains(double v) const { return v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9); }
};

// From a bit below `min_ai` to a bit above `max_ai` (FLOP/byte), in powers of two that are
// multiples of the tick step; at least 6 octaves (a point alone still has a roof around it),
// never beyond 2^-12 .. 2^20.
LogAxis fit_x_axis(double min_ai, double max_ai, double px_left, double px_right);

// From a bit below `min_rate` to a bit above `max_rate` (GFLOP/s), in half decades; at least
// one decade, at most seven (below that, rates are noise next to the ceilings).
LogAxis fit_y_axis(double min_rate, double max_rate, double px_bottom, double px_top);

// Tick labels people read at a glance: "1/64", "1/4", "1", "16" and "0.1", "3", "30", "1k".
std::string ai_label(double ai);
std::string rate_label(double rate);

}  // namespace bkctl::roofline
