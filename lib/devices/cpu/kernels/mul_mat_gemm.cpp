// SPDX-License-Identifier: MIT
#include "devices/cpu/kernels/mul_mat_gemm.h"

#include <algorithm>

namespace bk {
namespace {

constexpr int64_t kKc = 192;     // reduction block: a W micro-panel (kKc x nr floats) and an X one fit L1
constexpr int64_t kXRows = 96;   // X rows per compute block (kept in L2 while W panels pass)
constexpr int64_t kWRows = 256;  // W rows per compute block

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Panel layout: for k block p (kc_p = its length) and panel j of `rows` rows, the panel
// starts at p * kKc * padded + j * kc_p * rows floats, padded = panels * rows.
struct Panels {
  int64_t rows;   // rows per panel (mr or nr)
  int64_t count;  // panels
  int64_t k;      // reduction length
  float* base;

  int64_t padded() const { return count * rows; }
  int64_t kc(int64_t p) const { return std::min(kKc, k - p * kKc); }
  float* at(int64_t p, int64_t j) const { return base + p * kKc * padded() + j * kc(p) * rows; }
  size_t floats() const { return static_cast<size_t>(padded() * k); }
};

// W's panels, and X's unless x_packed.
void pack_panels(KernelContext& ctx, const GemmProblem& p, const Panels& wp, const Panels& xp,
                 bool x_packed) {
  const GemmFns& g = ctx.k().gemm;
  const int64_t kblocks = ceil_div(p.k, kKc);
  const auto pack_w = g.pack_w[static_cast<int>(p.wt)];
  const int64_t wunits = kblocks * wp.count, xunits = x_packed ? 0 : kblocks * xp.count;
  const int64_t units = wunits + xunits;
  const int64_t tasks = task_count(units, kKc * wp.rows, ctx.threads());
  ctx.parallel(tasks, [&](int64_t task, int) {
    const Range r = split_range(units, tasks, task);
    for (int64_t u = r.begin; u < r.end; ++u) {
      if (u < wunits) {
        const int64_t blk = u / wp.count, j = u % wp.count;
        const auto* rows = static_cast<const std::byte*>(p.w) + static_cast<size_t>(j * wp.rows) * p.w_stride;
        pack_w(rows, p.w_stride, std::min(wp.rows, p.m - j * wp.rows), blk * kKc, wp.kc(blk), wp.at(blk, j));
      } else {
        const int64_t v = u - wunits, blk = v / xp.count, i = v % xp.count;
        g.pack_x(p.x + i * xp.rows * p.x_stride, p.x_stride, std::min(xp.rows, p.n - i * xp.rows), blk * kKc,
                 xp.kc(blk), xp.at(blk, i));
      }
    }
  });
}

// One register tile at C rows i0.., columns j0..; edges go through a scratch tile.
void tile_at(const GemmFns& g, const GemmProblem& p, int64_t kc, const float* xpan, const float* wpan,
             int64_t i0, int64_t j0, bool accumulate) {
  float* c = p.c + i0 * p.ldc + j0;
  const int64_t rows = std::min<int64_t>(g.mr, p.n - i0), cols = std::min<int64_t>(g.nr, p.m - j0);
  if (rows == g.mr && cols == g.nr) {
    g.tile(kc, xpan, wpan, c, p.ldc, accumulate);
    return;
  }
  alignas(64) float edge[16 * 32];  // mr * nr <= 512 for every tier (avx512: 8 x 48)
  g.tile(kc, xpan, wpan, edge, g.nr, false);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      const float v = edge[i * g.nr + j];
      c[i * p.ldc + j] = accumulate ? c[i * p.ldc + j] + v : v;
    }
  }
}

void compute_blocks(KernelContext& ctx, const GemmProblem& p, const Panels& wp, const Panels& xp) {
  const GemmFns& g = ctx.k().gemm;
  const int64_t xpb = std::max<int64_t>(kXRows / g.mr, 1);
  const int64_t xblocks = ceil_div(xp.count, xpb);
  int64_t wpb = std::max<int64_t>(kWRows / g.nr, 1);
  // Too few blocks to share out evenly, where few X rows meet few W rows (a quantized W's panel
  // of 256 rows is 5 + 1 W panels on avx512, two blocks of unequal work): a block per W panel.
  if (xblocks * ceil_div(wp.count, wpb) < 4 * ctx.threads()) wpb = 1;
  const int64_t wblocks = ceil_div(wp.count, wpb);
  const int64_t kblocks = ceil_div(p.k, kKc);
  const int64_t units = xblocks * wblocks;
  const int64_t tasks = task_count(units, kXRows * kWRows, ctx.threads()) == 1 ? 1 : units;
  ctx.parallel(tasks, [&](int64_t task, int) {
    const Range r = split_range(units, tasks, task);
    for (int64_t u = r.begin; u < r.end; ++u) {
      const int64_t xb = u % xblocks, wb = u / xblocks;
      const int64_t i_end = std::min(xp.count, (xb + 1) * xpb), j_end = std::min(wp.count, (wb + 1) * wpb);
      for (int64_t blk = 0; blk < kblocks; ++blk) {
        for (int64_t j = wb * wpb; j < j_end; ++j) {
          for (int64_t i = xb * xpb; i < i_end; ++i) {
            tile_at(g, p, xp.kc(blk), xp.at(blk, i), wp.at(blk, j), i * g.mr, j * g.nr, blk > 0);
          }
        }
      }
    }
  });
}

}  // namespace

size_t cpu_gemm_work_size(const GemmFns& g, int64_t m, int64_t n, int64_t k) {
  const Panels wp{g.nr, ceil_div(m, g.nr), k, nullptr}, xp{g.mr, ceil_div(n, g.mr), k, nullptr};
  return align_up(wp.floats() * sizeof(float)) + align_up(xp.floats() * sizeof(float));
}

void cpu_gemm(KernelContext& ctx, const GemmProblem& p, std::byte* work, bool x_packed) {
  const GemmFns& g = ctx.k().gemm;
  // X's panels first: their place does not depend on m, so a later call with fewer W rows finds
  // them where an earlier one packed them.
  Panels xp{g.mr, ceil_div(p.n, g.mr), p.k, reinterpret_cast<float*>(work)};
  Panels wp{g.nr, ceil_div(p.m, g.nr), p.k, nullptr};
  wp.base = reinterpret_cast<float*>(work + align_up(xp.floats() * sizeof(float)));
  pack_panels(ctx, p, wp, xp, x_packed);
  compute_blocks(ctx, p, wp, xp);
}

}  // namespace bk
