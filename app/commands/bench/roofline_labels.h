// SPDX-License-Identifier: MIT
#pragma once
// The roofline's labels (roofline_chart.cpp): each point's inside the plot, placed greedily
// (roofline_layout.h) beside its marker, a little off with a leader, or else as a number with
// the label in the chart's key; each bandwidth slope's along it; and the ceilings' in the
// column right of the plot, moved apart where their lines are close.

#include <string>
#include <vector>

#include "commands/bench/roofline_frame.h"
#include "commands/bench/roofline_layout.h"
#include "commands/bench/roofline_legend.h"

namespace bkctl::roofline {

// What the labels of one chart share while they are placed.
struct Labels {
  Placer placer;
  const std::vector<Marker>* markers = nullptr;  // all of the chart's, already obstacles
  bool overlay = false;                          // several devices: the key and ceiling labels name them
  std::string svg;                               // the labels placed so far
  std::vector<KeyRow> key;                       // the numbered points
};

// Call after every line and marker is an obstacle in `l.placer`; the slopes first.
void label_point(Labels& l, const Marker& m);
void label_slope(Labels& l, const Series& s, const std::vector<Series>& all, const Frame& f);
Block ceiling_column(const Labels& l, const std::vector<Series>& series, const Frame& f);

}  // namespace bkctl::roofline
