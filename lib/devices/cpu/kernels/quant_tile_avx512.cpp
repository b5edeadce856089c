// SPDX-License-Identifier: MIT
// The avx512 tiers' integer tiles for quantized weights (kernel_table.h, QuantTileFns) on CPUs
// with AVX512_VNNI: 8 W rows times 16 or 32 packed X columns a tile, each step one broadcast
// weight pair per row against one X vector per group (vpdpwssd: 16 columns x 2 elements), a
// block's sums converted and scaled once. The f32 path this replaces decodes W to floats and runs
// FMAs at 16 multiply-adds an instruction; vpdpwssd does 32 at the same two a cycle
// (docs/performance.md, "integer tiles"). Decoding and the loop around the tile:
// quant_tile_rows.h. Compiled with -mavx512f -mavx512bw -mavx512vl -mavx512vnni -mavx2 -mfma
// -mf16c; dispatch.cpp fills it only where cpuid reports AVX512_VNNI. GCC 12 reports its own
// _mm512_undefined_*() placeholders inside the AVX-512 intrinsics as uninitialised (a known false
// positive); nothing in this file reads uninitialised data.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include "devices/cpu/kernels/kernel_table.h"
#include "devices/cpu/kernels/quant_tile_rows.h"

namespace bk {
namespace {

// The 8 rows of w times G groups of x over blocks [b0, b1), added to sums (8 rows x G groups x
// 16 columns). Each step loads one X vector per group and broadcasts a weight pair per row: 8 G
// vpdpwssd per 8 + G loads; a block's 16 steps sum in int32, then each sum is converted and
// multiplied by a (row) times d (column), and, with offsets, b (row) times dsum (column) added.
template <int G, bool kOffsets>
void tile(const QTileW* w, const QTileX* x, int64_t blocks, int64_t b0, int64_t b1, float* sums) {
  for (int64_t b = b0; b < b1; ++b) {
    const QTileW& wb = w[b];
    __m512i acc[kQTileRows][G];
    for (auto& row : acc) {
      for (auto& v : row) v = _mm512_setzero_si512();
    }
#pragma GCC unroll 16
    for (int p = 0; p < 16; ++p) {
      __m512i xv[G];
      for (int g = 0; g < G; ++g) {
        xv[g] = _mm512_load_si512(x[g * blocks + b].pairs[p]);
        __asm__("" : "+v"(xv[g]));  // one load per step, not one folded into each vpdpwssd
      }
#pragma GCC unroll 8
      for (int r = 0; r < kQTileRows; ++r) {
        int32_t pair;
        __builtin_memcpy(&pair, &wb.w[r][2 * p], sizeof pair);
        const __m512i wv = _mm512_set1_epi32(pair);
        for (int g = 0; g < G; ++g) acc[r][g] = _mm512_dpwssd_epi32(acc[r][g], xv[g], wv);
      }
    }
    for (int g = 0; g < G; ++g) {
      const QTileX& xb = x[g * blocks + b];
      const __m512 d = _mm512_load_ps(xb.d);
#pragma GCC unroll 8
      for (int r = 0; r < kQTileRows; ++r) {
        float* s = sums + (r * G + g) * 16;
        const __m512 scale = _mm512_mul_ps(_mm512_set1_ps(wb.a[r]), d);
        __m512 v = _mm512_fmadd_ps(_mm512_cvtepi32_ps(acc[r][g]), scale, _mm512_load_ps(s));
        if constexpr (kOffsets) v = _mm512_fmadd_ps(_mm512_set1_ps(wb.b[r]), _mm512_load_ps(xb.dsum), v);
        _mm512_store_ps(s, v);
      }
    }
  }
}

template <int G>
void columns(const QTileW* w, int64_t m, const QTileX* x, int64_t n, int64_t blocks, bool offsets, float* c,
             int64_t ldc) {
  if (offsets) return tile_rows<G>(w, m, x, n, blocks, c, ldc, tile<G, true>);
  tile_rows<G>(w, m, x, n, blocks, c, ldc, tile<G, false>);
}

// Two groups (32 columns) a tile, the last one or two alone.
void multiply(const QTileW* w, int64_t m, const QTileX* x, int64_t n, int64_t k, bool offsets, float* c,
              int64_t ldc) {
  const int64_t blocks = k / kQTileBlock;
  for (int64_t i0 = 0; i0 < n; i0 += 32, x += 2 * blocks, c += 32 * ldc) {
    const int64_t cols = n - i0 < 32 ? n - i0 : 32;
    if (cols > 16) {
      columns<2>(w, m, x, cols, blocks, offsets, c, ldc);
    } else {
      columns<1>(w, m, x, cols, blocks, offsets, c, ldc);
    }
  }
}

}  // namespace

void cpu_fill_quant_tile_avx512(CpuKernels& t) {
  fill_tile_decoders(t.quant_tile);
  t.quant_tile.multiply = multiply;
}

}  // namespace bk
