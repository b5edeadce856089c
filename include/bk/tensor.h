// SPDX-License-Identifier: MIT
#pragma once
// Tensor: a typed view of up to four dimensions over memory in a Buffer.
//
// ne[i] is the number of elements along dimension i (ne[0] is the innermost, contiguous one);
// nb[i] is the stride in bytes. A view (view_src set) aliases view_src's memory at view_offset.
// Tensors are owned by the Graph that created them; a Buffer never owns a tensor, it only
// provides the memory that data points into. data is an address inside buffer->base()'s range:
// a real host address for host buffers, an opaque device address otherwise.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "bk/api.h"
#include "bk/dtype.h"
#include "bk/op.h"

namespace bk {

class Buffer;

inline constexpr int kMaxDims = 4;
inline constexpr int kMaxSources = 3;
inline constexpr int kMaxOpParams = 8;

using Shape = std::array<int64_t, kMaxDims>;
using Strides = std::array<size_t, kMaxDims>;

enum TensorFlag : uint32_t {
  kTensorInput = 1u << 0,   // set from outside before compute
  kTensorOutput = 1u << 1,  // read back after compute; its memory is never reused
  kTensorWeight = 1u << 2,  // a model parameter: lives in a weights buffer
};

struct BK_API Tensor {
  DType type = DType::F32;
  Shape ne{1, 1, 1, 1};
  Strides nb{};

  Op op = Op::none;
  std::array<Tensor*, kMaxSources> src{};
  std::array<int32_t, kMaxOpParams> params{};  // op parameters; floats stored bit-cast

  Tensor* view_src = nullptr;
  size_t view_offset = 0;

  Buffer* buffer = nullptr;
  void* data = nullptr;

  std::string name;
  uint32_t flags = 0;

  int64_t nelements() const noexcept;
  int64_t nrows() const noexcept;       // ne[1] * ne[2] * ne[3]
  size_t row_bytes() const noexcept;    // ne[0] * element size (quantized: ne[0] / block * block size)
  size_t nbytes() const noexcept;       // bytes spanned, from the first to the last element
  bool is_contiguous() const noexcept;  // strides are the packed row-major ones
  bool is_view() const noexcept { return view_src != nullptr; }
  bool has_flag(TensorFlag f) const noexcept { return (flags & f) != 0; }
  bool is_allocated() const noexcept { return data != nullptr; }
  int64_t dims() const noexcept;     // number of dimensions, ignoring trailing ones (>= 1)
  std::string shape_string() const;  // "[4096, 32, 1, 1]"
  // The name for messages: "(unnamed)" when it has none.
  const char* label() const noexcept { return name.empty() ? "(unnamed)" : name.c_str(); }
};

BK_API Strides packed_strides(DType type, const Shape& ne) noexcept;
BK_API bool same_shape(const Tensor& a, const Tensor& b) noexcept;

}  // namespace bk
