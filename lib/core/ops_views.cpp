// SPDX-License-Identifier: MIT
// The copy builders (cpy, cast, cont) and the free views (reshape, view, permute, transpose).
#include <fmt/format.h>

#include "bk/ops.h"
#include "core/ops_check.h"

namespace bk::ops {
namespace {

using ops_detail::describe;
using ops_detail::fail;
using ops_detail::require_float;
using ops_detail::require_not_quantized;

void require_sizes(std::string_view op, const Shape& ne) {
  for (int64_t n : ne) {
    if (n < 0)
      fail(op, fmt::format("shape [{}, {}, {}, {}] has a negative size", ne[0], ne[1], ne[2], ne[3]));
  }
}

int64_t count(const Shape& ne) noexcept { return ne[0] * ne[1] * ne[2] * ne[3]; }

// One past the last byte a view with this shape and these strides touches, from its start;
// false on overflow. 0 for an empty view.
bool view_extent(const Shape& ne, const Strides& nb, size_t element_size, size_t& extent) {
  if (count(ne) == 0) {
    extent = 0;
    return true;
  }
  extent = element_size;
  for (int i = 0; i < kMaxDims; ++i) {
    size_t step = 0;
    if (__builtin_mul_overflow(static_cast<size_t>(ne[static_cast<size_t>(i)] - 1),
                               nb[static_cast<size_t>(i)], &step) ||
        __builtin_add_overflow(extent, step, &extent)) {
      return false;
    }
  }
  return true;
}

}  // namespace

Tensor& cpy(GraphBuilder& g, Tensor& a, Tensor& b) {
  require_float("cpy", "source a", a);
  require_float("cpy", "destination b", b);
  if (a.nelements() != b.nelements()) {
    fail("cpy", fmt::format("source a {} has {} elements but destination b {} has {}", describe(a),
                            a.nelements(), describe(b), b.nelements()));
  }
  Tensor& r = g.view_node(Op::cpy, b, b.ne, b.nb, 0);
  r.src[0] = &a;
  r.src[1] = &b;
  return r;
}

Tensor& cast(GraphBuilder& g, Tensor& a, DType type) {
  require_float("cast", "source a", a);
  if (!dtype_traits(type).is_float) {
    fail("cast", fmt::format("cannot cast a {} to {}: the target must be f32, f16 or bf16", describe(a),
                             dtype_name(type)));
  }
  return g.node(Op::cpy, type, a.ne, {&a});
}

Tensor& cont(GraphBuilder& g, Tensor& a) {
  require_not_quantized("cont", a);
  return g.node(Op::cont, a.type, a.ne, {&a});
}

Tensor& reshape(GraphBuilder& g, Tensor& a, const Shape& ne) {
  require_not_quantized("reshape", a);
  require_sizes("reshape", ne);
  if (!a.is_contiguous()) {
    fail("reshape", fmt::format("a {} is not contiguous; make it so with cont() first", describe(a)));
  }
  if (count(ne) != a.nelements()) {
    fail("reshape", fmt::format("a {} has {} elements but the new shape [{}, {}, {}, {}] holds {}",
                                describe(a), a.nelements(), ne[0], ne[1], ne[2], ne[3], count(ne)));
  }
  return g.view_node(Op::reshape, a, ne, packed_strides(a.type, ne), 0);
}

Tensor& view(GraphBuilder& g, Tensor& a, const Shape& ne, const Strides& nb, size_t offset) {
  require_not_quantized("view", a);
  require_sizes("view", ne);
  const size_t esize = dtype_size(a.type);
  bool aligned = offset % esize == 0;
  for (size_t s : nb) aligned = aligned && s % esize == 0;
  if (!aligned) {
    fail("view",
         fmt::format("offset {} and strides [{}, {}, {}, {}] must be multiples of the {} element size {} "
                     "of a {}",
                     offset, nb[0], nb[1], nb[2], nb[3], dtype_name(a.type), esize, describe(a)));
  }
  size_t extent = 0;
  size_t end = 0;
  if (!view_extent(ne, nb, esize, extent) || __builtin_add_overflow(offset, extent, &end) ||
      (extent != 0 && end > a.nbytes())) {
    fail(
        "view",
        fmt::format("shape [{}, {}, {}, {}] with strides [{}, {}, {}, {}] at offset {} reaches past the "
                    "{} bytes of a {}",
                    ne[0], ne[1], ne[2], ne[3], nb[0], nb[1], nb[2], nb[3], offset, a.nbytes(), describe(a)));
  }
  return g.view_node(Op::view, a, ne, nb, offset);
}

Tensor& permute(GraphBuilder& g, Tensor& a, const std::array<int, kMaxDims>& axes) {
  require_not_quantized("permute", a);
  std::array<bool, kMaxDims> seen{};
  for (int axis : axes) {
    if (axis < 0 || axis >= kMaxDims || seen[static_cast<size_t>(axis)]) {
      fail("permute", fmt::format("axes ({}, {}, {}, {}) are not a permutation of (0, 1, 2, 3) for a {}",
                                  axes[0], axes[1], axes[2], axes[3], describe(a)));
    }
    seen[static_cast<size_t>(axis)] = true;
  }
  Shape ne{};
  Strides nb{};
  for (size_t i = 0; i < kMaxDims; ++i) {
    ne[static_cast<size_t>(axes[i])] = a.ne[i];
    nb[static_cast<size_t>(axes[i])] = a.nb[i];
  }
  const bool swap01 = axes == std::array<int, kMaxDims>{1, 0, 2, 3};
  Tensor& r = g.view_node(swap01 ? Op::transpose : Op::permute, a, ne, nb, 0);
  for (int i = 0; i < kMaxDims; ++i) set_op_param_i32(r, i, axes[static_cast<size_t>(i)]);
  return r;
}

Tensor& transpose(GraphBuilder& g, Tensor& a) { return permute(g, a, {1, 0, 2, 3}); }

}  // namespace bk::ops
