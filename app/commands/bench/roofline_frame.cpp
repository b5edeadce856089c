// SPDX-License-Identifier: MIT
// The geometry of a roofline chart's plot: see roofline_frame.h.
#include "commands/bench/roofline_frame.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "commands/bench/roofline_draw.h"

namespace bkctl::roofline {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Extent {
  double ai_lo = kInf, ai_hi = 0, g_lo = kInf, g_hi = 0;
  void add_ai(double v) {
    ai_lo = std::min(ai_lo, v);
    ai_hi = std::max(ai_hi, v);
  }
  void add_g(double v) {
    g_lo = std::min(g_lo, v);
    g_hi = std::max(g_hi, v);
  }
};

}  // namespace

Frame fit_frame(const std::vector<Series>& series, double top) {
  Extent e;
  for (const Series& s : series) {
    for (const DataPoint& p : s.roof.points) {
      e.add_ai(p.ai);
      e.add_g(p.gflops);
    }
    for (const Ceiling& c : s.roof.ceilings) {
      e.add_g(c.gflops);
      if (s.roof.bandwidth > 0) e.add_ai(c.gflops / s.roof.bandwidth);
    }
  }
  if (e.ai_hi <= 0) {  // nothing to fit: a range around the usual knees
    e.add_ai(1.0 / 16);
    e.add_ai(16);
  }
  Frame f{top, top + kPlotHeight, fit_x_axis(e.ai_lo, e.ai_hi, kPlotLeft, kPlotRight), {}};
  for (const Series& s : series) {
    if (s.roof.bandwidth > 0) e.add_g(s.roof.bandwidth * f.x.lo);
  }
  if (e.g_hi <= 0) e.add_g(1);
  f.y = fit_y_axis(e.g_lo, e.g_hi, f.bottom, f.top);
  return f;
}

Slope slope_of(const Series& s, const Frame& f) {
  const double bw = s.roof.bandwidth;
  if (bw <= 0) return {};
  const double roof = s.roof.ceilings.empty() ? f.y.hi : s.roof.ceilings.front().gflops;
  return {std::max(f.x.lo, f.y.lo / bw), std::min({f.x.hi, roof / bw, f.y.hi / bw})};
}

std::vector<Marker> markers_of(const std::vector<Series>& series, const Frame& f) {
  std::vector<Marker> markers;
  for (const Series& s : series) {
    for (const DataPoint& p : s.roof.points) markers.push_back({&s, &p, f.x.px(p.ai), f.y.px(p.gflops)});
  }
  // Left to right, top first: labels then tend to fall into the free space beside the roof.
  std::stable_sort(markers.begin(), markers.end(),
                   [](const Marker& a, const Marker& b) { return a.cx != b.cx ? a.cx < b.cx : a.cy < b.cy; });
  // Points that would hide one another (f16 and bf16 move the same bytes, and run alike on a
  // device without either) are set side by side, a marker's width apart; the tooltip keeps
  // the exact numbers.
  const auto hidden = [&](size_t i) {
    return std::any_of(markers.begin(), markers.begin() + static_cast<std::ptrdiff_t>(i),
                       [&](const Marker& o) {
                         return std::hypot(markers[i].cx - o.cx, markers[i].cy - o.cy) < kMarkerRadius * 1.5;
                       });
  };
  for (size_t i = 0; i < markers.size(); ++i) {
    while (hidden(i)) markers[i].cx += kMarkerRadius * 1.8;
  }
  return markers;
}

}  // namespace bkctl::roofline
