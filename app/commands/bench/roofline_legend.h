// SPDX-License-Identifier: MIT
#pragma once
// The roofline's legend (what each colour, marker and line style means) and its numbered key
// (the points whose labels found no free place in the plot).

#include <string>
#include <vector>

namespace bkctl::roofline {

struct LegendItem {
  enum class Kind { dtype, device, bandwidth, peak_kernel, best_measured };
  Kind kind = Kind::dtype;
  std::string name;   // dtype or device name, for the data- attribute
  std::string text;   // what the entry says
  std::string color;  // dtype colour; the line styles and devices are drawn in grey
  int shape = 0;      // marker shape (devices)
};

struct KeyRow {
  int number = 0;
  std::string text;  // "mul_mat/f32/512  41.3 GFLOP/s"
};

// SVG, the y where it ends and the x its widest line reaches.
struct Block {
  std::string svg;
  double bottom = 0;
  double right = 0;
};

// <g class="legend">: entries flowing left to right from x0, wrapping before x1, rows from `top`.
Block legend_svg(const std::vector<LegendItem>& items, double x0, double x1, double top);

// <g class="key">: a heading and one row per number, from `top` at x; empty without rows.
Block key_svg(const std::vector<KeyRow>& rows, double x, double top);

}  // namespace bkctl::roofline
