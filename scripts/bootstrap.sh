#!/usr/bin/env bash
# Installs what bk needs from Debian packages (only what is missing; apt-get update once, only
# then), configures a Release build in build/ and builds bkctl and the plugins.
# Afterwards: build/bin/bkctl. Idempotent: a second run installs nothing and rebuilds only what
# changed. Options: BK_BUILD_DIR (default build), BK_BUILD_TYPE (default Release),
# BK_CMAKE_ARGS (extra configure flags), BK_JOBS (default: all cores).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  cmake ninja-build g++ pkg-config
  libcli11-dev libfmt-dev nlohmann-json3-dev libhwloc-dev
  libvulkan-dev glslc mesa-vulkan-drivers
  libgtest-dev python3 python3-jsonschema libxml2-utils help2man
  libopenmpi-dev openmpi-bin
)

scripts/install-packages.sh "${packages[@]}"

build_dir=${BK_BUILD_DIR:-build}
jobs=${BK_JOBS:-$(nproc)}
# shellcheck disable=SC2086
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE="${BK_BUILD_TYPE:-Release}" ${BK_CMAKE_ARGS:-} >/dev/null
cmake --build "$build_dir" -j "$jobs" --target bkctl bk_plugins
echo "bootstrap: built $build_dir/bin/bkctl" >&2
