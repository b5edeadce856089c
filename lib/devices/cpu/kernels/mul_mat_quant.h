// SPDX-License-Identifier: MIT
#pragma once
// mul_mat's decode path for quantized weights (q8_0, q4_0, q4_k, q6_k) at few columns: the
// activations are quantized once to 16-bit blocks (XBlock16, kernel_table.h) and the tier's fused
// kernels (gemv_quant) decode each weight block in registers and multiply it in integers, so W is
// read once, as it is stored. Wider products decode W to f32 and run the f32 paths
// (op_mul_mat.cpp), where enough columns share each decoded weight.

#include <cstddef>
#include <cstdint>

#include "bk/tensor.h"
#include "devices/cpu/kernels/context.h"

namespace bk {

// Up to this many columns (activation rows) the fused kernels run; past it W is decoded to f32
// for the f32 paths. The fused kernels' cost grows with every column (a decoded block serves at
// most four), the decode is paid once: at 8 columns decoding measured faster for every type on
// both tiers but q4_k on avx512 (even), at 7 slower for about half of them (docs/performance.md,
// "rows decoded by the task").
inline constexpr int64_t kQuantDotMaxColumns = 7;

// Whether mul_mat of these operands takes this path: w quantized, at most kQuantDotMaxColumns
// columns.
bool cpu_quant_dot_applies(const Tensor& w, const Tensor& x) noexcept;
// Work buffer bytes for x's quantized rows.
size_t cpu_quant_dot_work_size(const Tensor& x) noexcept;
// node = w x with x f32 and contiguous along K (gathered by the caller otherwise), using work
// (cpu_quant_dot_work_size bytes, 64-byte aligned). Rows of W are spread over ctx's pool.
void cpu_quant_dot(KernelContext& ctx, const Tensor& node, const Tensor& w, const Tensor& x, std::byte* work);

// One X row of k floats (a multiple of 32) as k / 32 blocks: d = max|x| / 32767 per block, q the
// nearest integer to x / d; a block holding a NaN or infinity gets d = NaN, so that the dot
// products it enters are NaN. The same on every tier, so the tiers' results differ only in the
// order of their float additions.
void cpu_quantize_x16(const float* x, int64_t k, XBlock16* out) noexcept;

}  // namespace bk
