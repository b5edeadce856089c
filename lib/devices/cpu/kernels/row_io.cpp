// SPDX-License-Identifier: MIT
#include "devices/cpu/kernels/row_io.h"

#include <cstring>

#include "bk/dtype.h"
#include "bk/quant.h"
#include "devices/cpu/kernels/quant_type.h"

namespace bk {

const float* read_row_f32(const CpuKernels& k, const Tensor& t, RowIndex r, int64_t i0, int64_t n,
                          float* scratch) {
  if (is_quantized(t.type)) {  // whole blocks: i0 and n are multiples of the block
    const std::byte* blocks = element_ptr(t, 0, r) + static_cast<size_t>(i0 / dtype_block(t.type)) * t.nb[0];
    const DequantizeFn tier = k.dequantize[static_cast<int>(quant_type(t.type))];
    if (tier != nullptr) {
      tier(blocks, scratch, n);
    } else {
      dequantize_row(t.type, blocks, scratch, n);
    }
    return scratch;
  }
  const std::byte* p = element_ptr(t, i0, r);
  if (row_is_direct_f32(t)) return reinterpret_cast<const float*>(p);
  if (t.nb[0] == dtype_size(t.type)) {
    convert_contiguous(k, t.type, p, DType::F32, scratch, n);
  } else {
    // Strided: one element at a time through core's conversions (the slow, rare layout).
    for (int64_t i = 0; i < n; ++i)
      convert(t.type, p + static_cast<size_t>(i) * t.nb[0], DType::F32, scratch + i, 1);
  }
  return scratch;
}

void write_row_f32(const CpuKernels& k, const Tensor& t, RowIndex r, int64_t i0, int64_t n,
                   const float* values) {
  std::byte* p = element_ptr(t, i0, r);
  if (reinterpret_cast<const std::byte*>(values) == p && t.type == DType::F32) return;
  if (t.nb[0] == dtype_size(t.type)) {
    convert_contiguous(k, DType::F32, values, t.type, p, n);
  } else {
    for (int64_t i = 0; i < n; ++i)
      convert(DType::F32, values + i, t.type, p + static_cast<size_t>(i) * t.nb[0], 1);
  }
}

void convert_contiguous(const CpuKernels& k, DType from, const void* src, DType to, void* dst, int64_t n) {
  if (from == to) {
    std::memcpy(dst, src, static_cast<size_t>(n) * dtype_size(from));
    return;
  }
  const auto* s16 = static_cast<const uint16_t*>(src);
  auto* d16 = static_cast<uint16_t*>(dst);
  if (from == DType::F32 && to == DType::F16) return k.f32_to_f16(static_cast<const float*>(src), d16, n);
  if (from == DType::F32 && to == DType::BF16) return k.f32_to_bf16(static_cast<const float*>(src), d16, n);
  if (from == DType::F16 && to == DType::F32) return k.f16_to_f32(s16, static_cast<float*>(dst), n);
  if (from == DType::BF16 && to == DType::F32) return k.bf16_to_f32(s16, static_cast<float*>(dst), n);
  // f16 <-> bf16 (exact through f32, then one rounding), in stack-sized pieces.
  constexpr int64_t kPiece = 256;
  float tmp[kPiece];
  for (int64_t i = 0; i < n; i += kPiece) {
    const int64_t c = n - i < kPiece ? n - i : kPiece;
    convert_contiguous(k, from, s16 + i, DType::F32, tmp, c);
    convert_contiguous(k, DType::F32, tmp, to, d16 + i, c);
  }
}

}  // namespace bk
