#!/usr/bin/env bash
# Ships programs built on this machine (no GPU) to the machine with the GPU, so that the GPU
# machine's time goes to running them rather than building them (the three builds of
# scripts/gpu_verify.sh take about 290 s of an H100 machine's 16 cores; a build here costs none
# of that time).
#
#   scripts/gpu_pack.sh pack BUILD_DIR [PROGRAM...]   here, after cmake --build BUILD_DIR
#   scripts/gpu_pack.sh unpack ARCHIVE...             there, in the repository root
#
# pack writes .gpu-pack/NAME.tar.xz (NAME: BUILD_DIR's last component; .gpu-pack/ is git-ignored,
# so carry it): the build tree's CTestTestfile.cmake files, with the build tree's and the source
# tree's absolute paths replaced by markers, and the programs, xz-compressed. PROGRAMs are paths
# relative to BUILD_DIR (tests/test_scan_gpu, bench/cuprim-bench); without any, every built
# program of a test labelled `gpu`, and bench/cuprim-bench if it was built.
# unpack extracts each archive as ./NAME/ and points the markers at this tree, so that
#
#   scripts/gpu_suite.sh --no-build --build-dir NAME --only racecheck --sanitize-jobs 16 ...
#
# runs as on a tree built there (the tests link cmocka dynamically: gpu_suite.sh unpacks it from
# .deps/, so carry that too). Where nothing is at the build tree's own path there, unpack links
# that path to the unpacked tree, for the programs that have it compiled in (test_cli_gpu runs
# the cuprim program by its absolute path: without the link, every one of its tests failed with
# "not found", 2026-11-29). Only the shipped programs exist there: a test whose program was
# not shipped has an empty command, so pick jobs with --sanitize-match, and give the ctest step
# --ctest-args "-L '^gpu$' -R ...". The GPU machine's paths need not be this machine's.
# Exit status: 0 done; 1 a step failed; 2 bad usage.
set -uo pipefail

usage() { sed -n '2,/^set -uo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; }
die() { echo "gpu_pack: $*" >&2; exit 1; }

BUILD_MARK=@CUPRIM_PACK_BUILD@
SOURCE_MARK=@CUPRIM_PACK_SOURCE@
# What the device tool carries in all (its README); an archive near it leaves no room.
CARRY_LIMIT=$((64 * 1024 * 1024))

pack() {
  local build=${1:?} name src
  shift
  [[ -f $build/CMakeCache.txt ]] || die "$build is not a configured build tree (no CMakeCache.txt)"
  build=$(cd "$build" && pwd -P)
  name=$(basename "$build")
  src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
  [[ -n $src ]] || die "$build/CMakeCache.txt names no source directory"
  local progs=("$@")
  if [[ ${#progs[@]} -eq 0 ]]; then
    # The first word of each gpu test's command that is a program of this build tree (ctest
    # prints an empty command for a test whose program was not built).
    local line exe
    while IFS= read -r line; do
      [[ $line =~ ^[0-9]+:\ Test\ command:\ \"?([^\" ]+) ]] || continue
      exe=${BASH_REMATCH[1]}
      [[ $exe == "$build"/* && -x $exe ]] && progs+=("${exe#"$build"/}")
    done < <(ctest --test-dir "$build" -N -V -L '^gpu$')
    [[ -x $build/bench/cuprim-bench ]] && progs+=(bench/cuprim-bench)
    [[ ${#progs[@]} -gt 0 ]] || die "no built program of a gpu test in $build"
  fi
  stage=$(mktemp -d) # global: the EXIT trap runs after this function's locals are gone
  trap 'rm -rf "$stage"' EXIT
  mkdir -p "$stage/$name"
  local f rel
  while IFS= read -r f; do
    rel=${f#"$build"/}
    mkdir -p "$stage/$name/$(dirname "$rel")"
    sed -e "s|$build|$BUILD_MARK|g" -e "s|$src|$SOURCE_MARK|g" "$f" >"$stage/$name/$rel"
  done < <(find "$build" -name CTestTestfile.cmake)
  for rel in "${progs[@]}"; do
    [[ -x $build/$rel && -f $build/$rel ]] || die "$build/$rel is not a built program"
    mkdir -p "$stage/$name/$(dirname "$rel")"
    cp -p "$build/$rel" "$stage/$name/$rel"
  done
  printf '%s\n' "$build" >"$stage/$name/.gpu-pack-origin"
  mkdir -p .gpu-pack
  local out=.gpu-pack/$name.tar.xz
  tar -C "$stage" -cf - "$name" | xz -T0 -6 >"$out" || die "could not write $out"
  local bytes
  bytes=$(stat -c %s "$out")
  echo "gpu_pack: $out: ${#progs[@]} programs (${progs[*]}), $((bytes / 1024)) KiB"
  [[ $bytes -lt $CARRY_LIMIT ]] ||
    echo "gpu_pack: $out is larger than what the device tool carries in all (64 MiB)" >&2
}

unpack() {
  local archive name root
  root=$(pwd -P)
  for archive in "$@"; do
    [[ -f $archive ]] || die "no archive $archive"
    name=$(tar -tJf "$archive" | head -n 1 | cut -d/ -f1)
    [[ -n $name && $name != . && $name != .. ]] || die "$archive holds no build tree"
    # Replace only what an earlier unpack made (its mark file), never a directory of the tree.
    if [[ -e $root/$name ]]; then
      [[ -f $root/$name/.gpu-pack-unpacked ]] ||
        die "$root/$name exists and is not an unpacked build tree; not replacing it"
      rm -rf "${root:?}/$name"
    fi
    tar -xJf "$archive" -C "$root" || die "could not extract $archive"
    : >"$root/$name/.gpu-pack-unpacked"
    find "$root/$name" -name CTestTestfile.cmake -exec \
      sed -i -e "s|$BUILD_MARK|$root/$name|g" -e "s|$SOURCE_MARK|$root|g" {} +
    # A program with the build tree's path compiled in (test_cli_gpu runs CUPRIM_CLI_PATH, the
    # cuprim program's absolute path in the tree it was built in) finds it through a link from
    # that path to the unpacked tree: made where nothing is at that path, or where a link is.
    local origin
    origin=$(cat "$root/$name/.gpu-pack-origin" 2>/dev/null)
    if [[ $origin == /* && $origin != "$root/$name" ]] && { [[ -L $origin ]] || [[ ! -e $origin ]]; }; then
      if mkdir -p "$(dirname "$origin")" && ln -sfn "$root/$name" "$origin"; then
        echo "gpu_pack: $origin -> $root/$name (the path the programs were built in)"
      fi
    fi
    echo "gpu_pack: $archive -> $root/$name ($(find "$root/$name" -type f -perm -u+x | wc -l) programs)"
  done
}

case ${1:-} in
  pack) shift; [[ $# -ge 1 ]] || { usage >&2; exit 2; }; pack "$@" ;;
  unpack) shift; [[ $# -ge 1 ]] || { usage >&2; exit 2; }; unpack "$@" ;;
  -h | --help) usage ;;
  *) usage >&2; exit 2 ;;
esac
