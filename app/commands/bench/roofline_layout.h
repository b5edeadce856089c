// SPDX-License-Identifier: MIT
#pragma once
// Label placement for the roofline (roofline_labels.cpp): rectangles, the width a text will take,
// a greedy placer that takes the first free candidate position, and the vertical spreading of a
// column of labels. Kept apart from the SVG so that the geometry can be reasoned about alone.
//
// The SVG cannot measure text, so widths come from a table of DejaVu Sans advances (the
// sans-serif of most Linux systems and the widest of the usual ones; Arial and Helvetica are
// narrower, so the estimate errs on the side of more room).

#include <optional>
#include <string_view>
#include <vector>

namespace bkctl::roofline {

struct Rect {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // x0 <= x1, y0 <= y1 (SVG y grows downwards)
  bool overlaps(const Rect& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
  bool inside(const Rect& o) const { return x0 >= o.x0 && x1 <= o.x1 && y0 >= o.y0 && y1 <= o.y1; }
  Rect grown(double by) const { return {x0 - by, y0 - by, x1 + by, y1 + by}; }
};

// The font's ascent and descent in em: the box a browser gives a line of text (getBBox), from
// above the tallest glyph to below the lowest, not just the ink.
inline constexpr double kAscent = 0.93, kDescent = 0.24;

// The baseline of a line of text centred on a y lies this far below it.
constexpr double text_mid(double font_size) { return (kAscent - kDescent) / 2 * font_size; }

enum class Anchor { start, middle, end };  // SVG text-anchor
const char* anchor_name(Anchor anchor) noexcept;

// Estimated advance of `text` at `font_size` px.
double text_width(std::string_view text, double font_size);

// What a <text x y text-anchor font-size> occupies: from the font's ascent above the baseline
// to its descent below (what the browser's getBBox reports, not just the ink).
Rect text_box(double x, double baseline, Anchor anchor, std::string_view text, double font_size);

// A line from a label to what it labels, for labels set farther off.
struct Leader {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

// A text position: where its <text> element goes, the box it covers and, where it is not right
// beside its marker, the leader that ties it to the marker.
struct TextSpot {
  double x = 0, baseline = 0;
  Anchor anchor = Anchor::start;
  Rect box;
  std::optional<Leader> leader;
};

// Candidate positions for a label of `text` around a marker at (cx, cy) of radius `r`: right,
// left, above, below and the four diagonals, right beside the marker; then, for `rings` > 1,
// the same in rings farther out, each with a leader from the marker's edge.
std::vector<TextSpot> spots_around(double cx, double cy, double r, std::string_view text, double font_size,
                                   int rings);

// The last resort: every position of a grid over `bounds`, nearest to the marker first, each
// with a leader. Where the plot has room anywhere, a label finds it.
std::vector<TextSpot> spots_anywhere(double cx, double cy, double r, std::string_view text, double font_size,
                                     const Rect& bounds);

// Greedy placement: everything already drawn is an obstacle; a label takes the first candidate
// that lies inside the bounds and touches no obstacle, and whose leader crosses no marker or
// text (lines it may cross); then it becomes an obstacle itself, leader included.
class Placer {
 public:
  explicit Placer(Rect bounds) : bounds_(bounds) {}
  const Rect& bounds() const { return bounds_; }
  // A marker or a text: nothing may overlap it, leaders included.
  void block(const Rect& r) { solid_.push_back(r); }
  // A thin line from (x0, y0) to (x1, y1), as a run of small boxes along it: texts keep off it,
  // leaders may cross it.
  void block_line(double x0, double y0, double x1, double y1, double half_width);
  // `cross`: the last resort for a marker walled in by others' labels, whose leader may then
  // run over them (the text itself still may not).
  std::optional<TextSpot> place(const std::vector<TextSpot>& candidates, bool cross = false);

 private:
  bool fits(const TextSpot& spot, bool cross) const;
  Rect bounds_;
  std::vector<Rect> solid_, lines_;
};

// Positions for a column of labels that want to sit at `wanted` (any order), at least `gap`
// apart, moved as little as possible: pushed down from `lo`, and back up if they pass `hi`.
// Labels that still do not fit between lo and hi go on below hi rather than overlapping.
std::vector<double> spread(const std::vector<double>& wanted, double gap, double lo, double hi);

}  // namespace bkctl::roofline
