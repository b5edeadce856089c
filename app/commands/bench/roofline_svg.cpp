// SPDX-License-Identifier: MIT
// `bkctl bench --plot`: the roofline SVG. With one device, that device's chart; with several,
// first one chart with all of them overlaid (a marker shape per device), then a panel each. The
// charts are drawn by roofline_chart.cpp, from what roofline_data.cpp takes out of the run.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "commands/bench/cli.h"
#include "commands/bench/roofline_chart.h"
#include "commands/bench/roofline_draw.h"

namespace bkctl {
namespace {

using roofline::ChartSpec;
using roofline::Series;

std::string device_list(const std::vector<Series>& series) {
  std::string names;
  for (const Series& s : series) names += (names.empty() ? "" : ", ") + s.roof.device;
  return names;
}

std::vector<ChartSpec> chart_specs(const BenchRun& run) {
  std::vector<Series> all;
  for (const DeviceBench& b : run.devices) {
    all.push_back({roofline::device_roof(b), static_cast<int>(all.size())});
  }
  std::vector<ChartSpec> specs;
  if (all.size() > 1) specs.push_back({"All devices: " + device_list(all), true, all});
  for (const Series& s : all) {
    const std::string& d = s.roof.description;
    specs.push_back({d.empty() ? s.roof.device : s.roof.device + " — " + d, false, {s}});
  }
  return specs;
}

// The charts one under the other, a rule between them.
std::string stacked(const std::vector<ChartSpec>& specs, double& width, double& height) {
  std::string body;
  for (const ChartSpec& spec : specs) {
    const roofline::Chart chart = roofline::draw_chart(spec);
    if (height > 0) {
      body += fmt::format("<line x1=\"20\" y1=\"{0:.1f}\" x2=\"{1:.1f}\" y2=\"{0:.1f}\" stroke=\"#ccc\"/>\n",
                          height + 6, roofline::kChartWidth - 20);
      height += 12;
    }
    body += fmt::format(
        "<g class=\"chart\" data-kind=\"{}\" data-device=\"{}\" transform=\"translate(0 {:.1f})\">\n",
        spec.overlay ? "overlay" : "panel", spec.overlay ? "" : xml_escape(spec.series.front().roof.device),
        height);
    body += chart.svg + "</g>\n";
    width = std::max(width, chart.width);
    height += chart.height;
  }
  return body;
}

}  // namespace

std::string roofline_svg(const BenchRun& run) {
  double width = roofline::kChartWidth, height = 0;
  std::string body = stacked(chart_specs(run), width, height);
  if (run.devices.empty()) {
    body = "<text x=\"20\" y=\"30\" font-size=\"12\">no devices were measured</text>\n";
    height = 50;
  }
  // DejaVu Sans first: the label layout measures text with its widths (roofline_layout.cpp).
  return fmt::format(
             "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
             "width=\"{0:.0f}\" height=\"{1:.0f}\" viewBox=\"0 0 {0:.0f} {1:.0f}\" "
             "font-family=\"'DejaVu Sans', Verdana, Arial, sans-serif\">\n"
             "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n",
             std::ceil(width), std::ceil(height)) +
         body + "</svg>\n";
}

}  // namespace bkctl
