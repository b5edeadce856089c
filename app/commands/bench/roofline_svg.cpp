// SPDX-License-Identifier: MIT
// `bkctl bench --plot`: an SVG roofline per device. The ceilings are the measured peaks (each
// dtype's compute peak, the best bandwidth as the slope); every test that does arithmetic is a
// point at its arithmetic intensity (FLOP per byte moved, op_info's counts) and achieved GFLOP/s.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "commands/bench/cli.h"

namespace bkctl {
namespace {

constexpr double kW = 760, kH = 440, kLeft = 70, kRight = 190, kTop = 40, kBottom = 50;
constexpr double kXMin = 1.0 / 64, kXMax = 1024;
const char* const kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else if (c == '"')
      out += "&quot;";
    else
      out += c;
  }
  return out;
}

struct Point {
  std::string label;
  double ai = 0, gflops = 0;
};

double achieved_gflops(const BenchResult& r) {
  if (r.unit == "GFLOP/s") return r.stats.median;
  if (r.unit == "GB/s") return r.stats.median * r.flops / r.bytes;
  if (r.unit == "eval/s") return r.stats.median * r.flops / 1e9;
  return 0;
}

struct Axes {
  double y_min, y_max, y0;
  double x(double ai) const {
    return kLeft +
           (std::log2(ai) - std::log2(kXMin)) / (std::log2(kXMax) - std::log2(kXMin)) * (kW - kLeft - kRight);
  }
  double y(double g) const {
    return y0 + kTop +
           (1 - (std::log10(g) - std::log10(y_min)) / (std::log10(y_max) - std::log10(y_min))) *
               (kH - kTop - kBottom);
  }
};

std::string panel(const DeviceBench& b, double y0) {
  std::vector<Point> points;
  for (const BenchResult& r : b.results) {
    if (r.status != BenchStatus::ok || r.flops <= 0 || r.bytes <= 0 || r.test.group == "peak") continue;
    const double g = achieved_gflops(r);
    if (g > 0) points.push_back({r.test.id(), r.flops / r.bytes, g});
  }
  double top = 1, bw = 0;
  for (const Peak& p : b.peaks) {
    if (p.unit == "GFLOP/s")
      top = std::max(top, p.value);
    else
      bw = p.value;
  }
  for (const Point& p : points) top = std::max(top, p.gflops);
  const double y_max = std::pow(10, std::ceil(std::log10(top * 1.5)));
  const Axes ax{y_max / 1e5, y_max, y0};
  std::string s =
      fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"15\" font-weight=\"bold\">{} -- {}</text>\n", kLeft,
                  y0 + 24, escape(b.device->name()), escape(b.device->description()));
  s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#fafafa\" stroke=\"#333\"/>\n",
                   kLeft, y0 + kTop, kW - kLeft - kRight, kH - kTop - kBottom);
  for (double ai = kXMin; ai <= kXMax; ai *= 4) {
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\" text-anchor=\"middle\">{:g}</text>\n",
                     ax.x(ai), y0 + kH - kBottom + 14, ai);
  }
  for (double g = ax.y_min; g <= y_max * 1.01; g *= 10) {
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\" text-anchor=\"end\">{:g}</text>\n",
                     kLeft - 4, ax.y(g) + 3, g);
  }
  s += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\">arithmetic intensity (FLOP/byte)</text>\n",
                   kLeft + 150, y0 + kH - 12);
  s +=
      fmt::format("<text x=\"14\" y=\"{}\" font-size=\"11\" transform=\"rotate(-90 14 {})\">GFLOP/s</text>\n",
                  y0 + kH / 2, y0 + kH / 2);
  int c = 0;
  for (const Peak& p : b.peaks) {
    if (p.unit != "GFLOP/s") continue;
    // The compute ceiling, bent down by the bandwidth slope where that was measured.
    const double knee = bw > 0 ? std::clamp(p.value / bw, kXMin, kXMax) : kXMin;
    const char* color = kColors[c++ % 6];
    if (bw > 0) {
      const double g0 = std::max(bw * kXMin, ax.y_min);
      s += fmt::format(
          "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
          "stroke-width=\"2\"/>\n",
          ax.x(g0 / bw), ax.y(g0), ax.x(knee), ax.y(std::min(p.value, bw * knee)), color);
    }
    s += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"2\"/>\n",
        ax.x(knee), ax.y(p.value), ax.x(kXMax), ax.y(p.value), color);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\" fill=\"{}\">{} {:.3g} ({})</text>\n",
                     kW - kRight + 4, ax.y(p.value) + 3, color, p.name, p.value,
                     p.source.substr(0, p.source.find(' ', 5)));
  }
  if (bw > 0) {
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\">bandwidth {:.3g} GB/s</text>\n",
                     ax.x(kXMin) + 4, ax.y(std::max(bw * kXMin, ax.y_min)) - 6, bw);
  }
  for (const Point& p : points) {
    s += fmt::format(
        "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"#000\"><title>{} {:.3g} "
        "GFLOP/s</title></circle>\n",
        ax.x(std::clamp(p.ai, kXMin, kXMax)), ax.y(std::max(p.gflops, ax.y_min)), escape(p.label), p.gflops);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"9\">{}</text>\n",
                     ax.x(std::clamp(p.ai, kXMin, kXMax)) + 6, ax.y(std::max(p.gflops, ax.y_min)) - 4,
                     escape(p.label));
  }
  return s;
}

}  // namespace

std::string roofline_svg(const BenchRun& run) {
  const double height = kH * static_cast<double>(std::max<size_t>(run.devices.size(), 1));
  std::string s = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" "
      "height=\"{}\" "
      "viewBox=\"0 0 {} {}\" font-family=\"sans-serif\">\n<rect width=\"100%\" height=\"100%\" "
      "fill=\"#fff\"/>\n",
      kW, height, kW, height);
  for (size_t i = 0; i < run.devices.size(); ++i) s += panel(run.devices[i], kH * static_cast<double>(i));
  return s + "</svg>\n";
}

}  // namespace bkctl
