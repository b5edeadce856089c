// SPDX-License-Identifier: MIT
// The avx512 tiers' fused decode-and-dot path for q4_0 and q4_k weights (kernel_table.h,
// GemvQuantFn; q8_0 and q6_k keep the avx2 kernels), on CPUs with AVX512_VNNI. Same arithmetic as
// quant_dot_avx2.cpp (weights decoded to int16, vpmaddwd with the 16-bit activations, one float
// multiply-add per 32 elements for the scales), with what held that kernel back taken out of the
// per-block work (docs/performance.md, "AVX-512 fused kernels"):
//   - eight blocks' scales at once (quant_dot_segment.h, as the avx2 kernels for these types):
//     the f16 weight scales of a group of eight blocks picked out of its bytes by one vpermt2w
//     and multiplied by the activations' scales; q4_0's offset and q4_k's minimums are one
//     multiply-add a group;
//   - 512-bit integer work: q4_0 two blocks a zmm (vpdpwssd adding the high nibbles' products),
//     its activations laid out in block pairs beforehand (pair_halves, the tier's gemv_quant_x)
//     so that each operand is one aligned load; q4_k a block a zmm, its 6-bit scales multiplied
//     into the weights and a whole super block summed in int32 (its activations share a scale).
// k may be any multiple of the type's block: q4_0 runs whole groups of eight blocks, then the
// rest a block at a time. Compiled with -mavx512f -mavx512bw -mavx512vl -mavx512vnni
// -mavx2 -mfma -mf16c; dispatch.cpp fills it only where cpuid reports AVX512_VNNI.
// GCC 12 warns that the casts from 256 to 512 bits read their undefined upper half.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include "devices/cpu/kernels/block_scales.h"
#include "devices/cpu/kernels/kernel_table.h"
#include "devices/cpu/kernels/quant_dot_segment.h"

namespace bk {
namespace {

// Lane b of v in the low eight lanes of a zmm and lane b + 1 in the high.
__m512 lane_pair(__m256 v, int b) {
  return _mm512_permutexvar_ps(
      _mm512_set_epi32(b + 1, b + 1, b + 1, b + 1, b + 1, b + 1, b + 1, b + 1, b, b, b, b, b, b, b, b),
      _mm512_castps256_ps512(v));
}

__m512i x_block(const XBlock16& a) { return _mm512_load_si512(a.q); }

// q4_0's activation layout (gemv_quant_x): in every group of eight blocks, each pair of blocks a,
// b holds a's elements 0-15 then b's 0-15 in a, and a's 16-31 then b's 16-31 in b: what the
// low and the high nibbles of the pair's two weight blocks meet, one aligned load each. The
// blocks after the last whole group stay as they are (the kernel takes them one at a time).
void pair_halves(XBlock16* x, int64_t blocks) {
  for (int64_t b = 0; b + 1 < blocks / kGroup * kGroup; b += 2) {
    int16_t* a_high = x[b].q + 16;
    int16_t* b_low = x[b + 1].q;
    for (int i = 0; i < 16; ++i) {
      const int16_t t = a_high[i];
      a_high[i] = b_low[i];
      b_low[i] = t;
    }
  }
}

float reduce(__m512 a, __m512 b) { return _mm512_reduce_add_ps(_mm512_add_ps(a, b)); }
float reduce(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
}

// Per column: two zmm accumulators for the scaled block products, one ymm for the group terms
// (offsets, minimums) that the type subtracts at the end.
template <int C>
struct Acc {
  __m512 a0[C], a1[C];
  __m256 off[C];
  Acc() {
    for (int i = 0; i < C; ++i) {
      a0[i] = a1[i] = _mm512_setzero_ps();
      off[i] = _mm256_setzero_ps();
    }
  }
};

// q4_0: d, 16 bytes holding element j in the low and j + 16 in the high nibble, offset 8; two
// blocks a zmm. The offset is taken out through the activations' sums, one multiply-add a group.
struct Q4_0 {
  static constexpr int64_t kBlockBytes = 18, kBlocksPerUnit = 1;

  // Two blocks' 32 nibble bytes as int16: low nibbles (elements 0-15 of a, then of b) and high.
  static void decode_pair(const uint8_t* w, __m512i& low, __m512i& high) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w + 2));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w + 20));
    const __m512i bytes = _mm512_cvtepu8_epi16(_mm256_inserti128_si256(_mm256_castsi128_si256(a), b, 1));
    low = _mm512_and_si512(bytes, _mm512_set1_epi16(0x0F));
    high = _mm512_srli_epi16(bytes, 4);
  }

  template <int C>
  static void group(const uint8_t* w, const XBlock16* x, int64_t x_stride, const XScales* s, int64_t b0,
                    Acc<C>& acc) {
    // The eight f16 scales at bytes 18 b, words 9 b of the group's first 128 bytes.
    const __m512i index = _mm512_set_epi16(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                           0, 0, 63, 54, 45, 36, 27, 18, 9, 0);
    const __m512i picked =
        _mm512_permutex2var_epi16(_mm512_loadu_si512(w), index, _mm512_loadu_si512(w + 64));
    const __m256 dw = _mm256_cvtph_ps(_mm512_castsi512_si128(picked));
    __m256 scale[C];
    for (int i = 0; i < C; ++i) {
      scale[i] = _mm256_mul_ps(dw, _mm256_load_ps(s[i].d + b0));
      acc.off[i] = _mm256_fmadd_ps(dw, _mm256_load_ps(s[i].q + b0), acc.off[i]);
    }
#pragma GCC unroll 4
    for (int pair = 0; pair < kGroup / 2; ++pair) {
      __m512i low, high;
      decode_pair(w + 36 * pair, low, high);
#pragma GCC unroll 4
      for (int i = 0; i < C; ++i) {
        const XBlock16* xb = x + i * x_stride + 2 * pair;  // laid out by pair_halves
        const __m512i dot = _mm512_dpwssd_epi32(_mm512_madd_epi16(low, x_block(xb[0])), high, x_block(xb[1]));
        __m512& a = pair % 2 == 0 ? acc.a0[i] : acc.a1[i];
        a = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot), lane_pair(scale[i], 2 * pair), a);
      }
    }
  }

  template <int C>
  static void block(const uint8_t* w, const XBlock16* x, int64_t x_stride, const XScales* s, int64_t b,
                    Acc<C>& acc) {
    // One block: its bytes as [low | high] nibbles against the block's 32 activations.
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w + 2));
    const __m256i nibbles =
        _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_and_si128(v, _mm_set1_epi8(0x0F))),
                                _mm_and_si128(_mm_srli_epi16(v, 4), _mm_set1_epi8(0x0F)), 1);
    const __m512i wq = _mm512_cvtepu8_epi16(nibbles);
    const float dw = f16_at(w);
    for (int i = 0; i < C; ++i) {
      const __m512 p = _mm512_cvtepi32_ps(_mm512_madd_epi16(wq, x_block(x[i * x_stride])));
      acc.a0[i] = _mm512_fmadd_ps(p, _mm512_set1_ps(dw * s[i].d[b]), acc.a0[i]);
      acc.off[i] = _mm256_add_ps(acc.off[i], _mm256_setr_ps(dw * s[i].q[b], 0, 0, 0, 0, 0, 0, 0));
    }
  }

  template <int C>
  static float finish(const Acc<C>& acc, int i) {
    return reduce(acc.a0[i], acc.a1[i]) - 8.0f * reduce(acc.off[i]);
  }
};

// A q4_k super block's eight 6-bit scales, each in both halves of a 32-bit word of scale_pair
// (so that a 32-bit broadcast from memory, a load, puts it in every 16-bit lane), and its
// minimums' terms (dmin * min_g * the activations' d * sum) added to off for each of C columns.
template <int C>
void q4_k_scales_and_minimums(const uint8_t* w, const XScales* s, int64_t b0, uint32_t (&scale_pair)[8],
                              __m256 (&off)[C]) {
  uint64_t scale6, min6;
  q4_k_scale_and_min_bytes(w + 4, scale6, min6);
  const __m256i s32 = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<int64_t>(scale6)));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(scale_pair),
                      _mm256_or_si256(s32, _mm256_slli_epi32(s32, 16)));
  // Read back from memory: left in a register, the compiler extracts each word with shuffles,
  // which compete with the nibbles' widening for one port.
  asm("" : "+m"(scale_pair));
  const __m256 dmin = _mm256_mul_ps(_mm256_set1_ps(f16_at(w + 2)), bytes_as_floats(min6));
  for (int i = 0; i < C; ++i) off[i] = _mm256_fmadd_ps(dmin, _mm256_load_ps(s[i].q + b0), off[i]);
}

// q4_k: d, dmin, 12 bytes of 6-bit scales and minimums for 8 groups of 32, then 4 chunks of 32
// bytes whose low nibbles are group 2c and high nibbles group 2c + 1: x = d * scale * q - dmin *
// min. A super block is one group of eight activation blocks, which share one scale
// (x16_blocks_per_scale), so its products are summed in integers: each group's 6-bit scale is
// multiplied into its decoded 16-bit weights (at most 15 * 63), vpdpwssd adds them against the
// activations into int32 (at most 16 products of 945 * 32767 a lane), and one conversion and
// multiply-add a super block and column applies d and the activations' scale.
struct Q4_K {
  static constexpr int64_t kBlockBytes = 144, kBlocksPerUnit = 8;

  template <int C>
  static void group(const uint8_t* w, const XBlock16* x, int64_t x_stride, const XScales* s, int64_t b0,
                    Acc<C>& acc) {
    uint32_t scale_pair[8];
    q4_k_scales_and_minimums<C>(w, s, b0, scale_pair, acc.off);
    __m512i sum[C];
    for (int i = 0; i < C; ++i) sum[i] = _mm512_setzero_si512();
#pragma GCC unroll 4
    for (int chunk = 0; chunk < 4; ++chunk) {
      const __m512i bytes =
          _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + 16 + 32 * chunk)));
      const int g = 2 * chunk;
      const __m512i low = _mm512_mullo_epi16(_mm512_and_si512(bytes, _mm512_set1_epi16(0x0F)),
                                             _mm512_set1_epi32(static_cast<int>(scale_pair[g])));
      const __m512i high = _mm512_mullo_epi16(_mm512_srli_epi16(bytes, 4),
                                              _mm512_set1_epi32(static_cast<int>(scale_pair[g + 1])));
#pragma GCC unroll 4
      for (int i = 0; i < C; ++i) {
        const XBlock16* xb = x + i * x_stride + g;
        sum[i] = _mm512_dpwssd_epi32(_mm512_dpwssd_epi32(sum[i], low, x_block(xb[0])), high, x_block(xb[1]));
      }
    }
    const float d = f16_at(w);
    for (int i = 0; i < C; ++i)
      acc.a0[i] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sum[i]), _mm512_set1_ps(d * s[i].d[b0]), acc.a0[i]);
  }

  // Never called: a q4_k row is whole super blocks, whole groups.
  template <int C>
  static void block(const uint8_t*, const XBlock16*, int64_t, const XScales*, int64_t, Acc<C>&) {}

  template <int C>
  static float finish(const Acc<C>& acc, int i) {
    return reduce(acc.a0[i], acc.a1[i]) - reduce(acc.off[i]);
  }
};

}  // namespace

void cpu_fill_quant_dot_avx512(CpuKernels& t) {
  t.gemv_quant[static_cast<int>(QuantType::q4_0)] = gemv_by_segments<Q4_0, Acc>;
  t.gemv_quant_x[static_cast<int>(QuantType::q4_0)] = pair_halves;
  t.gemv_quant[static_cast<int>(QuantType::q4_k)] = gemv_by_segments<Q4_K, Acc>;
}

}  // namespace bk
