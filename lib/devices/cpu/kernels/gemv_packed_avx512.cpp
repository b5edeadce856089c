// The avx512 tier's packed-column decode path (GemvPackedFns, kernel_table.h): f32 W rows times
// up to 32 X rows that op_mul_mat packed 16 to a vector, each weight broadcast against 16
// columns at once. Compiled with -mavx512f -mavx2 -mfma -mf16c, like gemv_avx512.cpp; see
// kernel_table.h for what this file may include and define.
// GCC 12 reports its own _mm512_undefined_*() placeholders inside the AVX-512 intrinsics as
// uninitialised (a known false positive); nothing in this file reads uninitialised data.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

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

void pack_columns(const float* x, int64_t x_stride, int64_t n, int64_t k, float* xt) {
  const int64_t k16 = k / 16 * 16;
  for (int64_t g = 0; g * kPackedGroupColumns < n; ++g) {
    const float* xg = x + g * kPackedGroupColumns * x_stride;
    const int64_t left = n - g * kPackedGroupColumns;
    const int64_t rows = left < kPackedGroupColumns ? left : kPackedGroupColumns;
    float* dst = xt + g * k * kPackedGroupColumns;
    for (int64_t t = 0; t < k16; t += 16) {
      __m512 r[16];
#pragma GCC unroll 16
      for (int q = 0; q < 16; ++q)
        r[q] = q < rows ? _mm512_loadu_ps(xg + q * x_stride + t) : _mm512_setzero_ps();
      transpose16(r, dst + t * kPackedGroupColumns);
    }
    for (int64_t t = k16; t < k; ++t) {
      for (int64_t q = 0; q < kPackedGroupColumns; ++q)
        dst[t * kPackedGroupColumns + q] = q < rows ? xg[q * x_stride + t] : 0.0f;
    }
  }
}

// R W rows times V groups of 16 packed columns over k in [k0, k1) (k1 - k0 a multiple of 16
// unless k1 = k), added to sums[r * V + v] (lane q: column 16 v + q), which start at zero when
// `first`. Each step loads V X vectors and broadcasts one weight per row against them (an FMA
// memory operand): R * V FMAs per R + V loads, fed by one weight and V X registers each, an
// operand pattern that runs near the FMA peak on this CPU where the dot tiles' 2 x 8 ran at
// ~45% (docs/performance.md). 8 accumulators cover the FMA latency; 12 and 16 rows measured
// slower (more W streams).
template <int R, int V>
void column_tile(const float* w, int64_t w_stride, const float* xt, int64_t k, int64_t k0, int64_t k1,
                 __m512* sums, bool first) {
  __m512 acc[R][V];
  for (int r = 0; r < R; ++r) {
    for (int v = 0; v < V; ++v) acc[r][v] = first ? _mm512_setzero_ps() : sums[r * V + v];
  }
  const int64_t k16 = k0 + (k1 - k0) / 16 * 16;
  for (int64_t kk = k0; kk < k16; kk += 16) {
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {  // past the row's end on the last steps: a prefetch never faults
      _mm_prefetch(reinterpret_cast<const char*>(w + r * w_stride + kk) + kPrefetchBytes, _MM_HINT_T0);
    }
    const float* xk = xt + kk * kPackedGroupColumns;
#pragma GCC unroll 16
    for (int t = 0; t < 16; ++t) {
      __m512 xv[V];
      for (int v = 0; v < V; ++v) {
        xv[v] = _mm512_loadu_ps(xk + (v * k + t) * kPackedGroupColumns);
        __asm__("" : "+v"(xv[v]));  // one load per step, not one folded into each FMA
      }
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
        const __m512 wb = _mm512_set1_ps(w[r * w_stride + kk + t]);
        for (int v = 0; v < V; ++v) acc[r][v] = _mm512_fmadd_ps(wb, xv[v], acc[r][v]);
      }
    }
  }
  for (int64_t kk = k16; kk < k1; ++kk) {
    for (int r = 0; r < R; ++r) {
      const __m512 wb = _mm512_set1_ps(w[r * w_stride + kk]);
      for (int v = 0; v < V; ++v)
        acc[r][v] = _mm512_fmadd_ps(wb, _mm512_loadu_ps(xt + (v * k + kk) * kPackedGroupColumns), acc[r][v]);
    }
  }
  for (int r = 0; r < R; ++r) {
    for (int v = 0; v < V; ++v) sums[r * V + v] = acc[r][v];
  }
}

// Rows of W per block: the block's sums (kBlockRows x V vectors, at most 8 KiB) stay in L1
// across the chunks of k.
constexpr int64_t kBlockRows = 64;

// Blocks of kBlockRows W rows, each in tiles of R rows (the last few one by one) over chunks of
// `chunk` elements of k, then its lanes written to C. Two groups of packed X (32 columns, 512
// KiB at k = 4096) do not fit L1, and streaming them from L2 bounded the 4 x 2 tiles: chunks of
// 128 k (16 KiB of X) measured 1.2x there, 64 and 256 less. One group is as fast unchunked.
template <int R, int V>
void column_rows(const float* w, int64_t w_stride, int64_t m, const float* xt, int64_t n, int64_t k,
                 int64_t chunk, float* c, int64_t ldc) {
  alignas(64) __m512 sums[kBlockRows * V];
  for (int64_t j0 = 0; j0 < m; j0 += kBlockRows) {
    const int64_t rows = m - j0 < kBlockRows ? m - j0 : kBlockRows;
    const float* wj = w + j0 * w_stride;
    for (int64_t k0 = 0; k0 == 0 || k0 < k; k0 += chunk) {  // once at k = 0, which zeroes the sums
      const int64_t k1 = k - k0 < chunk ? k : k0 + chunk;
      int64_t j = 0;
      for (; j + R <= rows; j += R)
        column_tile<R, V>(wj + j * w_stride, w_stride, xt, k, k0, k1, sums + j * V, k0 == 0);
      for (; j < rows; ++j)
        column_tile<1, V>(wj + j * w_stride, w_stride, xt, k, k0, k1, sums + j * V, k0 == 0);
    }
    const auto* lanes = reinterpret_cast<const float*>(sums);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t q = 0; q < n; ++q) c[q * ldc + j0 + r] = lanes[r * V * kPackedGroupColumns + q];
    }
  }
}

// 8 x 1 tiles over all of k up to 16 columns, 4 x 2 in chunks of 128 past them: 8 accumulators
// either way.
void gemv_packed_f32(const void* w, size_t w_stride, int64_t m, const float* xt, int64_t n, int64_t k,
                     float* c, int64_t ldc) {
  const auto* wf = static_cast<const float*>(w);
  const auto ws = static_cast<int64_t>(w_stride / sizeof(float));
  if (n > kPackedGroupColumns) {
    column_rows<4, 2>(wf, ws, m, xt, n, k, 128, c, ldc);
  } else {
    column_rows<8, 1>(wf, ws, m, xt, n, k, k > 0 ? k : 1, c, ldc);  // chunk > 0 so that the loop ends
  }
}

}  // namespace

void cpu_fill_gemv_packed_avx512(CpuKernels& t) {
  t.gemv_packed.pack = pack_columns;
  t.gemv_packed.gemv_f32 = gemv_packed_f32;
}

}  // namespace bk
