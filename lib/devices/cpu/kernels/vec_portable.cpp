// SPDX-License-Identifier: MIT
// The portable tier's element-wise, reduction and conversion loops: plain C++ for the build's
// baseline ISA (the compiler may vectorise them with what that baseline allows).
#include <cmath>

#include "bk/dtype.h"
#include "devices/cpu/kernels/kernel_table.h"

namespace bk {
namespace {

constexpr float kGeluC = 0.7978845608028654f;  // sqrt(2 / pi)

void add(const float* a, const float* b, float* r, int64_t n) {
  for (int64_t i = 0; i < n; ++i) r[i] = a[i] + b[i];
}

void mul(const float* a, const float* b, float* r, int64_t n) {
  for (int64_t i = 0; i < n; ++i) r[i] = a[i] * b[i];
}

void scale(const float* a, float s, float* r, int64_t n) {
  for (int64_t i = 0; i < n; ++i) r[i] = a[i] * s;
}

void silu(const float* a, float* r, int64_t n) {
  for (int64_t i = 0; i < n; ++i) r[i] = a[i] / (1.0f + std::exp(-a[i]));
}

// 0.5 x (1 + tanh(u)) rewritten as x / (1 + exp(-2u)): the same function, without the
// cancellation of 1 + tanh(u) that loses every digit for x below about -4.
void gelu(const float* a, float* r, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float x = a[i];
    r[i] = x / (1.0f + std::exp(-2.0f * kGeluC * (x + 0.044715f * x * x * x)));
  }
}

void scale_add(const float* a, float s, const float* b, float* r, int64_t n) {
  if (b == nullptr) {
    scale(a, s, r, n);
    return;
  }
  for (int64_t i = 0; i < n; ++i) r[i] = a[i] * s + b[i];
}

double sum_squares(const float* a, int64_t n) {
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += static_cast<double>(a[i]) * a[i];
  return sum;
}

float max(const float* a, int64_t n) {
  float m = a[0];
  for (int64_t i = 1; i < n; ++i) m = a[i] > m ? a[i] : m;
  return m;
}

double exp_sum(const float* a, float shift, float* r, int64_t n) {
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    r[i] = std::exp(a[i] - shift);
    sum += r[i];
  }
  return sum;
}

void f16_to_f32_n(const uint16_t* src, float* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = f16_to_f32(src[i]);
}

void f32_to_f16_n(const float* src, uint16_t* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = f32_to_f16(src[i]);
}

void bf16_to_f32_n(const uint16_t* src, float* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = bf16_to_f32(src[i]);
}

void f32_to_bf16_n(const float* src, uint16_t* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = f32_to_bf16(src[i]);
}

}  // namespace

void cpu_fill_vec_portable(CpuKernels& t) {
  t.add = add;
  t.mul = mul;
  t.scale = scale;
  t.silu = silu;
  t.gelu = gelu;
  t.scale_add = scale_add;
  t.sum_squares = sum_squares;
  t.max = max;
  t.exp_sum = exp_sum;
  t.f16_to_f32 = f16_to_f32_n;
  t.f32_to_f16 = f32_to_f16_n;
  t.bf16_to_f32 = bf16_to_f32_n;
  t.f32_to_bf16 = f32_to_bf16_n;
}

}  // namespace bk
