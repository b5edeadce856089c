// SPDX-License-Identifier: MIT
// ggml's block layouts (see bk/quant.h): decoding as ggml decodes, encoding simply.
#include "bk/quant.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace bk {
namespace {

constexpr int kSuper = 256;  // elements of a q4_k / q6_k block

float load_f16(const uint8_t* p) noexcept {
  uint16_t h;
  std::memcpy(&h, p, 2);
  return f16_to_f32(h);
}

// Stores v as f16 and returns what was stored, so that codes are chosen against the scale a
// reader will see.
float store_f16(uint8_t* p, float v) noexcept {
  const uint16_t h = f32_to_f16(v);
  std::memcpy(p, &h, 2);
  return f16_to_f32(h);
}

int nearest(float v, int lo, int hi) noexcept { return std::clamp(static_cast<int>(std::lrint(v)), lo, hi); }

float max_abs(const float* x, int n) noexcept {
  float m = 0;
  for (int i = 0; i < n; ++i) m = std::max(m, std::fabs(x[i]));
  return m;
}

// ---- q8_0: d, 32 x int8

void dequantize_q8_0(const uint8_t* b, float* y) noexcept {
  const float d = load_f16(b);
  const auto* q = reinterpret_cast<const int8_t*>(b + 2);
  for (int j = 0; j < 32; ++j) y[j] = static_cast<float>(q[j]) * d;
}

void quantize_q8_0(const float* x, uint8_t* b) noexcept {
  const float d = store_f16(b, max_abs(x, 32) / 127);
  const float id = d > 0 ? 1 / d : 0;
  for (int j = 0; j < 32; ++j)
    b[2 + j] = static_cast<uint8_t>(static_cast<int8_t>(nearest(x[j] * id, -127, 127)));
}

// ---- q4_0: d, 16 bytes of nibbles (element j low, j + 16 high), offset 8

void dequantize_q4_0(const uint8_t* b, float* y) noexcept {
  const float d = load_f16(b);
  for (int j = 0; j < 16; ++j) {
    y[j] = static_cast<float>((b[2 + j] & 0x0F) - 8) * d;
    y[j + 16] = static_cast<float>((b[2 + j] >> 4) - 8) * d;
  }
}

void quantize_q4_0(const float* x, uint8_t* b) noexcept {
  // The value of largest magnitude maps to -8, so that its sign gets the longer side.
  float extreme = 0;
  for (int j = 0; j < 32; ++j) {
    if (std::fabs(x[j]) > std::fabs(extreme)) extreme = x[j];
  }
  const float d = store_f16(b, extreme / -8);
  const float id = d != 0 ? 1 / d : 0;
  for (int j = 0; j < 16; ++j) {
    const int lo = nearest(x[j] * id + 8, 0, 15), hi = nearest(x[j + 16] * id + 8, 0, 15);
    b[2 + j] = static_cast<uint8_t>(lo | (hi << 4));
  }
}

// ---- q4_k: d, dmin, 12 bytes of 6-bit (scale, min) for 8 groups of 32, 128 bytes of nibbles

// Group j's scale and min: groups 0-3 in the low 6 bits of bytes j and j + 4; groups 4-7 split
// between the nibbles of bytes j + 4 and the top 2 bits of bytes j - 4 and j.
void k4_scale_min(int j, const uint8_t* s, uint8_t& sc, uint8_t& m) noexcept {
  if (j < 4) {
    sc = s[j] & 63;
    m = s[j + 4] & 63;
  } else {
    sc = static_cast<uint8_t>((s[j + 4] & 0xF) | ((s[j - 4] >> 6) << 4));
    m = static_cast<uint8_t>((s[j + 4] >> 4) | ((s[j] >> 6) << 4));
  }
}

void pack_k4_scales(const uint8_t sc[8], const uint8_t m[8], uint8_t* s) noexcept {
  for (int j = 0; j < 4; ++j) {
    s[j] = static_cast<uint8_t>(sc[j] | ((sc[j + 4] >> 4) << 6));
    s[j + 4] = static_cast<uint8_t>(m[j] | ((m[j + 4] >> 4) << 6));
    s[j + 8] = static_cast<uint8_t>((sc[j + 4] & 0xF) | ((m[j + 4] & 0xF) << 4));
  }
}

void dequantize_q4_k(const uint8_t* b, float* y) noexcept {
  const float d = load_f16(b), dmin = load_f16(b + 2);
  const uint8_t* scales = b + 4;
  const uint8_t* q = b + 16;
  for (int group = 0; group < 8; group += 2) {
    uint8_t sc, m;
    k4_scale_min(group, scales, sc, m);
    const float d1 = d * static_cast<float>(sc), m1 = dmin * static_cast<float>(m);
    k4_scale_min(group + 1, scales, sc, m);
    const float d2 = d * static_cast<float>(sc), m2 = dmin * static_cast<float>(m);
    for (int l = 0; l < 32; ++l) *y++ = d1 * static_cast<float>(q[l] & 0xF) - m1;
    for (int l = 0; l < 32; ++l) *y++ = d2 * static_cast<float>(q[l] >> 4) - m2;
    q += 32;
  }
}

void quantize_q4_k(const float* x, uint8_t* b) noexcept {
  float scale[8], low[8];  // per group: step and -minimum (>= 0)
  float max_scale = 0, max_low = 0;
  for (int g = 0; g < 8; ++g) {
    const float* xg = x + 32 * g;
    const float lo = std::min(0.0f, *std::min_element(xg, xg + 32)), hi = *std::max_element(xg, xg + 32);
    scale[g] = (hi - lo) / 15;
    low[g] = -lo;
    max_scale = std::max(max_scale, scale[g]);
    max_low = std::max(max_low, low[g]);
  }
  const float d = store_f16(b, max_scale / 63), dmin = store_f16(b + 2, max_low / 63);
  uint8_t sc[8], m[8];
  for (int g = 0; g < 8; ++g) {
    sc[g] = static_cast<uint8_t>(d > 0 ? nearest(scale[g] / d, 0, 63) : 0);
    m[g] = static_cast<uint8_t>(dmin > 0 ? nearest(low[g] / dmin, 0, 63) : 0);
  }
  pack_k4_scales(sc, m, b + 4);
  uint8_t* q = b + 16;
  for (int chunk = 0; chunk < 4; ++chunk) {
    const int g0 = 2 * chunk, g1 = g0 + 1;
    const float step0 = d * static_cast<float>(sc[g0]), step1 = d * static_cast<float>(sc[g1]);
    for (int l = 0; l < 32; ++l) {
      const float v0 = x[64 * chunk + l] + dmin * static_cast<float>(m[g0]);
      const float v1 = x[64 * chunk + 32 + l] + dmin * static_cast<float>(m[g1]);
      const int q0 = step0 > 0 ? nearest(v0 / step0, 0, 15) : 0,
                q1 = step1 > 0 ? nearest(v1 / step1, 0, 15) : 0;
      q[32 * chunk + l] = static_cast<uint8_t>(q0 | (q1 << 4));
    }
  }
}

// ---- q6_k: 128 bytes low nibbles, 64 bytes high 2-bit pairs, 16 int8 scales, d

void dequantize_q6_k(const uint8_t* b, float* y) noexcept {
  const uint8_t* ql = b;
  const uint8_t* qh = b + 128;
  const auto* sc = reinterpret_cast<const int8_t*>(b + 192);
  const float d = load_f16(b + 208);
  for (int half = 0; half < 2; ++half) {
    for (int l = 0; l < 32; ++l) {
      const int is = l / 16;
      const auto q1 = static_cast<int8_t>(((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32);
      const auto q2 = static_cast<int8_t>(((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32);
      const auto q3 = static_cast<int8_t>(((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32);
      const auto q4 = static_cast<int8_t>(((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32);
      y[l] = d * static_cast<float>(sc[is]) * static_cast<float>(q1);
      y[l + 32] = d * static_cast<float>(sc[is + 2]) * static_cast<float>(q2);
      y[l + 64] = d * static_cast<float>(sc[is + 4]) * static_cast<float>(q3);
      y[l + 96] = d * static_cast<float>(sc[is + 6]) * static_cast<float>(q4);
    }
    y += 128;
    ql += 64;
    qh += 32;
    sc += 8;
  }
}

void quantize_q6_k(const float* x, uint8_t* b) noexcept {
  float group_scale[16];
  float max_scale = 0;
  for (int g = 0; g < 16; ++g) {
    group_scale[g] = max_abs(x + 16 * g, 16) / 31;
    max_scale = std::max(max_scale, group_scale[g]);
  }
  const float d = store_f16(b + 208, max_scale / 127);
  auto* sc = reinterpret_cast<int8_t*>(b + 192);
  int codes[kSuper];  // 0..63, element order
  for (int g = 0; g < 16; ++g) {
    sc[g] = static_cast<int8_t>(d > 0 ? nearest(group_scale[g] / d, -128, 127) : 0);
    const float step = d * static_cast<float>(sc[g]);
    for (int l = 0; l < 16; ++l) {
      const int e = 16 * g + l;
      codes[e] = (step > 0 ? nearest(x[e] / step, -32, 31) : 0) + 32;
    }
  }
  uint8_t* ql = b;
  uint8_t* qh = b + 128;
  for (int half = 0; half < 2; ++half) {
    const int* c = codes + 128 * half;
    for (int l = 0; l < 32; ++l) {
      ql[l] = static_cast<uint8_t>((c[l] & 0xF) | ((c[l + 64] & 0xF) << 4));
      ql[l + 32] = static_cast<uint8_t>((c[l + 32] & 0xF) | ((c[l + 96] & 0xF) << 4));
      qh[l] = static_cast<uint8_t>((c[l] >> 4) | ((c[l + 32] >> 4) << 2) | ((c[l + 64] >> 4) << 4) |
                                   ((c[l + 96] >> 4) << 6));
    }
    ql += 64;
    qh += 32;
  }
}

// One block's decoder and encoder per quantized type, chosen once per row.
struct BlockCodec {
  void (*decode)(const uint8_t* block, float* y) noexcept;
  void (*encode)(const float* x, uint8_t* block) noexcept;
};

BlockCodec codec_of(DType type) noexcept {
  switch (type) {
    case DType::Q8_0:
      return {dequantize_q8_0, quantize_q8_0};
    case DType::Q4_0:
      return {dequantize_q4_0, quantize_q4_0};
    case DType::Q4_K:
      return {dequantize_q4_k, quantize_q4_k};
    default:
      return {dequantize_q6_k, quantize_q6_k};
  }
}

}  // namespace

void dequantize_row(DType type, const void* src, float* dst, int64_t n) noexcept {
  if (!is_quantized(type)) {
    convert(type, src, DType::F32, dst, static_cast<size_t>(n));
    return;
  }
  const BlockCodec codec = codec_of(type);
  const auto* b = static_cast<const uint8_t*>(src);
  const int64_t block = dtype_block(type);
  const size_t bytes = dtype_size(type);
  for (int64_t i = 0; i < n / block; ++i, b += bytes, dst += block) codec.decode(b, dst);
}

void quantize_row(DType type, const float* src, void* dst, int64_t n) noexcept {
  if (!is_quantized(type)) {
    convert(DType::F32, src, type, dst, static_cast<size_t>(n));
    return;
  }
  const BlockCodec codec = codec_of(type);
  auto* b = static_cast<uint8_t*>(dst);
  const int64_t block = dtype_block(type);
  const size_t bytes = dtype_size(type);
  for (int64_t i = 0; i < n / block; ++i, b += bytes, src += block) codec.encode(src, b);
}

}  // namespace bk
