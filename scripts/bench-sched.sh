#!/usr/bin/env bash
# Builds bk (Release) and runs sched_bench: the scheduler's split + allocation time for the built-in
# 32-layer transformer (1028 nodes), the CPU alone and with a device that runs only mul_mat and add
# (450 splits), and its growth with layers: for the same graph again (which bk recognises as
# unchanged) and for a graph that changed since the last call (every call schedules and plans from
# scratch). Medians over repetitions, alternating rounds.
#
# With a ggml source tree (ggml itself, or llama.cpp, which ships it), it also builds ggml there as
# llama.cpp does (static, GGML_LLAMAFILE=ON, this CPU's ISA) with its BLAS backend, runs the same
# graph through ggml's scheduler (bench/ggml/ggml_sched_bench.cpp: the CPU backend alone, and BLAS
# for mul_mat beside the CPU, which splits as bk's mul_mat+add device does) and prints the ratios.
#
#   scripts/bench-sched.sh [reps=2000] [rounds=5]
#   BK_GGML_SRC=/path/to/llama.cpp|ggml   the peer (none: bk's numbers alone)
#   BK_BENCH_BUILD=build-bench-sched      bk's build directory (Release, kept between runs)
#   BK_GGML_BUILD=$BK_BENCH_BUILD/ggml    ggml's build directory (kept between runs)
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-2000}
rounds=${2:-5}
build=${BK_BENCH_BUILD:-build-bench-sched}

scripts/install-packages.sh cmake ninja-build g++ pkg-config libcli11-dev libfmt-dev nlohmann-json3-dev \
  libhwloc-dev libvulkan-dev glslc
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBK_BUILD_TESTS=OFF -DBK_CUDA=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target sched_bench >/dev/null

peer=""
if [[ -n "${BK_GGML_SRC:-}" ]]; then
  src=$BK_GGML_SRC  # configured as it is (llama.cpp's ggml/ does not configure alone)
  include=$src/include
  [[ -f "$src/ggml/include/ggml.h" ]] && include=$src/ggml/include
  if [[ ! -f "$include/ggml.h" ]]; then
    echo "bench-sched: BK_GGML_SRC=$BK_GGML_SRC holds no ggml (no include/ggml.h or ggml/include/ggml.h)" >&2
    exit 2
  fi
  scripts/install-packages.sh libopenblas-dev
  gbuild=${BK_GGML_BUILD:-$build/ggml}
  log=$build/ggml-build.log  # shown only when the build fails
  if ! cmake -S "$src" -B "$gbuild" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
    -DGGML_NATIVE=ON -DGGML_LLAMAFILE=ON -DGGML_BLAS=ON -DGGML_BLAS_VENDOR=OpenBLAS -DGGML_OPENMP=OFF \
    -DGGML_BUILD_TESTS=OFF -DGGML_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
    -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_CURL=OFF >"$log" 2>&1 ||
    ! cmake --build "$gbuild" -j"$(nproc)" --target ggml-base ggml-cpu ggml-blas >>"$log" 2>&1; then
    cat "$log" >&2
    exit 1
  fi
  peer=$build/ggml_sched_bench
  libs=()  # the backends before the base they need
  for lib in ggml-blas ggml-cpu ggml-base; do libs+=("$(find "$gbuild" -name "lib$lib.a" | head -1)"); done
  g++ -std=c++17 -O2 -I"$include" bench/ggml/ggml_sched_bench.cpp "${libs[@]}" -lopenblas -lpthread -lm \
    -o "$peer"
fi

[[ -n "$peer" ]] || echo "bench-sched: no BK_GGML_SRC, so bk's numbers alone (set it to a llama.cpp or ggml" \
  "source tree for the ratios)" >&2
echo "bench-sched: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) CPUs," \
  "load $(cut -d' ' -f1-3 /proc/loadavg), $rounds rounds of $reps" >&2
rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
for ((round = 0; round < rounds; ++round)); do
  "$build/bin/sched_bench" "$reps" --tsv | sed 's/^/bk\t/' >>"$rows"
  if [[ -n "$peer" ]]; then "$peer" "$reps" 8 32 64 | sed 's/^/ggml\t/' >>"$rows"; fi
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# Medians per implementation, case and layer count; bk's "mm" device is set beside ggml's BLAS.
python3 - "$rows" <<'PY'
import statistics, sys
from collections import defaultdict
runs = defaultdict(list)  # (impl, kind, layers, "same" or "changed"): microseconds
shape = {}
for line in open(sys.argv[1]):
    impl, case, layers, nodes, splits, *us = line.rstrip("\n").split("\t")
    kind = "CPU alone" if case == "CPU" else "mul_mat elsewhere"
    for variant, value in zip(("same", "changed"), us):  # ggml's rows have one time
        runs[(impl, kind, int(layers), variant)].append(float(value))
    shape[(impl, kind, int(layers))] = (nodes, splits)
print("| case | layers | bk nodes / splits | bk us, same graph (per node) | bk us, graph changed (per node) "
      "| ggml nodes / splits | ggml us (per node) | bk / ggml, same | bk / ggml, changed |")
print("|---|--:|--:|--:|--:|--:|--:|--:|--:|")
for (impl, kind, layers) in sorted(k for k in shape if k[0] == "bk"):
    nodes, splits = shape[("bk", kind, layers)]
    same = statistics.median(runs[("bk", kind, layers, "same")])
    changed = statistics.median(runs[("bk", kind, layers, "changed")])
    row = f"| {kind} | {layers} | {nodes} / {splits} | {same:.1f} ({same / int(nodes):.3f}) " \
          f"| {changed:.1f} ({changed / int(nodes):.3f}) |"
    peer = runs.get(("ggml", kind, layers, "same"))
    if peer:
        gnodes, gsplits = shape[("ggml", kind, layers)]
        g = statistics.median(peer)
        row += f" {gnodes} / {gsplits} | {g:.1f} ({g / int(gnodes):.3f}) | {same / g:.2f} | {changed / g:.2f} |"
    else:
        row += " - | - | - | - |"
    print(row)
PY
