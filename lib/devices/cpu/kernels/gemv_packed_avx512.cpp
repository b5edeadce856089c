// SPDX-License-Identifier: MIT
// The avx512 tier's packed-column decode path (GemvPackedFns, kernel_table.h): f32 W rows times
// up to 32 X rows that op_mul_mat packed into vectors of 16 lanes (16 rows x 1 element, or 8 x
// 2), each weight (or pair) broadcast against every X row of a vector at once. Compiled with -mavx512f -mavx2
// -mfma -mf16c, like gemv_avx512.cpp; see kernel_table.h for what this file may include and define. GCC 12
// reports its own _mm512_undefined_*() placeholders inside the AVX-512 intrinsics as uninitialised (a known
// false positive); nothing in this file reads uninitialised data.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include "devices/cpu/kernels/gemv_packed_rows.h"
#include "devices/cpu/kernels/kernel_table.h"
#include "devices/cpu/kernels/vec_avx2_math.h"
#include "devices/cpu/kernels/vec_avx512.h"

namespace bk {
namespace {

using avx512::kPrefetchBytes;

// out[16 t + q] = r[q] lane t (a 16 x 16 transpose): unpacks pair the rows, 64-bit shuffles make
// groups of four rows, and two rounds of 128-bit lane shuffles gather each element's lanes.
void transpose16(const __m512 r[16], float* out) {
  __m512 a[16], b[16];
#pragma GCC unroll 4
  for (int g = 0; g < 4; ++g) {
    a[4 * g + 0] = _mm512_unpacklo_ps(r[4 * g], r[4 * g + 1]);
    a[4 * g + 1] = _mm512_unpackhi_ps(r[4 * g], r[4 * g + 1]);
    a[4 * g + 2] = _mm512_unpacklo_ps(r[4 * g + 2], r[4 * g + 3]);
    a[4 * g + 3] = _mm512_unpackhi_ps(r[4 * g + 2], r[4 * g + 3]);
  }
#pragma GCC unroll 4
  for (int g = 0; g < 4; ++g) {  // 128-bit lane L of b[4 g + e]: element 4 L + e of rows 4 g..4 g + 3
    b[4 * g + 0] = _mm512_shuffle_ps(a[4 * g], a[4 * g + 2], 0x44);
    b[4 * g + 1] = _mm512_shuffle_ps(a[4 * g], a[4 * g + 2], 0xEE);
    b[4 * g + 2] = _mm512_shuffle_ps(a[4 * g + 1], a[4 * g + 3], 0x44);
    b[4 * g + 3] = _mm512_shuffle_ps(a[4 * g + 1], a[4 * g + 3], 0xEE);
  }
#pragma GCC unroll 4
  for (int e = 0; e < 4; ++e) {  // element 4 L + e of every row: lane L of b[e], b[4 + e], ...
    const __m512 c0 = _mm512_shuffle_f32x4(b[e], b[4 + e], 0x88);
    const __m512 c1 = _mm512_shuffle_f32x4(b[e], b[4 + e], 0xDD);
    const __m512 c2 = _mm512_shuffle_f32x4(b[8 + e], b[12 + e], 0x88);
    const __m512 c3 = _mm512_shuffle_f32x4(b[8 + e], b[12 + e], 0xDD);
    _mm512_storeu_ps(out + 16 * (0 + e), _mm512_shuffle_f32x4(c0, c2, 0x88));
    _mm512_storeu_ps(out + 16 * (4 + e), _mm512_shuffle_f32x4(c1, c3, 0x88));
    _mm512_storeu_ps(out + 16 * (8 + e), _mm512_shuffle_f32x4(c0, c2, 0xDD));
    _mm512_storeu_ps(out + 16 * (12 + e), _mm512_shuffle_f32x4(c1, c3, 0xDD));
  }
}

// Phases 1: 16 X rows to a group, each vector one element of all 16 (transposed 16 x 16).
void pack_single(const float* x, int64_t x_stride, int64_t n, int64_t k, float* xt) {
  const int64_t k16 = k / 16 * 16;
  for (int64_t g = 0; g * kPackedLanes < n; ++g) {
    const float* xg = x + g * kPackedLanes * x_stride;
    const int64_t left = n - g * kPackedLanes;
    const int64_t rows = left < kPackedLanes ? left : kPackedLanes;
    float* dst = xt + g * k * kPackedLanes;
    for (int64_t t = 0; t < k16; t += 16) {
      __m512 r[16];
#pragma GCC unroll 16
      for (int q = 0; q < 16; ++q)
        r[q] = q < rows ? _mm512_loadu_ps(xg + q * x_stride + t) : _mm512_setzero_ps();
      transpose16(r, dst + t * kPackedLanes);
    }
    for (int64_t t = k16; t < k; ++t) {
      for (int64_t q = 0; q < kPackedLanes; ++q)
        dst[t * kPackedLanes + q] = q < rows ? xg[q * x_stride + t] : 0.0f;
    }
  }
}

void pack_columns(const float* x, int64_t x_stride, int64_t n, int64_t k, int phases, float* xt) {
  if (phases == 2) return pack_columns_plain(x, x_stride, n, k, phases, xt);
  pack_single(x, x_stride, n, k, xt);
}

// P consecutive weights of a row repeated across the vector, lane P q + p = w[p]: a broadcast
// load (vbroadcastss, folded into the FMA, or vpbroadcastq; the pair is only 4-byte aligned,
// which _mm_loadl_epi64 allows).
template <int P>
__m512 broadcast_weights(const float* w) {
  static_assert(P == 1 || P == 2);
  if constexpr (P == 1) {
    return _mm512_set1_ps(*w);
  } else {
    return _mm512_castsi512_ps(_mm512_broadcastq_epi64(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(w))));
  }
}

// R W rows times V groups of packed X (phases P) over k in [k0, k1) (k1 - k0 a multiple of 16
// unless k1 = k), added to sums (packed_rows' layout, V x 16 floats a row), which start at zero
// when `first`. Each step loads V X vectors and broadcasts P weights per row
// against them: R * V FMAs per R + V loads, each fed by one weight register and one X
// register, an operand pattern that runs near the FMA peak where the dot tiles' 2 x 8 cannot
// (docs/performance.md, "what bounds the decode tile"). 8 rows a tile: one group's 8
// accumulators cover the FMA latency (12 and 16 rows were slower, more W streams); two or three
// groups' 16 or 24 leave the loads more slack than 4 rows did (a block's 64 rows in whole tiles).
template <int P, int R, int V>
void column_tile(const float* w, int64_t w_stride, const float* xt, int64_t k, int64_t k0, int64_t k1,
                 float* sums, bool first) {
  const int64_t kv = (k + P - 1) / P;  // vectors per group
  __m512 acc[R][V];
  for (int r = 0; r < R; ++r) {
    for (int v = 0; v < V; ++v)
      acc[r][v] = first ? _mm512_setzero_ps() : _mm512_loadu_ps(sums + (r * V + v) * kPackedLanes);
  }
  const int64_t k16 = k0 + (k1 - k0) / 16 * 16;
  for (int64_t kk = k0; kk < k16; kk += 16) {
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {  // past the row's end on the last steps: a prefetch never faults
      _mm_prefetch(reinterpret_cast<const char*>(w + r * w_stride + kk) + kPrefetchBytes, _MM_HINT_T0);
    }
    const float* xk = xt + kk / P * kPackedLanes;
#pragma GCC unroll 16
    for (int t = 0; t < 16 / P; ++t) {
      __m512 xv[V];
      for (int v = 0; v < V; ++v) {
        xv[v] = _mm512_loadu_ps(xk + (v * kv + t) * kPackedLanes);
        __asm__("" : "+v"(xv[v]));  // one load per step, not one folded into each FMA
      }
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
        const __m512 wb = broadcast_weights<P>(w + r * w_stride + kk + P * t);
        for (int v = 0; v < V; ++v) acc[r][v] = _mm512_fmadd_ps(wb, xv[v], acc[r][v]);
      }
    }
  }
  // The tail (k1 = k): whole vectors, the weights past k taken as zero (W's next row, or
  // nothing, lies there; X is zero there, but 0 x inf is not).
  for (int64_t kk = k16; kk < k1; kk += P) {
    for (int r = 0; r < R; ++r) {
      float wt[P] = {};
      for (int64_t p = 0; p < P && kk + p < k1; ++p) wt[p] = w[r * w_stride + kk + p];
      const __m512 wb = broadcast_weights<P>(wt);
      for (int v = 0; v < V; ++v)
        acc[r][v] = _mm512_fmadd_ps(wb, _mm512_loadu_ps(xt + (v * kv + kk / P) * kPackedLanes), acc[r][v]);
    }
  }
  for (int r = 0; r < R; ++r) {
    for (int v = 0; v < V; ++v) _mm512_storeu_ps(sums + (r * V + v) * kPackedLanes, acc[r][v]);
  }
}

// The tier's tile over packed_rows' blocks of W rows and chunks of k. Two groups of packed X
// (32 columns, 512 KiB at k = 4096) do not fit L1, and streaming them from L2 bounded the 4 x 2
// tiles: chunks of 128 k (16 KiB of X) were the fastest of 64, 128 and 256. One group is as fast
// unchunked.
template <int P, int R, int V>
void column_rows(const float* w, int64_t w_stride, int64_t m, const float* xt, int64_t n, int64_t k,
                 int64_t chunk, float* c, int64_t ldc) {
  packed_rows<P, R, V>(w, w_stride, m, n, k, chunk, c, ldc,
                       [&](auto rows, const float* wr, int64_t k0, int64_t k1, float* sums, bool first) {
                         column_tile<P, decltype(rows)::value, V>(wr, w_stride, xt, k, k0, k1, sums, first);
                       });
}

// One group: 8 x 1 tiles over all of k. More: 8 x 2 or 8 x 3 tiles over chunks of 128 k.
// Phases 2 in two groups was no faster than phases 1 at 12-16 columns, and slower
// in four groups (2 x 4 tiles) at 28-32, so op_mul_mat takes phases 1 there.
void gemv_packed_f32(const void* w, size_t w_stride, int64_t m, const float* xt, int64_t n, int64_t k,
                     int phases, float* c, int64_t ldc) {
  const auto* wf = static_cast<const float*>(w);
  const auto ws = static_cast<int64_t>(w_stride / sizeof(float));
  const int64_t rows = kPackedLanes / phases;  // X rows per group
  const int64_t groups = (n + rows - 1) / rows;
  const int64_t whole = k > 0 ? k : 1;  // chunk > 0 so that the loop ends
  if (phases == 2) {
    if (groups == 3) return column_rows<2, 8, 3>(wf, ws, m, xt, n, k, 128, c, ldc);
    if (groups == 2) return column_rows<2, 8, 2>(wf, ws, m, xt, n, k, 128, c, ldc);
    return column_rows<2, 8, 1>(wf, ws, m, xt, n, k, whole, c, ldc);
  }
  if (groups == 2) return column_rows<1, 8, 2>(wf, ws, m, xt, n, k, 128, c, ldc);
  column_rows<1, 8, 1>(wf, ws, m, xt, n, k, whole, c, ldc);
}

}  // namespace

void cpu_fill_gemv_packed_avx512(CpuKernels& t) {
  t.gemv_packed.pack = pack_columns;
  t.gemv_packed.gemv_f32 = gemv_packed_f32;
  t.gemv_packed.max_columns = kPackedMaxColumns;
}

}  // namespace bk
