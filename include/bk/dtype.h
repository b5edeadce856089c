// SPDX-License-Identifier: MIT
#pragma once
// Element types and their traits. F16 and BF16 are stored as raw 16-bit patterns; conversions
// round to nearest even and keep NaN a NaN.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "bk/api.h"

namespace bk {

enum class DType : uint8_t { F32, F16, BF16, I32 };
inline constexpr int kDTypeCount = 4;

struct BK_API DTypeTraits {
  std::string_view name;  // "f32", "f16", "bf16", "i32"
  size_t size;            // bytes per element
  bool is_float;
};

BK_API const DTypeTraits& dtype_traits(DType type) noexcept;
inline std::string_view dtype_name(DType type) noexcept { return dtype_traits(type).name; }
inline size_t dtype_size(DType type) noexcept { return dtype_traits(type).size; }
// Case-insensitive; nullopt for an unknown name.
BK_API std::optional<DType> dtype_from_name(std::string_view name) noexcept;

BK_API float f16_to_f32(uint16_t h) noexcept;
BK_API uint16_t f32_to_f16(float f) noexcept;
BK_API float bf16_to_f32(uint16_t b) noexcept;
BK_API uint16_t f32_to_bf16(float f) noexcept;

// Converts n elements between any two dtypes (I32 converts by value, saturating from float).
BK_API void convert(DType from, const void* src, DType to, void* dst, size_t n) noexcept;
// One element as double, for references and checks.
BK_API double load_as_double(DType type, const void* element) noexcept;
BK_API void store_from_double(DType type, void* element, double value) noexcept;

}  // namespace bk
