// SPDX-License-Identifier: MIT
// The arithmetic of every op, in double, straight from the formulas in bk/ops.h.
#include "probe/verify/reference_ops.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "bk/error.h"
#include "bk/ops.h"

namespace bk::verify {

double Elements::flat(int64_t flat) const noexcept {
  const int64_t i0 = flat % ne[0];
  flat /= ne[0];
  const int64_t i1 = flat % ne[1];
  flat /= ne[1];
  const int64_t i2 = flat % ne[2];
  return at(i0, i1, i2, flat / ne[2]);
}

namespace {

using Result = std::vector<double>;

// Calls f(i0, i1, i2, i3) for every element of ne in logical order, appending what it returns.
template <typename F>
Result generate(const Shape& ne, F&& f) {
  Result r;
  r.reserve(static_cast<size_t>(ne[0] * ne[1] * ne[2] * ne[3]));
  for (int64_t i3 = 0; i3 < ne[3]; ++i3)
    for (int64_t i2 = 0; i2 < ne[2]; ++i2)
      for (int64_t i1 = 0; i1 < ne[1]; ++i1)
        for (int64_t i0 = 0; i0 < ne[0]; ++i0) r.push_back(f(i0, i1, i2, i3));
  return r;
}

template <typename F>
Result map(const Shape& ne, const Elements& a, F&& f) {
  return generate(ne,
                  [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) { return f(a.at(i0, i1, i2, i3)); });
}

template <typename F>
Result broadcast(const Shape& ne, const Elements& a, const Elements& b, F&& f) {
  const Shape& m = b.ne;
  return generate(ne, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    return f(a.at(i0, i1, i2, i3), b.at(i0 % m[0], i1 % m[1], i2 % m[2], i3 % m[3]));
  });
}

double gelu_tanh(double x) {
  const double c = std::sqrt(2.0 / std::numbers::pi);
  return 0.5 * x * (1.0 + std::tanh(c * (x + 0.044715 * x * x * x)));
}

// sum_k a[k * sa] * b[k * sb] in four interleaved partial sums, so that the additions do not
// wait on each other: mul_mat is nearly all of the reference's time on model graphs (`bkctl
// sched --run`). In double, the order of summation moves the result by ~1e-16 relative, far
// below any limit of verify/limits.h.
double dot(const double* a, size_t sa, const double* b, size_t sb, int64_t n) noexcept {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  const auto len = static_cast<size_t>(n);
  size_t k = 0;
  for (; k + 4 <= len; k += 4) {
    s0 += a[k * sa] * b[k * sb];
    s1 += a[(k + 1) * sa] * b[(k + 1) * sb];
    s2 += a[(k + 2) * sa] * b[(k + 2) * sb];
    s3 += a[(k + 3) * sa] * b[(k + 3) * sb];
  }
  for (; k < len; ++k) s0 += a[k * sa] * b[k * sb];
  return (s0 + s1) + (s2 + s3);
}

Result mul_mat(const Shape& ne, const Elements& w, const Elements& x) {
  const int64_t r2 = x.ne[2] / w.ne[2], r3 = x.ne[3] / w.ne[3];
  return generate(ne, [&](int64_t m, int64_t n, int64_t c2, int64_t c3) {
    return dot(w.ptr(0, m, c2 / r2, c3 / r3), w.stride[0], x.ptr(0, n, c2, c3), x.stride[0], w.ne[0]);
  });
}

// Applies f(row_in, row_out) to every row (fixed i1, i2, i3) of a; rows are ne[0] long.
template <typename F>
Result by_rows(const Shape& ne, F&& f) {
  Result r(static_cast<size_t>(ne[0] * ne[1] * ne[2] * ne[3]));
  std::vector<double> row(static_cast<size_t>(ne[0]));
  size_t k = 0;
  for (int64_t i3 = 0; i3 < ne[3]; ++i3)
    for (int64_t i2 = 0; i2 < ne[2]; ++i2)
      for (int64_t i1 = 0; i1 < ne[1]; ++i1) {
        f(i1, i2, i3, row);
        std::copy(row.begin(), row.end(), r.begin() + static_cast<std::ptrdiff_t>(k));
        k += row.size();
      }
  return r;
}

Result rms_norm(const Tensor& node, const Elements& a) {
  const double eps = rms_norm_eps(node);
  return by_rows(node.ne, [&](int64_t i1, int64_t i2, int64_t i3, std::vector<double>& row) {
    double sum_sq = 0.0;
    for (int64_t i0 = 0; i0 < a.ne[0]; ++i0) sum_sq += a.at(i0, i1, i2, i3) * a.at(i0, i1, i2, i3);
    const double inv = 1.0 / std::sqrt(sum_sq / static_cast<double>(a.ne[0]) + eps);
    for (int64_t i0 = 0; i0 < a.ne[0]; ++i0) row[static_cast<size_t>(i0)] = a.at(i0, i1, i2, i3) * inv;
  });
}

Result soft_max(const Tensor& node, const Elements& a, const Elements* mask) {
  const double s = soft_max_scale(node);
  return by_rows(node.ne, [&](int64_t i1, int64_t i2, int64_t i3, std::vector<double>& row) {
    double max = -std::numeric_limits<double>::infinity();
    for (int64_t i0 = 0; i0 < a.ne[0]; ++i0) {
      double v = s * a.at(i0, i1, i2, i3);
      if (mask != nullptr) v += mask->at(i0, i1, i2 % mask->ne[2], i3 % mask->ne[3]);
      row[static_cast<size_t>(i0)] = v;
      max = std::max(max, v);
    }
    double sum = 0.0;
    for (double& v : row) sum += (v = std::exp(v - max));
    for (double& v : row) v /= sum;
  });
}

Result rope(const Tensor& node, const Elements& a, const Elements& positions) {
  const RopeParams p = rope_params(node);
  const int64_t half = p.n_dims / 2;
  return by_rows(node.ne, [&](int64_t i1, int64_t i2, int64_t i3, std::vector<double>& row) {
    for (int64_t i0 = 0; i0 < a.ne[0]; ++i0) row[static_cast<size_t>(i0)] = a.at(i0, i1, i2, i3);
    const double pos = positions.at(i2, 0, 0, 0);
    for (int64_t k = 0; k < half; ++k) {
      const double theta =
          pos * std::pow(static_cast<double>(p.freq_base), -2.0 * static_cast<double>(k) / p.n_dims);
      const int64_t j0 = p.mode == RopeMode::neox ? k : 2 * k;
      const int64_t j1 = p.mode == RopeMode::neox ? k + half : 2 * k + 1;
      const double x0 = a.at(j0, i1, i2, i3), x1 = a.at(j1, i1, i2, i3);
      row[static_cast<size_t>(j0)] = x0 * std::cos(theta) - x1 * std::sin(theta);
      row[static_cast<size_t>(j1)] = x0 * std::sin(theta) + x1 * std::cos(theta);
    }
  });
}

Result get_rows(const Shape& ne, const Elements& table, const Elements& indices) {
  return generate(ne, [&](int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    const double index = indices.at(i1, i2, i3, 0);
    if (!(index >= 0 && index < static_cast<double>(table.ne[1]))) {
      throw Error(ErrorCode::invalid_argument,
                  fmt::format("reference get_rows: index {} at [{}, {}, {}] is outside the table's {} rows",
                              index, i1, i2, i3, table.ne[1]));
    }
    return table.at(i0, static_cast<int64_t>(index), i2, i3);
  });
}

Result copy_flat(const Shape& ne, const Elements& a) {
  Result r(static_cast<size_t>(ne[0] * ne[1] * ne[2] * ne[3]));
  for (size_t k = 0; k < r.size(); ++k) r[k] = a.flat(static_cast<int64_t>(k));
  return r;
}

}  // namespace

std::vector<double> compute_op(const Tensor& node, std::span<const Elements, kMaxSources> srcs) {
  const Elements& a = srcs[0];
  const Shape& ne = node.ne;
  switch (node.op) {
    case Op::add:
      return broadcast(ne, a, srcs[1], [](double x, double y) { return x + y; });
    case Op::mul:
      return broadcast(ne, a, srcs[1], [](double x, double y) { return x * y; });
    case Op::scale: {
      const double s = scale_factor(node);
      return map(ne, a, [s](double x) { return x * s; });
    }
    case Op::silu:
      return map(ne, a, [](double x) { return x / (1.0 + std::exp(-x)); });
    case Op::gelu:
      return map(ne, a, gelu_tanh);
    case Op::mul_mat:
      return mul_mat(ne, a, srcs[1]);
    case Op::rms_norm:
      return rms_norm(node, a);
    case Op::soft_max:
      return soft_max(node, a, node.src[1] != nullptr ? &srcs[1] : nullptr);
    case Op::rope:
      return rope(node, a, srcs[1]);
    case Op::get_rows:
      return get_rows(ne, a, srcs[1]);
    case Op::cpy:
    case Op::cont:
      return copy_flat(ne, a);
    case Op::none:
    case Op::reshape:
    case Op::view:
    case Op::permute:
    case Op::transpose:
      break;
  }
  throw Error(ErrorCode::invalid_argument,
              fmt::format("reference: node '{}' ({}) computes nothing", node.name, op_name(node.op)));
}

}  // namespace bk::verify
