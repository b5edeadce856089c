// SPDX-License-Identifier: MIT
// Their side: OpenBLAS sgemm, and STREAM-style triad and copy loops on std::threads.
#include <cblas.h>

#include <random>
#include <thread>
#include <vector>

#include "bench_common.h"

namespace bkbench {
namespace {

// Runs body(begin, end) over [0, n) cut into `threads` parts, one std::thread each.
template <typename F>
void split(int64_t n, int threads, F body) {
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    const int64_t b = n * t / threads, e = n * (t + 1) / threads;
    pool.emplace_back([=] { body(b, e); });
  }
  for (std::thread& th : pool) th.join();
}

std::vector<float> random_vector(size_t n) {
  std::mt19937 rng(2);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

}  // namespace

double blas_sgemm_seconds(int64_t m, int64_t n, int64_t k, int threads, int reps) {
  openblas_set_num_threads(threads);
  const std::vector<float> w = random_vector(static_cast<size_t>(m * k)),
                           x = random_vector(static_cast<size_t>(n * k));
  std::vector<float> c(static_cast<size_t>(m * n));
  const auto mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
  return median_seconds(reps, [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, ni, mi, ki, 1.0f, x.data(), ki, w.data(), ki, 0.0f,
                c.data(), mi);
  });
}

double stream_triad_seconds(int64_t n, int threads, int reps) {
  std::vector<float> a(static_cast<size_t>(n)), b = random_vector(static_cast<size_t>(n)),
                                                c = random_vector(static_cast<size_t>(n));
  float* pa = a.data();
  const float* pb = b.data();
  const float* pc = c.data();
  return median_seconds(reps, [&] {
    split(n, threads, [=](int64_t s, int64_t e) {
      for (int64_t i = s; i < e; ++i) pa[i] = pb[i] + 3.0f * pc[i];
    });
  });
}

double stream_copy_seconds(int64_t n, int threads, int reps) {
  std::vector<float> a(static_cast<size_t>(n)), b = random_vector(static_cast<size_t>(n));
  float* pa = a.data();
  const float* pb = b.data();
  return median_seconds(reps, [&] {
    split(n, threads, [=](int64_t s, int64_t e) {
      for (int64_t i = s; i < e; ++i) pa[i] = pb[i];
    });
  });
}

}  // namespace bkbench
