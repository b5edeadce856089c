#!/usr/bin/env bash
# tests/package/check-packages.sh BUILD_DIR: bk's Debian packages, tried as a user would. Builds
# them (scripts/package.sh), checks each one's files and Depends with dpkg-deb, runs lintian
# (errors fail), installs them with apt-get, checks that /usr/bin/bkctl runs and loads the
# installed plugins, that `man bkctl` and the bash completion work and that a program builds
# against the installed libbk-dev (find_package and pkg-config); then removes them again.
# Needs root (CI runs as root). Run by scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=$(cd "${1:?usage: check-packages.sh BUILD_DIR}" && pwd)
out=$build/packages
packages=(libbk0 libbk-dev bkctl bk-vulkan)
[ -f "$build/lib/libbk-cuda.so" ] && packages+=(bk-cuda)
fleet=0
[ -f "$build/lib/libbkctl-mpi.so" ] && fleet=1 && packages+=(bkctl-mpi)

fail() { echo "check-packages: $*" >&2; exit 1; }
step() { echo "== packages: $*" >&2; }

scripts/install-packages.sh lintian man-db dpkg-dev
step "build the .deb files"
scripts/package.sh "$build" "$out" >/dev/null

deb() { ls "$out/$1"_*.deb; }
has_file() { dpkg-deb -c "$(deb "$1")" | awk '{ print $6 }' | grep -qx "./$2" || fail "$1 lacks /$2"; }
depends() { dpkg-deb -f "$(deb "$1")" Depends; }

step "contents and Depends"
for p in "${packages[@]}"; do deb "$p" >/dev/null || fail "no $p package in $out"; done
has_file libbk0 usr/lib/libbk.so.0
has_file libbk0 usr/lib/bk/libbk-sim.so
has_file libbk-dev usr/lib/libbk.so
has_file libbk-dev usr/include/bk/registry.h
has_file libbk-dev usr/include/bk/version.h
has_file libbk-dev usr/include/bk/bk.h
has_file libbk-dev usr/lib/cmake/bk/bkConfig.cmake
has_file libbk-dev usr/lib/pkgconfig/bk.pc
has_file bkctl usr/bin/bkctl
has_file bkctl usr/share/man/man1/bkctl.1.gz
has_file bkctl usr/share/bash-completion/completions/bkctl
has_file bkctl usr/share/doc/bkctl/examples/swiglu-ffn.json
has_file bk-vulkan usr/lib/bk/libbk-vulkan.so
for p in "${packages[@]}"; do has_file "$p" "usr/share/doc/$p/copyright"; done
depends libbk0 | grep -q 'libhwloc' || fail "libbk0 does not depend on libhwloc: $(depends libbk0)"
depends bk-vulkan | grep -q 'libvulkan1' || fail "bk-vulkan does not depend on the loader: $(depends bk-vulkan)"
depends bk-vulkan | grep -q 'mesa' && fail "bk-vulkan depends on a driver: $(depends bk-vulkan)"
if [ "$fleet" = 1 ]; then
  has_file bkctl-mpi usr/lib/bk/libbkctl-mpi.so
  depends bkctl-mpi | grep -q 'libopenmpi' || fail "bkctl-mpi does not depend on OpenMPI: $(depends bkctl-mpi)"
  depends bkctl-mpi | grep -q 'bkctl (= ' || fail "bkctl-mpi does not depend on this bkctl: $(depends bkctl-mpi)"
  depends bkctl | grep -q 'mpi' && fail "bkctl itself depends on MPI: $(depends bkctl)"
fi
for p in libbk-dev bkctl bk-vulkan; do
  depends "$p" | grep -q 'libbk0 (= ' || fail "$p does not depend on this libbk0: $(depends "$p")"
done

step "lintian"
lintian_out=$(lintian --allow-root "$out"/*.deb 2>&1 || true)
echo "$lintian_out" >&2
echo "$lintian_out" | grep -q '^E: ' && fail "lintian reports errors"

step "install with apt-get"
trap 'apt-get remove -y -qq "${packages[@]}" >/dev/null 2>&1 || true' EXIT
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$out"/*.deb >/dev/null

step "/usr/bin/bkctl devices --verbose loads the installed plugins"
verbose=$(/usr/bin/bkctl devices --verbose)
for plugin in sim vulkan; do
  echo "$verbose" | grep -Eq "^$plugin +loaded +/usr/lib/bk/libbk-$plugin\.so" ||
    fail "plugin $plugin not loaded from /usr/lib/bk: $verbose"
done
/usr/bin/bkctl --version | grep -q '^bkctl ' || fail "bkctl --version"
/usr/bin/bkctl sched --graph-file /usr/share/doc/bkctl/examples/swiglu-ffn.json --devices CPU --run >/dev/null ||
  fail "the installed example graph does not plan and run"

if [ "$fleet" = 1 ]; then
  step "mpirun /usr/bin/bkctl smoke finds the installed MPI module"
  fleet_report=$(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    OMPI_MCA_btl_vader_single_copy_mechanism=none mpirun -n 2 --oversubscribe \
    /usr/bin/bkctl smoke --device CPU --mem 8MiB 2>/dev/null) || fail "fleet mode with the installed packages failed"
  echo "$fleet_report" | grep -q 'fleet of 2 ranks' || fail "no fleet report: $fleet_report"
fi

step "man bkctl"
MANWIDTH=80 man bkctl 2>/dev/null | grep -q 'bkctl devices' || fail "man bkctl has no COMMANDS section"

step "bash completion"
completion=/usr/share/bash-completion/completions/bkctl
words=$(bash -c "source $completion; COMP_WORDS=(bkctl s); COMP_CWORD=1; _bkctl; echo \${COMPREPLY[*]}")
[ "$words" = "schema sched smoke" ] || fail "completion of 'bkctl s' gave '$words'"

step "a program against the installed libbk-dev"
work=$(mktemp -d)
trap 'rm -rf "$work"; apt-get remove -y -qq "${packages[@]}" >/dev/null 2>&1 || true' EXIT
cmake -S tests/consumer/find_package -B "$work/cmake" -G Ninja >/dev/null
cmake --build "$work/cmake" >/dev/null
"$work/cmake/consumer" | grep -q '^Vulkan0' || fail "the consumer does not see Vulkan0 through the installed plugin"
# shellcheck disable=SC2046
g++ -std=c++20 tests/consumer/consumer.cpp -o "$work/pc" $(pkg-config --cflags --libs bk)
"$work/pc" >/dev/null

step "remove"
apt-get remove -y -qq "${packages[@]}" >/dev/null
[ ! -e /usr/bin/bkctl ] || fail "/usr/bin/bkctl is still there after removal"
trap 'rm -rf "$work"' EXIT
step "all packages checked"
