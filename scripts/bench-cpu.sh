#!/usr/bin/env bash
# Builds bk (Release) with the OpenBLAS harness and runs bench_cpu: our F32 mul_mat next to
# OpenBLAS cblas_sgemm, decode-like mul_mat and ADD/CPY next to STREAM-style triad/copy loops,
# all in one run, medians over repetitions, ratios printed as a Markdown table.
#
#   scripts/bench-cpu.sh [threads=2] [reps=5]
#   BK_BENCH_BUILD=build-bench-cpu   build directory (Release, kept between runs)
#   BK_CPU_ISA=portable|avx2|avx512|amx  force our kernel tier (default: the best this CPU runs;
#                                        avx512 turns AMX off)
set -euo pipefail
cd "$(dirname "$0")/.."
threads=${1:-2}
reps=${2:-5}
build=${BK_BENCH_BUILD:-build-bench-cpu}

scripts/install-packages.sh cmake ninja-build g++ pkg-config libcli11-dev libfmt-dev nlohmann-json3-dev \
  libhwloc-dev libvulkan-dev glslc libopenblas-dev
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBK_BUILD_TESTS=OFF -DBK_CUDA=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target bench_cpu >/dev/null
echo "bench-cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), OpenBLAS $(pkg-config --modversion openblas)," \
  "OPENBLAS_NUM_THREADS=$threads, BK_CPU_ISA=${BK_CPU_ISA:-best}" >&2
OPENBLAS_NUM_THREADS=$threads "$build/bin/bench_cpu" "$threads" "$reps"
