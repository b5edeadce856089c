// SPDX-License-Identifier: MIT
#include "devices/cpu/kernels/mul_mat_quant.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
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

// v rounded to the nearest integer, ties to even, as std::lrint rounds in the default mode, for
// |v| < 2^51: adding 1.5 x 2^52 leaves no fraction bits. Plain arithmetic, so the quantizer's
// loops vectorise, where lrint is a call per element.
inline double round_even(double v) noexcept {
  constexpr double kShift = 6755399441055744.0;  // 1.5 x 2^52
  return (v + kShift) - kShift;
}

// x's rows quantized into xq (row_units apart), blocks_per_scale blocks sharing a scale, codes up
// to q_max, then rearranged by layout where it is not null.
void quantize_rows(KernelContext& ctx, const Tensor& x, int64_t blocks_per_scale, int32_t q_max,
                   XLayoutFn layout, XBlock16* xq) {
  const int64_t xb = row_units(x);
  const int64_t xrows = x.nrows();
  const int64_t tasks = task_count(xrows, x.ne[0], ctx.threads());
  ctx.parallel(tasks, [&](int64_t task, int) {
    const Range r = split_range(xrows, tasks, task);
    for (int64_t i = r.begin; i < r.end; ++i) {
      const auto* row = reinterpret_cast<const float*>(element_ptr(x, 0, row_index(x.ne, i)));
      cpu_quantize_x16(row, x.ne[0], blocks_per_scale, xq + i * xb, q_max);
      if (layout != nullptr) layout(xq + i * xb, blocks_per_row(x));
    }
  });
}

// The tile path's parts of the work buffer: x's quantized rows, then each batch's columns packed
// in groups of 16 (QTileX), then each thread's decoded W rows.
struct TileWork {
  int64_t groups = 0;  // column groups per batch
  size_t xt_offset = 0, w_offset = 0, w_bytes = 0, total = 0;
};

TileWork tile_work(const Tensor& w, const Tensor& x, int threads) {
  TileWork t;
  const auto blocks = static_cast<size_t>(blocks_per_row(x));
  t.groups = (x.ne[1] + 15) / 16;
  t.xt_offset = cpu_quant_dot_work_size(x);
  const auto batches = static_cast<size_t>(x.ne[2] * x.ne[3]);
  t.w_offset = t.xt_offset + align_up(batches * static_cast<size_t>(t.groups) * blocks * sizeof(QTileX));
  const int64_t rows = std::min(kRowsPerTask, (w.ne[1] + kQTileRows - 1) / kQTileRows * kQTileRows);
  t.w_bytes = align_up(static_cast<size_t>(rows / kQTileRows) * blocks * sizeof(QTileW));
  t.total = t.w_offset + static_cast<size_t>(threads) * t.w_bytes;
  return t;
}

// Columns 16 g .. 16 g + 15 of one batch's quantized X rows (n of them, row_units apart) as the
// group's QTileXs; columns past n are zero.
void pack_group(const XBlock16* xq, int64_t xb, int64_t n, int64_t blocks, int64_t g, QTileX* dst) {
  for (int64_t b = 0; b < blocks; ++b) {
    QTileX& t = dst[b];
    for (int64_t c = 0; c < 16; ++c) {
      const int64_t i = 16 * g + c;
      if (i >= n) {
        for (auto& pair : t.pairs) pair[c] = 0;
        t.d[c] = t.dsum[c] = 0.0f;
        continue;
      }
      const XBlock16* row = xq + i * xb;
      for (int p = 0; p < 16; ++p) std::memcpy(&t.pairs[p][c], &row[b].q[2 * p], sizeof(int32_t));
      const XBlockScale& s = x_scales(row, blocks)[b];
      t.d[c] = s.d;
      t.dsum[c] = s.d * static_cast<float>(s.qsum);
    }
  }
}

}  // namespace

void cpu_quantize_x16(const float* x, int64_t k, int64_t blocks_per_scale, XBlock16* out,
                      int32_t q_max) noexcept {
  const auto kMax = static_cast<float>(q_max);
  const int64_t span = kXBlock * blocks_per_scale, blocks = k / kXBlock;
  XBlockScale* scales = x_scales(out, blocks);
  for (int64_t b = 0; b < blocks; b += blocks_per_scale, x += span) {
    // The largest magnitude as bits: they order as the magnitudes do, an infinity or NaN above
    // every finite one, and an integer maximum vectorises where a float one may not.
    uint32_t top = 0;
    for (int64_t i = 0; i < span; ++i) top = std::max(top, std::bit_cast<uint32_t>(x[i]) & 0x7FFFFFFFu);
    const bool finite = top < 0x7F800000u;
    const auto amax = std::bit_cast<float>(top);
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
        const auto q = static_cast<int32_t>(
            std::clamp(round_even(x[j * kXBlock + i] * inv), -double{kMax}, double{kMax}));
        o.q[i] = static_cast<int16_t>(q);
        sum += q;
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
  const int qt = static_cast<int>(quant_type(w.type));
  quantize_rows(ctx, x, x16_blocks_per_scale(w.type), 32767, ctx.k().gemv_quant_x[qt], xq);

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

bool cpu_quant_tile_applies(const CpuKernels& k, const Tensor& w, const Tensor& x) noexcept {
  // At 8 columns a tile leaves half its lanes empty: q6_k's decoded rows were faster there on avx2.
  constexpr int64_t kMinColumns = 9;
  return is_quantized(w.type) && x.ne[1] >= std::max(kMinColumns, quant_dot_max_columns(w.type) + 1) &&
         k.quant_tile.decode[static_cast<int>(quant_type(w.type))] != nullptr;
}

size_t cpu_quant_tile_work_size(const Tensor& w, const Tensor& x, int threads) noexcept {
  return tile_work(w, x, threads).total;
}

void cpu_quant_tile(KernelContext& ctx, const Tensor& node, const Tensor& w, const Tensor& x,
                    std::byte* work) {
  const TileWork tw = tile_work(w, x, ctx.threads());
  auto* xq = reinterpret_cast<XBlock16*>(work);
  auto* xt = reinterpret_cast<QTileX*>(work + tw.xt_offset);
  const int64_t xb = row_units(x), blocks = blocks_per_row(x), n = x.ne[1];
  const int64_t batches = x.ne[2] * x.ne[3];
  // A scale per block (the tiles apply one per block anyway).
  quantize_rows(ctx, x, 1, tile_x_max(w.type), nullptr, xq);

  const int64_t groups = batches * tw.groups;
  const int64_t ptasks = task_count(groups, 16 * x.ne[0], ctx.threads());
  ctx.parallel(ptasks, [&](int64_t task, int) {
    const Range r = split_range(groups, ptasks, task);
    for (int64_t u = r.begin; u < r.end; ++u) {
      const int64_t b = u / tw.groups, g = u % tw.groups;
      pack_group(xq + b * n * xb, xb, n, blocks, g, xt + u * blocks);
    }
  });

  const QuantTileFns& fns = ctx.k().quant_tile;
  const auto decode = fns.decode[static_cast<int>(quant_type(w.type))];
  const bool offsets = w.type == DType::Q4_K;
  const int64_t r2 = x.ne[2] / w.ne[2], r3 = x.ne[3] / w.ne[3];
  const int64_t chunks = (w.ne[1] + kRowsPerTask - 1) / kRowsPerTask;
  const int64_t units = batches * chunks;
  const int64_t tasks = task_count(units, kRowsPerTask * w.ne[0] * n, ctx.threads());
  const auto ldc = static_cast<int64_t>(node.nb[1] / sizeof(float));
  ctx.parallel(tasks, [&](int64_t task, int thread) {
    auto* decoded = reinterpret_cast<QTileW*>(work + tw.w_offset + static_cast<size_t>(thread) * tw.w_bytes);
    const Range r = split_range(units, tasks, task);
    for (int64_t u = r.begin; u < r.end; ++u) {
      const int64_t b = u / chunks, j0 = (u % chunks) * kRowsPerTask;
      const int64_t c2 = b % x.ne[2], c3 = b / x.ne[2];
      const int64_t rows = std::min(kRowsPerTask, w.ne[1] - j0);
      decode(element_ptr(w, 0, {j0, c2 / r2, c3 / r3}), w.nb[1], rows, w.ne[0], decoded);
      fns.multiply(decoded, rows, xt + b * tw.groups * blocks, n, w.ne[0], offsets,
                   reinterpret_cast<float*>(element_ptr(node, j0, {0, c2, c3})), ldc);
    }
  });
}

}  // namespace bk
