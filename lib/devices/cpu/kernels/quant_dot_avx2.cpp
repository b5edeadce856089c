// SPDX-License-Identifier: MIT
// The avx2 tier's fused decode-and-dot path for quantized weights (kernel_table.h,
// GemvQuantFn); the avx512 tiers run it too. A weight block is decoded in registers to 16-bit
// integers, 16 elements a vector (for q6_k with its offset 32 and 16-element scale applied), and
// multiplied with the 16-bit activations by vpmaddwd (pairs of products summed to int32; at most
// 2 x 4096 x 32767, no overflow); one float multiply-add per 32 elements (q6_k: per super block,
// whose activations share a scale) then applies the weight's and the activations' scales. q4_0's offset 8 and
// q4_k's minimums multiply the activation blocks' sums.
//
// q4_0 and q4_k take their scales eight blocks at a time (quant_dot_segment.h): eight weight
// scales times the activations' eight with one vector multiply, the offset or minimums in one
// multiply-add, and a lane permute per block where a block at a time costs a scalar conversion,
// two multiplies and a broadcast; q8_0 and q6_k go a block at a time (docs/performance.md,
// "avx2 scales eight blocks at a time"). Each W row is read once for up to four X rows
// (columns) at a time, so a block is decoded once per four columns. Two accumulators per column
// take alternate blocks (or q4_k's alternate groups): one chain of dependent multiply-adds would
// wait on its latency. Compiled with -mavx2 -mfma -mf16c; see kernel_table.h for what this file
// may include and define.
#include <immintrin.h>

#include <cstring>

#include "devices/cpu/kernels/block_scales.h"
#include "devices/cpu/kernels/kernel_table.h"
#include "devices/cpu/kernels/quant_dot_segment.h"
#include "devices/cpu/kernels/vec_avx2_math.h"

namespace bk {
namespace {

using avx2::hsum;

__m256i low_nibbles(__m256i v) { return _mm256_and_si256(v, _mm256_set1_epi8(0x0F)); }
__m256i high_nibbles(__m256i v) { return low_nibbles(_mm256_srli_epi16(v, 4)); }

// The int32 lanes of a block's 32 weights (w0: elements 0-15, w1: 16-31, as int16) times its
// 32 activations; the lanes add up to the block's integer dot product.
__m256i dot_lanes(__m256i w0, __m256i w1, const XBlock16& x) {
  const auto* q = reinterpret_cast<const __m256i*>(x.q);
  return _mm256_add_epi32(_mm256_madd_epi16(w0, _mm256_loadu_si256(q)),
                          _mm256_madd_epi16(w1, _mm256_loadu_si256(q + 1)));
}

// XScales per XBlock16: a column's scales are x_stride * kScalesPerUnit XScales from the last's.
constexpr int64_t kScalesPerUnit = sizeof(XBlock16) / sizeof(XBlockScale);

// acc += lanes * scale.
void add_scaled(__m256& acc, __m256i lanes, float scale) {
  acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(lanes), _mm256_set1_ps(scale), acc);
}

// Sixteen unsigned bytes as int16, minus offset.
__m256i widen_u8(__m128i v, int16_t offset) {
  return _mm256_sub_epi16(_mm256_cvtepu8_epi16(v), _mm256_set1_epi16(offset));
}

// A block-at-a-time type's step: the unit of weights (one block for q8_0, one 256-element super
// block for q6_k) at w, times C columns whose activation blocks for that unit start at x and
// their scales at xs (the next column's x_stride blocks and x_stride * kScalesPerUnit scales
// further). Adds to a0 (and a1) and off.

// q8_0: d, 32 x int8.
struct Q8_0 {
  static constexpr int64_t kUnit = 32, kBytes = 34;
  template <int C>
  static void step(const uint8_t* w, const XBlock16* x, const XBlockScale* xs, int64_t x_stride,
                   __m256 (&a0)[C], __m256 (&)[C], float (&)[C]) {
    const __m256i w0 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w + 2)));
    const __m256i w1 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w + 18)));
    const float d = f16_at(w);
#pragma GCC unroll 4
    for (int i = 0; i < C; ++i) {
      add_scaled(a0[i], dot_lanes(w0, w1, x[i * x_stride]), d * xs[i * x_stride * kScalesPerUnit].d);
    }
  }
};

template <int C>
struct Acc {
  __m256 a0[C], a1[C];  // scaled products of alternate blocks (q4_0) or groups (q4_k)
  __m256 off[C];        // the offset's or minimums' terms, subtracted at the end
  Acc() {
    for (int i = 0; i < C; ++i) a0[i] = a1[i] = off[i] = _mm256_setzero_ps();
  }
};

// Lane g of v in all eight lanes.
__m256 lane(__m256 v, int g) { return _mm256_permutevar8x32_ps(v, _mm256_set1_epi32(g)); }

// q4_0: d, 16 bytes holding element j in the low and j + 16 in the high nibble, offset 8. A
// group of eight blocks takes its eight scales for every column from one vector multiply, and
// the offset from one multiply-add (through the activations' sums).
struct Q4_0 {
  static constexpr int64_t kBlockBytes = 18, kBlocksPerUnit = 1;

  // The eight f16 scales of a group (bytes 18 b) as floats.
  static __m256 scales(const uint8_t* w) {
    uint16_t h[kGroup];
    for (int b = 0; b < kGroup; ++b) std::memcpy(&h[b], w + 18 * b, 2);
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(h)));
  }

  // A block's 32 weights times one column's activations, as int32 lanes: each byte widened to
  // int16 holds both of its nibbles, masking gives element j, shifting element j + 16.
  template <int C>
  static void dot(const uint8_t* w, const XBlock16* x, int64_t x_stride, __m256i (&lanes)[C]) {
    const __m256i bytes = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w + 2)));
    const __m256i w0 = _mm256_and_si256(bytes, _mm256_set1_epi16(0x0F)), w1 = _mm256_srli_epi16(bytes, 4);
    for (int i = 0; i < C; ++i) lanes[i] = dot_lanes(w0, w1, x[i * x_stride]);
  }

  template <int C>
  static void group(const uint8_t* w, const XBlock16* x, int64_t x_stride, const XScales* s, int64_t b0,
                    Acc<C>& acc) {
    const __m256 dw = scales(w);
    __m256 scale[C];
    for (int i = 0; i < C; ++i) {
      scale[i] = _mm256_mul_ps(dw, _mm256_load_ps(s[i].d + b0));
      acc.off[i] = _mm256_fmadd_ps(dw, _mm256_load_ps(s[i].q + b0), acc.off[i]);
    }
#pragma GCC unroll 8
    for (int b = 0; b < kGroup; ++b) {
      __m256i lanes[C];
      dot<C>(w + 18 * b, x + b, x_stride, lanes);
#pragma GCC unroll 4
      for (int i = 0; i < C; ++i) {
        __m256& a = b % 2 == 0 ? acc.a0[i] : acc.a1[i];
        a = _mm256_fmadd_ps(_mm256_cvtepi32_ps(lanes[i]), lane(scale[i], b), a);
      }
    }
  }

  template <int C>
  static void block(const uint8_t* w, const XBlock16* x, int64_t x_stride, const XScales* s, int64_t b,
                    Acc<C>& acc) {
    __m256i lanes[C];
    dot<C>(w, x, x_stride, lanes);
    const float dw = f16_at(w);
    for (int i = 0; i < C; ++i) {
      acc.a0[i] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(lanes[i]), _mm256_set1_ps(dw * s[i].d[b]), acc.a0[i]);
      acc.off[i] = _mm256_add_ps(acc.off[i], _mm256_setr_ps(dw * s[i].q[b], 0, 0, 0, 0, 0, 0, 0));
    }
  }

  template <int C>
  static float finish(const Acc<C>& acc, int i) {
    return hsum(_mm256_add_ps(acc.a0[i], acc.a1[i])) - 8.0f * hsum(acc.off[i]);
  }
};

// q4_k: d, dmin, 12 bytes of 6-bit scales and minimums for 8 groups of 32, then 4 chunks of 32
// bytes whose low nibbles are group 2c and high nibbles group 2c + 1: x = d * scale * q - dmin *
// min. A super block is one group of eight activation blocks (quant_dot_segment.h): its scales
// for every column come from one vector multiply, its minimums from one multiply-add.
struct Q4_K {
  static constexpr int64_t kBlockBytes = 144, kBlocksPerUnit = 8;

  template <int C>
  static void group(const uint8_t* w, const XBlock16* x, int64_t x_stride, const XScales* s, int64_t b0,
                    Acc<C>& acc) {
    __m256 scale[C];
    q4_k_group_scales<C>(w, s, b0, scale, acc.off);
#pragma GCC unroll 4
    for (int chunk = 0; chunk < 4; ++chunk) {
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + 16 + 32 * chunk));
      const __m256i low = low_nibbles(v), high = high_nibbles(v);
      const __m256i lo0 = _mm256_cvtepu8_epi16(_mm256_castsi256_si128(low));
      const __m256i lo1 = _mm256_cvtepu8_epi16(_mm256_extracti128_si256(low, 1));
      const __m256i hi0 = _mm256_cvtepu8_epi16(_mm256_castsi256_si128(high));
      const __m256i hi1 = _mm256_cvtepu8_epi16(_mm256_extracti128_si256(high, 1));
      const int g = 2 * chunk;
#pragma GCC unroll 4
      for (int i = 0; i < C; ++i) {
        const XBlock16* xb = x + i * x_stride + g;
        acc.a0[i] =
            _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot_lanes(lo0, lo1, xb[0])), lane(scale[i], g), acc.a0[i]);
        acc.a1[i] =
            _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot_lanes(hi0, hi1, xb[1])), lane(scale[i], g + 1), acc.a1[i]);
      }
    }
  }

  // Never called: a q4_k row is whole super blocks, whole groups.
  template <int C>
  static void block(const uint8_t*, const XBlock16*, int64_t, const XScales*, int64_t, Acc<C>&) {}

  template <int C>
  static float finish(const Acc<C>& acc, int i) {
    return hsum(_mm256_add_ps(acc.a0[i], acc.a1[i])) - hsum(acc.off[i]);
  }
};

// q6_k: 128 bytes of low nibbles, 64 bytes of high bit pairs, 16 int8 scales (one per 16
// elements), d. Each half of 128 elements holds four runs of 32: run t takes its low four bits
// from bytes ql[32 (t % 2) + l] (low nibble for t < 2, high for t >= 2) and its top two from
// bits 2t, 2t + 1 of qh[l]; x = d * scale * (q - 32). The weights go to int16 as scale * (q - 32)
// (at most 128 x 32), so a super block's products add up in integers and one float multiply-add
// per column applies d and the activations' scale.
struct Q6_K {
  static constexpr int64_t kUnit = 256, kBytes = 210;

  // Sixteen codes (bytes, 0-63) as int16 scale * (q - 32).
  static __m256i widen_scaled(__m128i q, int scale) {
    return _mm256_mullo_epi16(widen_u8(q, 32), _mm256_set1_epi16(static_cast<int16_t>(scale)));
  }

  template <int C>
  static void step(const uint8_t* w, const XBlock16* x, const XBlockScale* xs, int64_t x_stride,
                   __m256 (&a0)[C], __m256 (&a1)[C], float (&)[C]) {
    const auto* scales = reinterpret_cast<const int8_t*>(w + 192);
    const float d = f16_at(w + 208);
    const __m256i top2 = _mm256_set1_epi8(0x30);  // a run's high bits, moved to bits 4-5
#pragma GCC unroll 2
    for (int half = 0; half < 2; ++half) {
      const uint8_t* ql = w + 64 * half;
      const __m256i l0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ql));
      const __m256i l1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ql + 32));
      const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + 128 + 32 * half));
      // The half's products in int32 (at most 16 of 4096 * 32767 a lane): the super block's
      // activations share one scale.
      __m256i sum[C];
      for (int i = 0; i < C; ++i) sum[i] = _mm256_setzero_si256();
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
        for (int i = 0; i < C; ++i)
          sum[i] = _mm256_add_epi32(sum[i], dot_lanes(w0, w1, x[i * x_stride + 4 * half + t]));
      }
      for (int i = 0; i < C; ++i)
        add_scaled(half == 0 ? a0[i] : a1[i], sum[i], d * xs[i * x_stride * kScalesPerUnit].d);
    }
  }
};

// W rows [0, m) times C columns, the units alternating between the two accumulators.
template <class T, int C>
void rows(const uint8_t* w, size_t w_stride, int64_t m, const XBlock16* x, int64_t x_stride, int64_t k,
          float* c, int64_t ldc) {
  const int64_t units = k / T::kUnit, xblocks = T::kUnit / kXBlock;
  const XBlockScale* xs = x_scales(x, k / kXBlock);
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
      for (int64_t b = 0; b < 2 * T::kBytes; b += 64) prefetch_w(row + u * T::kBytes + b);
      T::template step<C>(row + u * T::kBytes, x + u * xblocks, xs + u * xblocks, x_stride, a0, a1, off);
      T::template step<C>(row + (u + 1) * T::kBytes, x + (u + 1) * xblocks, xs + (u + 1) * xblocks, x_stride,
                          a1, a0, off);
    }
    if (u < units)
      T::template step<C>(row + u * T::kBytes, x + u * xblocks, xs + u * xblocks, x_stride, a0, a1, off);
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
  t.gemv_quant[static_cast<int>(QuantType::q4_0)] = gemv_by_segments<Q4_0, Acc>;
  t.gemv_quant[static_cast<int>(QuantType::q4_k)] = gemv_by_segments<Q4_K, Acc>;
  t.gemv_quant[static_cast<int>(QuantType::q6_k)] = gemv<Q6_K>;
}

}  // namespace bk
