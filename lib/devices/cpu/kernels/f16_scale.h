// SPDX-License-Identifier: MIT
#pragma once
// A quantized block's f16 scale, read from its (unaligned) bytes and converted with F16C: for the
// tier units from avx2 up (quant_dot_*.cpp, dequantize_avx2.cpp), which compile with -mf16c.
// Internal linkage, as kernel_table.h requires of what tier units instantiate.

#include <immintrin.h>

#include <cstdint>
#include <cstring>

namespace bk {
namespace {

inline float f16_at(const uint8_t* p) {
  uint16_t h;
  std::memcpy(&h, p, 2);
  return _cvtsh_ss(h);
}

}  // namespace
}  // namespace bk
