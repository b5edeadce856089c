// SPDX-License-Identifier: MIT
// rms_norm and soft_max: one row at a time, rows spread over the threads.
#include <cmath>

#include "bk/ops.h"
#include "devices/cpu/kernels/op_kernels.h"
#include "devices/cpu/kernels/row_io.h"

namespace bk {
namespace {

// Runs f(row, thread) for every row of node, in parallel.
template <typename F>
void for_each_row(KernelContext& ctx, const Tensor& node, F f) {
  const int64_t rows = node.nrows();
  const int64_t tasks = task_count(rows, node.ne[0], ctx.threads());
  ctx.parallel(tasks, [&](int64_t task, int thread) {
    const Range r = split_range(rows, tasks, task);
    for (int64_t i = r.begin; i < r.end; ++i) f(row_index(node.ne, i), thread);
  });
}

}  // namespace

size_t cpu_row_work_size(const Tensor& node, const CpuKernels& /*k*/, int threads) {
  return static_cast<size_t>(threads) * 3 * scratch_block_bytes(node.ne[0]);
}

void cpu_op_rms_norm(KernelContext& ctx, const Tensor& node) {
  const Tensor& a = *node.src[0];
  const int64_t n = node.ne[0];
  const double eps = rms_norm_eps(node);
  for_each_row(ctx, node, [&](RowIndex r, int thread) {
    const float* x = read_row_f32(ctx.k(), a, r, 0, n, thread_scratch(ctx, thread, n, 3, 0));
    float* out = row_out_f32(node, r, 0, thread_scratch(ctx, thread, n, 3, 2));
    const double mean = ctx.k().sum_squares(x, n) / static_cast<double>(n);
    ctx.k().scale(x, static_cast<float>(1.0 / std::sqrt(mean + eps)), out, n);
    write_row_f32(ctx.k(), node, r, 0, n, out);
  });
}

void cpu_op_soft_max(KernelContext& ctx, const Tensor& node) {
  const Tensor& a = *node.src[0];
  const Tensor* mask = node.src[1];
  const int64_t n = node.ne[0];
  const float scale = soft_max_scale(node);
  for_each_row(ctx, node, [&](RowIndex r, int thread) {
    const CpuKernels& k = ctx.k();
    const float* x = read_row_f32(k, a, r, 0, n, thread_scratch(ctx, thread, n, 3, 0));
    const float* m = nullptr;
    if (mask != nullptr) {
      const RowIndex rm{r.i1, r.i2 % mask->ne[2], r.i3 % mask->ne[3]};
      m = read_row_f32(k, *mask, rm, 0, n, thread_scratch(ctx, thread, n, 3, 1));
    }
    float* out = row_out_f32(node, r, 0, thread_scratch(ctx, thread, n, 3, 2));
    k.scale_add(x, scale, m, out, n);
    const double sum = k.exp_sum(out, k.max(out, n), out, n);
    k.scale(out, static_cast<float>(1.0 / sum), out, n);
    write_row_f32(k, node, r, 0, n, out);
  });
}

}  // namespace bk
