#!/usr/bin/env bash
# The project's test command: bootstrap, build and run every test, then the same tests under
# AddressSanitizer + UndefinedBehaviorSanitizer, and the discovery-timeout race under ASan and
# ThreadSanitizer. Exits non-zero on the first failure.
# Options: BK_SKIP_SANITIZE=1 skips the sanitizer passes, ASan+UBSan and TSan (for quick local runs
# only).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${BK_JOBS:-$(nproc)}

# Hermetic Vulkan: the lavapipe driver only, no shader cache.
export VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
export VK_ICD_FILENAMES=$VK_DRIVER_FILES
export MESA_SHADER_CACHE_DISABLE=true

scripts/bootstrap.sh
# Test-only: headless Chromium renders bkctl bench's roofline SVG in tests/cli/test_bench.py,
# promtool (Debian's prometheus) checks bkctl smoke --prom's file in tests/cli/test_smoke.py, and
# tests/cli/test_slurm.py runs a one-node Slurm cluster of its own (no service is configured).
scripts/install-packages.sh chromium prometheus slurmctld slurmd slurm-client munge

echo "== build and test (Release, build/)" >&2
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$jobs" --timeout 600

# bk used from outside its tree: installed (find_package, pkg-config), vendored
# (add_subdirectory), and as Debian packages installed with apt-get.
tests/consumer/run.sh build
tests/package/check-packages.sh build
tests/docs/run-ci-md.py build

# The GPU bundle (scripts/gpu-bundle.sh) made from this build must need nothing from this machine.
if [ -f build/lib/libbk-cuda.so ]; then
  echo "== GPU bundle: pack build/ and check it is self-contained" >&2
  scripts/gpu-bundle.sh --from build --out build/gpu-bundle
  tests/bundle/check-bundle.sh build/gpu-bundle
else
  echo "== GPU bundle: skipped (no CUDA plugin in build/: nvcc not found)" >&2
fi

if [ "${BK_SKIP_SANITIZE:-0}" != 1 ]; then
  echo "== build and test (ASan+UBSan, build-asan/)" >&2
  # Mesa's lavapipe leaks inside vkEnumeratePhysicalDevices (see the file); set for the build
  # too, because test discovery runs the test executables, which load the Vulkan plugin.
  export LSAN_OPTIONS=suppressions=$PWD/tests/devices_vulkan/lsan.supp:fast_unwind_on_malloc=0
  # No CUDA plugin here (nvcc cannot instrument it, and the Release pass built it), and line
  # tables only for the stack traces (-g1): the build is most of this pass's time. The sanitizer
  # builds compile in unity batches (CMake's UNITY_BUILD): a batch instantiates the headers'
  # templates (fmt, nlohmann::json, CLI11) once instead of once per file, and instrumenting them
  # is what makes these builds slow. The Release build stays file by file, so that a file that
  # does not include what it uses still fails there.
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBK_SANITIZE=ON -DBK_CUDA=OFF \
    -DCMAKE_UNITY_BUILD=ON \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" >/dev/null
  cmake --build build-asan -j "$jobs"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan --output-on-failure -j "$jobs" --timeout 900
  echo "== the discovery-timeout race, 200 runs (ASan)" >&2
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    tests/cli/discovery_race.sh build-asan/bin/bkctl 200

  echo "== build bkctl and the plugins (ThreadSanitizer, build-tsan/), the discovery race 300 times" >&2
  # Only what the race runs: TSan builds are slow, and the threads that matter are bkctl's own.
  cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBK_TSAN=ON -DBK_CUDA=OFF \
    -DBK_BUILD_TESTS=OFF -DBK_BUILD_BENCH=OFF -DCMAKE_UNITY_BUILD=ON \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" >/dev/null
  cmake --build build-tsan -j "$jobs" --target bkctl bk_plugins
  export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
  # GCC 12's TSan cannot map its shadow memory under the wide address randomisation of newer
  # kernels; without randomisation it can. Where neither works, say so loudly and go on.
  tsan=()
  if ! build-tsan/bin/bkctl --version >/dev/null 2>&1; then tsan=(setarch "$(uname -m)" -R); fi
  if "${tsan[@]}" build-tsan/bin/bkctl --version >/dev/null 2>&1; then
    "${tsan[@]}" tests/cli/discovery_race.sh build-tsan/bin/bkctl 300
  else
    echo "== SKIPPED: ThreadSanitizer cannot run on this kernel ($(uname -r)):" >&2
    build-tsan/bin/bkctl --version 2>&1 | sed -n 1,3p >&2
  fi
fi
