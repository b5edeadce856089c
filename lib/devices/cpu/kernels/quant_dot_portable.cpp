// SPDX-License-Identifier: MIT
// The portable tier's fused decode-and-dot path for quantized weights (kernel_table.h,
// GemvQuantFn), in plain C++: each weight block is decoded to small integers and multiplied with
// the 16-bit activation block of the same 32 elements in integer arithmetic, so one float
// multiply-add per 32 elements applies the scales. Written from the block layouts in bk/quant.h.
// The int32 sums cannot overflow: at most 32 products of |q| <= 128 and |x| <= 32767.
#include <cstring>

#include "bk/dtype.h"
#include "devices/cpu/kernels/kernel_table.h"

namespace bk {
namespace {

float f16_at(const uint8_t* p) {
  uint16_t h;
  std::memcpy(&h, p, 2);
  return f16_to_f32(h);
}

// q8_0: d, 32 x int8.
float row_q8_0(const uint8_t* w, const XBlock16* x, int64_t k) {
  const XBlockScale* xs = x_scales(x, k / kXBlock);
  float sum = 0.0f;
  for (int64_t b = 0; b < k / 32; ++b, w += 34) {
    const auto* q = reinterpret_cast<const int8_t*>(w + 2);
    int32_t dot = 0;
    for (int i = 0; i < 32; ++i) dot += q[i] * x[b].q[i];
    sum += f16_at(w) * xs[b].d * static_cast<float>(dot);
  }
  return sum;
}

// q4_0: d, 16 bytes holding element j in the low and j + 16 in the high nibble, offset 8.
float row_q4_0(const uint8_t* w, const XBlock16* x, int64_t k) {
  const XBlockScale* xs = x_scales(x, k / kXBlock);
  float sum = 0.0f;
  for (int64_t b = 0; b < k / 32; ++b, w += 18) {
    const int16_t* xq = x[b].q;
    int32_t dot = 0;
    for (int j = 0; j < 16; ++j) dot += ((w[2 + j] & 0xF) - 8) * xq[j] + ((w[2 + j] >> 4) - 8) * xq[j + 16];
    sum += f16_at(w) * xs[b].d * static_cast<float>(dot);
  }
  return sum;
}

// q4_k's 6-bit scale and min of group g (0-7) from its 12 packed bytes: groups 0-3 in the low
// six bits of bytes g and g + 4; groups 4-7 in the nibbles of byte g + 4 with their top two bits
// in the top bits of bytes g - 4 (scale) and g (min).
void k4_group(const uint8_t* s, int g, int& scale, int& min) {
  if (g < 4) {
    scale = s[g] & 63;
    min = s[g + 4] & 63;
  } else {
    scale = (s[g + 4] & 0xF) | ((s[g - 4] >> 6) << 4);
    min = (s[g + 4] >> 4) | ((s[g] >> 6) << 4);
  }
}

// q4_k: d, dmin, 12 bytes of scales and mins, then 4 chunks of 32 bytes whose low nibbles are
// group 2c and high nibbles group 2c + 1 (32 elements each): x = d * scale * q - dmin * min.
float row_q4_k(const uint8_t* w, const XBlock16* x, int64_t k) {
  const XBlockScale* xs = x_scales(x, k / kXBlock);
  float sum = 0.0f;
  for (int64_t sb = 0; sb < k / 256; ++sb, w += 144, x += 8, xs += 8) {
    const float d = f16_at(w), dmin = f16_at(w + 2);
    for (int g = 0; g < 8; ++g) {
      const uint8_t* q = w + 16 + 32 * (g / 2);
      const int shift = 4 * (g % 2);
      int32_t dot = 0;
      for (int l = 0; l < 32; ++l) dot += ((q[l] >> shift) & 0xF) * x[g].q[l];
      int scale = 0, min = 0;
      k4_group(w + 4, g, scale, min);
      sum += d * static_cast<float>(scale) * xs[g].d * static_cast<float>(dot) -
             dmin * static_cast<float>(min) * xs[g].d * static_cast<float>(xs[g].qsum);
    }
  }
  return sum;
}

// q6_k: 128 bytes of low nibbles, 64 bytes of high bit pairs, 16 int8 scales (one per 16
// elements), d. Each half of 128 elements holds four runs of 32: run t takes its low four bits
// from bytes ql[32 (t % 2) + l] (low nibble for t < 2, high for t >= 2) and its top two from
// bits 2t, 2t + 1 of qh[l]; x = d * scale * (q - 32).
float row_q6_k(const uint8_t* w, const XBlock16* x, int64_t k) {
  const XBlockScale* xs = x_scales(x, k / kXBlock);
  float sum = 0.0f;
  for (int64_t sb = 0; sb < k / 256; ++sb, w += 210) {
    const auto* scales = reinterpret_cast<const int8_t*>(w + 192);
    const float d = f16_at(w + 208);
    for (int half = 0; half < 2; ++half) {
      const uint8_t* ql = w + 64 * half;
      const uint8_t* qh = w + 128 + 32 * half;
      for (int t = 0; t < 4; ++t, ++x, ++xs) {
        const uint8_t* low = ql + 32 * (t % 2);
        const int low_shift = 4 * (t / 2), high_shift = 2 * t;
        int32_t dot[2] = {0, 0};  // the run's two groups of 16 (16 x 32 x 32767: no overflow)
        for (int l = 0; l < 32; ++l) {
          const int q = ((low[l] >> low_shift) & 0xF) | (((qh[l] >> high_shift) & 3) << 4);
          dot[l / 16] += (q - 32) * x->q[l];
        }
        const int g = 8 * half + 2 * t;
        const int64_t scaled = int64_t{scales[g]} * dot[0] + int64_t{scales[g + 1]} * dot[1];
        sum += d * xs->d * static_cast<float>(scaled);
      }
    }
  }
  return sum;
}

using RowDot = float (*)(const uint8_t* w, const XBlock16* x, int64_t k);

template <RowDot Dot>
void gemv(const void* w, size_t w_stride, int64_t m, const XBlock16* x, int64_t x_stride, int64_t n,
          int64_t k, float* c, int64_t ldc) {
  const auto* base = static_cast<const uint8_t*>(w);
  for (int64_t j = 0; j < m; ++j) {
    const uint8_t* row = base + static_cast<size_t>(j) * w_stride;
    for (int64_t i = 0; i < n; ++i) c[i * ldc + j] = Dot(row, x + i * x_stride, k);
  }
}

}  // namespace

void cpu_fill_quant_dot_portable(CpuKernels& t) {
  t.gemv_quant[static_cast<int>(QuantType::q8_0)] = gemv<row_q8_0>;
  t.gemv_quant[static_cast<int>(QuantType::q4_0)] = gemv<row_q4_0>;
  t.gemv_quant[static_cast<int>(QuantType::q4_k)] = gemv<row_q4_k>;
  t.gemv_quant[static_cast<int>(QuantType::q6_k)] = gemv<row_q6_k>;
}

}  // namespace bk
