// SPDX-License-Identifier: MIT
// Label placement for the roofline: see roofline_layout.h.
#include "commands/bench/roofline_layout.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace bkctl::roofline {
namespace {

// DejaVu Sans Book advances in em, for ' ' (32) to '~' (126), read from the font's hmtx table.
constexpr double kAdvance[95] = {
    0.318, 0.401, 0.460, 0.838, 0.636, 0.950, 0.780, 0.275, 0.390, 0.390, 0.500, 0.838, 0.318, 0.361,
    0.318, 0.337, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.337, 0.337,
    0.838, 0.838, 0.838, 0.531, 1.000, 0.684, 0.686, 0.698, 0.770, 0.632, 0.575, 0.775, 0.752, 0.295,
    0.295, 0.656, 0.557, 0.863, 0.748, 0.787, 0.603, 0.787, 0.695, 0.635, 0.611, 0.732, 0.684, 0.989,
    0.685, 0.611, 0.685, 0.390, 0.337, 0.390, 0.838, 0.500, 0.500, 0.613, 0.635, 0.550, 0.635, 0.615,
    0.352, 0.635, 0.634, 0.278, 0.278, 0.579, 0.278, 0.974, 0.634, 0.612, 0.635, 0.635, 0.411, 0.521,
    0.392, 0.634, 0.592, 0.818, 0.592, 0.592, 0.525, 0.636, 0.337, 0.636, 0.838};
// A few percent of slack for hinting and for fonts a little wider than the table.
constexpr double kSlack = 1.04;

// From the marker's edge (clear of the marker's own obstacle box) to the nearest point of `box`.
Leader leader_to(double cx, double cy, double r, const Rect& box) {
  const double x1 = std::clamp(cx, box.x0, box.x1), y1 = std::clamp(cy, box.y0, box.y1);
  const double length = std::max(std::hypot(x1 - cx, y1 - cy), 1e-9);
  const double start = std::min(r + 5, length);  // clear of the marker's obstacle box
  return {cx + (x1 - cx) / length * start, cy + (y1 - cy) / length * start, x1, y1};
}

}  // namespace

const char* anchor_name(Anchor anchor) noexcept {
  switch (anchor) {
    case Anchor::start:
      return "start";
    case Anchor::middle:
      return "middle";
    case Anchor::end:
      return "end";
  }
  return "start";
}

double text_width(std::string_view text, double font_size) {
  double em = 0;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 32 && u < 127) {
      em += kAdvance[u - 32];
    } else if ((u & 0xC0) != 0x80) {
      em += 1.0;  // the lead byte of a character outside ASCII: assume a full em
    }
  }
  return em * font_size * kSlack;
}

Rect text_box(double x, double baseline, Anchor anchor, std::string_view text, double font_size) {
  const double w = text_width(text, font_size);
  const double x0 = anchor == Anchor::start ? x : anchor == Anchor::middle ? x - w / 2 : x - w;
  return {x0, baseline - kAscent * font_size, x0 + w, baseline + kDescent * font_size};
}

std::vector<TextSpot> spots_around(double cx, double cy, double r, std::string_view text, double font_size,
                                   int rings) {
  // Baseline offsets that centre the box on a y, or put its bottom or top edge there.
  const double mid = text_mid(font_size);
  const double above = kDescent * font_size, below = kAscent * font_size;
  std::vector<TextSpot> spots;
  for (int ring = 0; ring < rings; ++ring) {
    const double d = r + 3 + 11 * ring;
    const struct {
      double x, y;
      Anchor anchor;
    } around[] = {
        {cx + d, cy + mid, Anchor::start},       {cx - d, cy + mid, Anchor::end},
        {cx, cy - d - above, Anchor::middle},    {cx, cy + d + below, Anchor::middle},
        {cx + d, cy - d - above, Anchor::start}, {cx + d, cy + d + below, Anchor::start},
        {cx - d, cy - d - above, Anchor::end},   {cx - d, cy + d + below, Anchor::end},
    };
    for (const auto& a : around) {
      TextSpot spot{a.x, a.y, a.anchor, text_box(a.x, a.y, a.anchor, text, font_size), std::nullopt};
      if (ring > 0) spot.leader = leader_to(cx, cy, r, spot.box);
      spots.push_back(spot);
    }
  }
  return spots;
}

std::vector<TextSpot> spots_anywhere(double cx, double cy, double r, std::string_view text, double font_size,
                                     const Rect& bounds) {
  constexpr double kStep = 6;
  const double width = text_width(text, font_size), mid = text_mid(font_size);
  std::vector<TextSpot> spots;
  for (double y = bounds.y0 + kAscent * font_size; y <= bounds.y1 - kDescent * font_size; y += kStep) {
    for (double x = bounds.x0; x + width <= bounds.x1; x += kStep) {
      TextSpot spot{x, y + mid, Anchor::start, text_box(x, y + mid, Anchor::start, text, font_size),
                    std::nullopt};
      spot.leader = leader_to(cx, cy, r, spot.box);
      spots.push_back(spot);
    }
  }
  const auto far = [&](const TextSpot& s) { return std::hypot(s.leader->x1 - cx, s.leader->y1 - cy); };
  std::stable_sort(spots.begin(), spots.end(),
                   [&](const TextSpot& a, const TextSpot& b) { return far(a) < far(b); });
  return spots;
}

namespace {

std::vector<Rect> line_boxes(double x0, double y0, double x1, double y1, double half_width) {
  const double length = std::hypot(x1 - x0, y1 - y0);
  const int pieces = std::max(1, static_cast<int>(std::ceil(length / 6)));
  std::vector<Rect> boxes;
  for (int i = 0; i < pieces; ++i) {
    const double t0 = static_cast<double>(i) / pieces, t1 = static_cast<double>(i + 1) / pieces;
    const double ax = x0 + (x1 - x0) * t0, bx = x0 + (x1 - x0) * t1;
    const double ay = y0 + (y1 - y0) * t0, by = y0 + (y1 - y0) * t1;
    boxes.push_back(
        Rect{std::min(ax, bx), std::min(ay, by), std::max(ax, bx), std::max(ay, by)}.grown(half_width));
  }
  return boxes;
}

bool hits(const std::vector<Rect>& taken, const Rect& r) {
  return std::any_of(taken.begin(), taken.end(), [&](const Rect& t) { return t.overlaps(r); });
}

// One pixel of air around a label, so that neighbours do not touch.
Rect with_air(const TextSpot& spot) { return spot.box.grown(1); }

}  // namespace

void Placer::block_line(double x0, double y0, double x1, double y1, double half_width) {
  for (const Rect& r : line_boxes(x0, y0, x1, y1, half_width)) lines_.push_back(r);
}

bool Placer::fits(const TextSpot& spot, bool cross) const {
  const Rect box = with_air(spot);
  if (!box.inside(bounds_) || hits(solid_, box) || hits(lines_, box)) return false;
  if (!spot.leader || cross) return true;
  const Leader& l = *spot.leader;
  for (const Rect& piece : line_boxes(l.x0, l.y0, l.x1, l.y1, 0.5)) {
    if (!piece.inside(bounds_) || hits(solid_, piece)) return false;
  }
  return true;
}

std::optional<TextSpot> Placer::place(const std::vector<TextSpot>& candidates, bool cross) {
  for (const TextSpot& spot : candidates) {
    if (!fits(spot, cross)) continue;
    solid_.push_back(with_air(spot));
    if (spot.leader) block_line(spot.leader->x0, spot.leader->y0, spot.leader->x1, spot.leader->y1, 0.5);
    return spot;
  }
  return std::nullopt;
}

std::vector<double> spread(const std::vector<double>& wanted, double gap, double lo, double hi) {
  std::vector<size_t> order(wanted.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return wanted[a] < wanted[b]; });
  std::vector<double> y(wanted.size());
  for (size_t k = 0; k < order.size(); ++k) {
    const double floor = k == 0 ? lo : y[order[k - 1]] + gap;
    y[order[k]] = std::max(wanted[order[k]], floor);
  }
  for (size_t k = order.size(); k-- > 0;) {  // back up from hi where the column ran past it
    const double ceiling = k + 1 == order.size() ? hi : y[order[k + 1]] - gap;
    y[order[k]] = std::min(y[order[k]], ceiling);
  }
  for (size_t k = 0; k < order.size(); ++k) {  // too many for lo..hi: the rest go on below
    const double floor = k == 0 ? lo : y[order[k - 1]] + gap;
    y[order[k]] = std::max(y[order[k]], floor);
  }
  return y;
}

}  // namespace bkctl::roofline
