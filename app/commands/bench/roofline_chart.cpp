// SPDX-License-Identifier: MIT
// One roofline chart: see roofline_chart.h. The plot's geometry is roofline_frame.cpp's, its
// labels roofline_labels.cpp's; this file draws the rest and puts the chart together. Lines go
// before markers before labels: what is drawn later is on top.
#include "commands/bench/roofline_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "commands/bench/roofline_axes.h"
#include "commands/bench/roofline_draw.h"
#include "commands/bench/roofline_frame.h"
#include "commands/bench/roofline_labels.h"
#include "commands/bench/roofline_layout.h"
#include "commands/bench/roofline_legend.h"

namespace bkctl::roofline {
namespace {

constexpr double kTitleBaseline = 24, kLegendTop = 36;

std::string axes_svg(const Frame& f) {
  std::string grid = "<g class=\"grid\" stroke=\"#e4e4e4\" stroke-width=\"1\">\n", ticks;
  for (double t : f.x.ticks) {
    const double px = f.x.px(t);
    grid += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\"/>\n", px, f.top,
                        f.bottom);
    ticks += text_svg({px, f.bottom + 15, Anchor::middle, {}}, ai_label(t), "tick-label", kFont,
                      " fill=\"#444\" data-axis=\"x\"");
  }
  for (double t : f.y.ticks) {
    const double py = f.y.px(t);
    grid += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\"/>\n", kPlotLeft,
                        py, kPlotRight);
    ticks += text_svg({kPlotLeft - 6, py + kTextMid, Anchor::end, {}}, rate_label(t), "tick-label", kFont,
                      " fill=\"#444\" data-axis=\"y\"");
  }
  const double mid_y = (f.top + f.bottom) / 2;
  ticks += text_svg({(kPlotLeft + kPlotRight) / 2, f.bottom + 35, Anchor::middle, {}},
                    "arithmetic intensity (FLOP/byte)", "axis-title", 11, " fill=\"#222\"");
  ticks += fmt::format(
      "<text class=\"axis-title\" x=\"18\" y=\"{0:.1f}\" font-size=\"11\" fill=\"#222\" "
      "text-anchor=\"middle\" transform=\"rotate(-90 18 {0:.1f})\">performance (GFLOP/s)</text>\n",
      mid_y);
  return grid + "</g>\n" + ticks;
}

// A dtype's horizontal roof, from where it meets the bandwidth slope to the right edge.
std::string ceiling_line(const Series& s, const Ceiling& c, const Frame& f, Placer& placer) {
  const double knee = s.roof.bandwidth > 0 ? c.gflops / s.roof.bandwidth : f.x.lo;
  if (knee >= f.x.hi) return "";
  const double x0 = f.x.px(std::max(knee, f.x.lo)), y = f.y.px(c.gflops);
  placer.block_line(x0, y, kPlotRight, y, 1.5);
  const std::string dash = c.best_measured ? fmt::format(" stroke-dasharray=\"{}\"", kBestMeasuredDash) : "";
  return fmt::format(
      "<line class=\"ceiling\" data-device=\"{}\" data-dtype=\"{}\" data-kind=\"{}\" "
      "x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"2\"{}/>\n",
      device_attr(s), xml_escape(c.dtype), c.best_measured ? "best-measured" : "peak-kernel", x0, y,
      kPlotRight, y, dtype_color(c.dtype), dash);
}

std::string slope_line(const Series& s, const Frame& f, Placer& placer) {
  const Slope slope = slope_of(s, f);
  if (!slope.visible()) return "";
  const double bw = s.roof.bandwidth;
  const double x0 = f.x.px(slope.from), y0 = f.y.px(bw * slope.from);
  const double x1 = f.x.px(slope.to), y1 = f.y.px(bw * slope.to);
  placer.block_line(x0, y0, x1, y1, 1.5);
  return fmt::format(
      "<line class=\"bandwidth\" data-device=\"{}\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
      "stroke=\"{}\" stroke-width=\"2\"/>\n",
      device_attr(s), x0, y0, x1, y1, kBandwidthColor);
}

std::string marker_element(const Marker& m) {
  const DataPoint& p = *m.point;
  const std::string attrs =
      fmt::format("class=\"point\" data-device=\"{}\" data-dtype=\"{}\" data-label=\"{}\"",
                  device_attr(*m.series), xml_escape(p.dtype), xml_escape(p.label));
  return fmt::format("<g><title>{} {}: {} GFLOP/s at {:.3g} FLOP/byte</title>{}</g>\n",
                     device_attr(*m.series), xml_escape(p.label), rate_text(p.gflops), p.ai,
                     marker_svg(m.series->shape, m.cx, m.cy, kMarkerRadius, dtype_color(p.dtype), attrs));
}

std::vector<LegendItem> legend_items(const ChartSpec& spec) {
  std::vector<std::string> dtypes;
  bool kernel = false, best = false, bandwidth = false;
  for (const Series& s : spec.series) {
    for (const DataPoint& p : s.roof.points) dtypes.push_back(p.dtype);
    for (const Ceiling& c : s.roof.ceilings) {
      dtypes.push_back(c.dtype);
      (c.best_measured ? best : kernel) = true;
    }
    bandwidth = bandwidth || s.roof.bandwidth > 0;
  }
  std::sort(dtypes.begin(), dtypes.end(), [](const std::string& a, const std::string& b) {
    return dtype_rank(a) != dtype_rank(b) ? dtype_rank(a) < dtype_rank(b) : a < b;
  });
  dtypes.erase(std::unique(dtypes.begin(), dtypes.end()), dtypes.end());
  std::vector<LegendItem> items;
  using Kind = LegendItem::Kind;
  for (const std::string& d : dtypes) {
    items.push_back({Kind::dtype, d, d == "graph" ? "whole graph (mixed dtypes)" : d, dtype_color(d), 0});
  }
  if (spec.overlay) {
    for (const Series& s : spec.series)
      items.push_back({Kind::device, s.roof.device, s.roof.device, "", s.shape});
  }
  if (bandwidth) items.push_back({Kind::bandwidth, "bandwidth", "bandwidth (memory roof)", "", 0});
  if (kernel) items.push_back({Kind::peak_kernel, "peak kernel", "peak kernel", "", 0});
  if (best) items.push_back({Kind::best_measured, "best measured", "best measured", "", 0});
  return items;
}

// Drops the last character (whole, in UTF-8) of a non-empty text.
void pop_character(std::string& text) {
  while (!text.empty() && (static_cast<unsigned char>(text.back()) & 0xC0) == 0x80) text.pop_back();
  if (!text.empty()) text.pop_back();
}

// The title, cut short with an ellipsis where a long device description would run off.
std::string title_svg(const std::string& title) {
  constexpr double kSize = 15, kRoom = kChartWidth - 2 * kPlotLeft;
  const auto fits = [&](const std::string& t) { return text_width(t, kSize) * 1.1 <= kRoom; };  // bold
  std::string text = title;
  if (!fits(text)) {
    do pop_character(text);
    while (!text.empty() && !fits(text + "…"));
    text += "…";
  }
  return text_svg({kPlotLeft, kTitleBaseline, Anchor::start, {}}, text, "chart-title", kSize,
                  " font-weight=\"bold\" fill=\"#111\"");
}

// The plot's content: the lines, then the markers, then the labels (the bandwidth slopes'
// first: theirs is the label a reader looks for first).
std::string plot_svg(const ChartSpec& spec, const Frame& f, const std::vector<Marker>& markers,
                     Labels& labels) {
  std::string lines, points;
  for (const Series& s : spec.series) {
    for (const Ceiling& c : s.roof.ceilings) lines += ceiling_line(s, c, f, labels.placer);
    lines += slope_line(s, f, labels.placer);
  }
  for (const Marker& m : markers) {
    points += marker_element(m);
    labels.placer.block(Rect{m.cx, m.cy, m.cx, m.cy}.grown(kMarkerRadius + 1.5));
  }
  for (const Series& s : spec.series) label_slope(labels, s, spec.series, f);
  for (const Marker& m : markers) label_point(labels, m);
  if (lines.empty() && points.empty()) {
    labels.svg += text_svg({(kPlotLeft + kPlotRight) / 2, (f.top + f.bottom) / 2, Anchor::middle, {}},
                           "no test that does arithmetic ran on this device", "note", 12, " fill=\"#666\"");
  }
  return lines + points + labels.svg;
}

std::string area_svg(const Frame& f, bool frame) {
  const Rect a = f.area();
  return fmt::format("<rect{} x=\"{}\" y=\"{:.1f}\" width=\"{}\" height=\"{}\" {}/>\n",
                     frame ? "" : " class=\"plot-area\"", a.x0, a.y0, a.x1 - a.x0, a.y1 - a.y0,
                     frame ? "fill=\"none\" stroke=\"#333\"" : "fill=\"#fff\"");
}

}  // namespace

std::string device_attr(const Series& s) { return xml_escape(s.roof.device); }

Chart draw_chart(const ChartSpec& spec) {
  const Block legend = legend_svg(legend_items(spec), kPlotLeft, kChartWidth - 12, kLegendTop);
  const Frame f = fit_frame(spec.series, legend.bottom + 14);
  const std::vector<Marker> markers = markers_of(spec.series, f);
  Labels labels{Placer(f.area().grown(-2)), &markers, spec.overlay, "", {}};
  const std::string plot = plot_svg(spec, f, markers, labels);
  const Block column = ceiling_column(labels, spec.series, f);
  const Block key = key_svg(labels.key, kColumnX, column.bottom + 16);
  // The frame last, over the ends of the lines.
  const std::string svg = title_svg(spec.title) + legend.svg + area_svg(f, false) + axes_svg(f) + plot +
                          column.svg + key.svg + area_svg(f, true);
  return {svg, std::max({kChartWidth, column.right + 12, key.right + 12}),
          std::max({f.bottom + 46, column.bottom + 12, key.bottom + 12})};
}

}  // namespace bkctl::roofline
