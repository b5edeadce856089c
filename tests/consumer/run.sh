#!/usr/bin/env bash
# tests/consumer/run.sh BUILD_DIR: bk used from outside its tree, the three ways a project can.
# Installs BUILD_DIR into a scratch prefix, then builds consumer.cpp (lists the devices, allocates
# and checks a buffer on each) and runs it:
#   1. find_package(bk) against the prefix        (find_package/CMakeLists.txt)
#   2. pkg-config --cflags --libs bk               (bk.pc from the prefix)
#   3. add_subdirectory(bk) from a parent project  (parent/CMakeLists.txt; builds libbk itself)
# Run by scripts/test.sh. Exits non-zero on the first failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
build=$(cd "${1:?usage: run.sh BUILD_DIR}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

step() { echo "== consumer: $*" >&2; }

step "install $build into a scratch prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
# The installed plugins sit in <libdir>/bk/, where the registry looks beside libbk.
ls "$prefix"/lib*/bk/libbk-sim.so >/dev/null

step "find_package(bk)"
cmake -S "$here/find_package" -B "$work/find_package" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/find_package" >/dev/null
"$work/find_package/consumer"

step "pkg-config bk"
export PKG_CONFIG_PATH=$(dirname "$(find "$prefix" -name bk.pc)")
libdir=$(pkg-config --variable=libdir bk)
# shellcheck disable=SC2046
g++ -std=c++20 -Wall -Wextra -Werror "$here/consumer.cpp" -o "$work/pkg_config_consumer" \
  $(pkg-config --cflags --libs bk) -Wl,-rpath,"$libdir"
"$work/pkg_config_consumer"

step "add_subdirectory(bk) (builds libbk in the parent's tree)"
cmake -S "$here/parent" -B "$work/parent" -G Ninja -DBK_SOURCE_DIR="$source_dir" \
  -DCMAKE_BUILD_TYPE=Debug -DBK_CUDA=OFF >/dev/null
cmake --build "$work/parent" --target consumer >/dev/null
"$work/parent/consumer"
step "all three consumers built and ran"
