// SPDX-License-Identifier: MIT
#pragma once
// Op metadata for benchmarks and the scheduler report: how much arithmetic a node does and how
// many bytes it must move at least.
//
// Counting rules (stable, so that rates stay comparable between versions):
// - flops: mul_mat counts 2*M*N*K per batch (a multiply and an add per term). Element-wise ops
//   (add, mul, scale, silu, gelu) count 1 per output element whatever their formula;
//   rms_norm 3 per element (square, accumulate, scale); soft_max 5 per element (scale, max,
//   exp, sum, divide) plus 1 with a mask; rope 3 per rotated element (two products and a sum).
//   Copies, conversions, gathers and views count 0.
// - bytes_read / bytes_written: the element bytes (nelements * dtype size) of each source read
//   and of the result written, each counted once: a broadcast operand is read once, get_rows
//   reads only the gathered rows, and a cpy writes into its destination. Gaps in strided views
//   are not counted. Views move nothing.
// The functions never throw for a node built by ops.h.

#include <cstddef>

#include "bk/api.h"
#include "bk/graph.h"
#include "bk/tensor.h"

namespace bk {

struct BK_API OpCost {
  double flops = 0;
  size_t bytes_read = 0;
  size_t bytes_written = 0;

  OpCost& operator+=(const OpCost& other) noexcept;
};

BK_API OpCost op_cost(const Tensor& node) noexcept;
// Sum over graph.nodes().
BK_API OpCost graph_cost(const Graph& graph) noexcept;

}  // namespace bk
