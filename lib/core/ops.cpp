// SPDX-License-Identifier: MIT
// The compute builders of ops.h; the copy and view builders are in ops_views.cpp.
#include "bk/ops.h"

#include <fmt/format.h>

#include <cmath>

#include "bk/error.h"
#include "core/ops_check.h"

namespace bk::ops_detail {

std::string describe(const Tensor& t) {
  return fmt::format("'{}' {} {}", t.label(), dtype_name(t.type), t.shape_string());
}

void fail(std::string_view op, const std::string& what) {
  throw Error(ErrorCode::invalid_argument, fmt::format("{}: {}", op, what));
}

void require_float(std::string_view op, std::string_view role, const Tensor& t) {
  if (!dtype_traits(t.type).is_float) {
    fail(op, fmt::format("{} {} must be f32, f16 or bf16", role, describe(t)));
  }
}

void require_float_or_quantized(std::string_view op, std::string_view role, const Tensor& t) {
  if (!dtype_traits(t.type).is_float && !is_quantized(t.type)) {
    fail(op, fmt::format("{} {} must be f32, f16, bf16 or a quantized type (q8_0, q4_0, q4_k, q6_k)", role,
                         describe(t)));
  }
  // A quantized tensor is read a whole row of blocks at a time: it must be a packed weight.
  if (is_quantized(t.type) && (!t.is_contiguous() || t.is_view())) {
    fail(op, fmt::format("{} {} is quantized and must be contiguous, not a view", role, describe(t)));
  }
}

void require_not_quantized(std::string_view op, const Tensor& t) {
  if (is_quantized(t.type)) {
    fail(op, fmt::format("a {} is quantized: only mul_mat (as w) and get_rows (as the table) read "
                         "quantized tensors",
                         describe(t)));
  }
}

void require_type(std::string_view op, std::string_view role, const Tensor& t, DType type) {
  if (t.type != type) fail(op, fmt::format("{} {} must be {}", role, describe(t), dtype_name(type)));
}

bool divides(const Shape& big, const Shape& small) noexcept {
  for (int i = 0; i < kMaxDims; ++i) {
    const int64_t b = big[static_cast<size_t>(i)], s = small[static_cast<size_t>(i)];
    if (b != s && (s == 0 || b % s != 0)) return false;
  }
  return true;
}

}  // namespace bk::ops_detail

namespace bk {

const char* rope_mode_name(RopeMode mode) noexcept { return mode == RopeMode::neox ? "neox" : "normal"; }

}  // namespace bk

namespace bk::ops {
namespace {

using ops_detail::describe;
using ops_detail::fail;
using ops_detail::require_float;
using ops_detail::require_float_or_quantized;
using ops_detail::require_type;

Tensor& binary(GraphBuilder& g, Op op, Tensor& a, Tensor& b) {
  const std::string_view name = op_name(op);
  require_float(name, "a", a);
  require_float(name, "b", b);
  if (!ops_detail::divides(a.ne, b.ne)) {
    fail(name, fmt::format("b {} does not broadcast over a {}: every a.ne[i] must be a multiple of b.ne[i]",
                           describe(b), describe(a)));
  }
  return g.node(op, a.type, a.ne, {&a, &b});
}

Tensor& unary(GraphBuilder& g, Op op, Tensor& a) {
  require_float(op_name(op), "a", a);
  return g.node(op, a.type, a.ne, {&a});
}

void require_finite(std::string_view op, std::string_view what, float value) {
  if (!std::isfinite(value)) fail(op, fmt::format("{} must be finite, got {}", what, value));
}

}  // namespace

Tensor& add(GraphBuilder& g, Tensor& a, Tensor& b) { return binary(g, Op::add, a, b); }
Tensor& mul(GraphBuilder& g, Tensor& a, Tensor& b) { return binary(g, Op::mul, a, b); }

Tensor& scale(GraphBuilder& g, Tensor& a, float s) {
  require_finite("scale", "the factor", s);
  Tensor& r = unary(g, Op::scale, a);
  set_op_param_f32(r, 0, s);
  return r;
}

Tensor& silu(GraphBuilder& g, Tensor& a) { return unary(g, Op::silu, a); }
Tensor& gelu(GraphBuilder& g, Tensor& a) { return unary(g, Op::gelu, a); }

Tensor& mul_mat(GraphBuilder& g, Tensor& w, Tensor& x) {
  require_float_or_quantized("mul_mat", "weights w", w);
  require_type("mul_mat", "activations x", x, DType::F32);
  if (w.ne[0] != x.ne[0]) {
    fail("mul_mat", fmt::format("weights w {} and activations x {} must have the same ne[0] (the reduction "
                                "length K): w is [K, M, B2, B3], x is [K, N, C2, C3]",
                                describe(w), describe(x)));
  }
  if (!ops_detail::divides({1, 1, x.ne[2], x.ne[3]}, {1, 1, w.ne[2], w.ne[3]})) {
    fail("mul_mat",
         fmt::format("weights w {} do not broadcast over activations x {}: x.ne[2] and x.ne[3] must "
                     "be multiples of w.ne[2] and w.ne[3]",
                     describe(w), describe(x)));
  }
  return g.node(Op::mul_mat, DType::F32, {w.ne[1], x.ne[1], x.ne[2], x.ne[3]}, {&w, &x});
}

Tensor& rms_norm(GraphBuilder& g, Tensor& a, float eps) {
  if (!(eps > 0.0f) || !std::isfinite(eps))
    fail("rms_norm", fmt::format("eps must be > 0 and finite, got {}", eps));
  Tensor& r = unary(g, Op::rms_norm, a);
  set_op_param_f32(r, 0, eps);
  return r;
}

Tensor& soft_max(GraphBuilder& g, Tensor& a, Tensor* mask, float scale) {
  require_float("soft_max", "a", a);
  require_finite("soft_max", "the scale", scale);
  if (mask != nullptr) {
    require_type("soft_max", "mask", *mask, DType::F32);
    const bool rows_ok = mask->ne[0] == a.ne[0] && mask->ne[1] >= a.ne[1];
    if (!rows_ok || !ops_detail::divides({1, 1, a.ne[2], a.ne[3]}, {1, 1, mask->ne[2], mask->ne[3]})) {
      fail("soft_max", fmt::format("mask {} does not fit a {}: it needs mask.ne[0] == a.ne[0], mask.ne[1] >= "
                                   "a.ne[1], and a.ne[2], a.ne[3] multiples of mask.ne[2], mask.ne[3]",
                                   describe(*mask), describe(a)));
    }
  }
  Tensor& r = mask != nullptr ? g.node(Op::soft_max, a.type, a.ne, {&a, mask})
                              : g.node(Op::soft_max, a.type, a.ne, {&a});
  set_op_param_f32(r, 0, scale);
  return r;
}

Tensor& rope(GraphBuilder& g, Tensor& a, Tensor& positions, int n_dims, RopeMode mode, float freq_base) {
  require_float("rope", "a", a);
  require_type("rope", "positions", positions, DType::I32);
  if (positions.dims() != 1 || positions.ne[0] != a.ne[2]) {
    fail("rope", fmt::format("positions {} must be a vector of a.ne[2] = {} entries (one per token of a {})",
                             describe(positions), a.ne[2], describe(a)));
  }
  if (n_dims <= 0 || n_dims % 2 != 0 || n_dims > a.ne[0]) {
    fail("rope", fmt::format("n_dims = {} must be even and in (0, head_dim = {}] for a {}", n_dims, a.ne[0],
                             describe(a)));
  }
  if (mode != RopeMode::normal && mode != RopeMode::neox) {
    fail("rope", fmt::format("mode {} is neither normal (0) nor neox (1)", static_cast<int32_t>(mode)));
  }
  if (!(freq_base > 0.0f) || !std::isfinite(freq_base)) {
    fail("rope", fmt::format("freq_base must be > 0 and finite, got {}", freq_base));
  }
  Tensor& r = g.node(Op::rope, a.type, a.ne, {&a, &positions});
  set_op_param_i32(r, 0, n_dims);
  set_op_param_i32(r, 1, static_cast<int32_t>(mode));
  set_op_param_f32(r, 2, freq_base);
  return r;
}

Tensor& get_rows(GraphBuilder& g, Tensor& table, Tensor& indices) {
  require_float_or_quantized("get_rows", "table", table);
  require_type("get_rows", "indices", indices, DType::I32);
  if (indices.ne[3] != 1 || indices.ne[1] != table.ne[2] || indices.ne[2] != table.ne[3]) {
    fail("get_rows", fmt::format("indices {} must be [n, table.ne[2], table.ne[3], 1] for table {}",
                                 describe(indices), describe(table)));
  }
  return g.node(Op::get_rows, DType::F32, {table.ne[0], indices.ne[0], indices.ne[1], indices.ne[2]},
                {&table, &indices});
}

}  // namespace bk::ops
