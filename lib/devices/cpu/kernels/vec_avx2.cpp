// SPDX-License-Identifier: MIT
// The avx2 tier's element-wise, reduction and conversion loops (AVX2 + FMA + F16C). Compiled
// with -mavx2 -mfma -mf16c; see kernel_table.h for what this file may include and define.
#include <immintrin.h>

#include <cstring>

#include "devices/cpu/kernels/kernel_table.h"
#include "devices/cpu/kernels/vec_avx2_math.h"

namespace bk {
namespace {

using namespace avx2;  // NOLINT(google-build-using-namespace): this tier's own helpers

template <typename Op>
void binary(const float* a, const float* b, float* r, int64_t n, Op op) {
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256 r0 = op(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
    const __m256 r1 = op(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8));
    const __m256 r2 = op(_mm256_loadu_ps(a + i + 16), _mm256_loadu_ps(b + i + 16));
    const __m256 r3 = op(_mm256_loadu_ps(a + i + 24), _mm256_loadu_ps(b + i + 24));
    _mm256_storeu_ps(r + i, r0);
    _mm256_storeu_ps(r + i + 8, r1);
    _mm256_storeu_ps(r + i + 16, r2);
    _mm256_storeu_ps(r + i + 24, r3);
  }
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(r + i, op(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i)));
  if (i < n) {
    const __m256i mask = tail_mask(n - i);
    _mm256_maskstore_ps(r + i, mask, op(_mm256_maskload_ps(a + i, mask), _mm256_maskload_ps(b + i, mask)));
  }
}

template <typename Op>
void unary(const float* a, float* r, int64_t n, Op op) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(r + i, op(_mm256_loadu_ps(a + i)));
  if (i < n) {
    const __m256i mask = tail_mask(n - i);
    _mm256_maskstore_ps(r + i, mask, op(_mm256_maskload_ps(a + i, mask)));
  }
}

void add(const float* a, const float* b, float* r, int64_t n) {
  binary(a, b, r, n, [](__m256 x, __m256 y) { return _mm256_add_ps(x, y); });
}

void mul(const float* a, const float* b, float* r, int64_t n) {
  binary(a, b, r, n, [](__m256 x, __m256 y) { return _mm256_mul_ps(x, y); });
}

void scale(const float* a, float s, float* r, int64_t n) {
  const __m256 vs = _mm256_set1_ps(s);
  unary(a, r, n, [vs](__m256 x) { return _mm256_mul_ps(x, vs); });
}

void silu(const float* a, float* r, int64_t n) {
  const __m256 one = _mm256_set1_ps(1.0f);
  unary(a, r, n, [one](__m256 x) {
    return _mm256_div_ps(x, _mm256_add_ps(one, exp_ps(_mm256_sub_ps(_mm256_setzero_ps(), x))));
  });
}

// 0.5 x (1 + tanh(u)) rewritten as x / (1 + exp(-2u)): the same function, without the
// cancellation of 1 + tanh(u) that loses every digit for x below about -4.
void gelu(const float* a, float* r, int64_t n) {
  const __m256 c2 = _mm256_set1_ps(-2.0f * 0.7978845608028654f), k = _mm256_set1_ps(0.044715f);
  const __m256 one = _mm256_set1_ps(1.0f);
  unary(a, r, n, [=](__m256 x) {
    const __m256 x3 = _mm256_mul_ps(_mm256_mul_ps(x, x), x);
    const __m256 e = exp_ps(_mm256_mul_ps(c2, _mm256_fmadd_ps(k, x3, x)));
    return _mm256_div_ps(x, _mm256_add_ps(one, e));
  });
}

void scale_add(const float* a, float s, const float* b, float* r, int64_t n) {
  if (b == nullptr) {
    scale(a, s, r, n);
    return;
  }
  const __m256 vs = _mm256_set1_ps(s);
  binary(a, b, r, n, [vs](__m256 x, __m256 y) { return _mm256_fmadd_ps(x, vs, y); });
}

double sum_squares(const float* a, int64_t n) {
  __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256 x0 = _mm256_loadu_ps(a + i), x1 = _mm256_loadu_ps(a + i + 8);
    acc0 = _mm256_fmadd_ps(x0, x0, acc0);
    acc1 = _mm256_fmadd_ps(x1, x1, acc1);
  }
  for (; i + 8 <= n; i += 8) {
    const __m256 x = _mm256_loadu_ps(a + i);
    acc0 = _mm256_fmadd_ps(x, x, acc0);
  }
  if (i < n) {
    const __m256 x = _mm256_maskload_ps(a + i, tail_mask(n - i));
    acc1 = _mm256_fmadd_ps(x, x, acc1);
  }
  return hsum_pd(_mm256_add_ps(acc0, acc1));
}

float max(const float* a, int64_t n) {
  __m256 m = _mm256_set1_ps(a[0]);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) m = _mm256_max_ps(m, _mm256_loadu_ps(a + i));
  float lanes[8];
  _mm256_storeu_ps(lanes, m);
  float best = lanes[0];
  for (int j = 1; j < 8; ++j) best = lanes[j] > best ? lanes[j] : best;
  for (; i < n; ++i) best = a[i] > best ? a[i] : best;
  return best;
}

double exp_sum(const float* a, float shift, float* r, int64_t n) {
  const __m256 vs = _mm256_set1_ps(shift);
  __m256 acc = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 e = exp_ps(_mm256_sub_ps(_mm256_loadu_ps(a + i), vs));
    _mm256_storeu_ps(r + i, e);
    acc = _mm256_add_ps(acc, e);
  }
  if (i < n) {
    const __m256i mask = tail_mask(n - i);
    // Lanes past the end compute exp(0 - shift); masking the sum drops them.
    const __m256 e =
        _mm256_and_ps(exp_ps(_mm256_sub_ps(_mm256_maskload_ps(a + i, mask), vs)), _mm256_castsi256_ps(mask));
    _mm256_maskstore_ps(r + i, mask, e);
    acc = _mm256_add_ps(acc, e);
  }
  return hsum_pd(acc);
}

void f16_to_f32(const uint16_t* src, float* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(dst + i, load_f16(src + i));
  for (; i < n; ++i) dst[i] = _cvtsh_ss(src[i]);
}

void f32_to_f16(const float* src, uint16_t* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h =
        _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), h);
  }
  for (; i < n; ++i) dst[i] = _cvtss_sh(src[i], _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

void bf16_to_f32(const uint16_t* src, float* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(dst + i, load_bf16(src + i));
  for (; i < n; ++i) dst[i] = bf16_scalar(src[i]);
}

void f32_to_bf16(const float* src, uint16_t* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i h = to_bf16_epi32(_mm256_loadu_ps(src + i));  // 8 x u16 in the low halves
    const __m128i packed = _mm_packus_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), packed);
  }
  for (; i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, src + i, sizeof bits);
    dst[i] = bf16_round(bits);
  }
}

}  // namespace

void cpu_fill_vec_avx2(CpuKernels& t) {
  t.add = add;
  t.mul = mul;
  t.scale = scale;
  t.silu = silu;
  t.gelu = gelu;
  t.scale_add = scale_add;
  t.sum_squares = sum_squares;
  t.max = max;
  t.exp_sum = exp_sum;
  t.f16_to_f32 = f16_to_f32;
  t.f32_to_f16 = f32_to_f16;
  t.bf16_to_f32 = bf16_to_f32;
  t.f32_to_bf16 = f32_to_bf16;
}

}  // namespace bk
