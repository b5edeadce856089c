// SPDX-License-Identifier: MIT
#pragma once
// The geometry of a roofline chart's plot (roofline_chart.cpp): where it sits, its axes fitted
// to the series it shows, the visible part of each bandwidth slope and where each point's
// marker goes.

#include <vector>

#include "commands/bench/roofline_axes.h"
#include "commands/bench/roofline_chart.h"
#include "commands/bench/roofline_layout.h"

namespace bkctl::roofline {

// The plot spans kPlotLeft..kPlotRight; the ceilings' labels and the key start at kColumnX.
inline constexpr double kPlotLeft = 72, kPlotRight = 630, kColumnX = 646, kPlotHeight = 340;

struct Frame {
  double top = 0, bottom = 0;
  LogAxis x, y;
  Rect area() const { return {kPlotLeft, top, kPlotRight, bottom}; }
};

// Axes fitted to what is drawn: the points, each ceiling and where it meets its bandwidth
// slope (the knee, so that the roof's bend is in view), and the slope where it enters the plot.
Frame fit_frame(const std::vector<Series>& series, double top);

// The bandwidth slope's visible part (ai from, ai to): from where it enters the plot up to the
// highest ceiling, or to the edge when no compute peak was measured.
struct Slope {
  double from = 0, to = 0;
  bool visible() const { return from < to; }
};

Slope slope_of(const Series& s, const Frame& f);

struct Marker {
  const Series* series = nullptr;
  const DataPoint* point = nullptr;
  double cx = 0, cy = 0;
};

// Left to right; points that would hide one another set side by side.
std::vector<Marker> markers_of(const std::vector<Series>& series, const Frame& f);

}  // namespace bkctl::roofline
