// SPDX-License-Identifier: MIT
#include "cuda_perf_baseline.h"

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

namespace bk::perf {
namespace {

void check(cudaError_t err, const char* call) {
  if (err != cudaSuccess) {
    throw std::runtime_error(fmt::format("{} failed ({}, {}): {}", call, cudaGetErrorName(err),
                                         static_cast<int>(err), cudaGetErrorString(err)));
  }
}

void check(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(
        fmt::format("{} failed ({}, {})", call, cublasGetStatusName(status), static_cast<int>(status)));
  }
}

struct DeviceMemory {
  explicit DeviceMemory(size_t bytes) { check(cudaMalloc(&ptr, bytes), "cudaMalloc"); }
  ~DeviceMemory() { cudaFree(ptr); }
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  void* ptr = nullptr;
};

struct PinnedMemory {
  explicit PinnedMemory(size_t bytes) { check(cudaMallocHost(&ptr, bytes), "cudaMallocHost"); }
  ~PinnedMemory() { cudaFreeHost(ptr); }
  PinnedMemory(const PinnedMemory&) = delete;
  PinnedMemory& operator=(const PinnedMemory&) = delete;
  void* ptr = nullptr;
};

struct Events {
  Events() {
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
  }
  ~Events() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;
  cudaEvent_t start = nullptr, stop = nullptr;
};

// Median seconds of `work` over repetitions after a warm-up, each timed with events.
template <typename F>
Rate time_it(F&& work, int repetitions) {
  Events ev;
  work();
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  std::vector<double> times;
  for (int i = 0; i < repetitions; ++i) {
    check(cudaEventRecord(ev.start), "cudaEventRecord");
    work();
    check(cudaEventRecord(ev.stop), "cudaEventRecord");
    check(cudaEventSynchronize(ev.stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, ev.start, ev.stop), "cudaEventElapsedTime");
    times.push_back(ms / 1000.0);
  }
  std::sort(times.begin(), times.end());
  Rate r;
  r.seconds = times[times.size() / 2];
  r.repetitions = repetitions;
  return r;
}

Rate copy_rate(int device, size_t bytes, cudaMemcpyKind kind) {
  check(cudaSetDevice(device), "cudaSetDevice");
  DeviceMemory a(bytes), b(bytes);
  PinnedMemory host(kind == cudaMemcpyDeviceToDevice ? 1 : bytes);
  void* dst = kind == cudaMemcpyDeviceToHost ? host.ptr : b.ptr;
  const void* src = kind == cudaMemcpyHostToDevice ? host.ptr : a.ptr;
  check(cudaMemset(a.ptr, 1, bytes), "cudaMemset");
  Rate r = time_it([&] { check(cudaMemcpyAsync(dst, src, bytes, kind, nullptr), "cudaMemcpyAsync"); }, 20);
  const double moved = kind == cudaMemcpyDeviceToDevice ? 2.0 * double(bytes) : double(bytes);
  r.value = moved / r.seconds / 1e9;
  r.checked = true;
  return r;
}

}  // namespace

Rate cublas_gemm(int device, GemmType type, int size) {
  check(cudaSetDevice(device), "cudaSetDevice");
  const size_t n = size_t(size) * size_t(size);
  const size_t element = type == GemmType::f32 ? 4 : 2;
  const cudaDataType_t data = type == GemmType::bf16  ? CUDA_R_16BF
                              : type == GemmType::f16 ? CUDA_R_16F
                                                      : CUDA_R_32F;
  // Host values, rounded to `type` (kept as floats for the reference) and as stored.
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> af(n), bf(n);
  std::vector<unsigned char> a(n * element), b(n * element);
  auto store = [&](std::vector<float>& values, std::vector<unsigned char>& bytes) {
    for (size_t i = 0; i < n; ++i) {
      float v = dist(rng);
      if (type == GemmType::bf16) {
        const __nv_bfloat16 h = __float2bfloat16(v);
        std::memcpy(&bytes[i * 2], &h, 2);
        v = __bfloat162float(h);
      } else if (type == GemmType::f16) {
        const __half h = __float2half(v);
        std::memcpy(&bytes[i * 2], &h, 2);
        v = __half2float(h);
      } else {
        std::memcpy(&bytes[i * 4], &v, 4);
      }
      values[i] = v;
    }
  };
  store(af, a);
  store(bf, b);
  DeviceMemory da(n * element), db(n * element), dc(n * 4);
  check(cudaMemcpy(da.ptr, a.data(), n * element, cudaMemcpyHostToDevice), "cudaMemcpy");
  check(cudaMemcpy(db.ptr, b.data(), n * element, cudaMemcpyHostToDevice), "cudaMemcpy");
  cublasHandle_t handle = nullptr;
  check(cublasCreate(&handle), "cublasCreate");
  const float one = 1.0f, zero = 0.0f;
  Rate r;
  try {
    // The layout bk uses: C = A^T B with A stored k x m.
    r = time_it(
        [&] {
          check(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, size, size, size, &one, da.ptr, data, size,
                             db.ptr, data, size, &zero, dc.ptr, CUDA_R_32F, size, CUBLAS_COMPUTE_32F,
                             CUBLAS_GEMM_DEFAULT),
                "cublasGemmEx");
        },
        type == GemmType::f32 ? 3 : 10);
  } catch (...) {
    cublasDestroy(handle);
    throw;
  }
  cublasDestroy(handle);
  std::vector<float> c(n);
  check(cudaMemcpy(c.data(), dc.ptr, n * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
  r.checked = true;
  for (int s = 0; s < 16; ++s) {  // sampled outputs against a host dot product
    const size_t m = (size_t(s) * 7919) % size_t(size), col = (size_t(s) * 104729) % size_t(size);
    double want = 0;
    for (size_t k = 0; k < size_t(size); ++k)
      want += double(af[m * size_t(size) + k]) * bf[col * size_t(size) + k];
    if (std::abs(c[col * size_t(size) + m] - want) > 1e-3 * std::sqrt(double(size))) r.checked = false;
  }
  r.value = 2.0 * std::pow(double(size), 3) / r.seconds / 1e12;
  return r;
}

Rate memcpy_d2d(int device, size_t bytes) { return copy_rate(device, bytes, cudaMemcpyDeviceToDevice); }
Rate memcpy_h2d_pinned(int device, size_t bytes) { return copy_rate(device, bytes, cudaMemcpyHostToDevice); }
Rate memcpy_d2h_pinned(int device, size_t bytes) { return copy_rate(device, bytes, cudaMemcpyDeviceToHost); }

}  // namespace bk::perf
