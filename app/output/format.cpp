// SPDX-License-Identifier: MIT
#include "output/format.h"

#include <fmt/format.h>

namespace bkctl {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

}  // namespace

std::string format_gib(size_t bytes) { return fmt::format("{:.1f}", static_cast<double>(bytes) / kGiB); }

std::string format_memory(size_t free, size_t total) {
  return fmt::format("{} / {} GiB", format_gib(free), format_gib(total));
}

std::string format_ms(double seconds) {
  const double ms = seconds * 1e3;
  if (ms >= 100.0) return fmt::format("{:.0f}", ms);
  if (ms >= 1.0) return fmt::format("{:.2f}", ms);
  return fmt::format("{:.3f}", ms);
}

double gbps(size_t bytes, double seconds) {
  if (seconds <= 0.0) return 0.0;
  return static_cast<double>(bytes) / seconds / 1e9;
}

std::string format_gbps(size_t bytes, double seconds) {
  if (seconds <= 0.0) return "-";
  return fmt::format("{:.2f}", gbps(bytes, seconds));
}

std::string format_hex64(uint64_t value) { return fmt::format("{:#018x}", value); }

std::string format_size_arg(size_t bytes) {
  constexpr size_t kMiB = size_t{1} << 20;
  constexpr size_t kGiBytes = size_t{1} << 30;
  if (bytes >= kGiBytes) return fmt::format("{}GiB", bytes / kGiBytes);
  if (bytes >= kMiB) return fmt::format("{}MiB", bytes / kMiB);
  return fmt::format("{}", bytes);
}

}  // namespace bkctl
