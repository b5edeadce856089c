#include "compare.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace bk::conformance {
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

}  // namespace

Comparison compare(const Tensor& output, const ref::Values& got, const ref::Values& want, double limit) {
  if (got.size() != want.size()) {
    return {false, 0,
            fmt::format("{}: {} values read back, {} expected", label(output), got.size(), want.size())};
  }
  double err = 0, norm = 0, worst = -1;
  size_t worst_at = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isinf(want[i]) && got[i] == want[i]) continue;
    if (!std::isfinite(got[i]) || !std::isfinite(want[i])) {
      return {false, std::numeric_limits<double>::quiet_NaN(),
              fmt::format("{}: element {} is {} (reference {}){}", label(output), index_of(output, i), got[i],
                          want[i], std::isnan(got[i]) ? "; unwritten elements read as NaN" : "")};
    }
    const double d = got[i] - want[i];
    err += d * d;
    norm += want[i] * want[i];
    if (std::abs(d) > worst) {
      worst = std::abs(d);
      worst_at = i;
    }
  }
  const double nmse = norm > 0 ? err / norm : err;
  if (nmse <= limit) return {true, nmse, {}};
  return {false, nmse,
          fmt::format("{}: NMSE {:.3g} exceeds the limit {:.3g}; worst element {} is {} (reference {})",
                      label(output), nmse, limit, index_of(output, worst_at), got[worst_at], want[worst_at])};
}

}  // namespace bk::conformance
