// SPDX-License-Identifier: MIT
#include "devices/cpu/kernels/mul_mat_quant.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

#include "devices/cpu/kernels/quant_type.h"
#include "devices/cpu/kernels/row_io.h"

namespace bk {
namespace {

// W rows per task: as for the f32 dot path, enough to amortise a task, few enough to balance.
constexpr int64_t kRowsPerTask = 64;

int64_t blocks_per_row(const Tensor& x) noexcept { return x.ne[0] / kXBlock; }
// XBlock16s from one X row's to the next: its blocks and their scales.
int64_t row_units(const Tensor& x) noexcept { return x_row_units(blocks_per_row(x)); }

}  // namespace

void cpu_quantize_x16(const float* x, int64_t k, int64_t blocks_per_scale, XBlock16* out) noexcept {
  constexpr float kMax = 32767.0f;
  const int64_t span = kXBlock * blocks_per_scale, blocks = k / kXBlock;
  XBlockScale* scales = x_scales(out, blocks);
  for (int64_t b = 0; b < blocks; b += blocks_per_scale, x += span) {
    float amax = 0.0f;
    bool finite = true;
    for (int64_t i = 0; i < span; ++i) {
      amax = std::max(amax, std::fabs(x[i]));
      finite = finite && std::isfinite(x[i]);
    }
    // In double: 32767 / amax overflows float for blocks below ~1e-34.
    const double inv = amax > 0.0f ? double{kMax} / amax : 0.0;
    for (int64_t j = 0; j < blocks_per_scale; ++j) {
      XBlock16& o = out[b + j];
      XBlockScale& scale = scales[b + j];
      if (!finite) {  // a NaN or infinity must not vanish into the integers: the scale is NaN
        std::fill(std::begin(o.q), std::end(o.q), int16_t{0});
        scale = {std::numeric_limits<float>::quiet_NaN(), 0};
        continue;
      }
      scale.d = amax / kMax;
      int32_t sum = 0;
      for (int64_t i = 0; i < kXBlock; ++i) {
        const long q = std::clamp(std::lrint(x[j * kXBlock + i] * inv), -32767L, 32767L);
        o.q[i] = static_cast<int16_t>(q);
        sum += static_cast<int32_t>(q);
      }
      scale.qsum = sum;
    }
  }
}

bool cpu_quant_dot_applies(const Tensor& w, const Tensor& x) noexcept {
  return is_quantized(w.type) && x.ne[1] <= quant_dot_max_columns(w.type);
}

size_t cpu_quant_dot_work_size(const Tensor& x) noexcept {
  return align_up(static_cast<size_t>(x.nrows() * row_units(x)) * sizeof(XBlock16));
}

void cpu_quant_dot(KernelContext& ctx, const Tensor& node, const Tensor& w, const Tensor& x,
                   std::byte* work) {
  auto* xq = reinterpret_cast<XBlock16*>(work);
  const int64_t xb = row_units(x);
  const int64_t xrows = x.nrows();
  const int qt = static_cast<int>(quant_type(w.type));
  const XLayoutFn layout = ctx.k().gemv_quant_x[qt];
  const int64_t per_scale = x16_blocks_per_scale(w.type);
  const int64_t qtasks = task_count(xrows, x.ne[0], ctx.threads());
  ctx.parallel(qtasks, [&](int64_t task, int) {
    const Range r = split_range(xrows, qtasks, task);
    for (int64_t i = r.begin; i < r.end; ++i) {
      const auto* row = reinterpret_cast<const float*>(element_ptr(x, 0, row_index(x.ne, i)));
      cpu_quantize_x16(row, x.ne[0], per_scale, xq + i * xb);
      if (layout != nullptr) layout(xq + i * xb, blocks_per_row(x));
    }
  });

  const GemvQuantFn gemv = ctx.k().gemv_quant[qt];
  const int64_t batches = x.ne[2] * x.ne[3];
  const int64_t r2 = x.ne[2] / w.ne[2], r3 = x.ne[3] / w.ne[3];
  const int64_t chunks = (w.ne[1] + kRowsPerTask - 1) / kRowsPerTask;
  const int64_t units = batches * chunks;
  const int64_t tasks = task_count(units, kRowsPerTask * w.ne[0] * x.ne[1], ctx.threads());
  const auto ldc = static_cast<int64_t>(node.nb[1] / sizeof(float));
  ctx.parallel(tasks, [&](int64_t task, int) {
    const Range r = split_range(units, tasks, task);
    for (int64_t u = r.begin; u < r.end; ++u) {
      const int64_t b = u / chunks, j0 = (u % chunks) * kRowsPerTask;
      const int64_t c2 = b % x.ne[2], c3 = b / x.ne[2];
      const int64_t rows = std::min(kRowsPerTask, w.ne[1] - j0);
      gemv(element_ptr(w, 0, {j0, c2 / r2, c3 / r3}), w.nb[1], rows, xq + b * x.ne[1] * xb, xb, x.ne[1],
           x.ne[0], reinterpret_cast<float*>(element_ptr(node, j0, {0, c2, c3})), ldc);
    }
  });
}

}  // namespace bk
