// SPDX-License-Identifier: MIT
// add, mul (b broadcast over a), scale, silu, gelu, over row segments (kRowSegment).
#include <algorithm>
#include <cstring>

#include "bk/ops.h"
#include "devices/cpu/kernels/op_kernels.h"
#include "devices/cpu/kernels/row_io.h"

namespace bk {
namespace {

struct Segments {
  int64_t per_row;
  int64_t count;
  int64_t length;  // elements of a full segment
};

Segments segments_of(const Tensor& node) {
  const int64_t length = std::min<int64_t>(std::max<int64_t>(node.ne[0], 1), kRowSegment);
  const int64_t per_row = (node.ne[0] + length - 1) / length;
  return {per_row, per_row * node.nrows(), length};
}

// Runs f(row, i0, n, thread) for every segment of node, in parallel.
template <typename F>
void for_each_segment(KernelContext& ctx, const Tensor& node, F f) {
  const Segments s = segments_of(node);
  const int64_t tasks = task_count(s.count, s.length, ctx.threads());
  ctx.parallel(tasks, [&](int64_t task, int thread) {
    const Range units = split_range(s.count, tasks, task);
    for (int64_t u = units.begin; u < units.end; ++u) {
      const int64_t i0 = (u % s.per_row) * s.length;
      f(row_index(node.ne, u / s.per_row), i0, std::min(s.length, node.ne[0] - i0), thread);
    }
  });
}

// b's elements i0 .. i0 + n - 1 of row r of a, with b repeating over a (see core/ops.h).
const float* broadcast_segment(const CpuKernels& k, const Tensor& b, RowIndex r, int64_t i0, int64_t n,
                               float* scratch) {
  const RowIndex rb{r.i1 % b.ne[1], r.i2 % b.ne[2], r.i3 % b.ne[3]};
  if (b.ne[0] != 0 && i0 % b.ne[0] + n <= b.ne[0]) return read_row_f32(k, b, rb, i0 % b.ne[0], n, scratch);
  for (int64_t j = 0; j < n;) {
    const int64_t start = (i0 + j) % b.ne[0];
    const int64_t len = std::min(b.ne[0] - start, n - j);
    const float* src = read_row_f32(k, b, rb, start, len, scratch + j);
    if (src != scratch + j) std::memcpy(scratch + j, src, static_cast<size_t>(len) * sizeof(float));
    j += len;
  }
  return scratch;
}

using BinaryFn = void (*)(const float*, const float*, float*, int64_t);

void binary(KernelContext& ctx, const Tensor& node, BinaryFn fn) {
  const Tensor& a = *node.src[0];
  const Tensor& b = *node.src[1];
  const int64_t len = segments_of(node).length;
  for_each_segment(ctx, node, [&](RowIndex r, int64_t i0, int64_t n, int thread) {
    const float* pa = read_row_f32(ctx.k(), a, r, i0, n, thread_scratch(ctx, thread, len, 3, 0));
    const float* pb = broadcast_segment(ctx.k(), b, r, i0, n, thread_scratch(ctx, thread, len, 3, 1));
    float* out = row_out_f32(node, r, i0, thread_scratch(ctx, thread, len, 3, 2));
    fn(pa, pb, out, n);
    write_row_f32(ctx.k(), node, r, i0, n, out);
  });
}

// f(in, out, n) on every segment of src[0].
template <typename F>
void unary(KernelContext& ctx, const Tensor& node, F f) {
  const Tensor& a = *node.src[0];
  const int64_t len = segments_of(node).length;
  for_each_segment(ctx, node, [&](RowIndex r, int64_t i0, int64_t n, int thread) {
    const float* pa = read_row_f32(ctx.k(), a, r, i0, n, thread_scratch(ctx, thread, len, 3, 0));
    float* out = row_out_f32(node, r, i0, thread_scratch(ctx, thread, len, 3, 2));
    f(pa, out, n);
    write_row_f32(ctx.k(), node, r, i0, n, out);
  });
}

}  // namespace

size_t cpu_elementwise_work_size(const Tensor& node, const CpuKernels& /*k*/, int threads) {
  return static_cast<size_t>(threads) * 3 * scratch_block_bytes(segments_of(node).length);
}

void cpu_op_add(KernelContext& ctx, const Tensor& node) { binary(ctx, node, ctx.k().add); }
void cpu_op_mul(KernelContext& ctx, const Tensor& node) { binary(ctx, node, ctx.k().mul); }

void cpu_op_scale(KernelContext& ctx, const Tensor& node) {
  const float s = scale_factor(node);
  const auto fn = ctx.k().scale;
  unary(ctx, node, [&](const float* a, float* r, int64_t n) { fn(a, s, r, n); });
}

void cpu_op_silu(KernelContext& ctx, const Tensor& node) {
  const auto fn = ctx.k().silu;
  unary(ctx, node, [&](const float* a, float* r, int64_t n) { fn(a, r, n); });
}

void cpu_op_gelu(KernelContext& ctx, const Tensor& node) {
  const auto fn = ctx.k().gelu;
  unary(ctx, node, [&](const float* a, float* r, int64_t n) { fn(a, r, n); });
}

}  // namespace bk
