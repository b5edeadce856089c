// SPDX-License-Identifier: MIT
#pragma once
// Helpers shared by the avx512 tier's units (matmul_avx512.cpp, gemv_avx512.cpp), both compiled
// with -mavx512f -mavx2 -mfma -mf16c. Everything has internal linkage (see kernel_table.h for
// why). Include after vec_avx2_math.h.

#include <immintrin.h>

#include <cstdint>

namespace bk::avx512 {
namespace {

// One weight of a row as f32, by weight dtype.
using W1 = float (*)(const unsigned char*, int64_t);
inline float w1_f32(const unsigned char* row, int64_t k) { return reinterpret_cast<const float*>(row)[k]; }
inline float w1_f16(const unsigned char* row, int64_t k) {
  return avx2::f16_scalar(reinterpret_cast<const uint16_t*>(row)[k]);
}
inline float w1_bf16(const unsigned char* row, int64_t k) {
  return avx2::bf16_scalar(reinterpret_cast<const uint16_t*>(row)[k]);
}

// How far ahead of its loads each W row of a decode tile (gemv_avx512.cpp,
// gemv_packed_avx512.cpp) is prefetched: a tile reads two to eight rows at once, more streams
// than the hardware prefetchers keep ahead of. The distance was chosen by measurement
// (docs/performance.md, "the decode tile's prefetch").
constexpr int kPrefetchBytes = 512;

// The sum of v's lanes (through memory: GCC 12 warns falsely inside _mm512_reduce_add_ps).
inline float hsum16(__m512 v) {
  alignas(64) float t[16];
  _mm512_store_ps(t, v);
  return avx2::hsum(_mm256_add_ps(_mm256_load_ps(t), _mm256_load_ps(t + 8)));
}

}  // namespace
}  // namespace bk::avx512
