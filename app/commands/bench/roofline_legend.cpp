// SPDX-License-Identifier: MIT
// The roofline's legend and numbered key: see roofline_legend.h.
#include "commands/bench/roofline_legend.h"

#include <fmt/format.h>

#include <algorithm>

#include "commands/bench/roofline_draw.h"
#include "commands/bench/roofline_layout.h"

namespace bkctl::roofline {
namespace {

constexpr double kSwatch = 22, kEntryGap = 16, kRow = 17;

const char* kind_name(LegendItem::Kind kind) {
  switch (kind) {
    case LegendItem::Kind::dtype:
      return "dtype";
    case LegendItem::Kind::device:
      return "device";
    case LegendItem::Kind::bandwidth:
      return "bandwidth";
    case LegendItem::Kind::peak_kernel:
      return "peak-kernel";
    case LegendItem::Kind::best_measured:
      return "best-measured";
  }
  return "dtype";
}

// The sample drawn before an entry's text, in a kSwatch-wide box whose middle is at y.
std::string swatch_svg(const LegendItem& item, double x, double y) {
  const auto line = [&](const char* color, const char* dash) {
    return fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"2\"{}/>",
        x, y, x + kSwatch - 4, y, color, dash);
  };
  switch (item.kind) {
    case LegendItem::Kind::dtype:
      return line(item.color.c_str(), "") +
             marker_svg(0, x + (kSwatch - 4) / 2, y, kMarkerRadius, item.color, "class=\"swatch\"");
    case LegendItem::Kind::device:
      return marker_svg(item.shape, x + (kSwatch - 4) / 2, y, kMarkerRadius + 0.5, "#555",
                        "class=\"swatch\"");
    case LegendItem::Kind::bandwidth:
      return fmt::format(
          "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"2\"/>",
          x, y + 5, x + kSwatch - 4, y - 5, kBandwidthColor);
    case LegendItem::Kind::peak_kernel:
      return line(kBandwidthColor, "");
    case LegendItem::Kind::best_measured:
      return line(kBandwidthColor, fmt::format(" stroke-dasharray=\"{}\"", kBestMeasuredDash).c_str());
  }
  return "";
}

}  // namespace

Block legend_svg(const std::vector<LegendItem>& items, double x0, double x1, double top) {
  std::string s = "<g class=\"legend\">\n";
  double x = x0, y = top + kRow / 2;
  for (const LegendItem& item : items) {
    const double width = kSwatch + text_width(item.text, kFont);
    if (x > x0 && x + width > x1) {
      x = x0;
      y += kRow;
    }
    s += fmt::format("<g class=\"legend-entry\" data-kind=\"{}\" data-name=\"{}\">", kind_name(item.kind),
                     xml_escape(item.name));
    s += swatch_svg(item, x, y);
    s += text_svg({x + kSwatch, y + kTextMid, Anchor::start, {}}, item.text, "legend-label", kFont,
                  fmt::format(" fill=\"{}\"", kInk));
    s += "</g>\n";
    x += width + kEntryGap;
  }
  return {s + "</g>\n", y + kRow / 2, x1};
}

Block key_svg(const std::vector<KeyRow>& rows, double x, double top) {
  if (rows.empty()) return {"", top, x};
  std::string s = "<g class=\"key\">\n";
  double baseline = top + kAscent * kFont, right = x;
  s += text_svg({x, baseline, Anchor::start, {}}, "Numbered points", "key-heading", kFont,
                " font-weight=\"bold\" fill=\"#222\"");
  for (const KeyRow& row : rows) {
    baseline += 13;
    s += text_svg({x + 14, baseline, Anchor::end, {}}, std::to_string(row.number), "key-number", kFont,
                  " font-weight=\"bold\" fill=\"#222\"");
    s += text_svg({x + 20, baseline, Anchor::start, {}}, row.text, "key-entry", kFont, " fill=\"#222\"");
    right = std::max(right, x + 20 + text_width(row.text, kFont));
  }
  return {s + "</g>\n", baseline + kDescent * kFont, right};
}

}  // namespace bkctl::roofline
