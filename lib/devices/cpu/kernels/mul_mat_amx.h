// SPDX-License-Identifier: MIT
#pragma once
// The AMX path of mul_mat for bf16 weights (tier amx, kernel_table.h AmxFns): W and X are packed
// into 16-row bf16 panels (X converted from f32, round to nearest even), then C is computed in
// 32 x 32 tile blocks spread over the pool, blocked so that the panels of one block and one
// reduction block stay in L2 while every C block of it is updated. C goes straight to the
// output when its sizes are multiples of 32, else through a padded copy in the work buffer.

#include <cstddef>

#include "devices/cpu/kernels/context.h"
#include "devices/cpu/kernels/mul_mat_gemm.h"

namespace bk {

// Whether the kernels have the AMX path for this problem's weight type.
inline bool cpu_amx_applies(const CpuKernels& k, WeightType wt) noexcept {
  return k.amx.compute != nullptr && wt == WeightType::bf16;
}
// Work buffer bytes cpu_amx_gemm needs for these sizes.
size_t cpu_amx_work_size(int64_t m, int64_t n, int64_t k);
// Computes p (p.wt == bf16) with ctx's pool, using work (cpu_amx_work_size bytes, 64-byte aligned).
// x_packed: work already holds p's X as an earlier call packed it (the same X, n and k: another
// panel of rows of the same weight), so only W is packed.
void cpu_amx_gemm(KernelContext& ctx, const GemmProblem& p, std::byte* work, bool x_packed = false);

}  // namespace bk
