// SPDX-License-Identifier: MIT
#pragma once
// What the hardware and cuBLAS reach without bk, measured in the same process as bk's own
// numbers (cuda_perf_check.cpp), so that "bk / cuBLAS" is a ratio from one run.

#include <string>

namespace bk::perf {

struct Rate {
  double value = 0;    // TFLOP/s or GB/s
  double seconds = 0;  // median time of one repetition
  int repetitions = 0;
  bool checked = false;  // sampled outputs matched a host reference
  std::string note;
};

enum class GemmType { bf16, f16, f32 };

// cublasGemmEx with A and B of `type`, F32 C and F32 compute, m = n = k = size, on `device`: the
// tensor-core path bk's BF16 and F16 MUL_MAT use, and for F32 the default math mode (no TF32,
// as bk's F32 MUL_MAT without BK_CUDA_TF32). TFLOP/s counting 2 m n k.
Rate cublas_gemm(int device, GemmType type, int size);
// cudaMemcpy device to device of `bytes`; GB/s counting bytes read plus written.
Rate memcpy_d2d(int device, size_t bytes);
// cudaMemcpy between pinned host memory and the device; GB/s of bytes moved.
Rate memcpy_h2d_pinned(int device, size_t bytes);
Rate memcpy_d2h_pinned(int device, size_t bytes);

}  // namespace bk::perf
