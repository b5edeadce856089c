// SPDX-License-Identifier: MIT
#pragma once
// Block-quantized weights in ggml's layouts, so that GGUF files load as they are. Each block
// holds dtype_block(type) elements in dtype_size(type) bytes; scales are f16.
//
//   q8_0  32 elements, 34 bytes:  d, then 32 int8 q:                 x = d * q
//   q4_0  32 elements, 18 bytes:  d, then 16 bytes of 4-bit q:       x = d * (q - 8); byte j holds
//                                 element j (low nibble) and j + 16 (high nibble)
//   q4_k  256 elements, 144 bytes: d, dmin, 12 bytes of 6-bit scales and mins for 8 groups of 32,
//                                 128 bytes of 4-bit q:              x = d * sc * q - dmin * m
//   q6_k  256 elements, 210 bytes: 128 bytes low 4 bits, 64 bytes high 2 bits, 16 int8 scales
//                                 (groups of 16), d:                 x = d * sc * (q - 32)
//
// dequantize_row computes exactly what ggml computes (the same float operations in the same
// order). quantize_row writes a valid encoding with simple round-to-nearest scales, not ggml's
// searched ones: it makes test data; models arrive quantized. Pure functions, thread-safe.

#include <cstdint>

#include "bk/api.h"
#include "bk/dtype.h"

namespace bk {

// n: a whole number of the type's blocks. A plain type converts as convert() does.
BK_API void dequantize_row(DType type, const void* src, float* dst, int64_t n) noexcept;
BK_API void quantize_row(DType type, const float* src, void* dst, int64_t n) noexcept;

}  // namespace bk
