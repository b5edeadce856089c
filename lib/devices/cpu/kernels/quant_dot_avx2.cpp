// SPDX-License-Identifier: MIT
// The avx2 tier's fused decode-and-dot path for quantized weights (kernel_table.h,
// GemvQuantFn); the avx512 tiers run it too. A weight block is decoded in registers to 16-bit
// integers, 16 elements a vector (for q6_k with its offset 32 and 16-element scale applied), and
// multiplied with the 16-bit activations by vpmaddwd (pairs of products summed to int32; at most
// 2 x 4096 x 32767, no overflow); one float multiply-add per 32 elements then applies the
// weight's and the activations' block scales. q4_0's offset 8 (in the integers) and q4_k's
// minimums (in floats) multiply the activation blocks' sums.
//
// Each W row is read once for up to four X rows (columns) at a time, so a block is decoded once
// per four columns. Two accumulators per column take alternate blocks: one chain of dependent
// multiply-adds would wait on its latency. Compiled with -mavx2 -mfma -mf16c; see
// kernel_table.h for what this file may include and define.
#include <immintrin.h>

#include <cstring>

#include "devices/cpu/kernels/kernel_table.h"
#include "devices/cpu/kernels/quant_dot_columns.h"
#include "devices/cpu/kernels/vec_avx2_math.h"

namespace bk {
namespace {

using avx2::hsum;

float f16_at(const uint8_t* p) {
  uint16_t h;
  std::memcpy(&h, p, 2);
  return _cvtsh_ss(h);
}

__m128i low_nibbles(__m128i v) { return _mm_and_si128(v, _mm_set1_epi8(0x0F)); }
__m128i high_nibbles(__m128i v) { return low_nibbles(_mm_srli_epi16(v, 4)); }
__m256i low_nibbles(__m256i v) { return _mm256_and_si256(v, _mm256_set1_epi8(0x0F)); }
__m256i high_nibbles(__m256i v) { return low_nibbles(_mm256_srli_epi16(v, 4)); }

// The int32 lanes of a block's 32 weights (w0: elements 0-15, w1: 16-31, as int16) times its
// 32 activations; the lanes add up to the block's integer dot product.
__m256i dot_lanes(__m256i w0, __m256i w1, const XBlock16& x) {
  const auto* q = reinterpret_cast<const __m256i*>(x.q);
  return _mm256_add_epi32(_mm256_madd_epi16(w0, _mm256_loadu_si256(q)),
                          _mm256_madd_epi16(w1, _mm256_loadu_si256(q + 1)));
}

// v in lane 0, zeros elsewhere: subtracting it takes an offset out of a block's lane sum.
__m256i in_lane0(int32_t v) { return _mm256_setr_epi32(v, 0, 0, 0, 0, 0, 0, 0); }

// acc += lanes * scale.
void add_scaled(__m256& acc, __m256i lanes, float scale) {
  acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(lanes), _mm256_set1_ps(scale), acc);
}

// Sixteen unsigned bytes as int16, minus offset.
__m256i widen_u8(__m128i v, int16_t offset) {
  return _mm256_sub_epi16(_mm256_cvtepu8_epi16(v), _mm256_set1_epi16(offset));
}

// One type's step: the unit of weights (one block for q8_0 and q4_0, one 256-element super block
// for the k-quants) at w, times C columns whose activation blocks for that unit start at x (the
// next column's x_stride blocks further). Adds to a0 (and a1) and off.

// q8_0: d, 32 x int8.
struct Q8_0 {
  static constexpr int64_t kUnit = 32, kBytes = 34;
  template <int C>
  static void step(const uint8_t* w, const XBlock16* x, int64_t x_stride, __m256 (&a0)[C], __m256 (&)[C],
                   float (&)[C]) {
    const __m256i w0 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w + 2)));
    const __m256i w1 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w + 18)));
    const float d = f16_at(w);
#pragma GCC unroll 4
    for (int i = 0; i < C; ++i) {
      const XBlock16& xb = x[i * x_stride];
      add_scaled(a0[i], dot_lanes(w0, w1, xb), d * xb.d);
    }
  }
};

// q4_0: d, 16 bytes holding element j in the low and j + 16 in the high nibble, offset 8.
struct Q4_0 {
  static constexpr int64_t kUnit = 32, kBytes = 18;
  template <int C>
  static void step(const uint8_t* w, const XBlock16* x, int64_t x_stride, __m256 (&a0)[C], __m256 (&)[C],
                   float (&)[C]) {
    // Each byte widened to int16 holds both of its nibbles: masking gives element j, shifting
    // element j + 16. The offset is taken out of one lane through the activations' sum (cheaper
    // than subtracting 8 from every weight, and no scalar chain from block to block).
    const __m256i bytes = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w + 2)));
    const __m256i w0 = _mm256_and_si256(bytes, _mm256_set1_epi16(0x0F)), w1 = _mm256_srli_epi16(bytes, 4);
    const float d = f16_at(w);
#pragma GCC unroll 4
    for (int i = 0; i < C; ++i) {
      const XBlock16& xb = x[i * x_stride];
      const __m256i lanes = _mm256_sub_epi32(dot_lanes(w0, w1, xb), in_lane0(8 * xb.qsum));
      add_scaled(a0[i], lanes, d * xb.d);
    }
  }
};

// q4_k: d, dmin, 12 bytes of 6-bit scales and mins for 8 groups of 32, then 4 chunks of 32 bytes
// whose low nibbles are group 2c and high nibbles group 2c + 1: x = d * scale * q - dmin * min.
struct Q4_K {
  static constexpr int64_t kUnit = 256, kBytes = 144;

  // Groups 0-3 sit in the low six bits of bytes g and g + 4; groups 4-7 in the nibbles of byte
  // g + 8 with their top two bits in the top bits of bytes g (scale) and g + 4 (min).
  static void scales_and_mins(const uint8_t* s, int (&scale)[8], int (&min)[8]) {
    for (int g = 0; g < 4; ++g) {
      scale[g] = s[g] & 63;
      min[g] = s[g + 4] & 63;
      scale[g + 4] = (s[g + 8] & 0xF) | ((s[g] >> 6) << 4);
      min[g + 4] = (s[g + 8] >> 4) | ((s[g + 4] >> 6) << 4);
    }
  }

  template <int C>
  static void step(const uint8_t* w, const XBlock16* x, int64_t x_stride, __m256 (&a0)[C], __m256 (&a1)[C],
                   float (&off)[C]) {
    const float d = f16_at(w), dmin = f16_at(w + 2);
    int scale[8], min[8];
    scales_and_mins(w + 4, scale, min);
#pragma GCC unroll 4
    for (int chunk = 0; chunk < 4; ++chunk) {
      const __m128i v0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w + 16 + 32 * chunk));
      const __m128i v1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w + 32 + 32 * chunk));
      const __m256i lo0 = widen_u8(low_nibbles(v0), 0), lo1 = widen_u8(low_nibbles(v1), 0);
      const __m256i hi0 = widen_u8(high_nibbles(v0), 0), hi1 = widen_u8(high_nibbles(v1), 0);
      const int g = 2 * chunk;
#pragma GCC unroll 4
      for (int i = 0; i < C; ++i) {
        const XBlock16* xb = x + i * x_stride + g;
        add_scaled(a0[i], dot_lanes(lo0, lo1, xb[0]), d * static_cast<float>(scale[g]) * xb[0].d);
        add_scaled(a1[i], dot_lanes(hi0, hi1, xb[1]), d * static_cast<float>(scale[g + 1]) * xb[1].d);
      }
    }
    // The minimums: dmin * min_g times each group's activation sum.
    for (int i = 0; i < C; ++i) {
      const XBlock16* xb = x + i * x_stride;
      float mins = 0.0f;
      for (int g = 0; g < 8; ++g)
        mins += static_cast<float>(min[g]) * xb[g].d * static_cast<float>(xb[g].qsum);
      off[i] -= dmin * mins;
    }
  }
};

// q6_k: 128 bytes of low nibbles, 64 bytes of high bit pairs, 16 int8 scales (one per 16
// elements), d. Each half of 128 elements holds four runs of 32: run t takes its low four bits
// from bytes ql[32 (t % 2) + l] (low nibble for t < 2, high for t >= 2) and its top two from
// bits 2t, 2t + 1 of qh[l]; x = d * scale * (q - 32). The weights go to int16 as scale * (q - 32)
// (at most 128 x 32), so one float multiply-add per run applies d.
struct Q6_K {
  static constexpr int64_t kUnit = 256, kBytes = 210;

  // Sixteen codes (bytes, 0-63) as int16 scale * (q - 32).
  static __m256i widen_scaled(__m128i q, int scale) {
    return _mm256_mullo_epi16(widen_u8(q, 32), _mm256_set1_epi16(static_cast<int16_t>(scale)));
  }

  template <int C>
  static void step(const uint8_t* w, const XBlock16* x, int64_t x_stride, __m256 (&a0)[C], __m256 (&a1)[C],
                   float (&)[C]) {
    const auto* scales = reinterpret_cast<const int8_t*>(w + 192);
    const float d = f16_at(w + 208);
    const __m256i top2 = _mm256_set1_epi8(0x30);  // a run's high bits, moved to bits 4-5
#pragma GCC unroll 2
    for (int half = 0; half < 2; ++half) {
      const uint8_t* ql = w + 64 * half;
      const __m256i l0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ql));
      const __m256i l1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ql + 32));
      const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + 128 + 32 * half));
      const __m256i run[4] = {
          _mm256_or_si256(low_nibbles(l0), _mm256_and_si256(_mm256_slli_epi16(h, 4), top2)),
          _mm256_or_si256(low_nibbles(l1), _mm256_and_si256(_mm256_slli_epi16(h, 2), top2)),
          _mm256_or_si256(high_nibbles(l0), _mm256_and_si256(h, top2)),
          _mm256_or_si256(high_nibbles(l1), _mm256_and_si256(_mm256_srli_epi16(h, 2), top2)),
      };
#pragma GCC unroll 4
      for (int t = 0; t < 4; ++t) {
        const int g = 8 * half + 2 * t;  // the run's two scales, one per 16 elements
        const __m256i w0 = widen_scaled(_mm256_castsi256_si128(run[t]), scales[g]);
        const __m256i w1 = widen_scaled(_mm256_extracti128_si256(run[t], 1), scales[g + 1]);
#pragma GCC unroll 4
        for (int i = 0; i < C; ++i) {
          const XBlock16& xb = x[i * x_stride + 4 * half + t];
          add_scaled(t % 2 == 0 ? a0[i] : a1[i], dot_lanes(w0, w1, xb), d * xb.d);
        }
      }
    }
  }
};

// How far ahead of the step at hand W is fetched into L1, a step's bytes at a time: the hardware
// prefetchers alone left the kernel waiting on W when it streams from memory, and fetching
// whole rows ahead in a burst stalled on the full line-fill buffers (docs/performance.md,
// "prefetching W"). The distance measured best of 1-4 KiB.
constexpr int64_t kPrefetchBytes = 2304;

// W rows [0, m) times C columns, the units alternating between the two accumulators.
template <class T, int C>
void rows(const uint8_t* w, size_t w_stride, int64_t m, const XBlock16* x, int64_t x_stride, int64_t k,
          float* c, int64_t ldc) {
  const int64_t units = k / T::kUnit, xblocks = T::kUnit / kXBlock;
  for (int64_t j = 0; j < m; ++j) {
    const uint8_t* row = w + static_cast<size_t>(j) * w_stride;
    __m256 a0[C], a1[C];
    float off[C];
    for (int i = 0; i < C; ++i) {
      a0[i] = a1[i] = _mm256_setzero_ps();
      off[i] = 0.0f;
    }
    int64_t u = 0;
    for (; u + 2 <= units; u += 2) {
      for (int64_t b = 0; b < 2 * T::kBytes; b += 64)
        _mm_prefetch(reinterpret_cast<const char*>(row + u * T::kBytes + kPrefetchBytes + b), _MM_HINT_T0);
      T::template step<C>(row + u * T::kBytes, x + u * xblocks, x_stride, a0, a1, off);
      T::template step<C>(row + (u + 1) * T::kBytes, x + (u + 1) * xblocks, x_stride, a1, a0, off);
    }
    if (u < units) T::template step<C>(row + u * T::kBytes, x + u * xblocks, x_stride, a0, a1, off);
    for (int i = 0; i < C; ++i) c[i * ldc + j] = hsum(_mm256_add_ps(a0[i], a1[i])) + off[i];
  }
}

template <class T>
void gemv(const void* w, size_t w_stride, int64_t m, const XBlock16* x, int64_t x_stride, int64_t n,
          int64_t k, float* c, int64_t ldc) {
  for_column_groups(n, x, x_stride, c, ldc, [&](auto columns, const XBlock16* xi, float* ci) {
    rows<T, decltype(columns)::value>(static_cast<const uint8_t*>(w), w_stride, m, xi, x_stride, k, ci, ldc);
  });
}

}  // namespace

void cpu_fill_quant_dot_avx2(CpuKernels& t) {
  t.gemv_quant[static_cast<int>(QuantType::q8_0)] = gemv<Q8_0>;
  t.gemv_quant[static_cast<int>(QuantType::q4_0)] = gemv<Q4_0>;
  t.gemv_quant[static_cast<int>(QuantType::q4_k)] = gemv<Q4_K>;
  t.gemv_quant[static_cast<int>(QuantType::q6_k)] = gemv<Q6_K>;
}

}  // namespace bk
