// SPDX-License-Identifier: MIT
#pragma once
// What the packed-column decode kernels share (gemv_packed_avx2.cpp, gemv_packed_avx512.cpp): the
// plain packing of X (kernel_table.h, GemvPackedFns), and the loop over blocks of W rows that
// calls a tier's register tile chunk by chunk of k and then adds each X row's lanes into C.
// Included only by those units; internal linkage, as kernel_table.h requires of what tier units
// instantiate.

#include <cstdint>
#include <type_traits>

#include "devices/cpu/kernels/kernel_table.h"

namespace bk {
namespace {

// X rows [0, n) into groups of 16 / phases rows: xt[(g * kv + t) * 16 + phases * q + p] =
// X[(16 / phases) g + q][phases t + p], 0 past n and k. X is a few hundred KiB at most against
// W's tens of MiB, so plain copies do.
inline void pack_columns_plain(const float* x, int64_t x_stride, int64_t n, int64_t k, int phases,
                               float* xt) {
  const int64_t rows = kPackedLanes / phases;
  const int64_t kv = (k + phases - 1) / phases;
  const int64_t padded_n = (n + rows - 1) / rows * rows;
  for (int64_t i = 0; i < padded_n; ++i) {
    const float* xi = x + i * x_stride;
    float* dst = xt + (i / rows) * kv * kPackedLanes + phases * (i % rows);
    for (int64_t t = 0; t < kv; ++t) {
      for (int p = 0; p < phases; ++p) {
        const int64_t e = phases * t + p;
        dst[t * kPackedLanes + p] = i < n && e < k ? xi[e] : 0.0f;
      }
    }
  }
}

// Rows of W per block: the block's sums (64 rows x V groups x 64 bytes, at most 12 KiB) stay in
// L1 across the chunks of k.
inline constexpr int64_t kPackedBlockRows = 64;

// Blocks of kPackedBlockRows W rows, each in tiles of R rows (the last few one by one) over
// chunks of `chunk` elements of k (chunk > 0), then each of the n X rows' P lanes added and
// written to C. tile(std::integral_constant<int, rows>, w_rows, k0, k1, sums, first) is the
// tier's register tile: `rows` W rows from w_rows over k in [k0, k1) added to sums (V x 16
// floats per W row, lane P q + p of group v: X row (16 / P) v + q, phase p), which start at
// zero when `first`.
template <int P, int R, int V, typename Tile>
void packed_rows(const float* w, int64_t w_stride, int64_t m, int64_t n, int64_t k, int64_t chunk, float* c,
                 int64_t ldc, Tile tile) {
  constexpr int64_t kRows = kPackedLanes / P;  // X rows per group
  constexpr int64_t kRowFloats = V * kPackedLanes;
  alignas(64) float sums[kPackedBlockRows * kRowFloats];
  for (int64_t j0 = 0; j0 < m; j0 += kPackedBlockRows) {
    const int64_t rows = m - j0 < kPackedBlockRows ? m - j0 : kPackedBlockRows;
    const float* wj = w + j0 * w_stride;
    for (int64_t k0 = 0; k0 == 0 || k0 < k; k0 += chunk) {  // once at k = 0, which zeroes the sums
      const int64_t k1 = k - k0 < chunk ? k : k0 + chunk;
      int64_t j = 0;
      for (; j + R <= rows; j += R)
        tile(std::integral_constant<int, R>{}, wj + j * w_stride, k0, k1, sums + j * kRowFloats, k0 == 0);
      for (; j < rows; ++j)
        tile(std::integral_constant<int, 1>{}, wj + j * w_stride, k0, k1, sums + j * kRowFloats, k0 == 0);
    }
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t q = 0; q < n; ++q) {
        const float* s = sums + r * kRowFloats + (q / kRows) * kPackedLanes + P * (q % kRows);
        float sum = s[0];
        for (int p = 1; p < P; ++p) sum += s[p];
        c[q * ldc + j0 + r] = sum;
      }
    }
  }
}

}  // namespace
}  // namespace bk
