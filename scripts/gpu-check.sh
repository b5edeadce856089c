#!/usr/bin/env bash
# Every GPU check of bk in one unattended run, for a machine with an NVIDIA GPU (measured on an
# H200). Builds with CUDA for this GPU's architecture only (fast), then:
#   1. the CUDA plugin's device tests (cuda_plugin_test),
#   2. the conformance suite on every CUDA device,
#   3. `bkctl devices --json` and `--verbose`,
#   4. the same GPU through Vulkan (NVIDIA's Vulkan driver): conformance and bench,
#   4b. `bkctl sched --run` on CUDA0 + CPU and on that Vulkan device + CPU, weights in host
#      memory (the batched mul_mats offloaded), checked against the float64 reference,
#   5. `bkctl bench --device CUDA0 --json` when bkctl has a bench command,
#   6. cuda_perf_check: bk's BF16/F16/F32 MUL_MAT at 8192^3 beside cuBLAS alone, and copy
#      bandwidths beside cudaMemcpy, in the same process (so ratios come from one run),
# and prints a short table last. Everything it produces goes to ${OUT:-/tmp/gpu-check}.
# It keeps going after a failed step, and exits 1 when any step failed, 2 when the machine
# cannot run it at all. The whole run stays under 8 minutes: each step has a time limit and
# steps that no longer fit are skipped and said so.
#
# Options (environment): BK_GPU_BUILD_DIR (default build-gpu), BK_GPU_ARCH (CMake CUDA
# architecture, default from nvidia-smi's compute capability, e.g. 90-real), BK_GPU_SIZE (GEMM
# size, default 8192), BK_JOBS (default: all cores), BK_GPU_DEADLINE_S (default 470),
# BK_GPU_BUILD_TYPE (default Release).
set -euo pipefail
cd "$(dirname "$0")/.."

out=${OUT:-/tmp/gpu-check}
build=${BK_GPU_BUILD_DIR:-build-gpu}
jobs=${BK_JOBS:-$(nproc)}
size=${BK_GPU_SIZE:-8192}
deadline=${BK_GPU_DEADLINE_S:-470}
mkdir -p "$out"
rm -f "$out"/*.log "$out"/*.stderr "$out"/*.xml "$out"/*.json "$out"/*.txt
summary=()
failed=0
start=$SECONDS

say() { echo "gpu-check: $*" >&2; }
die() {
  say "$*"
  exit 2
}
left() { echo $((deadline - (SECONDS - start))); }
record() { summary+=("$(printf '%-30s %-8s %s' "$1" "$2" "$3")"); }

# run_step NAME LIMIT_S LOG CMD...: runs CMD with a time limit (capped by what is left), its
# stdout in $out/LOG and its stderr in $out/LOG.stderr; records ok / FAILED / TIMEOUT / skipped.
# Returns 0 when it passed.
run_step() {
  local name=$1 limit=$2 log=$3
  shift 3
  local budget
  budget=$(left)
  if [ "$budget" -lt 15 ]; then
    record "$name" skipped "no time left (deadline ${deadline}s)"
    return 1
  fi
  [ "$limit" -le "$budget" ] || limit=$budget
  say "== $name (limit ${limit}s, log $out/$log)"
  local t0=$SECONDS rc=0
  timeout --kill-after=10 "$limit" "$@" >"$out/$log" 2>"$out/$log.stderr" || rc=$?
  local took=$((SECONDS - t0))
  if [ "$rc" -eq 0 ]; then
    record "$name" ok "${took}s"
    return 0
  fi
  failed=1
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    record "$name" TIMEOUT "after ${took}s, see $log"
  else
    record "$name" FAILED "exit $rc after ${took}s, see $log"
  fi
  tail -n 20 "$out/$log" "$out/$log.stderr" >&2 || true
  return 1
}

# "12 passed, 0 failed, 3 skipped" from a gtest log.
gtest_counts() {
  local log=$1 passed failed_n skipped
  passed=$(grep -oE '^\[  PASSED  \] [0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
  failed_n=$(grep -oE '^\[  FAILED  \] [0-9]+ test' "$log" | grep -oE '[0-9]+' || echo 0)
  skipped=$(grep -oE '^\[  SKIPPED \] [0-9]+ test' "$log" | grep -oE '[0-9]+' || echo 0)
  echo "${passed:-0} passed, ${failed_n:-0} failed, ${skipped:-0} skipped"
}

# --- the machine ------------------------------------------------------------------------------
command -v nvidia-smi >/dev/null || die "nvidia-smi not found: this script needs a machine with an NVIDIA GPU and driver"
nvidia-smi -L >"$out/nvidia-smi.txt" 2>&1 || die "nvidia-smi fails (no GPU or driver not loaded): $(head -n 3 "$out/nvidia-smi.txt")"
nvidia-smi >>"$out/nvidia-smi.txt" 2>&1 || true
gpu=$(nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader | head -n 1)
say "GPU: $gpu"
nvcc=$(command -v nvcc || true)
[ -n "$nvcc" ] || nvcc=/usr/local/cuda/bin/nvcc
[ -x "$nvcc" ] || die "nvcc not found on PATH or at /usr/local/cuda/bin: install the CUDA Toolkit"
for tool in cmake ninja timeout python3; do
  command -v "$tool" >/dev/null || die "$tool not found (scripts/bootstrap.sh installs the build tools and python3)"
done
cap=$(echo "$gpu" | awk -F', ' '{print $3}' | tr -d '.')
arch=${BK_GPU_ARCH:-${cap:-90}-real}

# --- build ------------------------------------------------------------------------------------
# shellcheck disable=SC2016  # expanded by the inner bash, from its arguments
build_cmd='cmake -S . -B "$1" -G Ninja -DCMAKE_BUILD_TYPE="$2" -DBK_CUDA=ON -DBK_CUDA_ARCHS="$3" \
  -DCMAKE_CUDA_COMPILER="$4" && cmake --build "$1" -j "$5" --target bkctl bk_plugins bk_conformance \
  cuda_plugin_test cuda_perf_check'
run_step "build (CUDA $arch)" 300 build.log bash -c "$build_cmd" build "$build" "${BK_GPU_BUILD_TYPE:-Release}" \
  "$arch" "$nvcc" "$jobs" || {
  printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
  die "the build failed; nothing else can run (see $out/build.log)"
}
bin=$build/bin
bkctl=$bin/bkctl

# --- CUDA device tests and conformance ----------------------------------------------------------
run_step "cuda plugin tests" 90 cuda_plugin_test.log "$bin/cuda_plugin_test" \
  --gtest_output="xml:$out/cuda_plugin_test.xml" || true
if [ -f "$out/cuda_plugin_test.log" ]; then
  summary[-1]+=" ($(gtest_counts "$out/cuda_plugin_test.log"))"
  if grep -q "no CUDA device" "$out/cuda_plugin_test.log"; then
    failed=1
    record "cuda devices" FAILED "the plugin sees no GPU: $(grep -m1 -o 'no CUDA device.*' "$out/cuda_plugin_test.log")"
  fi
fi

run_step "bkctl devices --json" 30 devices.json "$bkctl" devices --json || true
run_step "bkctl devices --verbose" 30 devices.txt "$bkctl" devices --verbose || true

conformance() {  # conformance LABEL FILTER LOG [env...]
  local label=$1 filter=$2 log=$3
  shift 3
  run_step "conformance $label" 120 "$log" env "$@" "$bin/bk_conformance" --gtest_filter="$filter" \
    --gtest_output="xml:$out/${log%.log}.xml" || true
  [ -f "$out/$log" ] && summary[-1]+=" ($(gtest_counts "$out/$log"))"
  return 0
}
conformance CUDA 'Conformance/CUDA*' conformance_cuda.log

# --- the same GPU through Vulkan --------------------------------------------------------------
# The Vulkan device whose stable id (PCI bus id) is CUDA0's. NVIDIA's Vulkan driver may need its
# ICD file named explicitly in containers.
same_gpu_vulkan() {
  "$bkctl" devices --json 2>/dev/null | python3 -c '
import json, sys
devs = json.load(sys.stdin).get("devices", [])
cuda = [d for d in devs if d.get("name") == "CUDA0"]
want = cuda[0].get("stable_id") if cuda else None
for d in devs:
    if d.get("name", "").startswith("Vulkan") and want and d.get("stable_id") == want:
        print(d["name"]); break
' 2>/dev/null || true
}
vulkan=$(same_gpu_vulkan)
if [ -z "$vulkan" ]; then
  for icd in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.json \
    /etc/vulkan/icd.d/nvidia_icd.json; do
    [ -f "$icd" ] || continue
    export VK_DRIVER_FILES=$icd VK_ICD_FILENAMES=$icd
    vulkan=$(same_gpu_vulkan)
    if [ -n "$vulkan" ]; then
      say "Vulkan: $vulkan through $icd"
      break
    fi
    unset VK_DRIVER_FILES VK_ICD_FILENAMES
  done
fi
if [ -n "$vulkan" ]; then
  "$bkctl" devices --json >"$out/devices.json" 2>/dev/null || true
  conformance "$vulkan (same GPU)" "Conformance/${vulkan}.*" conformance_vulkan.log MESA_SHADER_CACHE_DISABLE=true
else
  failed=1
  record "vulkan on this GPU" FAILED "no Vulkan device with CUDA0's PCI bus id (install NVIDIA's Vulkan ICD; see devices.json)"
fi

# --- the scheduler ----------------------------------------------------------------------------
# Weights in host memory: the GPU asks for the batched mul_mats (offload_op), the rest stays on
# the CPU, and --run checks the split result against the float64 reference (exit 1 above the
# limit).
sched_run() {  # sched_run DEVICE LOG
  run_step "sched $1,CPU --run" 60 "$2" "$bkctl" sched --graph transformer --devices "$1,CPU" --run || true
  [ -f "$out/$2" ] && summary[-1]+=" ($(grep -m1 '^nodes per backend' "$out/$2" | cut -d: -f2 | xargs))"
  return 0
}
sched_run CUDA0 sched_cuda.txt
[ -z "$vulkan" ] || sched_run "$vulkan" sched_vulkan.txt

# --- benchmarks -------------------------------------------------------------------------------
if "$bkctl" bench --help >/dev/null 2>&1; then
  run_step "bkctl bench CUDA0" 90 bench_cuda.json "$bkctl" bench --device CUDA0 --json || true
  if [ -n "$vulkan" ]; then
    run_step "bkctl bench $vulkan" 90 bench_vulkan.json "$bkctl" bench --device "$vulkan" --json || true
  fi
else
  record "bkctl bench" skipped "this bkctl has no bench command (issue 7); cuda_perf_check covers the targets"
fi

perf_ok=0
run_step "cuda_perf_check ${size}^3" 120 perf.txt "$bin/cuda_perf_check" --device CUDA0 --size "$size" \
  --json "$out/perf.json" && perf_ok=1

# --- the table --------------------------------------------------------------------------------
{
  echo
  echo "== gpu-check: $gpu, $(date -u +%Y-%m-%dT%H:%M:%SZ), $((SECONDS - start)) s"
  printf '%-30s %-8s %s\n' step status detail
  printf '%s\n' "${summary[@]}"
  if [ -f "$out/perf.json" ]; then
    echo
    python3 - "$out/perf.json" <<'EOF' || grep -E 'TFLOP|GB/s|target' "$out/perf.txt"
import json, sys
doc = json.load(open(sys.argv[1]))
rows = {r["name"]: r for r in doc["results"]}
print(f'{"measurement":<34} {"value":>10} {"unit":<8} checked')
for r in doc["results"]:
    print(f'{r["name"]:<34} {r["value"]:>10.1f} {r["unit"]:<8} {"yes" if r["checked"] else "NO"}')
ratio = doc["bf16_ratio_vs_cublas"]
d2d = next(r["value"] for r in doc["results"] if r["name"] == "cudamemcpy_d2d")
print(f'BF16 MUL_MAT bk / cuBLAS: {ratio:.3f}  (target >= 0.85: {"met" if ratio >= 0.85 else "NOT met"})')
print(f'D2D copy: {d2d:.0f} GB/s read+written  (target >= 3800: {"met" if d2d >= 3800 else "NOT met"})')
EOF
  fi
} | tee "$out/summary.txt"
[ "$perf_ok" -eq 1 ] || failed=1
exit "$failed"
