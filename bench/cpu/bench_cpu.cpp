// SPDX-License-Identifier: MIT
// bench_cpu [threads] [reps]: our CPU kernels next to OpenBLAS and STREAM-style loops, in one
// run, as medians over reps repetitions; prints a Markdown table with the ratios.
//
// Compiled with the build's baseline flags; the STREAM loops are plain C++ (auto-vectorised at
// -O3 for the baseline ISA), which is what memory bandwidth needs.
#include <cstdio>
#include <cstdlib>

#include "bench_common.h"

namespace {

using namespace bkbench;  // NOLINT(google-build-using-namespace)

void row(const char* what, const char* unit, double ours, double theirs, const char* vs) {
  std::printf("| %-38s | %9.1f | %9.1f %-3s | %-24s | %5.2f |\n", what, ours, theirs, unit, vs,
              ours / theirs);
}

void gemm_rows(int threads, int reps) {
  for (int64_t s : {512, 1024, 2048}) {
    const double flops = 2.0 * static_cast<double>(s * s * s);
    const double ours = flops / bk_mul_mat_seconds(0, s, s, s, threads, reps) / 1e9;
    const double blas = flops / blas_sgemm_seconds(s, s, s, threads, reps) / 1e9;
    char what[64];
    std::snprintf(what, sizeof what, "mul_mat f32 %lldx%lldx%lld (GFLOP/s)", static_cast<long long>(s),
                  static_cast<long long>(s), static_cast<long long>(s));
    row(what, "", ours, blas, "OpenBLAS sgemm");
  }
  const double s = 2048, flops = 2.0 * s * s * s;
  const double f32 = flops / bk_mul_mat_seconds(0, 2048, 2048, 2048, threads, reps) / 1e9;
  for (int wt : {1, 2}) {
    const double r = flops / bk_mul_mat_seconds(wt, 2048, 2048, 2048, threads, reps) / 1e9;
    row(wt == 1 ? "mul_mat f16 w 2048^3 (GFLOP/s)" : "mul_mat bf16 w 2048^3 (GFLOP/s)", "", r, f32,
        "our f32 mul_mat");
  }
}

// Decode-like mul_mat: the weight bytes per second next to STREAM triad, and, where the f32 FMA
// peak rather than the bandwidth bounds it (n flops per weight float pair: peak x 2 / n weight
// bytes per second is below triad), a second row against that roofline bound.
void decode_rows(int threads, int reps, double triad_gbps, double peak_gflops) {
  for (int64_t n : {1, 2, 4, 8, 16, 24, 32}) {
    const double bytes = 4096.0 * 4096.0 * 4.0;  // the weights dominate
    const double gbps = bytes / bk_mul_mat_seconds(0, 4096, n, 4096, threads, reps) / 1e9;
    char what[64];
    std::snprintf(what, sizeof what, "mul_mat f32 4096x%lldx4096 (weight GB/s)", static_cast<long long>(n));
    row(what, "", gbps, triad_gbps, "STREAM triad");
    const double fma_gbps = peak_gflops * 2.0 / static_cast<double>(n);
    if (fma_gbps < triad_gbps) {
      std::snprintf(what, sizeof what, "  the same against its roofline bound");
      row(what, "", gbps, fma_gbps, "FMA peak x 2 / columns");
    }
  }
}

// Decode with quantized weights (issue 24's CPU criterion): the weight bytes read per second,
// as stored (q8_0 34 bytes per 32 weights, q4_0 18 per 32, q4_k 144 per 256, q6_k 210 per 256),
// next to STREAM triad. The 4096 x 4096 weights are 9-18 MB, past most L2s but not every L3.
void quant_decode_rows(int threads, int reps, double triad_gbps) {
  struct Type {
    int wtype;
    const char* name;
    double bytes_per_weight;
  };
  for (const Type& t : {Type{3, "q8_0", 34.0 / 32}, Type{4, "q4_0", 18.0 / 32}, Type{5, "q4_k", 144.0 / 256},
                        Type{6, "q6_k", 210.0 / 256}}) {
    for (int64_t n : {1, 2, 4, 8, 16, 32}) {
      const double bytes = 4096.0 * 4096.0 * t.bytes_per_weight;
      const double gbps = bytes / bk_mul_mat_seconds(t.wtype, 4096, n, 4096, threads, reps) / 1e9;
      char what[64];
      std::snprintf(what, sizeof what, "mul_mat %s 4096x%lldx4096 (weight GB/s)", t.name,
                    static_cast<long long>(n));
      row(what, "", gbps, triad_gbps, "STREAM triad");
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
  if (threads < 1 || reps < 1) {
    std::fprintf(stderr, "usage: bench_cpu [threads >= 1] [reps >= 1]\n");
    return 2;
  }
  const int64_t n = 64ll << 20;  // 64M floats: 256 MiB per array, far past the caches
  const double triad = 3.0 * 4.0 * static_cast<double>(n) / stream_triad_seconds(n, threads, reps) / 1e9;
  const double copy = 2.0 * 4.0 * static_cast<double>(n) / stream_copy_seconds(n, threads, reps) / 1e9;
  const double peak = bk_peak_f32_gflops(threads, reps);
  std::printf("threads %d, median of %d runs; f32 FMA peak %.1f GFLOP/s (our peak kernel)\n\n", threads, reps,
              peak);
  std::printf("| %-38s | %9s | %13s | %-24s | %5s |\n", "measurement", "ours", "reference", "reference is",
              "ratio");
  std::printf("|%s|%s|%s|%s|%s|\n", "----------------------------------------", "-----------",
              "---------------", "--------------------------", "-------");
  gemm_rows(threads, reps);
  decode_rows(threads, reps, triad, peak);
  quant_decode_rows(threads, reps, triad);
  row("add f32 64M (GB/s, 3 x 4 B per element)", "",
      12.0 * static_cast<double>(n) / bk_add_seconds(n, threads, reps) / 1e9, triad, "STREAM triad");
  row("cpy f32 64M (GB/s, 2 x 4 B per element)", "",
      8.0 * static_cast<double>(n) / bk_copy_seconds(n, threads, reps) / 1e9, copy, "STREAM copy");
  return 0;
}
