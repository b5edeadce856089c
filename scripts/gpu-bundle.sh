#!/usr/bin/env bash
# Builds the GPU bundle: bkctl, libbk, the plugins and the programs scripts/gpu-check.sh runs,
# with every shared library they need that a base glibc/libstdc++ system lacks, in one folder
# that needs nothing from the machine that built it. It is made for a GPU machine that has a
# driver and the CUDA Toolkit but no package registry and no build dependencies:
#
#   scripts/gpu-bundle.sh                      # build build-gpu/ (CUDA for sm_90), write gpu-bundle/
#   scripts/gpu-check.sh --bundle gpu-bundle   # there: every GPU check, no build
#
# Layout: bin/ (stripped executables, RUNPATH $ORIGIN/../lib), lib/ (libbk.so.0, the plugins,
# and the third-party libraries taken from this machine's Debian packages with apt-get download
# + dpkg -x: fmt, hwloc and what it needs, the Vulkan loader; RUNPATH set to $ORIGIN with
# patchelf so that they find each other), MANIFEST.txt (commit, versions,
# packages). Libraries the GPU machine provides itself (the driver's libcuda and NVML, the
# toolkit's cuBLAS) are left out, and so is everything the bundle check allows
# (tests/bundle/check-bundle.sh, which CI runs on a bundle of the test build).
#
# Options: --from DIR packs an existing build tree (with the CUDA plugin) instead of building;
# --out DIR (default gpu-bundle). Environment: BK_GPU_BUNDLE_ARCHS (default 90-real: the H200),
# BK_JOBS (default: all cores).
set -euo pipefail
# Pipelines read their input to the end (no head, no early awk exit): under pipefail a writer
# that a closed pipe kills with SIGPIPE fails the whole script, as one did in CI.
cd "$(dirname "$0")/.."
scripts/install-packages.sh patchelf

from="" out=gpu-bundle
while [ $# -gt 0 ]; do
  case $1 in
    --from) from=${2:?--from needs a build directory}; shift 2 ;;
    --out) out=${2:?--out needs a directory}; shift 2 ;;
    *) echo "gpu-bundle: unknown option '$1' (use --from BUILD_DIR, --out DIR)" >&2; exit 2 ;;
  esac
done
say() { echo "gpu-bundle: $*" >&2; }
die() { say "$*"; exit 1; }

# The programs gpu-check.sh runs, by CMake target (and file name under bin/).
programs=(bkctl bk_conformance bk_device_contracts cuda_plugin_test cuda_perf_check)

build=$from
if [ -z "$build" ]; then
  build="build-gpu"
  say "building $build (Release, CUDA ${BK_GPU_BUNDLE_ARCHS:-90-real})"
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBK_CUDA=ON \
    -DBK_CUDA_ARCHS="${BK_GPU_BUNDLE_ARCHS:-90-real}" -DBK_BUILD_BENCH=OFF >/dev/null
  cmake --build "$build" -j "${BK_JOBS:-$(nproc)}" --target bk_plugins "${programs[@]}"
fi
[ -f "$build/lib/libbk-cuda.so" ] ||
  die "$build has no CUDA plugin (lib/libbk-cuda.so): configure it with nvcc on PATH and -DBK_CUDA=ON"

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib"
for p in "${programs[@]}"; do
  [ -f "$build/bin/$p" ] || die "$build/bin/$p is missing: build the target $p"
  strip --strip-unneeded -o "$out/bin/$p" "$build/bin/$p"
done
strip --strip-unneeded -o "$out/lib/libbk.so.0" "$(readlink -f "$build/lib/libbk.so.0")"
for plugin in "$build"/lib/libbk-*.so; do
  strip --strip-unneeded -o "$out/lib/$(basename "$plugin")" "$plugin"
done

# Third-party libraries: what the bundle's files need (ldd) and this machine resolves outside the
# bundle, minus what the check allows, plus the Vulkan loader, which the plugin dlopens. Each
# comes from the Debian package that holds it, at the installed version, so the bundle carries
# the very library the build linked against.
allowed=$(sed -n 's/^\(allowed_libs\|gpu_machine_libs\)=//p' tests/bundle/check-bundle.sh | tr -d '"' | tr '\n' ' ')
needed_libs() {
  local f
  for f in "$out"/bin/* "$out"/lib/*; do
    env -i ldd "$f" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $1 " " $3 }'
  done | sort -u | while read -r name path; do
    case " $allowed " in *" $name "*) continue ;; esac
    case $path in "$(readlink -f "$out")"/*) continue ;; esac
    echo "$name $path"
  done
}
cache=.cache/gpu-bundle-debs
mkdir -p "$cache"
unpacked=$(mktemp -d)
trap 'rm -rf "$unpacked"' EXIT
packages=()
add_library_from_package() {  # add_library_from_package SONAME PATH
  local name=$1 path=$2 pkg version deb
  pkg=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null | sed -n '1s/:.*//p') ||
    die "no Debian package holds $path ($name)"
  [ -n "$pkg" ] || die "no Debian package holds $path ($name)"
  version=$(dpkg-query -W -f='${Version}' "$pkg")
  deb=$(find "$cache" -name "${pkg}_*.deb" -print -quit)
  if [ -z "$deb" ]; then
    (cd "$cache" && { apt-get download "$pkg=$version" >/dev/null 2>&1 ||
      { apt-get update -qq >/dev/null && apt-get download "$pkg=$version" >/dev/null; }; }) ||
      die "apt-get download $pkg=$version failed"
    deb=$(find "$cache" -name "${pkg}_*.deb" -print -quit)
  fi
  dpkg -x "$deb" "$unpacked/$pkg"
  local file
  file=$(find "$unpacked/$pkg" -name "$name" -print -quit)
  [ -n "$file" ] || die "$deb has no $name"
  cp -L "$file" "$out/lib/$name"
  strip --strip-unneeded "$out/lib/$name"
  # Its own needs (hwloc's udev) are looked up beside it: RUNPATH applies to an object's direct
  # needs only, so the bundle's executables cannot point a third-party library at them.
  # shellcheck disable=SC2016  # $ORIGIN is for the dynamic loader, not the shell
  patchelf --set-rpath '$ORIGIN' "$out/lib/$name"
  packages+=("$pkg $version ($name)")
}
vulkan_loader=$(ldconfig -p | awk '/libvulkan\.so\.1 / && !found { print $NF; found = 1 }')
[ -n "$vulkan_loader" ] || die "no Vulkan loader (libvulkan.so.1) here: install libvulkan1"
add_library_from_package libvulkan.so.1 "$vulkan_loader"
# NVIDIA's Vulkan ICD (libGLX_nvidia.so.0, from the driver) fails vkCreateInstance without
# libglvnd's libraries and the X client libraries they need, which a machine with only the driver
# and the toolkit lacks (seen on the H200); gpu-check.sh puts the bundle's lib/ on the search path
# for it.
for soname in libGLdispatch.so.0 libGLX.so.0 libEGL.so.1 libGL.so.1 libOpenGL.so.0 libGLESv2.so.2 libX11.so.6 \
  libxcb.so.1 libXau.so.6 libXdmcp.so.6 libXext.so.6; do
  path=$(ldconfig -p | awk -v n="$soname" '$1 == n && !found { print $NF; found = 1 }')
  [ -n "$path" ] || die "no $soname here (NVIDIA's Vulkan driver needs it): install libglvnd0 libglx0 libegl1 libgl1 libopengl0 libgles2"
  add_library_from_package "$soname" "$path"
done
# Each pass may bring libraries with needs of their own (hwloc needs udev); repeat until none.
while true; do
  missing=$(needed_libs)
  [ -n "$missing" ] || break
  while read -r name path; do
    [ ! -e "$out/lib/$name" ] || die "$name is in the bundle, yet something there still resolves it at $path"
    add_library_from_package "$name" "$path"
  done <<<"$missing"
done

{
  echo "bk GPU bundle"
  echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (with local changes)')"
  # shellcheck disable=SC1091
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(. /etc/os-release && echo "$PRETTY_NAME"), $(uname -m)"
  echo "from: $build ($(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt"), CUDA architectures" \
    "$(sed -n 's/^BK_CUDA_ARCHS:[A-Z]*=//p' "$build/CMakeCache.txt"))"
  echo "programs: ${programs[*]}"
  echo "third-party libraries (Debian packages):"
  printf '  %s\n' "${packages[@]}"
  echo "left to the GPU machine: the NVIDIA driver (libcuda, NVML, its Vulkan ICD) and the CUDA Toolkit's cuBLAS"
} >"$out/MANIFEST.txt"
say "wrote $out ($(du -sh "$out" | cut -f1)); run it there with: scripts/gpu-check.sh --bundle $out"
