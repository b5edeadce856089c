// SPDX-License-Identifier: MIT
#pragma once
// What the integer tiles of the tiers share (quant_tile_avx2.cpp, quant_tile_avx512.cpp;
// kernel_table.h, QuantTileFns): decoding quantized rows to QTileW blocks (256-bit
// work, the same on both tiers), and the loop over blocks of W rows and chunks of k that calls a
// tier's register tile and writes each block's sums to C. Included only by those units; internal
// linkage, as kernel_table.h requires of what tier units instantiate.

#include <immintrin.h>

#include <cstdint>

#include "devices/cpu/kernels/block_scales.h"
#include "devices/cpu/kernels/kernel_table.h"

namespace bk {
namespace {

inline constexpr int64_t kQTileBlock = 32;

inline __m128i tile_low_nibbles(__m128i v) { return _mm_and_si128(v, _mm_set1_epi8(0x0F)); }
inline __m128i tile_high_nibbles(__m128i v) { return tile_low_nibbles(_mm_srli_epi16(v, 4)); }

// Row r of a QTileW: 32 weights from two vectors of 16 int16, W = a w + b.
inline void tile_put(QTileW& t, int r, __m256i low, __m256i high, float a, float b) {
  _mm256_store_si256(reinterpret_cast<__m256i*>(t.w[r]), low);
  _mm256_store_si256(reinterpret_cast<__m256i*>(t.w[r] + 16), high);
  t.a[r] = a;
  t.b[r] = b;
}

// Row decoders: every block of one W row into row r of its QTileW (t[b]).

// q8_0: d, 32 int8: W = d q.
inline void q8_0_tile_row(const uint8_t* row, int64_t blocks, QTileW* t, int r) {
  for (int64_t b = 0; b < blocks; ++b, row += 34) {
    const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 2));
    const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 18));
    tile_put(t[b], r, _mm256_cvtepi8_epi16(lo), _mm256_cvtepi8_epi16(hi), f16_at(row), 0.0f);
  }
}

// q4_0: d, 16 bytes holding element j in the low and j + 16 in the high nibble: W = d (q - 8).
inline void q4_0_tile_row(const uint8_t* row, int64_t blocks, QTileW* t, int r) {
  const __m256i eight = _mm256_set1_epi16(8);
  for (int64_t b = 0; b < blocks; ++b, row += 18) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 2));
    tile_put(t[b], r, _mm256_sub_epi16(_mm256_cvtepu8_epi16(tile_low_nibbles(v)), eight),
             _mm256_sub_epi16(_mm256_cvtepu8_epi16(tile_high_nibbles(v)), eight), f16_at(row), 0.0f);
  }
}

// q4_k: d, dmin, the 6-bit scales and minimums of 8 groups of 32, then 4 chunks of 32 bytes
// whose low nibbles are group 2c and high nibbles group 2c + 1: W = (d sc) q - dmin m.
inline void q4_k_tile_row(const uint8_t* row, int64_t blocks, QTileW* t, int r) {
  for (int64_t b = 0; b < blocks; b += 8, row += 144) {
    const float d = f16_at(row), dmin = f16_at(row + 2);
    uint64_t scales, mins;
    q4_k_scale_and_min_bytes(row + 4, scales, mins);
    for (int c = 0; c < 4; ++c) {
      const uint8_t* q = row + 16 + 32 * c;
      const __m128i v0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
      const __m128i v1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q + 16));
      for (int h = 0; h < 2; ++h) {
        const int g = 2 * c + h;
        const auto sc = static_cast<float>((scales >> (8 * g)) & 0xFF);
        const auto m = static_cast<float>((mins >> (8 * g)) & 0xFF);
        const __m128i c0 = h == 0 ? tile_low_nibbles(v0) : tile_high_nibbles(v0);
        const __m128i c1 = h == 0 ? tile_low_nibbles(v1) : tile_high_nibbles(v1);
        tile_put(t[b + g], r, _mm256_cvtepu8_epi16(c0), _mm256_cvtepu8_epi16(c1), d * sc, -(dmin * m));
      }
    }
  }
}

// q6_k: 128 bytes of low nibbles, 64 bytes of high bit pairs, 16 int8 scales, d. Each half of
// 128 elements holds four runs of 32: run t takes its low four bits from bytes ql[32 (t % 2) + l]
// (low nibble for t < 2, high for t >= 2) and its top two from bits 2t, 2t + 1 of qh[l]; W = d
// (sc (q - 32)), a scale per 16 elements, so the int16 weights hold the scales (at most 4096).
inline void q6_k_tile_row(const uint8_t* row, int64_t blocks, QTileW* t, int r) {
  const __m256i low4 = _mm256_set1_epi8(0x0F), low2 = _mm256_set1_epi8(0x03);
  const __m256i offset = _mm256_set1_epi16(32);
  for (int64_t b = 0; b < blocks; b += 8, row += 210) {
    const auto* scales = reinterpret_cast<const int8_t*>(row + 192);
    const float d = f16_at(row + 208);
    for (int half = 0; half < 2; ++half) {
      const uint8_t* ql = row + 64 * half;
      const __m256i qh = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + 128 + 32 * half));
      for (int run = 0; run < 4; ++run) {
        const __m256i l = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ql + 32 * (run % 2)));
        const __m256i low = _mm256_and_si256(run < 2 ? l : _mm256_srli_epi16(l, 4), low4);
        const __m256i top = _mm256_and_si256(_mm256_srli_epi16(qh, 2 * run), low2);
        const __m256i q = _mm256_or_si256(low, _mm256_slli_epi16(top, 4));  // 0..63, a byte each
        const int8_t* sc = scales + 8 * half + 2 * run;
        const __m256i w0 = _mm256_sub_epi16(_mm256_cvtepu8_epi16(_mm256_castsi256_si128(q)), offset);
        const __m256i w1 = _mm256_sub_epi16(_mm256_cvtepu8_epi16(_mm256_extracti128_si256(q, 1)), offset);
        tile_put(t[b + 4 * half + run], r, _mm256_mullo_epi16(w0, _mm256_set1_epi16(sc[0])),
                 _mm256_mullo_epi16(w1, _mm256_set1_epi16(sc[1])), d, 0.0f);
      }
    }
  }
}

// QuantTileFns::decode for the row decoder Row.
template <void (*Row)(const uint8_t*, int64_t, QTileW*, int)>
void decode_tile_rows(const void* w, size_t w_stride, int64_t m, int64_t k, QTileW* dst) {
  const int64_t blocks = k / kQTileBlock;
  for (int64_t g = 0; g * kQTileRows < m; ++g) {
    QTileW* t = dst + g * blocks;
    for (int r = 0; r < kQTileRows; ++r) {
      const int64_t j = g * kQTileRows + r;
      if (j < m) {
        Row(static_cast<const uint8_t*>(w) + static_cast<size_t>(j) * w_stride, blocks, t, r);
        continue;
      }
      for (int64_t b = 0; b < blocks; ++b)
        tile_put(t[b], r, _mm256_setzero_si256(), _mm256_setzero_si256(), 0.0f, 0.0f);
    }
  }
}

inline void fill_tile_decoders(QuantTileFns& f) {
  f.decode[static_cast<int>(QuantType::q8_0)] = decode_tile_rows<q8_0_tile_row>;
  f.decode[static_cast<int>(QuantType::q4_0)] = decode_tile_rows<q4_0_tile_row>;
  f.decode[static_cast<int>(QuantType::q4_k)] = decode_tile_rows<q4_k_tile_row>;
  f.decode[static_cast<int>(QuantType::q6_k)] = decode_tile_rows<q6_k_tile_row>;
}

// W rows per block of the loop below: its sums (64 rows x G groups x 16 floats, at most 8 KiB)
// stay in L1 across the chunks of k.
inline constexpr int64_t kQTileBlockRows = 64;
// Blocks of k per chunk: the chunk's X (at most two groups, 9 KiB) stays in L1 across a block's
// row groups, which read W from L2 once each.
inline constexpr int64_t kQTileChunkBlocks = 4;

// Rows [0, m) of w times G groups of x (n <= 16 G columns): blocks of kQTileBlockRows rows, each
// over chunks of k by row groups of 8 through tile(w_group, x, blocks, b0, b1, sums) (the
// tier's register tile: the group's 8 rows times the G groups over blocks [b0, b1), added to
// sums, 8 rows x G groups x 16 floats), then written to C.
template <int G, typename Tile>
void tile_rows(const QTileW* w, int64_t m, const QTileX* x, int64_t n, int64_t blocks, float* c, int64_t ldc,
               Tile tile) {
  alignas(64) float sums[kQTileBlockRows * G * 16];
  for (int64_t j0 = 0; j0 < m; j0 += kQTileBlockRows) {
    const int64_t rows = m - j0 < kQTileBlockRows ? m - j0 : kQTileBlockRows;
    const int64_t row_groups = (rows + kQTileRows - 1) / kQTileRows;
    for (auto& s : sums) s = 0.0f;
    for (int64_t b0 = 0; b0 < blocks; b0 += kQTileChunkBlocks) {
      const int64_t b1 = blocks - b0 < kQTileChunkBlocks ? blocks : b0 + kQTileChunkBlocks;
      for (int64_t rg = 0; rg < row_groups; ++rg)
        tile(w + (j0 / kQTileRows + rg) * blocks, x, blocks, b0, b1, sums + rg * kQTileRows * G * 16);
    }
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t i = 0; i < n; ++i) c[i * ldc + j0 + r] = sums[(r * G + i / 16) * 16 + i % 16];
    }
  }
}

}  // namespace
}  // namespace bk
