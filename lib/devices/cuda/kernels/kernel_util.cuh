// SPDX-License-Identifier: MIT
#pragma once
// Device-side helpers shared by the .cu files: element loads and stores by runtime dtype, row
// addressing, block shapes and reductions. Included only by nvcc.

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "devices/cuda/kernels/cuda_kernels.h"

namespace bk::cuda {

// The dtype switch is uniform across a launch, so every warp takes the same branch; one kernel
// per op instead of one per dtype combination keeps the build small.
__device__ __forceinline__ float load(const char* p, KType t) {
  switch (t) {
    case KType::f16:
      return __half2float(*reinterpret_cast<const __half*>(p));
    case KType::bf16:
      return __bfloat162float(*reinterpret_cast<const __nv_bfloat16*>(p));
    case KType::i32:
      return static_cast<float>(*reinterpret_cast<const int32_t*>(p));
    default:
      return *reinterpret_cast<const float*>(p);
  }
}

__device__ __forceinline__ void store(char* p, KType t, float v) {
  switch (t) {
    case KType::f16:
      *reinterpret_cast<__half*>(p) = __float2half_rn(v);
      break;
    case KType::bf16:
      *reinterpret_cast<__nv_bfloat16*>(p) = __float2bfloat16_rn(v);
      break;
    case KType::i32:
      *reinterpret_cast<int32_t*>(p) = static_cast<int32_t>(v);
      break;
    default:
      *reinterpret_cast<float*>(p) = v;
      break;
  }
}

__host__ __device__ __forceinline__ int64_t nrows(const KTensor& t) { return t.ne[1] * t.ne[2] * t.ne[3]; }

struct RowIndex {
  int64_t i1, i2, i3;
};

__device__ __forceinline__ RowIndex row_index(const KTensor& t, int64_t row) {
  const int64_t i1 = row % t.ne[1];
  const int64_t rest = row / t.ne[1];
  return {i1, rest % t.ne[2], rest / t.ne[2]};
}

__device__ __forceinline__ char* row_ptr(const KTensor& t, int64_t i1, int64_t i2, int64_t i3) {
  return t.data + i1 * t.nb[1] + i2 * t.nb[2] + i3 * t.nb[3];
}

// Blocks of 256 threads: x along a row, y over rows, so short rows still fill the block.
struct RowBlocks {
  dim3 grid;
  dim3 block;
};

inline RowBlocks row_blocks(int64_t ne0, int64_t rows) {
  unsigned tx = 32;
  while (tx < 256 && tx < ne0) tx *= 2;
  const unsigned ty = 256 / tx;
  const int64_t blocks = (rows + ty - 1) / ty;
  constexpr int64_t kMaxBlocks = 1 << 20;  // the kernels loop over the remaining rows
  return {dim3(static_cast<unsigned>(blocks < kMaxBlocks ? blocks : kMaxBlocks)), dim3(tx, ty)};
}

// Sum or max over a block of blockDim.x threads (a multiple of 32, at most 1024); every thread
// gets the result. `scratch` holds 32 floats of shared memory.
__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__device__ __forceinline__ float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

template <bool kMax>
__device__ float block_reduce(float v, float* scratch) {
  v = kMax ? warp_max(v) : warp_sum(v);
  const unsigned warps = blockDim.x / 32;
  if (warps == 1) return v;
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  __syncthreads();  // scratch may still be read from a previous reduction
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < warps ? scratch[lane] : (kMax ? -INFINITY : 0.0f);
  return kMax ? warp_max(v) : warp_sum(v);
}

inline cudaError_t launched() { return cudaGetLastError(); }

}  // namespace bk::cuda
