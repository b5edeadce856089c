// SPDX-License-Identifier: MIT
// CpuBackend::run_peak_kernel: the FLOP count it reports, a usable rate, and unsupported dtypes.
// No timing assertions beyond "positive and finite": rates belong to bench, not to unit tests.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "bk/cpu.h"
#include "bk/error.h"
#include "cpu_graph_util.h"
#include "devices/cpu/cpu_backend.h"
#include "devices/cpu/kernels/dispatch.h"

namespace bk {
namespace {

// What run_peak_kernel must return: whole loop rounds on every thread, at least `flops` in all.
double expected_flops(const PeakFn& fn, double flops, int threads) {
  const double per_thread = std::ceil(flops / threads / fn.flops_per_iteration);
  return threads * std::max(1.0, per_thread) * fn.flops_per_iteration;
}

void check_peak(CpuBackend& b, DType type, const PeakFn& fn, double flops) {
  const auto t0 = std::chrono::steady_clock::now();
  const double done = b.run_peak_kernel(type, flops);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(done, expected_flops(fn, flops, b.threads()))
      << dtype_name(type) << " on " << cpu_isa_name(b.isa());
  EXPECT_GE(done, flops);
  const double rate = done / seconds;
  EXPECT_TRUE(std::isfinite(rate) && rate > 0) << rate;
}

TEST(CpuPeak, EveryTierCountsExactlyWhatItRan) {
  auto backend = test::cpu_device().init_backend();
  auto& b = dynamic_cast<CpuBackend&>(*backend);
  for (int threads : {1, 2}) {
    b.set_threads(threads);
    for (CpuIsa isa : {CpuIsa::portable, CpuIsa::avx2, CpuIsa::avx512, CpuIsa::amx}) {
      if (!cpu_isa_available(isa)) continue;
      b.set_isa(isa);
      const CpuKernels& k = cpu_kernels(isa);
      check_peak(b, DType::F32, k.peak_f32, 1e7);
      check_peak(b, DType::F32, k.peak_f32, 1.0);  // rounds up to one round per thread
      for (auto [type, fn] : {std::pair{DType::BF16, &k.peak_bf16}, std::pair{DType::F16, &k.peak_f16}}) {
        if (fn->run != nullptr) {
          check_peak(b, type, *fn, 1e7);
        } else {
          EXPECT_THROW(b.run_peak_kernel(type, 1e7), Error) << dtype_name(type) << " " << cpu_isa_name(isa);
        }
      }
    }
  }
}

TEST(CpuPeak, AmxTierRunsBf16OnTiles) {
  if (!cpu_isa_available(CpuIsa::amx)) GTEST_SKIP() << "no amx tier on this CPU / OS";
  auto backend = test::cpu_device().init_backend();
  auto& b = dynamic_cast<CpuBackend&>(*backend);
  b.set_isa(CpuIsa::amx);
  const PeakFn& fn = cpu_kernels(CpuIsa::amx).peak_bf16;
  ASSERT_NE(fn.run, nullptr);
  EXPECT_EQ(fn.flops_per_iteration, 4.0 * 16 * 16 * 32 * 2);  // four tdpbf16ps per round
  check_peak(b, DType::BF16, fn, 1e8);
}

// Forcing the portable tier leaves F32 only; the others name what they need.
TEST(CpuPeak, PortableTierHasOnlyF32) {
  const char* old = std::getenv("BK_CPU_ISA");
  const std::string saved = old != nullptr ? old : "";
  setenv("BK_CPU_ISA", "portable", 1);
  auto backend = test::cpu_device().init_backend();
  if (old != nullptr) {
    setenv("BK_CPU_ISA", saved.c_str(), 1);
  } else {
    unsetenv("BK_CPU_ISA");
  }
  EXPECT_GT(backend->run_peak_kernel(DType::F32, 1e6), 0);
  for (auto [type, needs] : {std::pair{DType::BF16, "bf16"}, std::pair{DType::F16, "avx512_fp16"},
                             std::pair{DType::I32, "F32, F16 or BF16"}}) {
    try {
      backend->run_peak_kernel(type, 1e6);
      ADD_FAILURE() << dtype_name(type) << " ran on the portable tier";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::unsupported);
      EXPECT_NE(std::string(e.what()).find(needs), std::string::npos) << e.what();
    }
  }
}

TEST(CpuPeak, RejectsNonPositiveOrNonFiniteCounts) {
  auto backend = test::cpu_device().init_backend();
  for (double flops : {0.0, -1.0, std::nan("")}) {
    try {
      backend->run_peak_kernel(DType::F32, flops);
      ADD_FAILURE() << flops << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    }
  }
}

}  // namespace
}  // namespace bk
