// SPDX-License-Identifier: MIT
// CudaBackend::run_peak_kernel: kernels/peak.cu over four blocks per SM, as many iterations as
// make up the requested FLOPs, on the backend's stream, waited for.
#include <fmt/format.h>

#include <cmath>

#include "bk/error.h"
#include "devices/cuda/cuda_backend.h"
#include "devices/cuda/cuda_device.h"
#include "devices/cuda/cuda_device_scope.h"
#include "devices/cuda/cuda_error.h"
#include "devices/cuda/kernels/cuda_kernels.h"

namespace bk {
namespace {

constexpr int kBlocksPerSm = 4;  // enough resident warps to hide the FMA latency

cuda::KType peak_type(DType type, const std::string& who) {
  switch (type) {
    case DType::F32:
      return cuda::KType::f32;
    case DType::F16:
      return cuda::KType::f16;
    case DType::BF16:
      return cuda::KType::bf16;
    default:
      throw Error(ErrorCode::unsupported,
                  fmt::format("{}: no peak kernel for {}: F32, F16 and BF16 arithmetic is probed", who,
                              dtype_name(type)));
  }
}

}  // namespace

double CudaBackend::run_peak_kernel(DType type, double flops) {
  const std::string& who = device_.name();
  const cuda::KType ktype = peak_type(type, who);
  if (!std::isfinite(flops) || flops <= 0) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("{}: run_peak_kernel needs a positive number of FLOPs, not {}", who, flops));
  }
  const int blocks = kBlocksPerSm * std::max(1, device_.info().sm_count);
  const int per_fma = ktype == cuda::KType::f32 ? 2 : 4;  // half2 / bfloat162 do two at once
  const double per_iteration = static_cast<double>(blocks) * cuda::kPeakThreads * cuda::kPeakChains * per_fma;
  const double iterations = std::ceil(flops / per_iteration);
  if (iterations > 1e12) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("{}: run_peak_kernel of {:.3g} FLOPs is beyond any sensible probe", who, flops));
  }
  CudaDeviceScope scope(device_.ordinal(), who);
  synchronize();  // the probe's time must be its own
  auto* out =
      static_cast<float*>(scratch_.take(sizeof(float) * static_cast<size_t>(blocks) * cuda::kPeakThreads));
  cuda_check(cuda::launch_peak(ktype, out, blocks, static_cast<long long>(iterations), stream()),
             "peak kernel launch", who);
  synchronize();
  return iterations * per_iteration;
}

}  // namespace bk
