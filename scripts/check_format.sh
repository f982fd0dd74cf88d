#!/usr/bin/env bash
# Checks that the C, C++ and CUDA sources (*.c *.h *.cu *.cuh that git tracks, and new ones it
# does not ignore) match .clang-format, with clang-format 14: the version Debian 12 and CI have.
# Other major versions format some constructs differently, so with no clang-format 14 the check
# is skipped (exit 77) with a line saying why, rather than failing on code that is formatted.
#
# usage: scripts/check_format.sh [--fix]
#   --fix  reformat those files in place (clang-format -i) instead of checking them
# Environment: CLANG_FORMAT, the program (default: clang-format-14, else clang-format).
# Exit status: 0 every file matches (or --fix reformatted them); 1 a file does not; 2 bad usage;
# 77 skipped: no clang-format 14 (apt-get install clang-format-14).
# Registered as the CTest test format (tests/CMakeLists.txt) when CUPRIM_CHECK_FORMAT is ON.
set -euo pipefail

fix=0
case ${1:-} in
  --fix) fix=1 ;;
  '') ;;
  *) echo "usage: $0 [--fix]" >&2; exit 2 ;;
esac

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

clang_format=${CLANG_FORMAT:-$(command -v clang-format-14 || command -v clang-format || true)}
if [[ -z $clang_format ]] || ! command -v "$clang_format" >/dev/null; then
  echo "check_format: SKIP: no clang-format found (CLANG_FORMAT=${CLANG_FORMAT:-})" \
    "(apt-get install clang-format-14)"
  exit 77
fi
version=$("$clang_format" --version 2>&1 | head -n 1) || true
major=$(sed -nE 's/.*clang-format version ([0-9]+)\..*/\1/p' <<<"$version")
if [[ $major != 14 ]]; then
  echo "check_format: SKIP: $clang_format is '$version', not major version 14;" \
    "other versions format differently (apt-get install clang-format-14, or set CLANG_FORMAT)"
  exit 77
fi

files=()
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  while IFS= read -r -d '' f; do
    [[ -f $f ]] && files+=("$f")
  done < <(git ls-files -z --cached --others --exclude-standard -- '*.c' '*.h' '*.cu' '*.cuh')
else # not a git checkout (an unpacked archive): the source directories
  while IFS= read -r -d '' f; do
    files+=("${f#./}")
  done < <(find src include tests tools bench examples -type f \
    \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) -print0 | sort -z)
fi
if [[ ${#files[@]} -eq 0 ]]; then
  echo "check_format: FAIL: no source files found under $root" >&2
  exit 1
fi

if [[ $fix == 1 ]]; then
  "$clang_format" -i --style=file "${files[@]}"
  echo "check_format: reformatted ${#files[@]} files with $version"
  exit 0
fi

# One run over every file; it reports each place that differs as "FILE:LINE:COL: error: ...".
report=$("$clang_format" --style=file --dry-run --Werror "${files[@]}" 2>&1) || true
mapfile -t differ < <(sed -nE 's/^(.*):[0-9]+:[0-9]+: error: code should be clang-formatted.*/\1/p' \
  <<<"$report" | uniq)
if [[ ${#differ[@]} -eq 0 ]]; then
  if grep -q 'error' <<<"$report"; then # clang-format itself failed (a bad .clang-format?)
    echo "$report"
    echo "check_format: FAIL: $clang_format reported errors"
    exit 1
  fi
  echo "check_format: PASS: ${#files[@]} files match .clang-format ($version)"
  exit 0
fi

echo "check_format: ${#differ[@]} of ${#files[@]} files do not match .clang-format ($version):"
printf '  %s\n' "${differ[@]}"
shown=0
for f in "${differ[@]}"; do
  [[ $shown -lt 3 ]] || break
  echo
  "$clang_format" --style=file "$f" | { diff -u --label "$f" --label "$f (clang-format)" "$f" - || true; } |
    head -n 40
  shown=$((shown + 1))
done
echo "(at most 3 diffs shown, 40 lines each)"
echo
echo "check_format: FAIL: to reformat: scripts/check_format.sh --fix (or clang-format-14 -i FILE...)"
exit 1
