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

// cublasGemmEx, BF16 A and B, F32 C, F32 compute (the tensor-core path bk's BF16 MUL_MAT uses),
// m = n = k = size, on `device`. TFLOP/s counting 2 m n k.
Rate cublas_bf16_gemm(int device, int size);
// cudaMemcpy device to device of `bytes`; GB/s counting bytes read plus written.
Rate memcpy_d2d(int device, size_t bytes);
// cudaMemcpy between pinned host memory and the device; GB/s of bytes moved.
Rate memcpy_h2d_pinned(int device, size_t bytes);
Rate memcpy_d2h_pinned(int device, size_t bytes);

}  // namespace bk::perf
