// SPDX-License-Identifier: MIT
#include "bk/units.h"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>

#include "bk/strings.h"

namespace bk {
namespace {

struct Suffix {
  std::string_view text;
  double multiplier;
};

// Checked longest-first so that "kib" is not read as "k" + "ib".
constexpr std::array<Suffix, 17> kSuffixes{{
    {"kib", 1024.0},
    {"mib", 1048576.0},
    {"gib", 1073741824.0},
    {"tib", 1099511627776.0},
    {"ki", 1024.0},
    {"mi", 1048576.0},
    {"gi", 1073741824.0},
    {"ti", 1099511627776.0},
    {"kb", 1e3},
    {"mb", 1e6},
    {"gb", 1e9},
    {"tb", 1e12},
    {"k", 1024.0},
    {"m", 1048576.0},
    {"g", 1073741824.0},
    {"t", 1099511627776.0},
    {"b", 1.0},
}};

}  // namespace

std::optional<size_t> parse_size(std::string_view text) noexcept {
  const std::string s = to_lower(trim(text));
  if (s.empty() || !(std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '.')) return std::nullopt;
  double value = 0;
  const char* begin = s.data();
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(begin, end, value, std::chars_format::fixed);
  if (ec != std::errc{} || !std::isfinite(value) || value < 0) return std::nullopt;
  const std::string rest = trim(std::string_view(ptr, static_cast<size_t>(end - ptr)));
  double multiplier = 1.0;
  if (!rest.empty()) {
    bool matched = false;
    for (const Suffix& suffix : kSuffixes) {
      if (rest == suffix.text) {
        multiplier = suffix.multiplier;
        matched = true;
        break;
      }
    }
    if (!matched) return std::nullopt;
  }
  const double bytes = value * multiplier;
  if (bytes != std::floor(bytes) || bytes >= 18446744073709549568.0) return std::nullopt;
  return static_cast<size_t>(bytes);
}

std::string format_bytes(size_t bytes) {
  static constexpr std::array<std::string_view, 5> kUnits{"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < kUnits.size()) {
    value /= 1024.0;
    ++unit;
  }
  if (unit == 0) return fmt::format("{} B", bytes);
  const int decimals = value >= 100 ? 0 : value >= 10 ? 1 : 2;
  return fmt::format("{:.{}f} {}", value, decimals, kUnits[unit]);
}

std::string format_rate(double bytes_per_second) {
  return fmt::format("{:.2f} GB/s", bytes_per_second / 1e9);
}

}  // namespace bk
