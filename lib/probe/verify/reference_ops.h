// SPDX-License-Identifier: MIT
#pragma once
// The per-op arithmetic of the reference evaluator (verify/reference.h). Internal to the
// reference: callers use Reference, which owns the storage these pointers read.

#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include "bk/tensor.h"

namespace bk::verify {

// Read-only strided access to a tensor's elements inside its storage array.
struct Elements {
  const double* base = nullptr;           // the tensor's first element
  std::array<size_t, kMaxDims> stride{};  // in elements
  Shape ne{1, 1, 1, 1};

  const double* ptr(int64_t i0, int64_t i1, int64_t i2, int64_t i3) const noexcept {
    return base + static_cast<size_t>(i0) * stride[0] + static_cast<size_t>(i1) * stride[1] +
           static_cast<size_t>(i2) * stride[2] + static_cast<size_t>(i3) * stride[3];
  }
  double at(int64_t i0, int64_t i1, int64_t i2, int64_t i3) const noexcept { return *ptr(i0, i1, i2, i3); }
  // Element number `flat` in logical order.
  double flat(int64_t flat) const noexcept;
};

// Computes a non-view node from its sources (src[i] of the node is srcs[i]; absent sources are
// empty Elements). Returns the result in logical order, not yet rounded to the node's dtype.
std::vector<double> compute_op(const Tensor& node, std::span<const Elements, kMaxSources> srcs);

}  // namespace bk::verify
