// SPDX-License-Identifier: MIT
#pragma once
// Reading quantized blocks' scales (bk/quant.h's layouts) in the tier units from avx2 up
// (quant_dot_*.cpp, dequantize_avx2.cpp), which compile with -mavx2 -mf16c. Internal linkage, as
// kernel_table.h requires of what tier units instantiate.

#include <immintrin.h>

#include <cstdint>
#include <cstring>

namespace bk {
namespace {

// A block's f16 scale at p (unaligned), as a float.
inline float f16_at(const uint8_t* p) {
  uint16_t h;
  std::memcpy(&h, p, 2);
  return _cvtsh_ss(h);
}

// A q4_k super block's eight 6-bit scales and minimums (its bytes 4-15), a byte each, group g in
// byte g. Groups 0-3 sit in the low six bits of bytes g and g + 4; groups 4-7 in the nibbles of
// byte g + 8 with their top two bits in the top bits of bytes g (scale) and g + 4 (min). Four at
// a time in 32-bit words.
inline void q4_k_scale_and_min_bytes(const uint8_t* p, uint64_t& scale, uint64_t& min) {
  uint32_t u[3];
  std::memcpy(u, p, 12);
  const uint32_t low6 = 0x3F3F3F3F, low4 = 0x0F0F0F0F, top2 = 0x03030303;
  const uint32_t s[2] = {u[0] & low6, (u[2] & low4) | (((u[0] >> 6) & top2) << 4)};
  const uint32_t m[2] = {u[1] & low6, ((u[2] >> 4) & low4) | (((u[1] >> 6) & top2) << 4)};
  std::memcpy(&scale, s, 8);
  std::memcpy(&min, m, 8);
}

// Eight bytes as eight floats.
inline __m256 bytes_as_floats(uint64_t bytes) {
  return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<int64_t>(bytes))));
}

// The same scales and minimums as floats.
inline void q4_k_scales_and_mins(const uint8_t* p, __m256& scale, __m256& min) {
  uint64_t s, m;
  q4_k_scale_and_min_bytes(p, s, m);
  scale = bytes_as_floats(s);
  min = bytes_as_floats(m);
}

}  // namespace
}  // namespace bk
