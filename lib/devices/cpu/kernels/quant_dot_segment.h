// SPDX-License-Identifier: MIT
#pragma once
// The row loop of the fused quantized kernels that take their scales eight blocks at a time
// (q4_0 and q4_k in quant_dot_avx2.cpp and quant_dot_avx512.cpp): the activations' block scales
// are laid out per column for a segment of the row, so that a type's step reads eight of them
// with one vector load where the block-at-a-time kernels convert and broadcast one scalar per
// block.
// Included only by the tier units; internal linkage, as kernel_table.h requires of what they
// instantiate.
//
// A type T provides kBlockBytes and kBlocksPerUnit (32-element blocks per unit of its layout),
// and, over an accumulator Acc<C> of C columns (default-constructed to zero):
//   group<C>(w, x, x_stride, s, b0, acc)  a group of kGroup blocks at w, activation blocks at x,
//                                         scales s[i].d + b0 for column i
//   block<C>(w, x, x_stride, s, b, acc)   one block past the last whole group
//   finish<C>(acc, i)                     column i's sum

#include <immintrin.h>

#include <cstdint>

#include "devices/cpu/kernels/block_scales.h"
#include "devices/cpu/kernels/kernel_table.h"
#include "devices/cpu/kernels/quant_dot_columns.h"

namespace bk {
namespace {

constexpr int64_t kGroup = 8;  // blocks whose scales are handled together
// Blocks of a row handled per segment: the activations' scales for it sit on the stack (8 KiB a
// column). A row longer than this (k > 32768) is read in pieces, each row of W in turn, which
// breaks the one stream the prefetchers follow; shorter segments measured slower for that.
constexpr int64_t kSegment = 1024;

// One column's activation scales over a segment: d[b] = the block's scale, q[b] = d[b] * the
// block's integer sum (the factor of a weight offset or minimum).
struct XScales {
  alignas(32) float d[kSegment];
  alignas(32) float q[kSegment];
};

inline void fill_scales(const XBlockScale* x, int64_t blocks, XScales& s) {
  for (int64_t b = 0; b < blocks; ++b) {
    s.d[b] = x[b].d;
    s.q[b] = x[b].d * static_cast<float>(x[b].qsum);
  }
}

// A q4_k super block's scales for each of C columns (d * scale_g * the activations' d, one lane
// per group g), and its minimums' terms (dmin * min_g * the activations' d * sum) added to off.
template <int C>
void q4_k_group_scales(const uint8_t* w, const XScales* s, int64_t b0, __m256 (&scale)[C], __m256 (&off)[C]) {
  __m256 scale6, min6;
  q4_k_scales_and_mins(w + 4, scale6, min6);
  const __m256 dscale = _mm256_mul_ps(_mm256_set1_ps(f16_at(w)), scale6);
  const __m256 dmin = _mm256_mul_ps(_mm256_set1_ps(f16_at(w + 2)), min6);
  for (int i = 0; i < C; ++i) {
    scale[i] = _mm256_mul_ps(dscale, _mm256_load_ps(s[i].d + b0));
    off[i] = _mm256_fmadd_ps(dmin, _mm256_load_ps(s[i].q + b0), off[i]);
  }
}

// W rows [0, m) times C columns over activation blocks [b0, b0 + blocks) of rows of row_blocks
// blocks (a segment), added to C (or stored, for the first segment).
template <class T, template <int> class Acc, int C>
void segment(const uint8_t* w, size_t w_stride, int64_t m, const XBlock16* x, int64_t x_stride,
             int64_t row_blocks, int64_t b0, int64_t blocks, float* c, int64_t ldc) {
  XScales s[C];
  for (int i = 0; i < C; ++i) fill_scales(x_scales(x + i * x_stride, row_blocks) + b0, blocks, s[i]);
  const int64_t groups = blocks / kGroup;
  constexpr int64_t kGroupBytes = kGroup / T::kBlocksPerUnit * T::kBlockBytes;
  for (int64_t j = 0; j < m; ++j) {
    const uint8_t* row = w + static_cast<size_t>(j) * w_stride + b0 / T::kBlocksPerUnit * T::kBlockBytes;
    Acc<C> acc;
    for (int64_t g = 0; g < groups; ++g) {
      const uint8_t* wg = row + g * kGroupBytes;
      for (int64_t byte = 0; byte < kGroupBytes; byte += 64) prefetch_w(wg + byte);
      T::template group<C>(wg, x + b0 + g * kGroup, x_stride, s, g * kGroup, acc);
    }
    for (int64_t b = groups * kGroup; b < blocks; ++b)
      T::template block<C>(row + b * T::kBlockBytes, x + b0 + b, x_stride, s, b, acc);
    for (int i = 0; i < C; ++i) {
      float& out = c[i * ldc + j];
      out = (b0 == 0 ? 0.0f : out) + T::template finish<C>(acc, i);
    }
  }
}

// gemv_quant (kernel_table.h) for T, segment by segment, C columns at a time.
template <class T, template <int> class Acc>
void gemv_by_segments(const void* w, size_t w_stride, int64_t m, const XBlock16* x, int64_t x_stride,
                      int64_t n, int64_t k, float* c, int64_t ldc) {
  const int64_t blocks = k / kXBlock;
  for_column_groups(n, x, x_stride, c, ldc, [&](auto columns, const XBlock16* xi, float* ci) {
    for (int64_t b0 = 0; b0 < blocks; b0 += kSegment) {
      segment<T, Acc, decltype(columns)::value>(static_cast<const uint8_t*>(w), w_stride, m, xi, x_stride,
                                                blocks, b0, blocks - b0 < kSegment ? blocks - b0 : kSegment,
                                                ci, ldc);
    }
  });
}

}  // namespace
}  // namespace bk
