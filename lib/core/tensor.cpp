// SPDX-License-Identifier: MIT
#include "bk/tensor.h"

#include <fmt/format.h>

namespace bk {

int64_t Tensor::nelements() const noexcept { return ne[0] * ne[1] * ne[2] * ne[3]; }

int64_t Tensor::nrows() const noexcept { return ne[1] * ne[2] * ne[3]; }

size_t Tensor::row_bytes() const noexcept {
  return static_cast<size_t>(ne[0] / dtype_block(type)) * dtype_size(type);
}

size_t Tensor::nbytes() const noexcept {
  if (nelements() == 0) return 0;
  // The first row whole (a quantized row is blocks, nb[0] apart), then every other row's step.
  const int64_t block = dtype_block(type);
  const int64_t blocks = block == 1 ? ne[0] : ne[0] / block;  // no division for the plain types
  size_t last = static_cast<size_t>(blocks - 1) * nb[0] + dtype_size(type);
  for (int i = 1; i < kMaxDims; ++i) last += static_cast<size_t>(ne[i] - 1) * nb[i];
  return last;
}

bool Tensor::is_contiguous() const noexcept {
  // All four strides compared, without branches: the scheduler and the CPU's op checks ask this
  // per node.
  const Strides packed = packed_strides(type, ne);
  bool same = true;
  for (int i = 0; i < kMaxDims; ++i) same &= nb[i] == packed[i];
  return same;
}

int64_t Tensor::dims() const noexcept {
  for (int i = kMaxDims - 1; i > 0; --i) {
    if (ne[i] != 1) return i + 1;
  }
  return 1;
}

std::string Tensor::shape_string() const {
  return fmt::format("[{}, {}, {}, {}]", ne[0], ne[1], ne[2], ne[3]);
}

Strides packed_strides(DType type, const Shape& ne) noexcept {
  Strides nb{};
  nb[0] = dtype_size(type);  // per block: per element for the plain types
  nb[1] = nb[0] * static_cast<size_t>(ne[0] / dtype_block(type));
  for (int i = 2; i < kMaxDims; ++i) nb[i] = nb[i - 1] * static_cast<size_t>(ne[i - 1]);
  return nb;
}

bool same_shape(const Tensor& a, const Tensor& b) noexcept { return a.ne == b.ne; }

}  // namespace bk
