// SPDX-License-Identifier: MIT
// rope: per token, the angles of every rotated pair are computed once (in double, so that large
// positions keep their precision) and applied to each head of that token.
#include <cmath>
#include <cstring>

#include "bk/ops.h"
#include "devices/cpu/kernels/op_kernels.h"
#include "devices/cpu/kernels/row_io.h"

namespace bk {
namespace {

int32_t position(const Tensor& positions, int64_t i2) {
  int32_t p;
  std::memcpy(&p, static_cast<const std::byte*>(positions.data) + static_cast<size_t>(i2) * positions.nb[0],
              sizeof p);
  return p;
}

// cs[k] = cos, cs[half + k] = sin of theta_k = p * base^(-2k / n_dims).
void angles(double p, const RopeParams& rp, float* cs) {
  const int64_t half = rp.n_dims / 2;
  for (int64_t k = 0; k < half; ++k) {
    const double theta =
        p * std::pow(static_cast<double>(rp.freq_base), -2.0 * static_cast<double>(k) / rp.n_dims);
    cs[k] = static_cast<float>(std::cos(theta));
    cs[half + k] = static_cast<float>(std::sin(theta));
  }
}

void rotate(const float* x, const float* cs, const RopeParams& rp, int64_t n, float* out) {
  const int64_t half = rp.n_dims / 2;
  // normal pairs (2k, 2k+1), neox pairs (k, k + half).
  const int64_t stride = rp.mode == RopeMode::neox ? 1 : 2;
  const int64_t offset = rp.mode == RopeMode::neox ? half : 1;
  for (int64_t k = 0; k < half; ++k) {
    const int64_t i = k * stride;
    const float x0 = x[i], x1 = x[i + offset], c = cs[k], s = cs[half + k];
    out[i] = x0 * c - x1 * s;
    out[i + offset] = x0 * s + x1 * c;
  }
  if (n > rp.n_dims)
    std::memmove(out + rp.n_dims, x + rp.n_dims, static_cast<size_t>(n - rp.n_dims) * sizeof(float));
}

}  // namespace

size_t cpu_rope_work_size(const Tensor& node, const CpuKernels& /*k*/, int threads) {
  return static_cast<size_t>(threads) * 3 * scratch_block_bytes(node.ne[0]);
}

void cpu_op_rope(KernelContext& ctx, const Tensor& node) {
  const Tensor& a = *node.src[0];
  const Tensor& positions = *node.src[1];
  const RopeParams rp = rope_params(node);
  const int64_t n = node.ne[0];
  const int64_t tokens = node.ne[2] * node.ne[3];
  const int64_t tasks = task_count(tokens, n * node.ne[1], ctx.threads());
  ctx.parallel(tasks, [&](int64_t task, int thread) {
    float* cs = thread_scratch(ctx, thread, n, 3, 1);
    const Range range = split_range(tokens, tasks, task);
    for (int64_t t = range.begin; t < range.end; ++t) {
      const int64_t i2 = t % node.ne[2], i3 = t / node.ne[2];
      angles(position(positions, i2), rp, cs);
      for (int64_t i1 = 0; i1 < node.ne[1]; ++i1) {
        const RowIndex r{i1, i2, i3};
        const float* x = read_row_f32(ctx.k(), a, r, 0, n, thread_scratch(ctx, thread, n, 3, 0));
        float* out = row_out_f32(node, r, 0, thread_scratch(ctx, thread, n, 3, 2));
        rotate(x, cs, rp, n, out);
        write_row_f32(ctx.k(), node, r, 0, n, out);
      }
    }
  });
}

}  // namespace bk
