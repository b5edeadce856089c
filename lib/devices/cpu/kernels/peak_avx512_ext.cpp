// SPDX-License-Identifier: MIT
// The avx512 tier's peak-arithmetic loops for bf16 (AVX512_BF16 vdpbf16ps: 32 multiply-adds
// per instruction) and f16 (AVX512_FP16 vfmadd231ph: 32 half multiply-adds), twelve independent
// zmm chains each. Compiled with -mavx512f -mavx512bw -mavx512vl -mavx512bf16 -mavx512fp16;
// dispatch.cpp fills them into a table only when cpuid reports the feature. See kernel_table.h
// for what this file may include.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include "devices/cpu/kernels/kernel_table.h"

namespace bk {
namespace {

constexpr int kChains = 12;

void peak_bf16(int64_t iterations, float* sink) {
  __m512 acc[kChains];
#pragma GCC unroll 12
  for (int i = 0; i < kChains; ++i) acc[i] = _mm512_set1_ps(0.001f * static_cast<float>(i));
  const __m512bh a = _mm512_cvtne2ps_pbh(_mm512_set1_ps(0.5f), _mm512_set1_ps(0.25f));
  const __m512bh b = _mm512_cvtne2ps_pbh(_mm512_set1_ps(1e-3f), _mm512_set1_ps(-1e-3f));
  for (int64_t it = 0; it < iterations; ++it) {
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i) acc[i] = _mm512_dpbf16_ps(acc[i], a, b);
  }
  __m512 sum = acc[0];
#pragma GCC unroll 12
  for (int i = 1; i < kChains; ++i) sum = _mm512_add_ps(sum, acc[i]);
  alignas(64) float out[16];
  _mm512_store_ps(out, sum);
  *sink = out[0];
}

void peak_f16(int64_t iterations, float* sink) {
  __m512h acc[kChains];
#pragma GCC unroll 12
  for (int i = 0; i < kChains; ++i)
    acc[i] = _mm512_set1_ph(static_cast<_Float16>(0.01f * static_cast<float>(i)));
  const __m512h m = _mm512_set1_ph(static_cast<_Float16>(0.999f));
  const __m512h c = _mm512_set1_ph(static_cast<_Float16>(0.001f));
  for (int64_t it = 0; it < iterations; ++it) {
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i) acc[i] = _mm512_fmadd_ph(acc[i], m, c);
  }
  __m512h sum = acc[0];
#pragma GCC unroll 12
  for (int i = 1; i < kChains; ++i) sum = _mm512_add_ph(sum, acc[i]);
  alignas(64) _Float16 out[32];
  _mm512_store_ph(out, sum);
  *sink = static_cast<float>(out[0]);
}

}  // namespace

void cpu_fill_peak_avx512_ext(CpuKernels& t, bool avx512_bf16, bool avx512_fp16) {
  if (avx512_bf16) t.peak_bf16 = PeakFn{kChains * 32.0 * 2.0, peak_bf16};
  if (avx512_fp16) t.peak_f16 = PeakFn{kChains * 32.0 * 2.0, peak_f16};
}

}  // namespace bk
