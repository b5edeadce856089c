#!/usr/bin/env bash
# Builds bk's Debian packages from a build tree: libbk0, libbk-dev, bkctl, bk-vulkan, bkctl-mpi
# when the tree has the MPI module, and bk-cuda when it has the CUDA plugin
# (cmake/packaging.cmake says what goes where).
#   scripts/package.sh [BUILD_DIR] [OUT_DIR]     (defaults: build, BUILD_DIR/packages)
# Builds what the packages need first; prints the .deb paths.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-$build/packages}
[ -f "$build/CPackConfig.cmake" ] ||
  { echo "package.sh: $build is not a configured bk build (run scripts/bootstrap.sh)" >&2; exit 2; }
scripts/install-packages.sh dpkg-dev file
targets=(bkctl bk_plugins)
cmake --build "$build" --target help | grep -q bkctl_man && targets+=(bkctl_man)
cmake --build "$build" -j "${BK_JOBS:-$(nproc)}" --target "${targets[@]}" >/dev/null
rm -rf "$out"
cpack --config "$build/CPackConfig.cmake" -B "$out" >/dev/null
rm -rf "$out/_CPack_Packages"
ls "$out"/*.deb
