#!/usr/bin/env bash
# Installs a cuprim build tree into a fresh prefix and links the examples against it the two ways
# the README promises, with the C compiler only:
#   (a) CMake: a copy of examples/, outside the source tree, built as a project of its own
#       (project(... LANGUAGES C), find_package(cuprim), cuprim::cuprim);
#   (b) pkg-config: $CC reduce.c $(pkg-config --cflags --libs cuprim).
# The prefix is moved after installing, so both also prove the installed files relocatable. Each
# program is then run: exit status 0, or 77 where there is no CUDA device, passes (that also
# checks that the CUDA runtime is found at run time).
# Where the build has the NCCL component (it installed cuprim-nccl.pc), both ways also link
# examples/consumer/nccl_consumer.c against it: find_package(cuprim COMPONENTS nccl) with the
# target cuprim::nccl, and pkg-config's cuprim-nccl; it runs without a GPU.
#
# usage: scripts/test_install.sh BUILD_DIR [VERSION]
#   VERSION: ask find_package for it (checks cuprimConfigVersion.cmake).
# Environment: CMAKE, CC, PKG_CONFIG (default: cmake, cc, pkg-config from PATH).
# Exit status: 0 pass; 1 fail; 77 (a) passed but there is no pkg-config to run (b).
# Registered as the CTest test install_and_link (examples/CMakeLists.txt).
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 BUILD_DIR [VERSION]" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
version=${2:-}
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cmake=${CMAKE:-cmake}
cc=${CC:-cc}
pkg_config=${PKG_CONFIG:-$(command -v pkg-config || true)}

work=$(mktemp -d "${TMPDIR:-/tmp}/cuprim-install.XXXXXX")
trap 'rm -rf "$work"' EXIT

step() { printf '\n== install_and_link: %s\n' "$*"; }

# Runs a linked program; 0 and 77 (no CUDA device) pass.
run_program() {
  local rc=0
  "$1" || rc=$?
  if [[ $rc -ne 0 && $rc -ne 77 ]]; then
    echo "install_and_link: FAIL: $1 exited with $rc" >&2
    exit 1
  fi
}

step "install $build into a temporary prefix, then move it"
"$cmake" --install "$build" --prefix "$work/staging"
mv "$work/staging" "$work/prefix"
prefix=$work/prefix
(cd "$prefix" && find . -type f | sort)
pc_file=$(find "$prefix" -path '*/pkgconfig/cuprim.pc' | head -n 1)
[[ -n $pc_file ]] || { echo "install_and_link: FAIL: no cuprim.pc installed" >&2; exit 1; }
nccl=0
if [[ -f $(dirname "$pc_file")/cuprim-nccl.pc ]]; then
  nccl=1
  [[ -n $(find "$prefix" -path '*/cuprim/nccl.h') ]] ||
    { echo "install_and_link: FAIL: cuprim-nccl.pc but no cuprim/nccl.h installed" >&2; exit 1; }
  echo "the NCCL component is installed: its consumer is linked too"
elif [[ -n $(find "$prefix" -name nccl.h) ]]; then
  echo "install_and_link: FAIL: cuprim/nccl.h installed without the NCCL component" >&2
  exit 1
fi

step "(a) find_package(cuprim${version:+ $version}) from a C-only project: a copy of examples/"
# Copied out of the tree, as a user would, so that it cannot reach anything else in it. A C-only
# consumer: the compiler is named explicitly, and no CUDA compiler is involved.
cp -R "$src/examples" "$work/examples"
"$cmake" -S "$work/examples" -B "$work/examples-build" \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" -DCUPRIM_VERSION_WANTED="$version" \
  -DCUPRIM_EXAMPLES_NCCL=$([[ $nccl == 1 ]] && echo ON || echo OFF)
"$cmake" --build "$work/examples-build" --verbose
for example in reduce scan histogram; do
  run_program "$work/examples-build/example-$example"
done
if [[ $nccl == 1 ]]; then
  run_program "$work/examples-build/example-nccl_consumer"
  run_program "$work/examples-build/example-nccl_reduce" # every visible GPU; 77 without
fi

if [[ -z $pkg_config ]]; then
  echo "install_and_link: SKIP (b): pkg-config not found (apt-get install pkg-config)" >&2
  exit 77
fi
step "(b) $cc reduce.c \$(pkg-config --cflags --libs cuprim)"
PKG_CONFIG_PATH=$(dirname "$pc_file")
export PKG_CONFIG_PATH
flags=$("$pkg_config" --cflags --libs cuprim)
echo "pkg-config --cflags --libs cuprim: $flags"
# shellcheck disable=SC2086 # the flags are meant to split into words
"$cc" -std=c11 -Wall -Wextra -o "$work/reduce-pc" "$src/examples/reduce.c" $flags -lm
run_program "$work/reduce-pc"

if [[ $nccl == 1 ]]; then
  step "(b) $cc nccl_consumer.c \$(pkg-config --cflags --libs cuprim-nccl)"
  flags=$("$pkg_config" --cflags --libs cuprim-nccl)
  echo "pkg-config --cflags --libs cuprim-nccl: $flags"
  # shellcheck disable=SC2086 # the flags are meant to split into words
  "$cc" -std=c11 -Wall -Wextra -o "$work/nccl-pc" "$src/examples/nccl_consumer.c" $flags
  run_program "$work/nccl-pc"
fi

step "PASS"
