// SPDX-License-Identifier: MIT
// The portable tier's matmul inner loops: a 4 x 8 register tile, the packers and the
// dot-product (gemv) path, in plain C++. See kernel_table.h for the packed layouts.
#include <cstring>

#include "bk/dtype.h"
#include "devices/cpu/kernels/kernel_table.h"

namespace bk {
namespace {

constexpr int kMr = 4;
constexpr int kNr = 8;

void tile(int64_t kc, const float* xp, const float* wp, float* c, int64_t ldc, bool accumulate) {
  float acc[kMr][kNr] = {};
  for (int64_t kk = 0; kk < kc; ++kk) {
    const float* x = xp + kk * kMr;
    const float* w = wp + kk * kNr;
    for (int i = 0; i < kMr; ++i) {
      for (int j = 0; j < kNr; ++j) acc[i][j] += x[i] * w[j];
    }
  }
  for (int i = 0; i < kMr; ++i) {
    float* row = c + i * ldc;
    for (int j = 0; j < kNr; ++j) row[j] = accumulate ? row[j] + acc[i][j] : acc[i][j];
  }
}

void pack_x(const float* x, int64_t x_stride, int64_t rows, int64_t k0, int64_t kc, float* dst) {
  for (int64_t kk = 0; kk < kc; ++kk) {
    for (int64_t i = 0; i < kMr; ++i) dst[kk * kMr + i] = i < rows ? x[i * x_stride + k0 + kk] : 0.0f;
  }
}

float load_f32(const void* row, int64_t k) { return static_cast<const float*>(row)[k]; }
float load_f16(const void* row, int64_t k) { return f16_to_f32(static_cast<const uint16_t*>(row)[k]); }
float load_bf16(const void* row, int64_t k) { return bf16_to_f32(static_cast<const uint16_t*>(row)[k]); }

template <float (*Load)(const void*, int64_t)>
void pack_w(const void* w, size_t w_stride, int64_t rows, int64_t k0, int64_t kc, float* dst) {
  const auto* base = static_cast<const unsigned char*>(w);
  for (int64_t j = 0; j < kNr; ++j) {
    const void* row = base + static_cast<size_t>(j) * w_stride;
    for (int64_t kk = 0; kk < kc; ++kk) dst[kk * kNr + j] = j < rows ? Load(row, k0 + kk) : 0.0f;
  }
}

template <float (*Load)(const void*, int64_t)>
void gemv(const void* w, size_t w_stride, int64_t m, const float* x, int64_t x_stride, int64_t n, int64_t k,
          float* c, int64_t ldc) {
  const auto* base = static_cast<const unsigned char*>(w);
  for (int64_t j = 0; j < m; ++j) {
    const void* row = base + static_cast<size_t>(j) * w_stride;
    for (int64_t i = 0; i < n; ++i) {
      const float* xr = x + i * x_stride;
      float sum = 0.0f;
      for (int64_t kk = 0; kk < k; ++kk) sum += Load(row, kk) * xr[kk];
      c[i * ldc + j] = sum;
    }
  }
}

// Peak f32 arithmetic: 32 independent multiply-add chains (the compiler may vectorise them).
constexpr int kPeakChains = 32;

void peak_f32(int64_t iterations, float* sink) {
  float acc[kPeakChains];
  for (int i = 0; i < kPeakChains; ++i) acc[i] = 0.001f * static_cast<float>(i);
  for (int64_t it = 0; it < iterations; ++it) {
    for (float& a : acc) a = a * 0.999f + 0.001f;
  }
  float sum = 0.0f;
  for (float a : acc) sum += a;
  *sink = sum;
}

}  // namespace

void cpu_fill_matmul_portable(CpuKernels& t) {
  t.gemm.mr = kMr;
  t.gemm.nr = kNr;
  t.gemm.tile = tile;
  t.gemm.pack_x = pack_x;
  t.gemm.pack_w[static_cast<int>(WeightType::f32)] = pack_w<load_f32>;
  t.gemm.pack_w[static_cast<int>(WeightType::f16)] = pack_w<load_f16>;
  t.gemm.pack_w[static_cast<int>(WeightType::bf16)] = pack_w<load_bf16>;
  t.gemv[static_cast<int>(WeightType::f32)] = gemv<load_f32>;
  t.gemv[static_cast<int>(WeightType::f16)] = gemv<load_f16>;
  t.gemv[static_cast<int>(WeightType::bf16)] = gemv<load_bf16>;
  t.peak_f32 = PeakFn{kPeakChains * 2.0, peak_f32};
}

}  // namespace bk
