// SPDX-License-Identifier: MIT
// SVG pieces of the roofline: see roofline_draw.h.
#include "commands/bench/roofline_draw.h"

#include <fmt/format.h>

namespace bkctl::roofline {

std::string text_svg(const TextSpot& spot, std::string_view text, std::string_view cls, double font_size,
                     std::string_view extra) {
  const std::string anchor =
      spot.anchor == Anchor::start ? "" : fmt::format(" text-anchor=\"{}\"", anchor_name(spot.anchor));
  return fmt::format("<text class=\"{}\" x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"{}\"{}{}>{}</text>\n", cls,
                     spot.x, spot.baseline, font_size, anchor, extra, xml_escape(std::string(text)));
}

std::string marker_svg(int shape, double cx, double cy, double r, std::string_view fill,
                       std::string_view attrs) {
  const std::string paint = fmt::format("fill=\"{}\" stroke=\"#fff\" stroke-width=\"0.8\"", fill);
  switch (shape % 5) {
    case 1:
      return fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" {} {}/>",
                         cx - r * 0.9, cy - r * 0.9, r * 1.8, r * 1.8, paint, attrs);
    case 2:
      return fmt::format("<path d=\"M{:.1f} {:.1f}L{:.1f} {:.1f}L{:.1f} {:.1f}Z\" {} {}/>", cx, cy - r * 1.2,
                         cx + r * 1.1, cy + r * 0.8, cx - r * 1.1, cy + r * 0.8, paint, attrs);
    case 3:
      return fmt::format("<path d=\"M{:.1f} {:.1f}L{:.1f} {:.1f}L{:.1f} {:.1f}L{:.1f} {:.1f}Z\" {} {}/>", cx,
                         cy - r * 1.2, cx + r * 1.2, cy, cx, cy + r * 1.2, cx - r * 1.2, cy, paint, attrs);
    case 4:
      return fmt::format("<path d=\"M{:.1f} {:.1f}L{:.1f} {:.1f}L{:.1f} {:.1f}Z\" {} {}/>", cx, cy + r * 1.2,
                         cx + r * 1.1, cy - r * 0.8, cx - r * 1.1, cy - r * 0.8, paint, attrs);
    default:
      return fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:.1f}\" {} {}/>", cx, cy, r, paint, attrs);
  }
}

std::string rate_text(double value) {
  return value >= 100 ? fmt::format("{:.0f}", value) : fmt::format("{:.3g}", value);
}

}  // namespace bkctl::roofline
