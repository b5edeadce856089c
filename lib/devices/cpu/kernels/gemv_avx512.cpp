// SPDX-License-Identifier: MIT
// The avx512 tier's dot-product path for few columns (decode-like mul_mat, up to 32 X rows): W
// streamed from memory once, plain full-row dot products for 1-4 columns and, from 5 on, 2 W
// rows x 8 X rows register tiles over blocks of W rows and L1-sized chunks of k. (f32 weights
// at 5-32 columns take gemv_packed_avx512.cpp instead.) Compiled with
// -mavx512f -mavx2 -mfma -mf16c, like matmul_avx512.cpp; see kernel_table.h for what this file
// may include and define.
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

using namespace avx512;  // NOLINT(google-build-using-namespace): the tier's helpers

// Sixteen consecutive weights of one row as f32.
__m512 w16_f32(const unsigned char* row, int64_t k) {
  return _mm512_loadu_ps(reinterpret_cast<const float*>(row) + k);
}
__m512 w16_f16(const unsigned char* row, int64_t k) {
  return _mm512_cvtph_ps(
      _mm256_loadu_si256(reinterpret_cast<const __m256i*>(reinterpret_cast<const uint16_t*>(row) + k)));
}
__m512 w16_bf16(const unsigned char* row, int64_t k) {
  const __m256i h =
      _mm256_loadu_si256(reinterpret_cast<const __m256i*>(reinterpret_cast<const uint16_t*>(row) + k));
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

using W16 = __m512 (*)(const unsigned char*, int64_t);
// Bytes per weight of the row Load16 reads.
template <W16 Load16>
constexpr int64_t kWeightBytes = Load16 == w16_f32 ? 4 : 2;

// R W rows times C X rows over k, written to c[i * ldc + j]: R * C zmm accumulators, each W
// vector used C times and each X vector R times.
template <int R, int C, W16 Load16, W1 Load1>
void dot_block(const unsigned char* w, size_t w_stride, const float* x, int64_t x_stride, int64_t k, float* c,
               int64_t ldc) {
  __m512 acc[R][C];
  for (int r = 0; r < R; ++r) {
    for (int q = 0; q < C; ++q) acc[r][q] = _mm512_setzero_ps();
  }
  int64_t kk = 0;
  for (; kk + 16 <= k; kk += 16) {
    __m512 xv[C];
    for (int q = 0; q < C; ++q) xv[q] = _mm512_loadu_ps(x + q * x_stride + kk);
    for (int r = 0; r < R; ++r) {
      const __m512 wv = Load16(w + static_cast<size_t>(r) * w_stride, kk);
      for (int q = 0; q < C; ++q) acc[r][q] = _mm512_fmadd_ps(wv, xv[q], acc[r][q]);
    }
  }
  for (int r = 0; r < R; ++r) {
    const unsigned char* row = w + static_cast<size_t>(r) * w_stride;
    for (int q = 0; q < C; ++q) {
      const float* xr = x + q * x_stride;
      float sum = hsum16(acc[r][q]);
      for (int64_t t = kk; t < k; ++t) sum += Load1(row, t) * xr[t];
      c[q * ldc + r] = sum;
    }
  }
}

template <int R, int C, W16 Load16, W1 Load1>
void dot_rows(const unsigned char* w, size_t w_stride, int64_t m, const float* x, int64_t x_stride, int64_t k,
              float* c, int64_t ldc) {
  int64_t j = 0;
  for (; j + R <= m; j += R) {
    dot_block<R, C, Load16, Load1>(w + static_cast<size_t>(j) * w_stride, w_stride, x, x_stride, k, c + j,
                                   ldc);
  }
  for (; j < m; ++j) {
    dot_block<1, C, Load16, Load1>(w + static_cast<size_t>(j) * w_stride, w_stride, x, x_stride, k, c + j,
                                   ldc);
  }
}

// The lane sums of sixteen accumulators at once (a transpose-and-add tree, 45 shuffles and adds
// instead of sixteen separate horizontal sums): sum[i] = sum of a[i]'s lanes.
void reduce16(const __m512 a[16], float sum[16]) {
  __m512 h[8], q[4], p[2];
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) {  // 256-bit halves: h[i] = a[2i] partials | a[2i+1] partials
    h[i] = _mm512_add_ps(_mm512_shuffle_f32x4(a[2 * i], a[2 * i + 1], 0x44),
                         _mm512_shuffle_f32x4(a[2 * i], a[2 * i + 1], 0xEE));
  }
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {  // 128-bit lane t of q[i]: four partials of a[4i+t]
    q[i] = _mm512_add_ps(_mm512_shuffle_f32x4(h[2 * i], h[2 * i + 1], 0x88),
                         _mm512_shuffle_f32x4(h[2 * i], h[2 * i + 1], 0xDD));
  }
#pragma GCC unroll 2
  for (int i = 0; i < 2; ++i) {  // lane t of p[i]: two partials of a[8i+t], two of a[8i+4+t]
    p[i] = _mm512_add_ps(_mm512_shuffle_ps(q[2 * i], q[2 * i + 1], 0x44),
                         _mm512_shuffle_ps(q[2 * i], q[2 * i + 1], 0xEE));
  }
  // Lane t: the sums of a[t], a[4+t], a[8+t], a[12+t], so element 4 t + e is a[4 e + t]'s.
  alignas(64) float f[16];
  _mm512_store_ps(f, _mm512_add_ps(_mm512_shuffle_ps(p[0], p[1], 0x88), _mm512_shuffle_ps(p[0], p[1], 0xDD)));
#pragma GCC unroll 16
  for (int i = 0; i < 16; ++i) sum[i] = f[4 * (i % 4) + i / 4];
}

// The running sums of one tile across the chunks of k: its 16 accumulators, kept in memory
// between chunks and reduced once at the end (a reduction per chunk, 45 shuffles and adds and
// 16 read-modify-writes of C, cost as much as the arithmetic at 8 columns).
struct alignas(64) TileSums {
  __m512 acc[16];
};

// One register tile of the blocked dot-product path: R W rows times C X rows (R * C <= 16
// accumulators) over k in [k0, k1) (multiples of 16). The sums start from `sums` unless
// `first`, and go back there unless `last`, when they are written to c[q * ldc + r]. Per k step
// C + R loads feed R * C FMAs; the X vectors come from L1 (the caller keeps a chunk of k small
// enough), W from wherever it streams.
template <int R, int C, W16 Load16>
void dot_tile(const unsigned char* w, size_t w_stride, const float* x, int64_t x_stride, int64_t k0,
              int64_t k1, TileSums& sums, bool first, bool last, float* c, int64_t ldc) {
  static_assert(R * C <= 16);
  __m512 acc[16];
#pragma GCC unroll 16
  for (int i = 0; i < 16; ++i) acc[i] = first ? _mm512_setzero_ps() : sums.acc[i];
  for (int64_t kk = k0; kk < k1; kk += 16) {
    __m512 xv[C];
#pragma GCC unroll 8
    for (int q = 0; q < C; ++q) {
      xv[q] = _mm512_loadu_ps(x + q * x_stride + kk);
      // Pins the vector to a register: GCC would otherwise fold the load into each FMA, R loads
      // of it per step, and the load ports (two zmm loads a cycle) would bound the loop.
      __asm__("" : "+v"(xv[q]));
    }
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const unsigned char* row = w + static_cast<size_t>(r) * w_stride;
      // Past the row's end on the last steps: a prefetch never faults.
      _mm_prefetch(reinterpret_cast<const char*>(row + kWeightBytes<Load16> * kk + kPrefetchBytes),
                   _MM_HINT_T0);
      const __m512 wv = Load16(row, kk);
#pragma GCC unroll 8
      for (int q = 0; q < C; ++q) acc[r * C + q] = _mm512_fmadd_ps(wv, xv[q], acc[r * C + q]);
    }
  }
  if (!last) {
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) sums.acc[i] = acc[i];
    return;
  }
  float sum[16];
  reduce16(acc, sum);
  for (int r = 0; r < R; ++r) {
    for (int q = 0; q < C; ++q) c[q * ldc + r] = sum[r * C + q];
  }
}

// Tiles of R rows over `rows` W rows (the rest one by one), one group of C X rows; the tile
// starting at row j keeps its sums in sums[j].
template <int R, int C, W16 Load16>
void dot_group(const unsigned char* w, size_t w_stride, int64_t rows, const float* x, int64_t x_stride,
               int64_t k0, int64_t k1, TileSums* sums, bool first, bool last, float* c, int64_t ldc) {
  int64_t j = 0;
  for (; j + R <= rows; j += R) {
    dot_tile<R, C, Load16>(w + static_cast<size_t>(j) * w_stride, w_stride, x, x_stride, k0, k1, sums[j],
                           first, last, c + j, ldc);
  }
  for (; j < rows; ++j) {
    dot_tile<1, C, Load16>(w + static_cast<size_t>(j) * w_stride, w_stride, x, x_stride, k0, k1, sums[j],
                           first, last, c + j, ldc);
  }
}

// The tile shape for a group of cols <= kGroupColumns X rows: as many W rows as keep the
// accumulators at 16 (at most 8, which the hardware prefetchers still follow as streams).
constexpr int64_t kGroupColumns = 8;

template <W16 Load16>
void dot_columns(const unsigned char* w, size_t w_stride, int64_t rows, const float* x, int64_t x_stride,
                 int64_t cols, int64_t k0, int64_t k1, TileSums* sums, bool first, bool last, float* c,
                 int64_t ldc) {
  switch (cols) {
    case 8:
      return dot_group<2, 8, Load16>(w, w_stride, rows, x, x_stride, k0, k1, sums, first, last, c, ldc);
    case 7:
      return dot_group<2, 7, Load16>(w, w_stride, rows, x, x_stride, k0, k1, sums, first, last, c, ldc);
    case 6:
      return dot_group<2, 6, Load16>(w, w_stride, rows, x, x_stride, k0, k1, sums, first, last, c, ldc);
    case 5:
      return dot_group<2, 5, Load16>(w, w_stride, rows, x, x_stride, k0, k1, sums, first, last, c, ldc);
    case 4:
      return dot_group<4, 4, Load16>(w, w_stride, rows, x, x_stride, k0, k1, sums, first, last, c, ldc);
    case 3:
      return dot_group<4, 3, Load16>(w, w_stride, rows, x, x_stride, k0, k1, sums, first, last, c, ldc);
    case 2:
      return dot_group<8, 2, Load16>(w, w_stride, rows, x, x_stride, k0, k1, sums, first, last, c, ldc);
    default:
      return dot_group<8, 1, Load16>(w, w_stride, rows, x, x_stride, k0, k1, sums, first, last, c, ldc);
  }
}

// Rows of W per block and elements of k per chunk: a block's chunk of W (kBlockRows x kChunk)
// is read from memory by the first group of columns and from L2 by the others, and a group's
// chunk of X (8 x kChunk floats, 16 KiB) stays in L1 while every tile of the block passes over it.
// 16 rows (256 KiB of f32 W per block) beat 8 at 16-32 columns, where the later groups'
// arithmetic has to hide the next rows' stream, and tied at 8 columns.
constexpr int64_t kBlockRows = 16;
constexpr int64_t kChunk = 512;
// Groups of columns whose sums gemv keeps at once (op_mul_mat.cpp calls it with at most 32
// columns; more are done 32 at a time).
constexpr int64_t kMaxGroups = 4;

// The k elements past the last multiple of 16, one by one, for rows [0, rows) of a block (which
// also zeroes C where k < 16 left it unwritten).
template <W1 Load1>
void dot_tail(const unsigned char* w, size_t w_stride, int64_t rows, const float* x, int64_t x_stride,
              int64_t n, int64_t k16, int64_t k, float* c, int64_t ldc) {
  for (int64_t i = 0; i < n; ++i) {
    const float* xi = x + i * x_stride;
    for (int64_t j = 0; j < rows; ++j) {
      const unsigned char* row = w + static_cast<size_t>(j) * w_stride;
      float sum = k16 > 0 ? c[i * ldc + j] : 0.0f;
      for (int64_t t = k16; t < k; ++t) sum += Load1(row, t) * xi[t];
      c[i * ldc + j] = sum;
    }
  }
}

// Up to this many columns the plain dot products (full rows of k, 8 x 1 or 4 x n tiles, no
// chunks and so no partial sums to add back) are as fast as the blocked tiles: both stream W at
// the memory bandwidth there.
constexpr int64_t kPlainMaxColumns = 4;

// W is streamed from memory once: each block of rows serves every group of X rows, chunk by
// chunk of k, before the next block (more than kPlainMaxColumns columns).
template <W16 Load16, W1 Load1>
void gemv(const void* w, size_t w_stride, int64_t m, const float* x, int64_t x_stride, int64_t n, int64_t k,
          float* c, int64_t ldc) {
  const auto* base = static_cast<const unsigned char*>(w);
  if (n == 1) {
    dot_rows<8, 1, Load16, Load1>(base, w_stride, m, x, x_stride, k, c, ldc);
    return;
  }
  if (n <= kPlainMaxColumns) {
    if (n == 4) dot_rows<4, 4, Load16, Load1>(base, w_stride, m, x, x_stride, k, c, ldc);
    if (n == 3) dot_rows<4, 3, Load16, Load1>(base, w_stride, m, x, x_stride, k, c, ldc);
    if (n == 2) dot_rows<4, 2, Load16, Load1>(base, w_stride, m, x, x_stride, k, c, ldc);
    return;
  }
  if (n > kMaxGroups * kGroupColumns) {  // the sums below are for at most 32 columns at once
    for (int64_t i0 = 0; i0 < n; i0 += kMaxGroups * kGroupColumns) {
      const int64_t cols = n - i0 < kMaxGroups * kGroupColumns ? n - i0 : kMaxGroups * kGroupColumns;
      gemv<Load16, Load1>(w, w_stride, m, x + i0 * x_stride, x_stride, cols, k, c + i0 * ldc, ldc);
    }
    return;
  }
  const int64_t k16 = k / 16 * 16;
  TileSums sums[kMaxGroups][kBlockRows];  // 64 KiB of stack; a group's tiles touch a quarter
  for (int64_t j0 = 0; j0 < m; j0 += kBlockRows) {
    const int64_t rows = m - j0 < kBlockRows ? m - j0 : kBlockRows;
    const unsigned char* wj = base + static_cast<size_t>(j0) * w_stride;
    for (int64_t k0 = 0; k0 < k16; k0 += kChunk) {
      const int64_t k1 = k16 - k0 < kChunk ? k16 : k0 + kChunk;
      for (int64_t i0 = 0; i0 < n; i0 += kGroupColumns) {
        const int64_t cols = n - i0 < kGroupColumns ? n - i0 : kGroupColumns;
        dot_columns<Load16>(wj, w_stride, rows, x + i0 * x_stride, x_stride, cols, k0, k1,
                            sums[i0 / kGroupColumns], k0 == 0, k1 == k16, c + i0 * ldc + j0, ldc);
      }
    }
    if (k16 < k || k16 == 0) dot_tail<Load1>(wj, w_stride, rows, x, x_stride, n, k16, k, c + j0, ldc);
  }
}

}  // namespace

void cpu_fill_gemv_avx512(CpuKernels& t) {
  t.gemv[static_cast<int>(WeightType::f32)] = gemv<w16_f32, w1_f32>;
  t.gemv[static_cast<int>(WeightType::f16)] = gemv<w16_f16, w1_f16>;
  t.gemv[static_cast<int>(WeightType::bf16)] = gemv<w16_bf16, w1_bf16>;
}

}  // namespace bk
