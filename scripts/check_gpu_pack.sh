#!/usr/bin/env bash
# The gpu_pack test: scripts/gpu_pack.sh packs one program of the build tree BUILD_DIR
# (PROGRAM, default BUILD_DIR/tests/test_core: the CTest test `core`, which needs no GPU),
# unpacks it in another directory, and ctest runs `core` there from the unpacked tree, whose
# CTest files must name the unpacked paths; then an unpack over a directory that an unpack did not
# make must refuse and leave it alone.
#
#   scripts/check_gpu_pack.sh BUILD_DIR [PROGRAM]
#
# Exit status: 0 ok; 1 a check failed; 2 bad usage; 77 skipped (no xz, which gpu_pack.sh needs).
set -uo pipefail

build=${1:-}
[[ -n $build && -f $build/CMakeCache.txt ]] || {
  echo "usage: check_gpu_pack.sh BUILD_DIR [PROGRAM] (BUILD_DIR: a configured build tree)" >&2
  exit 2
}
fail() { echo "check_gpu_pack: FAIL: $*" >&2; exit 1; }
command -v xz >/dev/null || { echo "check_gpu_pack: skipped: no xz"; exit 77; }

pack=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/gpu_pack.sh
build=$(cd "$build" && pwd -P)
name=$(basename "$build")
program=${2:-$build/tests/test_core}
[[ -x $program ]] || fail "$program is not built"
program=$(cd "$(dirname "$program")" && pwd -P)/$(basename "$program")
[[ $program == "$build"/* ]] || fail "$program is not inside $build"
rel=${program#"$build"/}
work=$(mktemp -d)
work=$(cd "$work" && pwd -P)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/here" "$work/there" "$work/other/$name"

(cd "$work/here" && bash "$pack" pack "$build" "$rel") || fail "pack"
archive=$work/here/.gpu-pack/$name.tar.xz
[[ -f $archive ]] || fail "pack wrote no $archive"
(cd "$work/there" && bash "$pack" unpack "$archive") || fail "unpack"
[[ -d $build && ! -L $build ]] || fail "unpack replaced the build tree's own path with a link"

tree=$work/there/$name
listed=$(ctest --test-dir "$tree" -N -V -R '^core$')
grep -qF "Test command: $tree/$rel" <<<"$listed" ||
  fail "the unpacked CTest files do not name $tree/$rel: $(grep 'Test command' <<<"$listed")"
grep -qE '@CUPRIM_PACK_(BUILD|SOURCE)@' -r "$tree" --include=CTestTestfile.cmake &&
  fail "markers left in the unpacked CTest files"
ctest --test-dir "$tree" -R '^core$' --output-on-failure || fail "core from the unpacked tree"
(cd "$work/there" && bash "$pack" unpack "$archive") || fail "a second unpack over the first"

: >"$work/other/$name/keep"
(cd "$work/other" && bash "$pack" unpack "$archive" 2>/dev/null) &&
  fail "unpack replaced a directory that it did not make"
[[ -f $work/other/$name/keep ]] || fail "unpack touched a directory that it did not make"
echo "check_gpu_pack: ok"
