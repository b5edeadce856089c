// SPDX-License-Identifier: MIT
#pragma once
// The blocked matrix multiplication behind mul_mat for more than a few columns: X and W are
// packed into the tier's register-tile panels (W converted to f32 once), then C is computed in
// blocks spread over the pool (Goto/BLIS-style: a W micro-panel stays in L1 while an X block
// streams from L2).

#include <cstddef>
#include <cstdint>

#include "devices/cpu/kernels/context.h"

namespace bk {

// C[i][j] = dot(X row i, W row j) for i < n, j < m: C row-major with row stride ldc floats, X
// f32 rows of k (stride x_stride floats), W m rows of k elements of type wt (stride w_stride bytes).
struct GemmProblem {
  const void* w;
  WeightType wt;
  size_t w_stride;
  const float* x;
  int64_t x_stride;
  float* c;
  int64_t ldc;
  int64_t m, n, k;
};

// Work buffer bytes cpu_gemm needs for these sizes with these loops.
size_t cpu_gemm_work_size(const GemmFns& g, int64_t m, int64_t n, int64_t k);
// Computes p with ctx's pool, using work (cpu_gemm_work_size bytes, 64-byte aligned).
// x_packed: work already holds p's X as an earlier call packed it (the same X, n and k: another
// block of W's rows), so it is not packed again.
void cpu_gemm(KernelContext& ctx, const GemmProblem& p, std::byte* work, bool x_packed = false);

}  // namespace bk
