// SPDX-License-Identifier: MIT
// The avx2 tier's matmul inner loops (AVX2 + FMA + F16C): a 6 x 16 register tile (12 ymm
// accumulators, two W loads and one X broadcast per k), packers that transpose 8 x 8 blocks while
// converting f16 / bf16 weights, and the dot-product (gemv) path. Compiled with -mavx2 -mfma
// -mf16c; see kernel_table.h for what this file may include and define.
#include <immintrin.h>

#include <cstring>

#include "devices/cpu/kernels/kernel_table.h"
#include "devices/cpu/kernels/vec_avx2_math.h"

namespace bk {
namespace {

using namespace avx2;  // NOLINT(google-build-using-namespace): this tier's own helpers

constexpr int kMr = 6;
constexpr int kNr = 16;

#define BK_ROW(i)                                   \
  {                                                 \
    const __m256 a = _mm256_broadcast_ss(xp + (i)); \
    c##i##0 = _mm256_fmadd_ps(a, b0, c##i##0);      \
    c##i##1 = _mm256_fmadd_ps(a, b1, c##i##1);      \
  }

#define BK_STORE(i)                                               \
  {                                                               \
    float* row = c + (i)*ldc;                                     \
    if (accumulate) {                                             \
      c##i##0 = _mm256_add_ps(c##i##0, _mm256_loadu_ps(row));     \
      c##i##1 = _mm256_add_ps(c##i##1, _mm256_loadu_ps(row + 8)); \
    }                                                             \
    _mm256_storeu_ps(row, c##i##0);                               \
    _mm256_storeu_ps(row + 8, c##i##1);                           \
  }

void tile(int64_t kc, const float* xp, const float* wp, float* c, int64_t ldc, bool accumulate) {
  __m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps(), c10 = _mm256_setzero_ps(),
         c11 = _mm256_setzero_ps(), c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps(),
         c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps(), c40 = _mm256_setzero_ps(),
         c41 = _mm256_setzero_ps(), c50 = _mm256_setzero_ps(), c51 = _mm256_setzero_ps();
  for (int64_t kk = 0; kk < kc; ++kk) {
    _mm_prefetch(reinterpret_cast<const char*>(wp + 8 * kNr), _MM_HINT_T0);
    const __m256 b0 = _mm256_load_ps(wp), b1 = _mm256_load_ps(wp + 8);
    BK_ROW(0) BK_ROW(1) BK_ROW(2) BK_ROW(3) BK_ROW(4) BK_ROW(5) xp += kMr;
    wp += kNr;
  }
  BK_STORE(0) BK_STORE(1) BK_STORE(2) BK_STORE(3) BK_STORE(4) BK_STORE(5)
}

#undef BK_ROW
#undef BK_STORE

void pack_x(const float* x, int64_t x_stride, int64_t rows, int64_t k0, int64_t kc, float* dst) {
  const float* r[kMr];
  for (int64_t i = 0; i < kMr; ++i) r[i] = x + (i < rows ? i : 0) * x_stride + k0;
  if (rows == kMr) {
    for (int64_t kk = 0; kk < kc; ++kk) {
      for (int i = 0; i < kMr; ++i) dst[kk * kMr + i] = r[i][kk];
    }
    return;
  }
  for (int64_t kk = 0; kk < kc; ++kk) {
    for (int64_t i = 0; i < kMr; ++i) dst[kk * kMr + i] = i < rows ? r[i][kk] : 0.0f;
  }
}

// Eight consecutive weights of one row as f32, and one weight as f32.
__m256 w8_f32(const unsigned char* row, int64_t k) {
  return _mm256_loadu_ps(reinterpret_cast<const float*>(row) + k);
}
__m256 w8_f16(const unsigned char* row, int64_t k) {
  return load_f16(reinterpret_cast<const uint16_t*>(row) + k);
}
__m256 w8_bf16(const unsigned char* row, int64_t k) {
  return load_bf16(reinterpret_cast<const uint16_t*>(row) + k);
}
float w1_f32(const unsigned char* row, int64_t k) { return reinterpret_cast<const float*>(row)[k]; }
float w1_f16(const unsigned char* row, int64_t k) {
  return f16_scalar(reinterpret_cast<const uint16_t*>(row)[k]);
}
float w1_bf16(const unsigned char* row, int64_t k) {
  return bf16_scalar(reinterpret_cast<const uint16_t*>(row)[k]);
}

using W8 = __m256 (*)(const unsigned char*, int64_t);
using W1 = float (*)(const unsigned char*, int64_t);

// Transposes the 8 x 8 block v (row r = W row r, 8 k values) into columns: out[kk] holds the 8
// rows' values at k + kk.
void transpose8(__m256 v[8]) {
  const __m256 t0 = _mm256_unpacklo_ps(v[0], v[1]), t1 = _mm256_unpackhi_ps(v[0], v[1]);
  const __m256 t2 = _mm256_unpacklo_ps(v[2], v[3]), t3 = _mm256_unpackhi_ps(v[2], v[3]);
  const __m256 t4 = _mm256_unpacklo_ps(v[4], v[5]), t5 = _mm256_unpackhi_ps(v[4], v[5]);
  const __m256 t6 = _mm256_unpacklo_ps(v[6], v[7]), t7 = _mm256_unpackhi_ps(v[6], v[7]);
  const __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  const __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  const __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  const __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  v[0] = _mm256_permute2f128_ps(s0, s4, 0x20);
  v[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
  v[2] = _mm256_permute2f128_ps(s2, s6, 0x20);
  v[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
  v[4] = _mm256_permute2f128_ps(s0, s4, 0x31);
  v[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
  v[6] = _mm256_permute2f128_ps(s2, s6, 0x31);
  v[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}

template <W8 Load8, W1 Load1>
void pack_w(const void* w, size_t w_stride, int64_t rows, int64_t k0, int64_t kc, float* dst) {
  const auto* base = static_cast<const unsigned char*>(w);
  if (rows == kNr) {
    int64_t kk = 0;
    for (; kk + 8 <= kc; kk += 8) {
      for (int half = 0; half < 2; ++half) {
        __m256 v[8];
        for (int r = 0; r < 8; ++r)
          v[r] = Load8(base + static_cast<size_t>(half * 8 + r) * w_stride, k0 + kk);
        transpose8(v);
        for (int q = 0; q < 8; ++q) _mm256_store_ps(dst + (kk + q) * kNr + half * 8, v[q]);
      }
    }
    for (; kk < kc; ++kk) {
      for (int j = 0; j < kNr; ++j)
        dst[kk * kNr + j] = Load1(base + static_cast<size_t>(j) * w_stride, k0 + kk);
    }
    return;
  }
  for (int64_t j = 0; j < kNr; ++j) {
    const unsigned char* row = base + static_cast<size_t>(j) * w_stride;
    for (int64_t kk = 0; kk < kc; ++kk) dst[kk * kNr + j] = j < rows ? Load1(row, k0 + kk) : 0.0f;
  }
}

// R W rows times C X rows over k in [k0, k1), written to c[i * ldc + j], or added to it when
// `accumulate`. Elements past the last multiple of 8 go one by one.
template <int R, int C, W8 Load8, W1 Load1>
void dot_block(const unsigned char* w, size_t w_stride, const float* x, int64_t x_stride, int64_t k0,
               int64_t k1, float* c, int64_t ldc, bool accumulate) {
  __m256 acc[R][C];
  for (int r = 0; r < R; ++r) {
    for (int q = 0; q < C; ++q) acc[r][q] = _mm256_setzero_ps();
  }
  int64_t kk = k0;
  for (; kk + 8 <= k1; kk += 8) {
    __m256 xv[C];
    for (int q = 0; q < C; ++q) xv[q] = _mm256_loadu_ps(x + q * x_stride + kk);
    for (int r = 0; r < R; ++r) {
      const __m256 wv = Load8(w + static_cast<size_t>(r) * w_stride, kk);
      for (int q = 0; q < C; ++q) acc[r][q] = _mm256_fmadd_ps(wv, xv[q], acc[r][q]);
    }
  }
  for (int r = 0; r < R; ++r) {
    const unsigned char* row = w + static_cast<size_t>(r) * w_stride;
    for (int q = 0; q < C; ++q) {
      const float* xr = x + q * x_stride;
      float sum = hsum(acc[r][q]);
      for (int64_t t = kk; t < k1; ++t) sum += Load1(row, t) * xr[t];
      c[q * ldc + r] = accumulate ? c[q * ldc + r] + sum : sum;
    }
  }
}

// Rows of W in blocks of R for one group of C X rows, over k in [k0, k1).
template <int R, int C, W8 Load8, W1 Load1>
void dot_rows(const unsigned char* w, size_t w_stride, int64_t m, const float* x, int64_t x_stride,
              int64_t k0, int64_t k1, float* c, int64_t ldc, bool accumulate) {
  int64_t j = 0;
  for (; j + R <= m; j += R) {
    dot_block<R, C, Load8, Load1>(w + static_cast<size_t>(j) * w_stride, w_stride, x, x_stride, k0, k1, c + j,
                                  ldc, accumulate);
  }
  for (; j < m; ++j)
    dot_block<1, C, Load8, Load1>(w + static_cast<size_t>(j) * w_stride, w_stride, x, x_stride, k0, k1, c + j,
                                  ldc, accumulate);
}

// Elements of k per pass over a block of W rows when more than one group of X rows reads it:
// the block's chunk (64 rows x 4 KiB) and X's (at most 128 KiB) then stay in a 512 KiB L2
// between the groups. Over whole rows the block outgrew L2 from k = 2048 on (k = 8192 where L2
// is 2 MiB) and each group read it from memory again (docs/performance.md, 2026-12-07).
constexpr int64_t kDotChunk = 1024;

template <W8 Load8, W1 Load1>
void gemv(const void* w, size_t w_stride, int64_t m, const float* x, int64_t x_stride, int64_t n, int64_t k,
          float* c, int64_t ldc) {
  const auto* base = static_cast<const unsigned char*>(w);
  // W is streamed once per group of X rows; blocks of 64 W rows, chunk by chunk of k, keep it
  // in L2 across the groups, so memory sees each weight once.
  constexpr int64_t kRowsPerPass = 64;
  const int64_t chunk = n > 3 && k > kDotChunk ? kDotChunk : (k > 0 ? k : 1);
  for (int64_t j0 = 0; j0 < m; j0 += kRowsPerPass) {
    const int64_t rows = m - j0 < kRowsPerPass ? m - j0 : kRowsPerPass;
    const unsigned char* wj = base + static_cast<size_t>(j0) * w_stride;
    for (int64_t k0 = 0; k0 == 0 || k0 < k; k0 += chunk) {
      const int64_t k1 = k - k0 <= chunk ? k : k0 + chunk;
      const bool acc = k0 > 0;
      int64_t i = 0;
      for (; i + 3 <= n; i += 3)
        dot_rows<4, 3, Load8, Load1>(wj, w_stride, rows, x + i * x_stride, x_stride, k0, k1, c + i * ldc + j0,
                                     ldc, acc);
      if (n - i == 2)
        dot_rows<4, 2, Load8, Load1>(wj, w_stride, rows, x + i * x_stride, x_stride, k0, k1, c + i * ldc + j0,
                                     ldc, acc);
      if (n - i == 1)
        dot_rows<8, 1, Load8, Load1>(wj, w_stride, rows, x + i * x_stride, x_stride, k0, k1, c + i * ldc + j0,
                                     ldc, acc);
    }
  }
}

// Peak f32 arithmetic: twelve independent ymm FMA chains (two FMA ports x latency 4-5).
constexpr int kPeakChains = 12;

void peak_f32(int64_t iterations, float* sink) {
  __m256 acc[kPeakChains];
#pragma GCC unroll 12
  for (int i = 0; i < kPeakChains; ++i) acc[i] = _mm256_set1_ps(0.001f * static_cast<float>(i));
  const __m256 m = _mm256_set1_ps(0.999f), c = _mm256_set1_ps(0.001f);
  for (int64_t it = 0; it < iterations; ++it) {
#pragma GCC unroll 12
    for (int i = 0; i < kPeakChains; ++i) acc[i] = _mm256_fmadd_ps(acc[i], m, c);
  }
  __m256 sum = acc[0];
#pragma GCC unroll 12
  for (int i = 1; i < kPeakChains; ++i) sum = _mm256_add_ps(sum, acc[i]);
  alignas(32) float out[8];
  _mm256_store_ps(out, sum);
  *sink = out[0];
}

}  // namespace

void cpu_fill_matmul_avx2(CpuKernels& t) {
  t.gemm.mr = kMr;
  t.gemm.nr = kNr;
  t.gemm.tile = tile;
  t.gemm.pack_x = pack_x;
  t.gemm.pack_w[static_cast<int>(WeightType::f32)] = pack_w<w8_f32, w1_f32>;
  t.gemm.pack_w[static_cast<int>(WeightType::f16)] = pack_w<w8_f16, w1_f16>;
  t.gemm.pack_w[static_cast<int>(WeightType::bf16)] = pack_w<w8_bf16, w1_bf16>;
  t.gemv[static_cast<int>(WeightType::f32)] = gemv<w8_f32, w1_f32>;
  t.gemv[static_cast<int>(WeightType::f16)] = gemv<w8_f16, w1_f16>;
  t.gemv[static_cast<int>(WeightType::bf16)] = gemv<w8_bf16, w1_bf16>;
  cpu_fill_gemv_packed_avx2(t);
  t.peak_f32 = PeakFn{kPeakChains * 8.0 * 2.0, peak_f32};
}

}  // namespace bk
