// SPDX-License-Identifier: MIT
#pragma once
// Reading and writing row segments of any float tensor as f32, whatever its dtype and strides:
// the op kernels compute on contiguous f32 arrays and use these at their edges.
//
// A segment is the n elements i0 .. i0 + n - 1 of row (i1, i2, i3). When the tensor is f32 with
// unit element stride the segment is used in place (no copy); otherwise it is gathered into (or
// scattered from) a caller-provided scratch array of n floats, converting with the tier's
// loops. Tensors must be allocated on the host.

#include <cstddef>
#include <cstdint>

#include "bk/tensor.h"
#include "devices/cpu/kernels/kernel_table.h"

namespace bk {

struct RowIndex {
  int64_t i1 = 0, i2 = 0, i3 = 0;
};

// Row r (0 <= r < nrows) of a tensor with shape ne, in logical order.
inline RowIndex row_index(const Shape& ne, int64_t r) noexcept {
  return {r % ne[1], (r / ne[1]) % ne[2], r / (ne[1] * ne[2])};
}

inline std::byte* element_ptr(const Tensor& t, int64_t i0, RowIndex r) noexcept {
  return static_cast<std::byte*>(t.data) + static_cast<size_t>(i0) * t.nb[0] +
         static_cast<size_t>(r.i1) * t.nb[1] + static_cast<size_t>(r.i2) * t.nb[2] +
         static_cast<size_t>(r.i3) * t.nb[3];
}

// True when the segment can be used in place as f32.
inline bool row_is_direct_f32(const Tensor& t) noexcept {
  return t.type == DType::F32 && t.nb[0] == sizeof(float);
}

// The segment as f32: in place when direct, else converted into scratch. A quantized tensor is
// decoded whole blocks at a time: i0 and n must be multiples of its block (whole rows are).
const float* read_row_f32(const CpuKernels& k, const Tensor& t, RowIndex r, int64_t i0, int64_t n,
                          float* scratch);
// Where to compute the segment's f32 results: the tensor itself when direct, else scratch.
inline float* row_out_f32(const Tensor& t, RowIndex r, int64_t i0, float* scratch) noexcept {
  return row_is_direct_f32(t) ? reinterpret_cast<float*>(element_ptr(t, i0, r)) : scratch;
}
// Stores values (from row_out_f32) into the segment; nothing when they are already there.
void write_row_f32(const CpuKernels& k, const Tensor& t, RowIndex r, int64_t i0, int64_t n,
                   const float* values);

// Converts n contiguous elements between float dtypes (F32, F16, BF16), or copies them when
// the dtypes are equal (any dtype).
void convert_contiguous(const CpuKernels& k, DType from, const void* src, DType to, void* dst, int64_t n);

}  // namespace bk
