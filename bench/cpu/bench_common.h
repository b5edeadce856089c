// SPDX-License-Identifier: MIT
#pragma once
// Shared pieces of bench_cpu: timing (median over repetitions) and the measurements it compares.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

namespace bkbench {

// Median seconds of `reps` runs of f, after one warm-up run.
inline double median_seconds(int reps, const std::function<void()>& f) {
  f();
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// Our mul_mat, m x n x k with the given weight dtype (0 f32, 1 f16, 2 bf16, 3 q8_0, 4 q4_0,
// 5 q4_k, 6 q6_k): median seconds.
double bk_mul_mat_seconds(int wtype, int64_t m, int64_t n, int64_t k, int threads, int reps);
// Our f32 peak-arithmetic kernel (Backend::run_peak_kernel) on `threads` threads: GFLOP/s.
double bk_peak_f32_gflops(int threads, int reps);
// Our add (r = a + b) or cpy (f32 -> f32 of the same shape) over n floats: median seconds.
double bk_add_seconds(int64_t n, int threads, int reps);
double bk_copy_seconds(int64_t n, int threads, int reps);

// OpenBLAS cblas_sgemm on the same problem (row-major C[n x m] = X[n x k] W[m x k]^T).
double blas_sgemm_seconds(int64_t m, int64_t n, int64_t k, int threads, int reps);
// STREAM-style loops over n floats on `threads` threads: triad a = b + s c, copy a = b.
double stream_triad_seconds(int64_t n, int threads, int reps);
double stream_copy_seconds(int64_t n, int threads, int reps);

}  // namespace bkbench
