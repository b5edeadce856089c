// SPDX-License-Identifier: MIT
// The peak-arithmetic probe (Backend::run_peak_kernel): every thread runs kPeakChains independent
// multiply-add chains, so the SMs' FMA pipes never wait on a result. One store per thread keeps
// the compiler from removing the work. These are the CUDA cores' rates; tensor-core GEMMs
// (cuBLAS) can exceed them, which bkctl bench reports by raising the peak to the best mul_mat.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "devices/cuda/kernels/cuda_kernels.h"

namespace bk::cuda {
namespace {

template <typename T>
__device__ T peak_value(float v);
template <>
__device__ float peak_value<float>(float v) {
  return v;
}
template <>
__device__ __half2 peak_value<__half2>(float v) {
  return __floats2half2_rn(v, v);
}
template <>
__device__ __nv_bfloat162 peak_value<__nv_bfloat162>(float v) {
  return __floats2bfloat162_rn(v, v);
}

__device__ float peak_fma(float x, float a, float b) { return fmaf(x, a, b); }
__device__ __half2 peak_fma(__half2 x, __half2 a, __half2 b) { return __hfma2(x, a, b); }
__device__ __nv_bfloat162 peak_fma(__nv_bfloat162 x, __nv_bfloat162 a, __nv_bfloat162 b) {
  return __hfma2(x, a, b);
}

__device__ float peak_sum(float x) { return x; }
__device__ float peak_sum(__half2 x) { return __low2float(x) + __high2float(x); }
__device__ float peak_sum(__nv_bfloat162 x) { return __low2float(x) + __high2float(x); }

// x -> x * a + b with a slightly below 1 stays bounded, so no chain overflows to inf.
template <typename T>
__global__ void peak_kernel(float* out, long long iterations) {
  const T a = peak_value<T>(0.999f);
  const T b = peak_value<T>(0.001f);
  T x[kPeakChains];
#pragma unroll
  for (int c = 0; c < kPeakChains; ++c)
    x[c] = peak_value<T>(0.5f + 0.01f * static_cast<float>(threadIdx.x % 7 + c));
  for (long long i = 0; i < iterations; ++i) {
#pragma unroll
    for (int c = 0; c < kPeakChains; ++c) x[c] = peak_fma(x[c], a, b);
  }
  float sum = 0;
#pragma unroll
  for (int c = 0; c < kPeakChains; ++c) sum += peak_sum(x[c]);
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

}  // namespace

cudaError_t launch_peak(KType type, float* out, int blocks, long long iterations, cudaStream_t stream) {
  switch (type) {
    case KType::f32:
      peak_kernel<float><<<blocks, kPeakThreads, 0, stream>>>(out, iterations);
      break;
    case KType::f16:
      peak_kernel<__half2><<<blocks, kPeakThreads, 0, stream>>>(out, iterations);
      break;
    case KType::bf16:
      peak_kernel<__nv_bfloat162><<<blocks, kPeakThreads, 0, stream>>>(out, iterations);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace bk::cuda
