// SPDX-License-Identifier: MIT
// The avx512 tier's GEMM inner loops (AVX-512 F): an 8 x 48 register tile (24 zmm
// accumulators, three W loads and eight X broadcasts per k), its W packer (8 x 8 transposes,
// converting f16 / bf16 on load) and the f32 peak loop; the dot-product path for few columns is
// gemv_avx512.cpp. The tier keeps the avx2 tier's vector loops (every avx512 CPU has AVX2, FMA
// and F16C). Compiled with -mavx512f -mavx2 -mfma -mf16c; see kernel_table.h for what this file
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

using namespace avx2;    // NOLINT(google-build-using-namespace): the avx2 helpers, valid here too
using namespace avx512;  // NOLINT(google-build-using-namespace)

constexpr int kMr = 8;
constexpr int kNr = 48;

// The register tile: kMr x 48 floats in 3 * kMr zmm accumulators. Each k step loads three W
// vectors (the L1-resident panel) and broadcasts kMr X values, for 3 * kMr FMAs. kMr = 8 keeps
// decode-like widths (8, 16, 32 columns) free of padded rows.
void tile(int64_t kc, const float* xp, const float* wp, float* c, int64_t ldc, bool accumulate) {
  __m512 v0[kMr], v1[kMr], v2[kMr];
#pragma GCC unroll 16
  for (int i = 0; i < kMr; ++i) v0[i] = v1[i] = v2[i] = _mm512_setzero_ps();
  for (int64_t kk = 0; kk < kc; ++kk) {
    _mm_prefetch(reinterpret_cast<const char*>(xp + 16 * kMr), _MM_HINT_T0);
    const __m512 b0 = _mm512_load_ps(wp), b1 = _mm512_load_ps(wp + 16), b2 = _mm512_load_ps(wp + 32);
#pragma GCC unroll 16
    for (int i = 0; i < kMr; ++i) {
      const __m512 a = _mm512_set1_ps(xp[i]);
      v0[i] = _mm512_fmadd_ps(a, b0, v0[i]);
      v1[i] = _mm512_fmadd_ps(a, b1, v1[i]);
      v2[i] = _mm512_fmadd_ps(a, b2, v2[i]);
    }
    xp += kMr;
    wp += kNr;
  }
#pragma GCC unroll 16
  for (int i = 0; i < kMr; ++i) {
    float* row = c + i * ldc;
    if (accumulate) {
      v0[i] = _mm512_add_ps(v0[i], _mm512_loadu_ps(row));
      v1[i] = _mm512_add_ps(v1[i], _mm512_loadu_ps(row + 16));
      v2[i] = _mm512_add_ps(v2[i], _mm512_loadu_ps(row + 32));
    }
    _mm512_storeu_ps(row, v0[i]);
    _mm512_storeu_ps(row + 16, v1[i]);
    _mm512_storeu_ps(row + 32, v2[i]);
  }
}

void pack_x(const float* x, int64_t x_stride, int64_t rows, int64_t k0, int64_t kc, float* dst) {
  for (int64_t kk = 0; kk < kc; ++kk) {
    for (int64_t i = 0; i < kMr; ++i) dst[kk * kMr + i] = i < rows ? x[i * x_stride + k0 + kk] : 0.0f;
  }
}

// Eight consecutive weights of one row as f32 (one: vec_avx512.h).
__m256 w8_f32(const unsigned char* row, int64_t k) {
  return _mm256_loadu_ps(reinterpret_cast<const float*>(row) + k);
}
__m256 w8_f16(const unsigned char* row, int64_t k) {
  return load_f16(reinterpret_cast<const uint16_t*>(row) + k);
}
__m256 w8_bf16(const unsigned char* row, int64_t k) {
  return load_bf16(reinterpret_cast<const uint16_t*>(row) + k);
}
using W8 = __m256 (*)(const unsigned char*, int64_t);
// Transposes the 8 x 8 block v (v[r] = 8 k values of W row r) so that v[q] holds the 8 rows'
// values at k + q.
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

// Full panels in 8 x 8 blocks (rows read contiguously, converted on load); edges one by one.
template <W8 Load8, W1 Load1>
void pack_w(const void* w, size_t w_stride, int64_t rows, int64_t k0, int64_t kc, float* dst) {
  const auto* base = static_cast<const unsigned char*>(w);
  if (rows == kNr) {
    // Group by group along k: eight rows streamed at a time, which the hardware prefetchers
    // follow (all kNr rows at once are more streams than they track).
    const int64_t k8 = kc / 8 * 8;
    for (int group = 0; group < kNr / 8; ++group) {
      for (int64_t kk = 0; kk < k8; kk += 8) {
        __m256 v[8];
        for (int r = 0; r < 8; ++r)
          v[r] = Load8(base + static_cast<size_t>(group * 8 + r) * w_stride, k0 + kk);
        transpose8(v);
        for (int q = 0; q < 8; ++q) _mm256_store_ps(dst + (kk + q) * kNr + group * 8, v[q]);
      }
    }
    int64_t kk = k8;
    for (; kk < kc; ++kk) {
      for (int j = 0; j < kNr; ++j)
        dst[kk * kNr + j] = Load1(base + static_cast<size_t>(j) * w_stride, k0 + kk);
    }
    return;
  }
  for (int64_t j = 0; j < kNr; ++j) {
    const unsigned char* row = base + static_cast<size_t>(j < rows ? j : 0) * w_stride;
    for (int64_t kk = 0; kk < kc; ++kk) dst[kk * kNr + j] = j < rows ? Load1(row, k0 + kk) : 0.0f;
  }
}

// Peak f32 arithmetic: twelve independent zmm FMA chains (two FMA ports x latency 4).
constexpr int kPeakChains = 12;

void peak_f32(int64_t iterations, float* sink) {
  __m512 acc[kPeakChains];
#pragma GCC unroll 12
  for (int i = 0; i < kPeakChains; ++i) acc[i] = _mm512_set1_ps(0.001f * static_cast<float>(i));
  const __m512 m = _mm512_set1_ps(0.999f), c = _mm512_set1_ps(0.001f);
  for (int64_t it = 0; it < iterations; ++it) {
#pragma GCC unroll 12
    for (int i = 0; i < kPeakChains; ++i) acc[i] = _mm512_fmadd_ps(acc[i], m, c);
  }
  __m512 sum = acc[0];
#pragma GCC unroll 12
  for (int i = 1; i < kPeakChains; ++i) sum = _mm512_add_ps(sum, acc[i]);
  *sink = hsum16(sum);
}

}  // namespace

void cpu_fill_matmul_avx512(CpuKernels& t) {
  t.gemm.mr = kMr;
  t.gemm.nr = kNr;
  t.gemm.tile = tile;
  t.gemm.pack_x = pack_x;
  t.gemm.pack_w[static_cast<int>(WeightType::f32)] = pack_w<w8_f32, w1_f32>;
  t.gemm.pack_w[static_cast<int>(WeightType::f16)] = pack_w<w8_f16, w1_f16>;
  t.gemm.pack_w[static_cast<int>(WeightType::bf16)] = pack_w<w8_bf16, w1_bf16>;
  cpu_fill_gemv_avx512(t);
  cpu_fill_gemv_packed_avx512(t);
  t.peak_f32 = PeakFn{kPeakChains * 16.0 * 2.0, peak_f32};
}

}  // namespace bk
