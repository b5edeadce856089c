// SPDX-License-Identifier: MIT
#pragma once
// Element types and their traits. F16 and BF16 are stored as raw 16-bit patterns; conversions
// round to nearest even and keep NaN a NaN.
//
// Q8_0, Q4_0, Q4_K and Q6_K are block-quantized weights in ggml's layouts (bk/quant.h), so that
// GGUF files load as they are: a row is a run of blocks of `block` elements in `size` bytes each,
// and a row's length must be a whole number of blocks. They are weights only: mul_mat reads them
// as w and get_rows as the table, both giving f32; no other op takes them.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "bk/api.h"

namespace bk {

enum class DType : uint8_t { F32, F16, BF16, I32, Q8_0, Q4_0, Q4_K, Q6_K };
inline constexpr int kDTypeCount = 8;

struct BK_API DTypeTraits {
  std::string_view name;  // "f32", "f16", "bf16", "i32", "q8_0", "q4_0", "q4_k", "q6_k"
  size_t size;            // bytes per block: per element for the plain types
  bool is_float;          // f32, f16, bf16: what elementwise ops take
  int64_t block;          // elements per block: 1 for the plain types, 32 or 256 quantized
};

// Inline: sizes and blocks are asked for every tensor whenever a graph is scheduled or planned.
inline constexpr std::array<DTypeTraits, kDTypeCount> kDTypeTraits{{
    {"f32", 4, true, 1},
    {"f16", 2, true, 1},
    {"bf16", 2, true, 1},
    {"i32", 4, false, 1},
    // ggml's block sizes (bk/quant.h has the layouts).
    {"q8_0", 34, false, 32},
    {"q4_0", 18, false, 32},
    {"q4_k", 144, false, 256},
    {"q6_k", 210, false, 256},
}};

constexpr const DTypeTraits& dtype_traits(DType type) noexcept {
  return kDTypeTraits[static_cast<size_t>(type)];
}
inline std::string_view dtype_name(DType type) noexcept { return dtype_traits(type).name; }
inline size_t dtype_size(DType type) noexcept { return dtype_traits(type).size; }
inline int64_t dtype_block(DType type) noexcept { return dtype_traits(type).block; }
inline bool is_quantized(DType type) noexcept { return dtype_traits(type).block > 1; }
// Case-insensitive; nullopt for an unknown name.
BK_API std::optional<DType> dtype_from_name(std::string_view name) noexcept;

BK_API float f16_to_f32(uint16_t h) noexcept;
BK_API uint16_t f32_to_f16(float f) noexcept;
BK_API float bf16_to_f32(uint16_t b) noexcept;
BK_API uint16_t f32_to_bf16(float f) noexcept;

// Converts n elements between any two dtypes (I32 converts by value, saturating from float). To
// or from a quantized type n must be a whole number of its blocks (bk/quant.h does the blocks).
BK_API void convert(DType from, const void* src, DType to, void* dst, size_t n) noexcept;
// One element of a plain (not quantized) type as double, for references and checks; quantized
// data is read a row at a time with dequantize_row (bk/quant.h).
BK_API double load_as_double(DType type, const void* element) noexcept;
BK_API void store_from_double(DType type, void* element, double value) noexcept;

}  // namespace bk
