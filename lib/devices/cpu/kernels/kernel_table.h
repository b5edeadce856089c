// SPDX-License-Identifier: MIT
#pragma once
// The inner loops the CPU kernels dispatch by ISA tier: one table of plain function pointers per
// tier (portable, avx2, avx512), filled by that tier's translation units.
//
// Rule for the tier units (*_avx2.cpp, *_avx512.cpp): they include only this header, standard C
// headers and <immintrin.h>, and define everything else with internal linkage. An inline
// function or template they instantiated from a shared header (std::min, std::bit_cast...)
// would be emitted with tier instructions, and the linker may pick that copy for generic code,
// which would then fault on a CPU without the tier. So this header declares data and function
// pointer types only, and its structs are aggregates without default member initialisers
// (an implicit constructor is an inline function too).
//
// Every function works on contiguous arrays; the op kernels (kernels/*.cpp) gather strided
// tensors into such arrays first. n may be 0. Unless stated otherwise outputs must not overlap
// inputs, except that r may equal a (or b) for the element-wise functions.

#include <cstddef>
#include <cstdint>

namespace bk {

// amx is the avx512 tier plus AMX tiles (amx_tile, amx_bf16) and AVX512_BF16 for bf16-weight
// mul_mat; it is handed out only once the OS granted the process the tile state.
enum class CpuIsa : int { portable = 0, avx2 = 1, avx512 = 2, amx = 3 };
inline constexpr int kCpuIsaCount = 4;

// Weight dtypes of mul_mat, as an index into the per-dtype entries below.
enum class WeightType : int { f32 = 0, f16 = 1, bf16 = 2 };
inline constexpr int kWeightTypeCount = 3;

// Matrix multiplication in the kernels' terms: C (n x m, row-major, row stride ldc floats) =
// X (n x k, f32 rows) times W^T, W being m x k rows of a weight dtype. So C[i][j] = dot(X row i,
// W row j) and C is exactly mul_mat's result [M, N] (M innermost).
//
// Packed panels (the GEMM path): X is packed into panels of mr rows, k-major
// (panel[kk * mr + i] = X[i][k0 + kk]), W into panels of nr rows, k-major
// (panel[kk * nr + j] = W[j][k0 + kk] as f32); rows past the matrix edge are packed as zeros.
struct GemmFns {
  int mr;  // X rows per register tile
  int nr;  // W rows per register tile (a multiple of the vector width)
  // C tile [mr x nr] (=, or += when accumulate) sum over kk < kc of xp[kk*mr+i] * wp[kk*nr+j].
  // Full tiles only; the caller handles edges through a scratch tile.
  void (*tile)(int64_t kc, const float* xp, const float* wp, float* c, int64_t ldc, bool accumulate);
  // Packs rows [0, rows) (rows <= mr) of X, columns [k0, k0 + kc), into one mr-panel.
  void (*pack_x)(const float* x, int64_t x_stride, int64_t rows, int64_t k0, int64_t kc, float* dst);
  // Packs rows [0, rows) (rows <= nr) of W (row stride in bytes), columns [k0, k0 + kc), into
  // one nr-panel, converting to f32. One entry per WeightType.
  void (*pack_w[kWeightTypeCount])(const void* w, size_t w_stride, int64_t rows, int64_t k0, int64_t kc,
                                   float* dst);
};

// The dot-product path for few columns (decode): streams W once.
// C[i][j] = dot(X row i, W row j) for i < n, j < m, over k elements. x_stride in floats,
// w_stride in bytes, ldc in floats. One entry per WeightType.
using GemvFn = void (*)(const void* w, size_t w_stride, int64_t m, const float* x, int64_t x_stride,
                        int64_t n, int64_t k, float* c, int64_t ldc);

// The packed-column decode path for f32 weights (the avx2 and avx512 tiers; null on portable,
// where op_mul_mat keeps gemv). X is packed once per op into vectors of 16 floats that each hold
// `phases` (1 or 2) consecutive k elements of 16 / phases X rows, in groups of 16 / phases
// rows of kv = ceil(k / phases) vectors:
//   xt[(g * kv + t) * 16 + phases * q + p] = X[(16 / phases) g + q][phases t + p],
// and 0 for rows past n and elements past k. The kernel broadcasts the same `phases` weights of
// a W row to every row's lanes (one FMA per vector, whatever `phases` is) and adds each X row's
// `phases` lanes at the end, so one FMA covers phases x (16 / phases) = 16 products: every lane
// works when n fills the group.
inline constexpr int64_t kPackedLanes = 16;
inline constexpr int64_t kPackedMaxColumns = 32;
struct GemvPackedFns {
  // X rows [0, n) (stride in floats), k elements each, into xt: ceil(n / (16 / phases)) groups,
  // 16 * kv floats each. n <= kPackedMaxColumns with phases 1, 24 with phases 2 (three groups).
  void (*pack)(const float* x, int64_t x_stride, int64_t n, int64_t k, int phases, float* xt);
  // The same C as GemvFn with f32 W, from X packed with the same n, k and phases.
  void (*gemv_f32)(const void* w, size_t w_stride, int64_t m, const float* xt, int64_t n, int64_t k,
                   int phases, float* c, int64_t ldc);
  // The most columns op_mul_mat gives this path (at most kPackedMaxColumns); past it the tier's
  // dot tiles were as fast or faster.
  int64_t max_columns;
};

// Quantized weights (ggml's q8_0, q4_0, q4_k, q6_k blocks, bk/quant.h) times activations
// quantized to 16 bits: the fused decode-and-dot path for few columns. The weights are never
// written out as floats; each block is decoded in registers and multiplied in integers. 16-bit
// activations (not ggml's 8) keep the rounding ~2^-16 of the largest value under a scale, inside
// the conformance limit even for a single dot product that cancels (8 bits measured NMSE up to
// 4e-4 there, over the 1e-4 limit of probe/verify/limits.h).
enum class QuantType : int { q8_0 = 0, q4_0 = 1, q4_k = 2, q6_k = 3 };
inline constexpr int kQuantTypeCount = 4;

// 32 consecutive activations of one X row as x[i] ~ d * q[i], q rounded to nearest in [-32767,
// 32767]; its XBlockScale holds d = max|x| / 32767 over the block, or over the super block against
// k-quant weights (every block of it holds the same d; 0 when all are zero, NaN where one is a
// NaN or infinity), and qsum = q[0] + ... + q[31], which q4_0's offset and q4_k's minimums
// multiply. An X row of k elements is its k / 32 blocks back to back, then their k / 32 XBlockScales
// (x_row_units XBlock16s in all): the kernels read the blocks twice as often as anything else,
// so each is one cache line and the lines of a row are contiguous (with the scales beside each
// block, a row's activations took every other line, half of the L1's sets; docs/performance.md).
inline constexpr int64_t kXBlock = 32;
struct alignas(64) XBlock16 {
  int16_t q[32];
};
struct XBlockScale {
  float d;
  int32_t qsum;
};
// XBlock16s taken by an X row of `blocks` blocks and their scales.
constexpr int64_t x_row_units(int64_t blocks) noexcept {
  return blocks + (blocks * static_cast<int64_t>(sizeof(XBlockScale)) + 63) / 64;
}
// The scales of the X row of `blocks` blocks at row.
inline XBlockScale* x_scales(XBlock16* row, int64_t blocks) noexcept {
  return reinterpret_cast<XBlockScale*>(row + blocks);
}
inline const XBlockScale* x_scales(const XBlock16* row, int64_t blocks) noexcept {
  return reinterpret_cast<const XBlockScale*>(row + blocks);
}

// C[i][j] = dot(X row i, W row j) for i < n, j < m over k elements (a multiple of the weight
// type's block), X row i being the row of k / 32 blocks at x + i * x_stride (stride in
// XBlock16s, at least x_row_units), W rows w_stride bytes apart. One entry per QuantType.
using GemvQuantFn = void (*)(const void* w, size_t w_stride, int64_t m, const XBlock16* x, int64_t x_stride,
                             int64_t n, int64_t k, float* c, int64_t ldc);
// Rearranges one quantized X row of `blocks` blocks, in place, into the layout a GemvQuantFn
// entry reads (for instance two blocks' halves side by side, so that a 512-bit load takes the
// elements two weight blocks meet). Null where the entry reads XBlock16s as they are.
using XLayoutFn = void (*)(XBlock16* x, int64_t blocks);

// Quantized weights times more columns than the fused kernels take, in 16-bit integers: W decoded
// once per block of rows to int16 with a float scale and offset per row and block of 32, X
// quantized once per block (cpu_quantize_x16) and packed 16 columns a vector, then integer tiles
// (VNNI's vpdpwssd: 32 multiply-adds an instruction, two a cycle, where f32 FMAs do 16; avx2's
// vpmaddwd: 16 where FMAs do 8). A block of 32 elements sums at most 32 products of 15 x 32767
// (q4), 128 x 32767 (q8_0) or 4096 x 16383 (q6_k, its activations a bit shorter: tile_x_max in
// mul_mat_quant.h) a lane, so int32 holds it.
//
// One block of 16 X columns (group): element pair p of column c is pairs[p][c] (two int16, as
// XBlock16 holds them), the column's scale d[c] and d[c] times its sum of q dsum[c].
struct alignas(64) QTileX {
  int32_t pairs[16][16];
  float d[16];
  float dsum[16];
};
// One block of 8 W rows: w[r] the row's 32 weights as int16 and W = a[r] * w[r] + b[r].
struct alignas(64) QTileW {
  int16_t w[8][32];
  float a[8];
  float b[8];
};
inline constexpr int64_t kQTileRows = 8;
struct QuantTileFns {
  // W rows [0, m) of k elements (w_stride bytes apart) into ceil(m / 8) row groups of k / 32
  // QTileWs, group g's block b at dst[g * (k / 32) + b]; rows past m are zero. Null on the
  // tiers without tiles.
  void (*decode[kQuantTypeCount])(const void* w, size_t w_stride, int64_t m, int64_t k, QTileW* dst);
  // c[i * ldc + j] = W row j . X column i for j < m, i < n: w as decode wrote it (m rows), x
  // ceil(n / 16) groups of k / 32 QTileXs (group g's block b at x[g * (k / 32) + b], columns past
  // n zero). offsets: whether any b of w is nonzero (false skips them).
  void (*multiply)(const QTileW* w, int64_t m, const QTileX* x, int64_t n, int64_t k, bool offsets, float* c,
                   int64_t ldc);
};

// Decodes n elements (whole blocks) of a quantized row to f32 exactly as core's dequantize_row
// (bk/quant.h), to the bit. One entry per QuantType; null on the portable tier, which calls
// core's loops.
using DequantizeFn = void (*)(const void* blocks, float* y, int64_t n);

// The AMX path for bf16 weights (tier amx only; null elsewhere). Packed in 16-row panels of
// kt = ceil(k / 32) tiles of 512 uint16 each, zero-padded past the matrix edges (rows and k):
// an X panel tile t is [16 rows][32 k] bf16 (row stride 64 bytes), a W panel tile t is the
// VNNI layout [16 k pairs][16 rows][2] (element (kp, j, q) = W[j][32 t + 2 kp + q]).
struct AmxFns {
  // Packs rows [0, rows) (rows <= 16) of X (f32, stride in floats) / W (bf16, stride in bytes),
  // all k columns, into one panel of kt tiles.
  void (*pack_x)(const float* x, int64_t x_stride, int64_t rows, int64_t k, uint16_t* dst);
  void (*pack_w)(const void* w, size_t w_stride, int64_t rows, int64_t k, uint16_t* dst);
  // C block [32 * ipairs rows x 32 * jpairs columns] at c (row stride ldc floats), = or += the
  // products of X panels xp[0 .. 2 ipairs) and W panels wp[0 .. 2 jpairs) over tiles [t0, t1);
  // consecutive panels are panel_stride uint16 apart. Every row and column of the block must
  // exist in c (the caller pads). Configures the tiles of the calling thread and releases them.
  void (*compute)(const uint16_t* xp, const uint16_t* wp, int64_t panel_stride, int64_t ipairs,
                  int64_t jpairs, int64_t t0, int64_t t1, float* c, int64_t ldc, bool accumulate);
};

// A peak-arithmetic loop (Backend::run_peak_kernel): `iterations` rounds of independent
// multiply-add chains held in registers on the calling thread, performing exactly
// flops_per_iteration each; writes one result to *sink so the loop cannot be dropped.
struct PeakFn {
  double flops_per_iteration;
  void (*run)(int64_t iterations, float* sink);
};

struct CpuKernels {
  CpuIsa isa;

  // Element-wise: r[i] = a[i] op b[i] (or op a[i]).
  void (*add)(const float* a, const float* b, float* r, int64_t n);
  void (*mul)(const float* a, const float* b, float* r, int64_t n);
  void (*scale)(const float* a, float s, float* r, int64_t n);
  void (*silu)(const float* a, float* r, int64_t n);  // a / (1 + exp(-a))
  void (*gelu)(const float* a, float* r, int64_t n);  // tanh approximation, see core/ops.h
  // r[i] = a[i] * s + b[i]; b may be null (then r = a * s).
  void (*scale_add)(const float* a, float s, const float* b, float* r, int64_t n);

  // Reductions. max needs n >= 1. exp_sum writes r[i] = exp(a[i] - shift) (0 for -inf) and
  // returns the sum of the r[i]; r may equal a.
  double (*sum_squares)(const float* a, int64_t n);
  float (*max)(const float* a, int64_t n);
  double (*exp_sum)(const float* a, float shift, float* r, int64_t n);

  // Conversions, round to nearest even, NaN stays NaN (see core/dtype.h).
  void (*f16_to_f32)(const uint16_t* src, float* dst, int64_t n);
  void (*f32_to_f16)(const float* src, uint16_t* dst, int64_t n);
  void (*bf16_to_f32)(const uint16_t* src, float* dst, int64_t n);
  void (*f32_to_bf16)(const float* src, uint16_t* dst, int64_t n);

  GemmFns gemm;
  GemvFn gemv[kWeightTypeCount];
  GemvPackedFns gemv_packed;
  GemvQuantFn gemv_quant[kQuantTypeCount];
  XLayoutFn gemv_quant_x[kQuantTypeCount];  // applied to X rows before gemv_quant reads them
  DequantizeFn dequantize[kQuantTypeCount];
  QuantTileFns quant_tile;
  AmxFns amx;
  // f32 is always set; bf16 and f16 only where the tier and CPU have such arithmetic (run null).
  PeakFn peak_f32, peak_bf16, peak_f16;
};

// Filled by the tier units, into value-initialised tables. Each fills every field it owns: the
// vec and matmul fills everything but gemv_packed, gemv_quant(_x), dequantize, quant_tile, amx,
// peak_bf16 and peak_f16, which stay null unless the avx512 packed gemv fill (gemv_packed), the
// quant_dot fills (gemv_quant, every tier; gemv_quant_x where an entry wants it), the dequantize
// fill, the quant_tile fill, the amx fill (amx, peak_bf16) or the avx512 extension fill below
// sets them.
void cpu_fill_vec_portable(CpuKernels& t);
void cpu_fill_matmul_portable(CpuKernels& t);
void cpu_fill_vec_avx2(CpuKernels& t);
void cpu_fill_matmul_avx2(CpuKernels& t);
void cpu_fill_gemv_packed_avx2(CpuKernels& t);  // its gemv_packed; called by cpu_fill_matmul_avx2
void cpu_fill_matmul_avx512(CpuKernels& t);
void cpu_fill_gemv_avx512(CpuKernels& t);         // its gemv entries; called by cpu_fill_matmul_avx512
void cpu_fill_gemv_packed_avx512(CpuKernels& t);  // its gemv_packed; called by cpu_fill_matmul_avx512
void cpu_fill_matmul_amx(CpuKernels& t);
void cpu_fill_quant_dot_portable(CpuKernels& t);  // gemv_quant
void cpu_fill_quant_dot_avx2(CpuKernels& t);      // gemv_quant, for the avx2 and avx512 tiers
void cpu_fill_dequantize_avx2(CpuKernels& t);     // dequantize, for the avx2 and avx512 tiers
// The avx512 tiers' q4_0 and q4_k entries of gemv_quant (and q4_0's gemv_quant_x), over the
// avx2 fill, for CPUs with AVX512_VNNI (dispatch.cpp checks).
void cpu_fill_quant_dot_avx512(CpuKernels& t);
void cpu_fill_quant_tile_avx2(CpuKernels& t);  // quant_tile, for the avx2 and avx512 tiers
// The avx512 tiers' quant_tile over the avx2 fill, for CPUs with AVX512_VNNI (dispatch.cpp checks).
void cpu_fill_quant_tile_avx512(CpuKernels& t);
// The avx512 tier's bf16 (AVX512_BF16 vdpbf16ps) and f16 (AVX512_FP16) peak loops, each filled
// only when the flag says the CPU has the feature.
void cpu_fill_peak_avx512_ext(CpuKernels& t, bool avx512_bf16, bool avx512_fp16);

}  // namespace bk
