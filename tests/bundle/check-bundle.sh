#!/usr/bin/env bash
# Checks that a GPU bundle (scripts/gpu-bundle.sh) depends on nothing this machine has and the
# GPU machine may lack. scripts/test.sh runs it on a bundle of the test build.
#
#   tests/bundle/check-bundle.sh DIR
#
# 1. Every file in DIR/bin and DIR/lib resolves each library it needs (ldd, empty environment)
#    inside DIR, except the base system (allowed_libs) and what the GPU machine's driver and
#    toolkit provide (gpu_machine_libs, which may be missing here).
# 2. In a mount namespace where this machine's copies of the bundled third-party libraries are
#    hidden, with an empty environment: `bkctl devices --verbose` and `--json` run, the Vulkan and
#    CUDA plugins load, CUDA reports its missing driver as a reason (no GPU here), and the test
#    programs run (the CPU's conformance cases, the device contracts on the CPU, the CUDA plugin
#    tests, which skip their GPU cases). Without the right to make a mount namespace, step 2 runs
#    with those libraries visible and says so.
# Exits 1 naming every problem found, 2 for bad usage.
set -uo pipefail
allowed_libs="linux-vdso.so.1 ld-linux-x86-64.so.2 libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 librt.so.1 libstdc++.so.6 libgcc_s.so.1"
gpu_machine_libs="libcuda.so.1 libnvidia-ml.so.1 libcublas.so.13 libcublasLt.so.13"

dir=${1:?usage: tests/bundle/check-bundle.sh BUNDLE_DIR}
[ -x "$dir/bin/bkctl" ] || { echo "check-bundle: $dir/bin/bkctl not found: not a bundle" >&2; exit 2; }
dir=$(readlink -f "$dir")
problems=0
fail() { echo "check-bundle: FAIL: $*" >&2; problems=$((problems + 1)); }
say() { echo "check-bundle: $*" >&2; }

# --- 1. what every file needs ------------------------------------------------------------------
for f in "$dir"/bin/* "$dir"/lib/*; do
  [ -f "$f" ] || continue
  while read -r name arrow path _; do
    [ "$arrow" = "=>" ] || continue
    case " $allowed_libs " in *" $name "*) continue ;; esac
    case " $gpu_machine_libs " in *" $name "*) continue ;; esac
    case $path in "$dir"/*) continue ;; esac
    fail "$(basename "$f") needs $name, found at '$path' outside the bundle (add its package in scripts/gpu-bundle.sh)"
  done < <(env -i ldd "$f" 2>/dev/null)
done
say "ldd: $(find "$dir/bin" "$dir/lib" -type f | wc -l) files checked"

# --- 2. running with this machine's copies hidden ----------------------------------------------
hidden=()
for lib in "$dir"/lib/*; do
  name=$(basename "$lib")
  case $name in libbk*) continue ;; esac
  while read -r path; do hidden+=("$path"); done < <(ldconfig -p | awk -v n="$name" '$1 == n { print $NF }')
done
run_checks() {  # runs inside the namespace (or not): every program, empty environment
  local bin=$1/bin rc=0 out
  out=$(env -i "$bin/bkctl" devices --verbose 2>&1) || { echo "bkctl devices --verbose failed: $out"; rc=1; }
  grep -q "CPU" <<<"$out" || { echo "bkctl devices lists no CPU: $out"; rc=1; }
  out=$(env -i "$bin/bkctl" devices --json 2>&1) || { echo "bkctl devices --json failed: $out"; rc=1; }
  python3 - "$out" <<'EOF' || rc=1
import json, sys
doc = json.loads(sys.argv[1])
plugins = {p["name"]: p for p in doc["plugins"]}
for name in ("vulkan", "cuda"):
    p = plugins.get(name)
    if p is None or p["status"] != "loaded":
        print(f"plugin {name} did not load from the bundle: {p}")
        sys.exit(1)
cuda = [b for b in doc["backends"] if b["name"] == "CUDA"]
if not cuda:
    print("no CUDA backend reported")
    sys.exit(1)
if cuda[0]["device_count"] == 0 and "driver" not in (cuda[0]["status"] or "").lower():
    print(f"CUDA has no devices but its reason does not name the driver: {cuda[0]['status']!r}")
    sys.exit(1)
EOF
  env -i "$bin/bk_conformance" --gtest_brief=1 --gtest_filter='Conformance/CPU.add*:Conformance/CPU.mul_mat_f32*' \
    >/tmp/check-bundle-conformance.log 2>&1 || { echo "bk_conformance failed:"; tail -n 20 /tmp/check-bundle-conformance.log; rc=1; }
  env -i "$bin/bk_device_contracts" --gtest_brief=1 --gtest_filter='*CPU*' \
    >/tmp/check-bundle-contracts.log 2>&1 || { echo "bk_device_contracts failed:"; tail -n 20 /tmp/check-bundle-contracts.log; rc=1; }
  env -i "$bin/cuda_plugin_test" --gtest_brief=1 \
    >/tmp/check-bundle-cuda.log 2>&1 || { echo "cuda_plugin_test failed:"; tail -n 20 /tmp/check-bundle-cuda.log; rc=1; }
  return $rc
}
export -f run_checks
# shellcheck disable=SC2016  # expanded by the inner bash
script='set -e; for p in "${@:2}"; do mount --bind /dev/null "$p"; done; run_checks "$1"'
if [ ${#hidden[@]} -gt 0 ] && unshare -m true 2>/dev/null; then
  say "running the bundle with ${#hidden[@]} of this machine's libraries hidden: ${hidden[*]}"
  if ! out=$(unshare -m bash -c "$script" check "$dir" "${hidden[@]}" 2>&1); then fail "$out"; fi
else
  say "no mount namespace here (unshare -m): running with this machine's libraries visible; the ldd check holds"
  if ! out=$(run_checks "$dir" 2>&1); then fail "$out"; fi
fi

if [ "$problems" -gt 0 ]; then
  say "$problems problem(s) in $dir"
  exit 1
fi
say "ok: $dir is self-contained ($(du -sh "$dir" | cut -f1))"
