// SPDX-License-Identifier: MIT
// The amx tier's additions to the avx512 tier: bf16-weight mul_mat on AMX tiles (tdpbf16ps,
// a 32 x 32 C block in four accumulator tiles), its packers (X f32 -> bf16 rows with
// vcvtne2ps2bf16, W bf16 -> VNNI pairs by gathers) and the bf16 peak-arithmetic loop.
// Compiled with -mamx-tile -mamx-bf16 -mavx512f -mavx512bf16 -mavx512bw -mavx512vl; reached only
// through the amx table, which dispatch.cpp hands out once cpuid and the OS (Linux
// arch_prctl(ARCH_REQ_XCOMP_PERM)) allow tiles. See kernel_table.h for what this file may include.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#include <string.h>

#include "devices/cpu/kernels/kernel_table.h"

namespace bk {
namespace {

constexpr int64_t kTileK = 32;       // bf16 values per tile row (64 bytes)
constexpr int64_t kTileElems = 512;  // uint16 per packed tile
constexpr int kTileRowBytes = 64;

// The LDTILECFG layout (Intel SDM vol. 1, 3.2): palette 1, every tile 16 rows x 64 bytes.
struct TileConfig {
  uint8_t palette;
  uint8_t start_row;
  uint8_t reserved[14];
  uint16_t colsb[16];
  uint8_t rows[16];
};

void configure_tiles() {
  TileConfig cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.palette = 1;
  for (int t = 0; t < 8; ++t) {
    cfg.colsb[t] = kTileRowBytes;
    cfg.rows[t] = 16;
  }
  _tile_loadconfig(&cfg);
}

int64_t tiles_of(int64_t k) { return (k + kTileK - 1) / kTileK; }

// The first n of 16 lanes (n may be <= 0 or >= 16).
__mmask16 mask_of(int64_t n) {
  if (n <= 0) return 0;
  return static_cast<__mmask16>(n >= 16 ? 0xFFFFu : (1u << n) - 1u);
}

void pack_x(const float* x, int64_t x_stride, int64_t rows, int64_t k, uint16_t* dst) {
  const int64_t kt = tiles_of(k);
  for (int64_t t = 0; t < kt; ++t) {
    const int64_t k0 = t * kTileK, left = k - k0;
    const __mmask16 lo = mask_of(left), hi = mask_of(left - 16);
    for (int64_t i = 0; i < 16; ++i) {
      __m512i v = _mm512_setzero_si512();
      if (i < rows) {
        const float* src = x + i * x_stride + k0;
        const __m512 a = _mm512_maskz_loadu_ps(lo, src), b = _mm512_maskz_loadu_ps(hi, src + 16);
        v = reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(b, a));
      }
      _mm512_store_si512(dst + t * kTileElems + i * kTileK, v);
    }
  }
}

// One W tile the slow way: any rows, any k edge.
void pack_w_edge(const uint16_t* base, size_t w_stride, int64_t rows, int64_t k, int64_t k0, uint16_t* tile) {
  for (int64_t kp = 0; kp < 16; ++kp) {
    for (int64_t j = 0; j < 16; ++j) {
      const uint16_t* row = reinterpret_cast<const uint16_t*>(reinterpret_cast<const unsigned char*>(base) +
                                                              static_cast<size_t>(j) * w_stride);
      for (int64_t q = 0; q < 2; ++q) {
        const int64_t kk = k0 + 2 * kp + q;
        tile[(kp * 16 + j) * 2 + q] = j < rows && kk < k ? row[kk] : 0;
      }
    }
  }
}

void pack_w(const void* w, size_t w_stride, int64_t rows, int64_t k, uint16_t* dst) {
  const auto* base = static_cast<const uint16_t*>(w);
  const int64_t kt = tiles_of(k);
  // A full tile gathers one 32-bit pair from each of the 16 rows per k pair (offsets in int32).
  const bool gather = rows == 16 && w_stride * 16 < (1u << 31);
  const __m512i offsets =
      _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                         _mm512_set1_epi32(static_cast<int>(gather ? w_stride : 0)));
  for (int64_t t = 0; t < kt; ++t) {
    const int64_t k0 = t * kTileK;
    uint16_t* tile = dst + t * kTileElems;
    if (!gather || k0 + kTileK > k) {
      pack_w_edge(base, w_stride, rows, k, k0, tile);
      continue;
    }
    for (int64_t kp = 0; kp < 16; ++kp) {
      const __m512i v = _mm512_i32gather_epi32(offsets, base + k0 + 2 * kp, 1);
      _mm512_store_si512(tile + kp * 32, v);
    }
  }
}

void compute(const uint16_t* xp, const uint16_t* wp, int64_t panel_stride, int64_t ipairs, int64_t jpairs,
             int64_t t0, int64_t t1, float* c, int64_t ldc, bool accumulate) {
  configure_tiles();
  const int64_t cstride = ldc * static_cast<int64_t>(sizeof(float));
  for (int64_t jp = 0; jp < jpairs; ++jp) {
    const uint16_t* b0 = wp + 2 * jp * panel_stride;
    const uint16_t* b1 = b0 + panel_stride;
    for (int64_t ip = 0; ip < ipairs; ++ip) {
      const uint16_t* a0 = xp + 2 * ip * panel_stride;
      const uint16_t* a1 = a0 + panel_stride;
      float* c00 = c + ip * 32 * ldc + jp * 32;
      float* c10 = c00 + 16 * ldc;
      if (accumulate) {
        _tile_loadd(0, c00, cstride);
        _tile_loadd(1, c00 + 16, cstride);
        _tile_loadd(2, c10, cstride);
        _tile_loadd(3, c10 + 16, cstride);
      } else {
        _tile_zero(0);
        _tile_zero(1);
        _tile_zero(2);
        _tile_zero(3);
      }
      for (int64_t t = t0; t < t1; ++t) {
        _tile_loadd(4, a0 + t * kTileElems, kTileRowBytes);
        _tile_loadd(6, b0 + t * kTileElems, kTileRowBytes);
        _tile_loadd(7, b1 + t * kTileElems, kTileRowBytes);
        _tile_dpbf16ps(0, 4, 6);
        _tile_dpbf16ps(1, 4, 7);
        _tile_loadd(5, a1 + t * kTileElems, kTileRowBytes);
        _tile_dpbf16ps(2, 5, 6);
        _tile_dpbf16ps(3, 5, 7);
      }
      _tile_stored(0, c00, cstride);
      _tile_stored(1, c00 + 16, cstride);
      _tile_stored(2, c10, cstride);
      _tile_stored(3, c10 + 16, cstride);
    }
  }
  _tile_release();
}

// Peak bf16 arithmetic: four independent accumulator tiles, each tdpbf16ps 16 x 16 x 32
// multiply-adds, on operands held in tiles (zeros: the timing does not depend on values).
constexpr double kPeakFlops = 4.0 * 16 * 16 * 32 * 2;

void peak_bf16(int64_t iterations, float* sink) {
  configure_tiles();
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  _tile_zero(4);
  _tile_zero(5);
  _tile_zero(6);
  _tile_zero(7);
  for (int64_t i = 0; i < iterations; ++i) {
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 4, 7);
    _tile_dpbf16ps(2, 5, 6);
    _tile_dpbf16ps(3, 5, 7);
  }
  alignas(64) float out[256];
  _tile_stored(0, out, 64);
  _tile_release();
  *sink = out[0];
}

}  // namespace

void cpu_fill_matmul_amx(CpuKernels& t) {
  t.amx.pack_x = pack_x;
  t.amx.pack_w = pack_w;
  t.amx.compute = compute;
  t.peak_bf16 = PeakFn{kPeakFlops, peak_bf16};
}

}  // namespace bk
