// SPDX-License-Identifier: MIT
#pragma once
// The operations a graph node can hold. The builder functions that create them, with their
// shape and type rules, live in ops.h; this header is only the vocabulary.

#include <cstdint>
#include <optional>
#include <string_view>

#include "bk/api.h"

namespace bk {

enum class Op : uint8_t {
  none,  // a leaf: an input, a weight or a constant
  add,
  mul,
  scale,
  silu,
  gelu,
  mul_mat,
  rms_norm,
  soft_max,
  rope,
  get_rows,
  cpy,
  cont,
  reshape,
  view,
  permute,
  transpose,
};
inline constexpr int kOpCount = static_cast<int>(Op::transpose) + 1;

BK_API std::string_view op_name(Op op) noexcept;                        // "add", "mul_mat", ...
BK_API std::optional<Op> op_from_name(std::string_view name) noexcept;  // case-insensitive
// Views alias their source's memory and compute nothing.
constexpr bool op_is_view(Op op) noexcept {
  return op == Op::reshape || op == Op::view || op == Op::permute || op == Op::transpose;
}

}  // namespace bk
