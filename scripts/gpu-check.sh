#!/usr/bin/env bash
# Every GPU check of bk in one unattended run, for a machine with an NVIDIA GPU (made for the
# H200 the project is measured on, reached for about 15 minutes at a time).
#
#   scripts/gpu-check.sh --bundle DIR   # run the prebuilt bundle (scripts/gpu-bundle.sh): no build
#   scripts/gpu-check.sh                # build here first (needs nvcc, CMake, ninja and bk's
#                                       # build dependencies), then the same checks
#
# The checks, each with a time limit, skipped with the reason when no time is left:
#   - the machine (nvidia-smi) and `bkctl devices --json` / `--verbose`;
#   - the CUDA plugin's own tests, the device contracts and the conformance suite on CUDA0;
#   - the same GPU through NVIDIA's Vulkan driver (the Vulkan device with CUDA0's PCI bus id):
#     device contracts and conformance;
#   - `bkctl smoke --level 2 --require 'CUDA>=1' --junit`;
#   - `bkctl sched --graph transformer --devices <gpu>,CPU --run` on CUDA0 and on that Vulkan device
#     (weights in host memory, the batched mul_mats offloaded), checked against the reference;
#   - `bkctl bench --json --plot` on CUDA0 and the Vulkan device;
#   - cuda_perf_check: bk's MUL_MAT (BF16, F16, F32) at 8192^3 beside cuBLAS, and copy bandwidths
#     beside cudaMemcpy, in one process, with the targets;
#   - the level-3 burn-in on CUDA0 (`bkctl smoke --level 3 --duration 30s --mem 50% --json`):
#     checked matmuls, half the memory held filled, NVML telemetry each second, the PCIe check.
# Results go to ${OUT:-/tmp/gpu-check}: summary.txt (the table), perf.json, devices.json,
# bench_cuda.json, roofline.svg and results.tar.gz (every log, JUnit and JSON file): few files,
# as the GPU machine's tool returns at most eight. Exits 1 when a check failed, 2 when the
# machine cannot run it at all.
#
# Environment: BK_GPU_DEADLINE_S (default 330 with --bundle, 470 with a build), BK_GPU_SIZE
# (GEMM size, default 8192), BK_GPU_BURNIN (the burn-in's --duration, default 30s); with a build
# also BK_GPU_BUILD_DIR (default build-gpu), BK_GPU_ARCH (default from nvidia-smi's compute
# capability, e.g. 90-real), BK_JOBS, BK_GPU_BUILD_TYPE.
set -euo pipefail
cd "$(dirname "$0")/.."

bundle=""
while [ $# -gt 0 ]; do
  case $1 in
    --bundle) bundle=${2:?--bundle needs the bundle directory}; shift 2 ;;
    *) echo "gpu-check: unknown option '$1' (use --bundle DIR)" >&2; exit 2 ;;
  esac
done

out=${OUT:-/tmp/gpu-check}
size=${BK_GPU_SIZE:-8192}
deadline=${BK_GPU_DEADLINE_S:-$([ -n "$bundle" ] && echo 330 || echo 470)}
mkdir -p "$out"
work=$(mktemp -d /tmp/gpu-check-work.XXXXXX)
summary=()
failed=0
start=$SECONDS

say() { echo "gpu-check: $*" >&2; }
die() {
  say "$*"
  record "gpu-check" STOPPED "$*"
  finish
  exit 2
}
left() { echo $((deadline - (SECONDS - start))); }
record() { summary+=("$(printf '%-34s %-8s %s' "$1" "$2" "$3")"); }

# run_step NAME LIMIT_S LOG CMD...: runs CMD with a time limit (capped by what is left), its
# stdout in LOG and its stderr in LOG.stderr (in the work folder); records ok / FAILED / TIMEOUT /
# skipped. Returns 0 when it passed.
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
  say "== $name (limit ${limit}s, log $log)"
  local t0=$SECONDS rc=0
  timeout --kill-after=10 "$limit" "$@" >"$work/$log" 2>"$work/$log.stderr" || rc=$?
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
  tail -n 20 "$work/$log" "$work/$log.stderr" >&2 || true
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

# gtest_step NAME LOG PROGRAM [ARGS...]: a gtest program as a step, its counts in the table.
gtest_step() {
  local name=$1 log=$2
  shift 2
  run_step "$name" 150 "$log" "$@" --gtest_brief=1 --gtest_output="xml:$work/${log%.log}.xml" || true
  [ -f "$work/$log" ] && summary[-1]+=" ($(gtest_counts "$work/$log"))"
  return 0
}

# The table, the few files that come back, and everything else in one tarball.
finish() {
  {
    echo
    echo "== gpu-check: ${gpu:-no GPU}, $(date -u +%Y-%m-%dT%H:%M:%SZ), $((SECONDS - start)) s," \
      "$([ -n "$bundle" ] && echo "bundle $bundle" || echo "built here")"
    printf '%-34s %-8s %s\n' step status detail
    printf '%s\n' "${summary[@]}"
    [ ! -f "$work/perf.json" ] || python3 - "$work/perf.json" <<'EOF' || grep -E 'TFLOP|GB/s|target' "$work/perf.txt"
import json, sys
doc = json.load(open(sys.argv[1]))
print(f'\n{"measurement":<34} {"value":>10} {"unit":<8} checked')
for r in doc["results"]:
    print(f'{r["name"]:<34} {r["value"]:>10.1f} {r["unit"]:<8} {"yes" if r["checked"] else "NO"}')
for t in doc.get("targets", []):
    print(f'{t["what"]:<48} {t["value"]:>8.3f}  target >= {t["target"]}: {"met" if t["met"] else "NOT met"}')
EOF
  } | tee "$work/summary.txt"
  for f in summary.txt perf.json devices.json bench_cuda.json roofline.svg; do
    [ ! -f "$work/$f" ] || cp "$work/$f" "$out/$f"
  done
  tar czf "$out/results.tar.gz" -C "$work" . 2>/dev/null || true
  rm -rf "$work"
}

# --- the machine ------------------------------------------------------------------------------
gpu=""
command -v nvidia-smi >/dev/null || die "nvidia-smi not found: this script needs a machine with an NVIDIA GPU and driver"
nvidia-smi -L >"$work/nvidia-smi.txt" 2>&1 || die "nvidia-smi fails (no GPU or driver not loaded): $(head -n 3 "$work/nvidia-smi.txt")"
nvidia-smi >>"$work/nvidia-smi.txt" 2>&1 || true
gpu=$(nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader | sed -n 1p)
say "GPU: $gpu"
for tool in timeout python3; do
  command -v "$tool" >/dev/null || die "$tool not found"
done

if [ -n "$bundle" ]; then
  [ -x "$bundle/bin/bkctl" ] || die "$bundle/bin/bkctl not found: make the bundle with scripts/gpu-bundle.sh"
  bin=$(cd "$bundle/bin" && pwd)
  # The bundle's programs find its libraries by RUNPATH; the driver's Vulkan ICD, loaded from
  # outside, finds what it needs (libglvnd's dispatch library) only through the search path.
  export LD_LIBRARY_PATH=$(cd "$bundle/lib" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  cp "$bundle/MANIFEST.txt" "$work/" 2>/dev/null || true
  record "bundle" ok "$(sed -n 's/^commit: //p' "$bundle/MANIFEST.txt" 2>/dev/null)"
else
  nvcc=$(command -v nvcc || true)
  [ -n "$nvcc" ] || nvcc=/usr/local/cuda/bin/nvcc
  [ -x "$nvcc" ] || die "nvcc not found on PATH or at /usr/local/cuda/bin: install the CUDA Toolkit, or use --bundle"
  for tool in cmake ninja; do
    command -v "$tool" >/dev/null || die "$tool not found (scripts/bootstrap.sh installs the build tools), or use --bundle"
  done
  cap=$(echo "$gpu" | awk -F', ' '{print $3}' | tr -d '.')
  build=${BK_GPU_BUILD_DIR:-build-gpu}
  # shellcheck disable=SC2016  # expanded by the inner bash, from its arguments
  build_cmd='cmake -S . -B "$1" -G Ninja -DCMAKE_BUILD_TYPE="$2" -DBK_CUDA=ON -DBK_CUDA_ARCHS="$3" \
    -DCMAKE_CUDA_COMPILER="$4" -DBK_BUILD_BENCH=OFF && cmake --build "$1" -j "$5" --target bkctl bk_plugins \
    bk_conformance bk_device_contracts cuda_plugin_test cuda_perf_check'
  run_step "build (CUDA ${BK_GPU_ARCH:-${cap:-90}-real})" 300 build.log bash -c "$build_cmd" build "$build" \
    "${BK_GPU_BUILD_TYPE:-Release}" "${BK_GPU_ARCH:-${cap:-90}-real}" "$nvcc" "${BK_JOBS:-$(nproc)}" ||
    die "the build failed; nothing else can run (see build.log in results.tar.gz)"
  bin=$(cd "$build/bin" && pwd)
fi
bkctl=$bin/bkctl

# cuBLAS comes from the machine's CUDA Toolkit (the plugin dlopens it; cuda_perf_check links it).
for d in /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib \
  "$(python3 -c 'import nvidia.cublas, os; print(os.path.join(list(nvidia.cublas.__path__)[0], "lib"))' 2>/dev/null)"; do
  if [ -n "$d" ] && [ -e "$d/libcublas.so.13" ]; then
    export LD_LIBRARY_PATH=$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  fi
done

run_step "bkctl devices --json" 30 devices.json "$bkctl" devices --json || true
run_step "bkctl devices --verbose" 30 devices.txt "$bkctl" devices --verbose || true
if ! grep -q '"name": *"CUDA0"' "$work/devices.json" 2>/dev/null; then
  failed=1
  record "cuda devices" FAILED "no CUDA0 in bkctl devices: $(grep -A2 '"CUDA"' "$work/devices.json" 2>/dev/null | tr -s ' \n' ' ')"
fi

# --- CUDA0: plugin tests, device contracts, conformance ------------------------------------------
gtest_step "cuda plugin tests" cuda_plugin_test.log "$bin/cuda_plugin_test"
gtest_step "device contracts CUDA0" contracts_cuda.log "$bin/bk_device_contracts" --inherit-environment \
  --gtest_filter='*CUDA0*'
gtest_step "conformance CUDA0" conformance_cuda.log "$bin/bk_conformance" --gtest_filter='Conformance/CUDA0.*'

# --- the same GPU through Vulkan --------------------------------------------------------------
# The Vulkan device whose stable id (PCI bus id) is CUDA0's. The Vulkan loader travels with the
# bundle; NVIDIA's ICD file may have to be named (it is under /usr/local/nvidia on the H200).
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
vulkan=""
for icd in "" /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.json \
  /etc/vulkan/icd.d/nvidia_icd.json; do
  if [ -n "$icd" ]; then
    [ -f "$icd" ] || continue
    export VK_DRIVER_FILES=$icd VK_ICD_FILENAMES=$icd
  fi
  vulkan=$(same_gpu_vulkan)
  [ -z "$vulkan" ] || break
  unset VK_DRIVER_FILES VK_ICD_FILENAMES
done
if [ -n "$vulkan" ]; then
  say "Vulkan: $vulkan${VK_DRIVER_FILES:+ through $VK_DRIVER_FILES}"
  "$bkctl" devices --json >"$work/devices.json" 2>/dev/null || true
  gtest_step "device contracts $vulkan" contracts_vulkan.log "$bin/bk_device_contracts" --inherit-environment \
    --gtest_filter="*${vulkan}*"
  gtest_step "conformance $vulkan (same GPU)" conformance_vulkan.log "$bin/bk_conformance" \
    --gtest_filter="Conformance/${vulkan}.*"
else
  failed=1
  record "vulkan on this GPU" FAILED "no Vulkan device with CUDA0's PCI bus id (NVIDIA's Vulkan ICD; see devices.json)"
fi

# --- smoke, the scheduler, bench ---------------------------------------------------------------
run_step "smoke --level 2 CUDA>=1" 90 smoke.txt "$bkctl" smoke --level 2 --require 'CUDA>=1' \
  --junit "$work/smoke.xml" || true
sched_run() {  # sched_run DEVICE LOG
  run_step "sched $1,CPU --run" 60 "$2" "$bkctl" sched --graph transformer --devices "$1,CPU" --run || true
  [ -f "$work/$2" ] && summary[-1]+=" ($(grep -m1 '^nodes per backend' "$work/$2" | cut -d: -f2 | xargs))"
  return 0
}
sched_run CUDA0 sched_cuda.txt
[ -z "$vulkan" ] || sched_run "$vulkan" sched_vulkan.txt
run_step "bench CUDA0 --json --plot" 90 bench_cuda.json "$bkctl" bench --device CUDA0 --json \
  --plot "$work/roofline.svg" || true
[ -z "$vulkan" ] || run_step "bench $vulkan --json" 60 bench_vulkan.json "$bkctl" bench --device "$vulkan" --json || true

# --- bk beside cuBLAS and cudaMemcpy ------------------------------------------------------------
run_step "cuda_perf_check ${size}^3" 120 perf.txt "$bin/cuda_perf_check" --device CUDA0 --size "$size" \
  --json "$work/perf.json" || true
[ -f "$work/perf.json" ] || failed=1

# --- the burn-in, last: the longest step, and the one the others' numbers must not wait for -----
run_step "smoke --level 3 CUDA0 (burn-in)" 100 burnin_cuda.json "$bkctl" smoke --level 3 --device CUDA0 \
  --duration "${BK_GPU_BURNIN:-30s}" --mem 50% --json || true
if [ -s "$work/burnin_cuda.json" ]; then
  summary[-1]+=" ($(python3 -c '
import json, sys
check = [c for c in json.load(open(sys.argv[1]))["checks"] if c["check"] == "sustained"][0]
m, last = check["metrics"], (check.get("timeline") or [{"telemetry": {}}])[-1]["telemetry"]
print("{}: {:.0f} GFLOP/s median at {:.0f}^3, {:.0f} wrong, {} C, {} W, PCIe gen {} x{}".format(
    check["status"], m.get("median_gflops", 0), m.get("matrix_size", 0), m.get("wrong_results", 0),
    last.get("temperature_c", "?"), last.get("power_w", "?"), last.get("pcie_gen", "?"), last.get("pcie_width", "?")))
' "$work/burnin_cuda.json" 2>/dev/null || echo "report unreadable")"
fi

finish
exit "$failed"
