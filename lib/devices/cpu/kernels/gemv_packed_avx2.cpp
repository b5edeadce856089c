// SPDX-License-Identifier: MIT
// The avx2 tier's packed-column decode path (GemvPackedFns, kernel_table.h): the same packing of
// X into 16-lane vectors as the avx512 tier's, read here as two 8-lane halves. Each weight (or
// pair, phases 2) is broadcast against both halves of every group, so W is read once for up to
// 16 (phases 1) or 8 (phases 2) X rows a group, with no horizontal sums until a block's end.
// Compiled with -mavx2 -mfma -mf16c; see kernel_table.h for what this file may include and define.
#include <immintrin.h>

#include <cstring>

#include "devices/cpu/kernels/gemv_packed_rows.h"
#include "devices/cpu/kernels/kernel_table.h"

namespace bk {
namespace {

constexpr int kPrefetchBytes = 512;  // ahead of each W row, as on the avx512 tier

// P consecutive weights of a row repeated across the vector, lane P q + p = w[p].
template <int P>
__m256 broadcast_weights(const float* w) {
  static_assert(P == 1 || P == 2);
  if constexpr (P == 1) {
    return _mm256_broadcast_ss(w);
  } else {
    double pair;  // the two floats as one 8-byte lane (vbroadcastsd)
    std::memcpy(&pair, w, sizeof pair);
    return _mm256_castpd_ps(_mm256_set1_pd(pair));
  }
}

// R W rows times V groups of packed X (phases P) over k in [k0, k1) (k1 - k0 a multiple of 16
// unless k1 = k), added to sums (packed_rows' layout, V x 16 floats a row, read as two halves),
// which start at zero when `first`. Each step loads 2V X halves and broadcasts P weights per row
// against them: 2 R V FMAs per R + 2 V loads. R and V are chosen (gemv_packed_f32) so that the
// 2 R V accumulators, the X halves and a broadcast fit the 16 ymm registers.
template <int P, int R, int V>
void column_tile(const float* w, int64_t w_stride, const float* xt, int64_t k, int64_t k0, int64_t k1,
                 float* sums, bool first) {
  const int64_t kv = (k + P - 1) / P;  // vectors of 16 per group
  __m256 acc[R][V][2];
  for (int r = 0; r < R; ++r) {
    for (int v = 0; v < V; ++v) {
      for (int h = 0; h < 2; ++h)
        acc[r][v][h] =
            first ? _mm256_setzero_ps() : _mm256_loadu_ps(sums + (r * V + v) * kPackedLanes + 8 * h);
    }
  }
  const int64_t k16 = k0 + (k1 - k0) / 16 * 16;
  for (int64_t kk = k0; kk < k16; kk += 16) {
    for (int r = 0; r < R; ++r) {  // past the row's end on the last steps: a prefetch never faults
      _mm_prefetch(reinterpret_cast<const char*>(w + r * w_stride + kk) + kPrefetchBytes, _MM_HINT_T0);
    }
    const float* xk = xt + kk / P * kPackedLanes;
#pragma GCC unroll 16
    for (int t = 0; t < 16 / P; ++t) {
      __m256 xv[V][2];
      for (int v = 0; v < V; ++v) {
        for (int h = 0; h < 2; ++h) xv[v][h] = _mm256_loadu_ps(xk + (v * kv + t) * kPackedLanes + 8 * h);
      }
      for (int r = 0; r < R; ++r) {
        const __m256 wb = broadcast_weights<P>(w + r * w_stride + kk + P * t);
        for (int v = 0; v < V; ++v) {
          for (int h = 0; h < 2; ++h) acc[r][v][h] = _mm256_fmadd_ps(wb, xv[v][h], acc[r][v][h]);
        }
      }
    }
  }
  // The tail (k1 = k): whole vectors, the weights past k taken as zero (W's next row, or
  // nothing, lies there; X is zero there, but 0 x inf is not).
  for (int64_t kk = k16; kk < k1; kk += P) {
    for (int r = 0; r < R; ++r) {
      float wt[P] = {};
      for (int64_t p = 0; p < P && kk + p < k1; ++p) wt[p] = w[r * w_stride + kk + p];
      const __m256 wb = broadcast_weights<P>(wt);
      for (int v = 0; v < V; ++v) {
        for (int h = 0; h < 2; ++h) {
          const __m256 xh = _mm256_loadu_ps(xt + (v * kv + kk / P) * kPackedLanes + 8 * h);
          acc[r][v][h] = _mm256_fmadd_ps(wb, xh, acc[r][v][h]);
        }
      }
    }
  }
  for (int r = 0; r < R; ++r) {
    for (int v = 0; v < V; ++v) {
      for (int h = 0; h < 2; ++h) _mm256_storeu_ps(sums + (r * V + v) * kPackedLanes + 8 * h, acc[r][v][h]);
    }
  }
}

// The tier's tile over packed_rows' blocks of W rows and chunks of k.
template <int P, int R, int V>
void column_rows(const float* w, int64_t w_stride, int64_t m, const float* xt, int64_t n, int64_t k,
                 int64_t chunk, float* c, int64_t ldc) {
  packed_rows<P, R, V>(w, w_stride, m, n, k, chunk, c, ldc,
                       [&](auto rows, const float* wr, int64_t k0, int64_t k1, float* sums, bool first) {
                         column_tile<P, decltype(rows)::value, V>(wr, w_stride, xt, k, k0, k1, sums, first);
                       });
}

// One group: 4 x 1 tiles over all of k (8 accumulators). Two groups: 2 x 2 tiles, three: 1 x 3,
// over chunks of 128 k (16 KiB of X a group) so that X's chunk stays in L1 across the tiles.
void gemv_packed_f32(const void* w, size_t w_stride, int64_t m, const float* xt, int64_t n, int64_t k,
                     int phases, float* c, int64_t ldc) {
  const auto* wf = static_cast<const float*>(w);
  const auto ws = static_cast<int64_t>(w_stride / sizeof(float));
  const int64_t rows = kPackedLanes / phases;  // X rows per group
  const int64_t groups = (n + rows - 1) / rows;
  const int64_t whole = k > 0 ? k : 1;  // chunk > 0 so that the loop ends
  if (phases == 2) {
    if (groups == 3) return column_rows<2, 1, 3>(wf, ws, m, xt, n, k, 128, c, ldc);
    if (groups == 2) return column_rows<2, 2, 2>(wf, ws, m, xt, n, k, 128, c, ldc);
    return column_rows<2, 4, 1>(wf, ws, m, xt, n, k, whole, c, ldc);
  }
  if (groups == 2) return column_rows<1, 2, 2>(wf, ws, m, xt, n, k, 128, c, ldc);
  column_rows<1, 4, 1>(wf, ws, m, xt, n, k, whole, c, ldc);
}

}  // namespace

void cpu_fill_gemv_packed_avx2(CpuKernels& t) {
  t.gemv_packed.pack = pack_columns_plain;
  t.gemv_packed.gemv_f32 = gemv_packed_f32;
  // Past one group (17-32 columns: 1 x 3 or 2 x 2 tiles) the dot tiles streamed W as fast or
  // faster (20 columns 6%) and ran 16% faster from cache at 32 (docs/performance.md, 2026-12-07).
  t.gemv_packed.max_columns = 16;
}

}  // namespace bk
