// SPDX-License-Identifier: MIT
#pragma once
// mul_mat's decode path for quantized weights (q8_0, q4_0, q4_k, q6_k) at few columns: the
// activations are quantized once to 16-bit blocks (XBlock16, kernel_table.h) and the tier's fused
// kernels (gemv_quant) decode each weight block in registers and multiply it in integers, so W is
// read once, as it is stored. Wider products, where enough columns share each decoded weight,
// decode W once: to int16 for the tier's integer tiles (cpu_quant_tile), or else to f32 for the
// f32 paths (op_mul_mat.cpp).

#include <cstddef>
#include <cstdint>

#include "bk/tensor.h"
#include "devices/cpu/kernels/context.h"
#include "devices/cpu/kernels/kernel_table.h"

namespace bk {

// Up to this many columns (activation rows) the fused kernels run for weights of type w; past it
// W is decoded once per task (cpu_quant_tile, or the f32 paths). The fused kernels' cost grows
// with every column (a decoded block serves at most four), the decode is paid once: with the
// activations laid out densely the fused kernels measured faster up to 12 columns on both tiers
// for q8_0, q4_0 and q4_k, and slower from 8 for q6_k, whose decode bounds it
// (docs/performance.md, "seventh session").
constexpr int64_t quant_dot_max_columns(DType w) noexcept { return w == DType::Q6_K ? 7 : 12; }

// Whether mul_mat of these operands takes this path: w quantized, at most
// quant_dot_max_columns(w.type) columns.
bool cpu_quant_dot_applies(const Tensor& w, const Tensor& x) noexcept;
// Work buffer bytes for x's quantized rows.
size_t cpu_quant_dot_work_size(const Tensor& x) noexcept;
// node = w x with x f32 and contiguous along K (gathered by the caller otherwise), using work
// (cpu_quant_dot_work_size bytes, 64-byte aligned). Rows of W are spread over ctx's pool.
void cpu_quant_dot(KernelContext& ctx, const Tensor& node, const Tensor& w, const Tensor& x, std::byte* work);

// Past quant_dot_max_columns (and from 9 columns), where the tier has quant_tile (every quantized
// type on the avx2 and avx512 tiers): W decoded to int16 once per task's rows and multiplied in
// integer tiles (kernel_table.h, QuantTileFns); op_mul_mat decides up to how many columns.
bool cpu_quant_tile_applies(const CpuKernels& k, const Tensor& w, const Tensor& x) noexcept;
// Work buffer bytes: x's quantized rows, their packed columns, and each thread's decoded rows.
size_t cpu_quant_tile_work_size(const Tensor& w, const Tensor& x, int threads) noexcept;
// node = w x as cpu_quant_dot, through the tiles, using work (cpu_quant_tile_work_size bytes for
// ctx's thread count, 64-byte aligned).
void cpu_quant_tile(KernelContext& ctx, const Tensor& node, const Tensor& w, const Tensor& x,
                    std::byte* work);

// One X row of k floats (a multiple of 32 * blocks_per_scale) as the row of k / 32 blocks at out
// (x_row_units(k / 32) XBlock16s, kernel_table.h), the blocks sharing their scale blocks_per_scale
// at a time: d = max|x| / q_max over those blocks, q the nearest integer to x / d; blocks holding
// a NaN or infinity get d = NaN, so that the dot products they enter are NaN. The same on every
// tier, so the tiers' results differ only in the order of their float additions.
void cpu_quantize_x16(const float* x, int64_t k, int64_t blocks_per_scale, XBlock16* out,
                      int32_t q_max = 32767) noexcept;

// The largest activation code the integer tiles use against weights of type w: 32767, but 16383
// against q6_k, whose decoded weights (scale x (q - 32)) reach 4096: a block's 32 products a
// lane then stay within int32 (32 x 4096 x 16383 < 2^31).
inline int32_t tile_x_max(DType w) noexcept { return w == DType::Q6_K ? 16383 : 32767; }

// The blocks that share an activation scale against weights of type w: a super block's eight for
// the k-quants (as ggml's q8_K), so that their kernels sum a super block's products in integers
// and convert once; one for the 32-element types, whose weight scales are per block anyway.
inline int64_t x16_blocks_per_scale(DType w) noexcept { return dtype_block(w) / kXBlock; }

}  // namespace bk
