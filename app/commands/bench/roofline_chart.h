// SPDX-License-Identifier: MIT
#pragma once
// One roofline chart: a title, the legend, the plot (grid, ceilings, bandwidth slopes, points
// and their labels), the ceiling labels beside it and the numbered key under them. The overlaid
// chart of all devices and each device's panel are both one of these (roofline_svg.cpp).

#include <string>
#include <vector>

#include "commands/bench/roofline_data.h"

namespace bkctl::roofline {

inline constexpr double kChartWidth = 1000;  // the usual width; see Chart::width

struct Series {
  DeviceRoof roof;
  int shape = 0;  // marker shape, fixed per device across the charts
};

// The series' device name, escaped for an SVG attribute.
std::string device_attr(const Series& s);

struct ChartSpec {
  std::string title;
  bool overlay = false;  // several devices: labels name the device, the legend lists them
  std::vector<Series> series;
};

struct Chart {
  std::string svg;   // in its own coordinates, from (0, 0)
  double width = 0;  // kChartWidth, or more where a long label in the column needs it
  double height = 0;
};

Chart draw_chart(const ChartSpec& spec);

}  // namespace bkctl::roofline
