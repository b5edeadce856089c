// SPDX-License-Identifier: MIT
// CpuBackend::run_peak_kernel: the tier's peak-arithmetic loops (kernel_table.h PeakFn) run on
// every thread of the pool, one task per thread.
#include <fmt/format.h>

#include <cmath>
#include <string>
#include <vector>

#include "bk/error.h"
#include "devices/cpu/cpu_backend.h"
#include "devices/cpu/cpu_features.h"
#include "devices/cpu/kernels/dispatch.h"
#include "devices/cpu/threadpool.h"

namespace bk {
namespace {

// Why the tier has no loop for `type`: the CPU features it lacks, or the tier that excludes them.
std::string missing_reason(DType type, CpuIsa isa) {
  const CpuFeatures& f = cpu_features();
  const bool bf16 = type == DType::BF16;
  const bool cpu_has = bf16 ? (f.amx_bf16 || f.avx512_bf16) : f.avx512_fp16;
  const char* needs = bf16 ? "amx_bf16 or avx512_bf16" : "avx512_fp16";
  if (!cpu_has) return fmt::format("it needs {}, which this CPU ({}) lacks", needs, f.arch);
  return fmt::format("it needs {} through tier avx512 or amx, but the kernels run tier {} (BK_CPU_ISA)",
                     needs, cpu_isa_name(isa));
}

const PeakFn& peak_of(const CpuKernels& k, DType type, const std::string& device) {
  const PeakFn* fn = type == DType::F32    ? &k.peak_f32
                     : type == DType::BF16 ? &k.peak_bf16
                     : type == DType::F16  ? &k.peak_f16
                                           : nullptr;
  if (fn == nullptr) {
    throw Error(
        ErrorCode::unsupported,
        fmt::format("{}: no peak-arithmetic kernel for {}; use F32, F16 or BF16", device, dtype_name(type)));
  }
  if (fn->run == nullptr) {
    throw Error(ErrorCode::unsupported, fmt::format("{}: no {} peak-arithmetic kernel: {}", device,
                                                    dtype_name(type), missing_reason(type, k.isa)));
  }
  return *fn;
}

}  // namespace

double CpuBackend::run_peak_kernel(DType type, double flops) {
  if (!std::isfinite(flops) || flops <= 0) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("{}: peak kernel FLOP count must be finite and > 0, got {}", name(), flops));
  }
  const PeakFn& fn = peak_of(*kernels_, type, device().name());
  if (!pool_) pool_ = std::make_unique<ThreadPool>(threads_);
  const double per_thread = flops / threads_;
  const auto iterations = static_cast<int64_t>(std::max(1.0, std::ceil(per_thread / fn.flops_per_iteration)));
  std::vector<float> sinks(static_cast<size_t>(threads_));
  pool_->run(threads_, [&](int64_t task, int) { fn.run(iterations, &sinks[static_cast<size_t>(task)]); });
  return static_cast<double>(threads_) * static_cast<double>(iterations) * fn.flops_per_iteration;
}

}  // namespace bk
