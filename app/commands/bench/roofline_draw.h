// SPDX-License-Identifier: MIT
#pragma once
// SVG pieces the roofline's chart, legend and key share: escaped text, markers, numbers.

#include <string>
#include <string_view>

#include "commands/bench/roofline_layout.h"
#include "output/junit.h"  // xml_escape

namespace bkctl::roofline {

inline constexpr double kFont = 10;                  // labels, ticks, legend, key
inline constexpr double kMarkerRadius = 4;           // points
inline constexpr double kTextMid = text_mid(kFont);  // see roofline_layout.h
inline constexpr const char* kInk = "#222";
inline constexpr const char* kBandwidthColor = "#555";
inline constexpr const char* kBestMeasuredDash = "6 3";

// <text> at `spot` with class `cls` (and `extra` attributes, already escaped).
std::string text_svg(const TextSpot& spot, std::string_view text, std::string_view cls,
                     double font_size = kFont, std::string_view extra = "");

// A marker: shape 0 circle, 1 square, 2 triangle, 3 diamond, 4 inverted triangle (then round
// again), one per device in the overlaid chart. `attrs` goes into the element as it is.
std::string marker_svg(int shape, double cx, double cy, double r, std::string_view fill,
                       std::string_view attrs);

// A rate for a label: "72.6", "1234", "0.0123".
std::string rate_text(double value);

}  // namespace bkctl::roofline
