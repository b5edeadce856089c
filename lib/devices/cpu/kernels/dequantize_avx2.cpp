// SPDX-License-Identifier: MIT
// The avx2 tier's quantized-row decoders (kernel_table.h, DequantizeFn); the avx512 tiers run
// them too. They feed what reads quantized rows as f32 (row_io.h): mul_mat past the fused
// kernels' columns, GET_ROWS and the element-wise ops' quantized operands. Each computes what
// core's dequantize_row computes, and the results are the same bits: every product is exact in
// f32 (an f16 scale times an integer scale of at most 8 bits times a code of at most 6 bits), so
// only q4_k's subtraction of its minimum rounds, in both. Compiled with -mavx2 -mfma -mf16c; see
// kernel_table.h for what this file may include and define.
#include <immintrin.h>

#include "devices/cpu/kernels/block_scales.h"
#include "devices/cpu/kernels/kernel_table.h"

namespace bk {
namespace {

// Eight signed bytes (the low eight of v) as floats times d.
void store_scaled(__m128i v, float d, float* y) {
  _mm256_storeu_ps(y, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v)), _mm256_set1_ps(d)));
}

// Sixteen signed bytes as floats times d.
void store_scaled16(__m128i v, float d, float* y) {
  store_scaled(v, d, y);
  store_scaled(_mm_srli_si128(v, 8), d, y + 8);
}

__m128i low_nibbles(__m128i v) { return _mm_and_si128(v, _mm_set1_epi8(0x0F)); }
__m128i high_nibbles(__m128i v) { return low_nibbles(_mm_srli_epi16(v, 4)); }

// q8_0: d, 32 x int8.
void q8_0(const void* blocks, float* y, int64_t n) {
  const auto* b = static_cast<const uint8_t*>(blocks);
  for (int64_t i = 0; i < n; i += 32, b += 34, y += 32) {
    const float d = f16_at(b);
    store_scaled16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 2)), d, y);
    store_scaled16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 18)), d, y + 16);
  }
}

// q4_0: d, 16 bytes holding element j in the low and j + 16 in the high nibble, offset 8.
void q4_0(const void* blocks, float* y, int64_t n) {
  const auto* b = static_cast<const uint8_t*>(blocks);
  const __m128i eight = _mm_set1_epi8(8);
  for (int64_t i = 0; i < n; i += 32, b += 18, y += 32) {
    const float d = f16_at(b);
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 2));
    store_scaled16(_mm_sub_epi8(low_nibbles(v), eight), d, y);
    store_scaled16(_mm_sub_epi8(high_nibbles(v), eight), d, y + 16);
  }
}

// Sixteen unsigned bytes (codes below 128) as floats, times scale, minus min.
void store_affine16(__m128i v, float scale, float min, float* y) {
  const __m256 s = _mm256_set1_ps(scale), m = _mm256_set1_ps(min);
  for (int h = 0; h < 2; ++h, v = _mm_srli_si128(v, 8)) {
    const __m256 q = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(v));
    _mm256_storeu_ps(y + 8 * h, _mm256_sub_ps(_mm256_mul_ps(s, q), m));
  }
}

// q4_k: d, dmin, 12 bytes of 6-bit scales and minimums for 8 groups of 32, then 4 chunks of 32
// bytes whose low nibbles are group 2c and high nibbles group 2c + 1: x = d * scale * q - dmin *
// min.
void q4_k(const void* blocks, float* y, int64_t n) {
  const auto* b = static_cast<const uint8_t*>(blocks);
  for (int64_t i = 0; i < n; i += 256, b += 144) {
    const float d = f16_at(b), dmin = f16_at(b + 2);
    __m256 scale6, min6;
    q4_k_scales_and_mins(b + 4, scale6, min6);
    float scale[8], min[8];
    _mm256_storeu_ps(scale, scale6);
    _mm256_storeu_ps(min, min6);
    for (int chunk = 0; chunk < 4; ++chunk) {
      for (int half = 0; half < 2; ++half) {  // group 2 chunk + half: low, then high nibbles
        const int g = 2 * chunk + half;
        const float step = d * scale[g], low = dmin * min[g];
        for (int l = 0; l < 32; l += 16) {
          const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 16 + 32 * chunk + l));
          store_affine16(half == 0 ? low_nibbles(v) : high_nibbles(v), step, low, y + l);
        }
        y += 32;
      }
    }
  }
}

// q6_k: 128 bytes of low nibbles, 64 bytes of high bit pairs, 16 int8 scales, d. Each half of
// 128 elements holds four runs of 32: run t takes its low four bits from bytes
// ql[32 (t % 2) + l] (low nibble for t < 2, high for t >= 2) and its top two from bits 2t,
// 2t + 1 of qh[l]; x = (d * scale) * (q - 32), one scale per 16 elements.
void q6_k(const void* blocks, float* y, int64_t n) {
  const auto* b = static_cast<const uint8_t*>(blocks);
  const __m256i top2 = _mm256_set1_epi8(0x30), low4 = _mm256_set1_epi8(0x0F), offset = _mm256_set1_epi8(32);
  for (int64_t i = 0; i < n; i += 256, b += 210) {
    const auto* scales = reinterpret_cast<const int8_t*>(b + 192);
    const float d = f16_at(b + 208);
    for (int half = 0; half < 2; ++half, y += 128) {
      const uint8_t* ql = b + 64 * half;
      const __m256i l0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ql));
      const __m256i l1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ql + 32));
      const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 128 + 32 * half));
      const __m256i run[4] = {
          _mm256_or_si256(_mm256_and_si256(l0, low4), _mm256_and_si256(_mm256_slli_epi16(h, 4), top2)),
          _mm256_or_si256(_mm256_and_si256(l1, low4), _mm256_and_si256(_mm256_slli_epi16(h, 2), top2)),
          _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l0, 4), low4), _mm256_and_si256(h, top2)),
          _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l1, 4), low4),
                          _mm256_and_si256(_mm256_srli_epi16(h, 2), top2)),
      };
      for (int t = 0; t < 4; ++t) {
        const __m256i q = _mm256_sub_epi8(run[t], offset);
        const int g = 8 * half + 2 * t;  // the run's two scales, one per 16 elements
        store_scaled16(_mm256_castsi256_si128(q), d * static_cast<float>(scales[g]), y + 32 * t);
        store_scaled16(_mm256_extracti128_si256(q, 1), d * static_cast<float>(scales[g + 1]),
                       y + 32 * t + 16);
      }
    }
  }
}

}  // namespace

void cpu_fill_dequantize_avx2(CpuKernels& t) {
  t.dequantize[static_cast<int>(QuantType::q8_0)] = q8_0;
  t.dequantize[static_cast<int>(QuantType::q4_0)] = q4_0;
  t.dequantize[static_cast<int>(QuantType::q4_k)] = q4_k;
  t.dequantize[static_cast<int>(QuantType::q6_k)] = q6_k;
}

}  // namespace bk
