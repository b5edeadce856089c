// SPDX-License-Identifier: MIT
#include "devices/cpu/kernels/mul_mat_amx.h"

#include <algorithm>

namespace bk {
namespace {

constexpr int64_t kPanelRows = 16;
constexpr int64_t kTileK = 32;
constexpr int64_t kTileElems = 512;  // uint16 per packed tile
constexpr int64_t kXPairs = 8;       // X panel pairs (32 rows) per C block: 256 rows, in L2
constexpr int64_t kWPairs = 8;       // W panel pairs per C block: each pair (32 KiB per pass) in L1
constexpr int64_t kBlockTiles = 16;  // reduction tiles per pass: 512 k, 16 KiB per panel

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

struct AmxLayout {
  int64_t tiles;   // k tiles per panel
  int64_t wpairs;  // pairs of W panels (32 rows)
  int64_t xpairs;  // pairs of X panels
  bool direct;     // C is written in place (sizes are multiples of 32)
  size_t w_bytes, x_bytes, c_bytes;

  AmxLayout(int64_t m, int64_t n, int64_t k)
      : tiles(ceil_div(k, kTileK)),
        wpairs(ceil_div(m, 2 * kPanelRows)),
        xpairs(ceil_div(n, 2 * kPanelRows)),
        direct(m % 32 == 0 && n % 32 == 0) {
    const size_t panel = static_cast<size_t>(tiles * kTileElems) * sizeof(uint16_t);
    w_bytes = align_up(panel * static_cast<size_t>(2 * wpairs));
    x_bytes = align_up(panel * static_cast<size_t>(2 * xpairs));
    c_bytes = direct ? 0 : align_up(static_cast<size_t>(32 * xpairs * 32 * wpairs) * sizeof(float));
  }
  int64_t panel_stride() const { return tiles * kTileElems; }
};

// Packs W's panels, and X's unless they are packed already.
void pack(KernelContext& ctx, const GemmProblem& p, const AmxLayout& l, uint16_t* wp, uint16_t* xp,
          bool x_packed) {
  const AmxFns& a = ctx.k().amx;
  const int64_t wpanels = 2 * l.wpairs, units = wpanels + (x_packed ? 0 : 2 * l.xpairs);
  const int64_t tasks = task_count(units, kPanelRows * p.k, ctx.threads());
  ctx.parallel(tasks, [&](int64_t task, int) {
    const Range r = split_range(units, tasks, task);
    for (int64_t u = r.begin; u < r.end; ++u) {
      if (u < wpanels) {
        const int64_t rows = std::clamp<int64_t>(p.m - u * kPanelRows, 0, kPanelRows);
        const auto* w = static_cast<const std::byte*>(p.w) +
                        static_cast<size_t>(std::min(u * kPanelRows, p.m - 1)) * p.w_stride;
        a.pack_w(w, p.w_stride, rows, p.k, wp + u * l.panel_stride());
      } else {
        const int64_t i = u - wpanels;
        const int64_t rows = std::clamp<int64_t>(p.n - i * kPanelRows, 0, kPanelRows);
        a.pack_x(p.x + std::min(i * kPanelRows, p.n - 1) * p.x_stride, p.x_stride, rows, p.k,
                 xp + i * l.panel_stride());
      }
    }
  });
}

// The padded C back into the output, in parallel over rows.
void copy_out(KernelContext& ctx, const GemmProblem& p, const float* c, int64_t ldc) {
  const int64_t tasks = task_count(p.n, p.m, ctx.threads());
  ctx.parallel(tasks, [&](int64_t task, int) {
    const Range r = split_range(p.n, tasks, task);
    for (int64_t i = r.begin; i < r.end; ++i) std::copy_n(c + i * ldc, p.m, p.c + i * p.ldc);
  });
}

}  // namespace

size_t cpu_amx_work_size(int64_t m, int64_t n, int64_t k) {
  const AmxLayout l(m, n, k);
  return l.w_bytes + l.x_bytes + l.c_bytes;
}

void cpu_amx_gemm(KernelContext& ctx, const GemmProblem& p, std::byte* work, bool x_packed) {
  const AmxLayout l(p.m, p.n, p.k);
  // X first: its place depends on n and k only, so a later panel of the same W finds it there.
  auto* xp = reinterpret_cast<uint16_t*>(work);
  auto* wp = reinterpret_cast<uint16_t*>(work + l.x_bytes);
  float* c = l.direct ? p.c : reinterpret_cast<float*>(work + l.x_bytes + l.w_bytes);
  const int64_t ldc = l.direct ? p.ldc : 32 * l.wpairs;
  pack(ctx, p, l, wp, xp, x_packed);

  const int64_t xblocks = ceil_div(l.xpairs, kXPairs), wblocks = ceil_div(l.wpairs, kWPairs);
  const int64_t units = xblocks * wblocks;
  const int64_t tasks = task_count(units, 256 * 256 * 4, ctx.threads()) == 1 ? 1 : units;
  const AmxFns& a = ctx.k().amx;
  const int64_t ps = l.panel_stride();
  ctx.parallel(tasks, [&](int64_t task, int) {
    const Range r = split_range(units, tasks, task);
    for (int64_t u = r.begin; u < r.end; ++u) {
      const int64_t xb = u % xblocks, wb = u / xblocks;
      const int64_t ip0 = xb * kXPairs, jp0 = wb * kWPairs;
      const int64_t ipairs = std::min(kXPairs, l.xpairs - ip0), jpairs = std::min(kWPairs, l.wpairs - jp0);
      for (int64_t t0 = 0; t0 < l.tiles; t0 += kBlockTiles) {
        a.compute(xp + 2 * ip0 * ps, wp + 2 * jp0 * ps, ps, ipairs, jpairs, t0,
                  std::min(l.tiles, t0 + kBlockTiles), c + ip0 * 32 * ldc + jp0 * 32, ldc, t0 > 0);
      }
    }
  });
  if (!l.direct) copy_out(ctx, p, c, ldc);
}

}  // namespace bk
