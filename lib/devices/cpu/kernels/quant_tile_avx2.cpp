// SPDX-License-Identifier: MIT
// The avx2 tier's integer tiles for quantized weights (kernel_table.h, QuantTileFns), which the
// avx512 tier keeps on CPUs without AVX512_VNNI: 4 W rows times 16 packed X columns (two vectors
// of 8) a tile, each step one broadcast weight pair per row against the two X vectors (vpmaddwd:
// 8 columns x 2 elements, then vpaddd), a block's sums converted and scaled once. vpmaddwd does
// 16 multiply-adds an instruction where an f32 FMA on 256 bits does 8 (docs/performance.md,
// "integer tiles"). Decoding and the loop around the tile: quant_tile_rows.h. Compiled with
// -mavx2 -mfma -mf16c.
#include <immintrin.h>

#include "devices/cpu/kernels/kernel_table.h"
#include "devices/cpu/kernels/quant_tile_rows.h"

namespace bk {
namespace {

constexpr int kRows = 4;  // W rows a tile: 8 accumulators, the X pair and a weight in 16 registers

// Rows [r0, r0 + 4) of w's 8 times one group of x over blocks [b0, b1), added to sums (8 rows x
// 16 columns): each step 2 X loads and 4 broadcasts for 8 vpmaddwd; a block's 16 steps sum in
// int32, then each sum is converted and multiplied by a (row) times d (column), and, with
// offsets, b (row) times dsum (column) added.
template <bool kOffsets>
void half_tile(const QTileW* w, const QTileX* x, int64_t b0, int64_t b1, int r0, float* sums) {
  for (int64_t b = b0; b < b1; ++b) {
    const QTileW& wb = w[b];
    const QTileX& xb = x[b];
    __m256i acc[kRows][2];
    for (auto& row : acc) row[0] = row[1] = _mm256_setzero_si256();
#pragma GCC unroll 2
    for (int p = 0; p < 16; ++p) {
      __m256i x0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(xb.pairs[p]));
      __m256i x1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(xb.pairs[p] + 8));
      __asm__("" : "+x"(x0), "+x"(x1));  // loaded once, not folded into each vpmaddwd
#pragma GCC unroll 4
      for (int r = 0; r < kRows; ++r) {
        int32_t pair;
        __builtin_memcpy(&pair, &wb.w[r0 + r][2 * p], sizeof pair);
        const __m256i wv = _mm256_set1_epi32(pair);
        acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(x0, wv));
        acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(x1, wv));
      }
    }
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r) {
      const __m256 a = _mm256_set1_ps(wb.a[r0 + r]);
      for (int h = 0; h < 2; ++h) {
        float* s = sums + (r0 + r) * 16 + 8 * h;
        const __m256 scale = _mm256_mul_ps(a, _mm256_load_ps(xb.d + 8 * h));
        __m256 v = _mm256_fmadd_ps(_mm256_cvtepi32_ps(acc[r][h]), scale, _mm256_load_ps(s));
        if constexpr (kOffsets) {
          v = _mm256_fmadd_ps(_mm256_set1_ps(wb.b[r0 + r]), _mm256_load_ps(xb.dsum + 8 * h), v);
        }
        _mm256_store_ps(s, v);
      }
    }
  }
}

template <bool kOffsets>
void tile(const QTileW* w, const QTileX* x, int64_t blocks, int64_t b0, int64_t b1, float* sums) {
  (void)blocks;  // one group: x is the group's blocks
  half_tile<kOffsets>(w, x, b0, b1, 0, sums);
  half_tile<kOffsets>(w, x, b0, b1, kRows, sums);
}

// One group (16 columns) at a time.
void multiply(const QTileW* w, int64_t m, const QTileX* x, int64_t n, int64_t k, bool offsets, float* c,
              int64_t ldc) {
  const int64_t blocks = k / kQTileBlock;
  for (int64_t i0 = 0; i0 < n; i0 += 16, x += blocks, c += 16 * ldc) {
    const int64_t cols = n - i0 < 16 ? n - i0 : 16;
    if (offsets) {
      tile_rows<1>(w, m, x, cols, blocks, c, ldc, tile<true>);
    } else {
      tile_rows<1>(w, m, x, cols, blocks, c, ldc, tile<false>);
    }
  }
}

}  // namespace

void cpu_fill_quant_tile_avx2(CpuKernels& t) {
  fill_tile_decoders(t.quant_tile);
  t.quant_tile.multiply = multiply;
}

}  // namespace bk
