// SPDX-License-Identifier: MIT
// The roofline's labels: see roofline_labels.h.
#include "commands/bench/roofline_labels.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "commands/bench/roofline_draw.h"

namespace bkctl::roofline {
namespace {

constexpr double kLabelStep = 13;  // between the column's labels' baselines

double distance(const Rect& r, double x, double y) {
  return std::hypot(std::max({r.x0 - x, 0.0, x - r.x1}), std::max({r.y0 - y, 0.0, y - r.y1}));
}

// Keeps the spots that are nearer to the marker `m` than to any other, or have a leader to it:
// a label between two points, or diagonally off its own towards another, would be read as the
// other's.
std::vector<TextSpot> unambiguous(std::vector<TextSpot> spots, const Marker& m,
                                  const std::vector<Marker>& all) {
  std::erase_if(spots, [&](const TextSpot& spot) {
    if (spot.leader) return false;  // the leader says which marker it is
    const double own = distance(spot.box, m.cx, m.cy);
    return std::any_of(all.begin(), all.end(), [&](const Marker& o) {
      return &o != &m && distance(spot.box, o.cx, o.cy) <= own + 1;
    });
  });
  return spots;
}

std::string named(const Labels& l, const Series& s, const std::string& text) {
  return l.overlay ? s.roof.device + " " + text : text;
}

// A label's text and, where it is set off from its marker, the leader to it.
std::string spot_svg(const TextSpot& spot, const std::string& text, std::string_view cls,
                     std::string_view attrs) {
  std::string s;
  if (spot.leader) {
    s += fmt::format(
        "<line class=\"label-leader\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
        "stroke=\"#888\" stroke-width=\"0.7\"/>\n",
        spot.leader->x0, spot.leader->y0, spot.leader->x1, spot.leader->y1);
  }
  return s + text_svg(spot, text, cls, kFont, attrs);
}

// The slope's label, horizontal, above-left of a point on the slope or below-right of it,
// trying the middle of the slope first.
std::vector<TextSpot> slope_spots(const Series& s, const Frame& f, const std::string& text) {
  const Slope slope = slope_of(s, f);
  std::vector<TextSpot> spots;
  for (double t : {0.45, 0.3, 0.6, 0.15, 0.75, 0.05, 0.9}) {
    const double ai = slope.from * std::pow(slope.to / slope.from, t);
    const double px = f.x.px(ai), py = f.y.px(s.roof.bandwidth * ai);
    const double above = py - 6 - kDescent * kFont, below = py + 6 + kAscent * kFont;
    spots.push_back(
        {px - 4, above, Anchor::end, text_box(px - 4, above, Anchor::end, text, kFont), std::nullopt});
    spots.push_back(
        {px + 4, below, Anchor::start, text_box(px + 4, below, Anchor::start, text, kFont), std::nullopt});
  }
  return spots;
}

// How far `box` is from a series' slope, in pixels (sampled along it: close enough to compare).
double distance_to_slope(const Rect& box, const Series& s, const Frame& f) {
  const Slope slope = slope_of(s, f);
  constexpr double kFar = std::numeric_limits<double>::infinity();
  if (!slope.visible()) return kFar;
  double nearest = kFar;
  for (int i = 0; i <= 64; ++i) {
    const double ai = slope.from * std::pow(slope.to / slope.from, i / 64.0);
    nearest = std::min(nearest, distance(box, f.x.px(ai), f.y.px(s.roof.bandwidth * ai)));
  }
  return nearest;
}

std::string ceiling_text(const Labels& l, const Series& s, const Ceiling& c) {
  const std::string what = c.best_measured ? "best measured" : "peak kernel";
  std::string text = fmt::format("{} {} {} GFLOP/s", c.dtype, what, rate_text(c.gflops));
  if (c.best_measured) text += " (" + c.test + ")";
  return named(l, s, text);
}

}  // namespace

// A point's label beside it, or a little off with a leader, where a candidate place is free;
// else a number there and the label, with its value, in the key.
void label_point(Labels& l, const Marker& m) {
  // Beside the marker, whose shape says the device, the test is enough; the key names both.
  const std::string& text = m.point->label;
  const std::string attrs = fmt::format(" fill=\"{}\" data-device=\"{}\" data-label=\"{}\"", kInk,
                                        device_attr(*m.series), xml_escape(m.point->label));
  const auto candidates = [&](const std::string& t, int rings) {
    return unambiguous(spots_around(m.cx, m.cy, kMarkerRadius, t, kFont, rings), m, *l.markers);
  };
  if (auto spot = l.placer.place(candidates(text, 3))) {
    l.svg += spot_svg(*spot, text, "point-label", attrs);
    return;
  }
  const int number = static_cast<int>(l.key.size()) + 1;
  const std::string digits = std::to_string(number);
  std::optional<TextSpot> spot = l.placer.place(candidates(digits, 4));
  const auto anywhere = [&] {
    return spots_anywhere(m.cx, m.cy, kMarkerRadius, digits, kFont, l.placer.bounds());
  };
  if (!spot) spot = l.placer.place(anywhere());
  if (!spot) spot = l.placer.place(anywhere(), true);
  // No room anywhere (a plot full of points): beside the marker all the same, so that the
  // key's number still leads to its point.
  if (!spot) spot = spots_around(m.cx, m.cy, kMarkerRadius, digits, kFont, 1).front();
  l.svg += spot_svg(*spot, digits, "point-label", attrs + fmt::format(" data-number=\"{}\"", number));
  l.key.push_back(
      {number, fmt::format("{}  {} GFLOP/s", named(l, *m.series, text), rate_text(m.point->gflops))});
}

// In the overlaid chart, a slope's label must be nearer its own slope than any other device's.
void label_slope(Labels& l, const Series& s, const std::vector<Series>& all, const Frame& f) {
  const Slope slope = slope_of(s, f);
  if (!slope.visible()) return;
  std::string text = named(l, s, fmt::format("bandwidth {} GB/s", rate_text(s.roof.bandwidth)));
  if (!s.roof.bandwidth_test.empty()) text += " (" + s.roof.bandwidth_test + ")";
  std::vector<TextSpot> spots = slope_spots(s, f, text);
  std::erase_if(spots, [&](const TextSpot& spot) {
    const double own = distance_to_slope(spot.box, s, f);
    return std::any_of(all.begin(), all.end(),
                       [&](const Series& o) { return &o != &s && distance_to_slope(spot.box, o, f) <= own; });
  });
  std::optional<TextSpot> spot = l.placer.place(spots);
  if (!spot) {  // anywhere, with a leader to the middle of the slope
    const double mid = std::sqrt(slope.from * slope.to);
    spot = l.placer.place(
        spots_anywhere(f.x.px(mid), f.y.px(s.roof.bandwidth * mid), 0, text, kFont, l.placer.bounds()));
  }
  if (!spot) return;  // a plot without room for it: the legend still names the line
  l.svg += spot_svg(*spot, text, "ceiling-label",
                    fmt::format(" fill=\"{}\" data-kind=\"bandwidth\" data-device=\"{}\"", kBandwidthColor,
                                device_attr(s)));
}

// The ceilings' labels in the column right of the plot, each level with its line, moved apart
// where lines are close, with a leader from the line's end to its label.
Block ceiling_column(const Labels& l, const std::vector<Series>& series, const Frame& f) {
  struct Item {
    const Series* s;
    const Ceiling* c;
    double y;
  };
  std::vector<Item> items;
  std::vector<double> wanted;
  for (const Series& s : series) {
    for (const Ceiling& c : s.roof.ceilings) {
      items.push_back({&s, &c, f.y.px(c.gflops)});
      wanted.push_back(items.back().y);
    }
  }
  const std::vector<double> at = spread(wanted, kLabelStep, f.top + 4, f.bottom - 4);
  Block out{"", f.top, kColumnX};
  for (size_t i = 0; i < items.size(); ++i) {
    const char* color = dtype_color(items[i].c->dtype);
    out.svg += fmt::format(
        "<line class=\"leader\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
        "stroke-width=\"0.8\"/>\n",
        kPlotRight, items[i].y, kColumnX - 3, at[i], color);
    const std::string attrs =
        fmt::format(" fill=\"{}\" data-kind=\"{}\" data-dtype=\"{}\" data-device=\"{}\"", color,
                    items[i].c->best_measured ? "best-measured" : "peak-kernel",
                    xml_escape(items[i].c->dtype), device_attr(*items[i].s));
    // Overlaid, each label starts with its device's marker, as the legend shows them.
    const double x = l.overlay ? kColumnX + 10 : kColumnX;
    if (l.overlay)
      out.svg += marker_svg(items[i].s->shape, kColumnX + 3, at[i], 3.5, color, "class=\"ceiling-mark\"");
    out.svg += text_svg({x, at[i] + kTextMid, Anchor::start, {}}, ceiling_text(l, *items[i].s, *items[i].c),
                        "ceiling-label", kFont, attrs);
    out.bottom = std::max(out.bottom, at[i] + kFont);
    out.right = std::max(out.right, x + text_width(ceiling_text(l, *items[i].s, *items[i].c), kFont));
  }
  return out;
}

}  // namespace bkctl::roofline
