// SPDX-License-Identifier: MIT
#include "probe/verify/nmse.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "bk/error.h"

namespace bk::verify {
namespace {

std::string index_of(const Tensor& t, size_t flat) {
  auto f = static_cast<int64_t>(flat);
  const int64_t i0 = f % t.ne[0];
  f /= t.ne[0];
  const int64_t i1 = f % t.ne[1];
  f /= t.ne[1];
  return fmt::format("[{}, {}, {}, {}]", i0, i1, f % t.ne[2], f / t.ne[2]);
}

std::string label(const Tensor& t) {
  return fmt::format("output '{}' {} {}", t.name, dtype_name(t.type), t.shape_string());
}

NmseCheck non_finite(const Tensor& output, double got, double want, size_t at, double limit) {
  const char* why = std::isnan(got)       ? "; unwritten elements read as NaN"
                    : std::isfinite(want) ? ""
                                          : "; a non-finite reference means a broken case";
  return {std::numeric_limits<double>::quiet_NaN(), limit, false, at,
          fmt::format("{}: element {} is {} (reference {}){}", label(output), index_of(output, at), got, want,
                      why)};
}

}  // namespace

NmseCheck check_nmse(std::span<const double> got, std::span<const double> want, double limit,
                     const Tensor& output) {
  if (got.size() != want.size() || want.empty()) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("NMSE of {}: {} values against {} reference values; both must be the same, "
                            "non-zero count",
                            label(output), got.size(), want.size()));
  }
  double err = 0, norm = 0, worst = -1;
  size_t worst_at = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isinf(want[i]) && got[i] == want[i]) continue;
    if (!std::isfinite(got[i]) || !std::isfinite(want[i]))
      return non_finite(output, got[i], want[i], i, limit);
    const double d = got[i] - want[i];
    err += d * d;
    norm += want[i] * want[i];
    if (std::abs(d) > worst) {
      worst = std::abs(d);
      worst_at = i;
    }
  }
  const double nmse = norm > 0 ? err / norm : err;
  if (nmse <= limit) return {nmse, limit, true, worst_at, {}};
  return {nmse, limit, false, worst_at,
          fmt::format("{}: NMSE {:.3g} exceeds the limit {:.3g}; worst element {} is {} (reference {})",
                      label(output), nmse, limit, index_of(output, worst_at), got[worst_at], want[worst_at])};
}

}  // namespace bk::verify
