// SPDX-License-Identifier: MIT
#pragma once
// Shared checks for the op builders (ops.cpp, ops_views.cpp). Internal to lib/core: every
// failure throws Error(invalid_argument) with a message that starts with the op name.

#include <string>
#include <string_view>

#include "bk/tensor.h"

namespace bk::ops_detail {

// "'x' f32 [4096, 7, 1, 1]" (or "(unnamed)" for a tensor without a name).
std::string describe(const Tensor& t);
[[noreturn]] void fail(std::string_view op, const std::string& what);

void require_float(std::string_view op, std::string_view role, const Tensor& t);
// Float, or quantized (mul_mat weights, get_rows tables): then packed, not a view.
void require_float_or_quantized(std::string_view op, std::string_view role, const Tensor& t);
// Views, reshapes and copies of quantized blocks are not defined: refused with the reason.
void require_not_quantized(std::string_view op, const Tensor& t);
void require_type(std::string_view op, std::string_view role, const Tensor& t, DType type);
// True when `small` repeats a whole number of times along every dimension of `big`.
bool divides(const Shape& big, const Shape& small) noexcept;

}  // namespace bk::ops_detail
