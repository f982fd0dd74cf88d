#!/usr/bin/env bash
# Checks the dependency rule of docs/design.md: reads every quoted #include of every file under
# src/, resolves it as the compiler does (the includer's directory first, then src/), and fails
# on an include that the table below does not allow.
#
# usage: scripts/check_dependencies.sh [-v]
#   -v  also print every edge found, "includer -> included file", with its count
# Exit status: 0 every include is allowed; 1 one is not, or cannot be resolved; 2 bad usage.
# Registered as the CTest test dependency_rule (tests/CMakeLists.txt).
set -euo pipefail
set -f # no pathname expansion: the patterns below are matched, not expanded

# ---------------------------------------------------------------- the rule, in one place
# common, cta <- reduce <- scan <- {histogram, segmented} <- nccl
#
# One row per directory of src/: what its files may include with a quoted #include, as patterns
# relative to src/. A file may always include from its own directory; a directory without a row
# may include nothing else (a new directory gets a row here first). Between primitives only a
# module's *_internal.h (its dispatch functions, which take validated arguments), never its
# kernels or .cuh files. Public headers are included as <cuprim/...> and are not checked here
# (scripts/check_public_headers.sh checks what they include).
ALLOWED_EDGES='
common     -
cta        common/dtype_table.h
reduce     common/*  cta/*
scan       common/*  cta/*  reduce/*_internal.h
histogram  common/*  cta/*  reduce/*_internal.h  scan/*_internal.h
segmented  common/*  cta/*  reduce/*_internal.h  scan/*_internal.h
nccl       common/*  cta/*  reduce/*_internal.h  scan/*_internal.h  histogram/*_internal.h  segmented/*_internal.h
'
# cta/ is device code and common/ host code, so neither includes the other; the one exception,
# common/dtype_table.h, is a pure X-macro table of dtypes and ops (no code) that cta/ops.cuh
# expands into its device-side traits. Nothing includes nccl/: it is a separate archive.
# ----------------------------------------------------------------

verbose=0
case ${1:-} in
  -v) verbose=1 ;;
  '') ;;
  *) echo "usage: $0 [-v]" >&2; exit 2 ;;
esac

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root/src"

declare -A rule
while read -r dir patterns; do
  [[ -n $dir ]] || continue
  read -r -a words <<<"${patterns/#-/}"
  rule[$dir]=${words[*]}
done <<<"$ALLOWED_EDGES"

# allowed INCLUDER_DIR TARGET: whether a file in INCLUDER_DIR may include TARGET (relative to src/).
allowed() {
  local from=$1 target=$2 pattern
  [[ ${target%/*} == "$from" ]] && return 0
  [[ -n ${rule[$from]+x} ]] || return 1
  for pattern in ${rule[$from]}; do
    # shellcheck disable=SC2053 # the right-hand side is a glob on purpose
    [[ $target == $pattern ]] && return 0
  done
  return 1
}

# normalize PATH: sets $normalized to PATH without "." and ".." parts ("../" past src/ stays).
normalize() {
  local part out=()
  local IFS=/
  for part in $1; do
    case $part in
      '' | .) ;;
      ..) if [[ ${#out[@]} -gt 0 && ${out[-1]} != .. ]]; then unset 'out[-1]'; else out+=(..); fi ;;
      *) out+=("$part") ;;
    esac
  done
  normalized="${out[*]}"
}

files=()
while IFS= read -r -d '' f; do
  files+=("${f#./}")
done < <(find . -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) -print0 |
  sort -z)
if [[ ${#files[@]} -eq 0 ]]; then
  echo "check_dependencies: FAIL: no source files under $root/src" >&2
  exit 1
fi

bad=0
for f in "${files[@]}"; do
  from=${f%/*}
  if [[ $f != */* || -z ${rule[$from]+x} ]]; then
    echo "FAIL src/$f: its directory has no row in ALLOWED_EDGES ($0)"
    bad=$((bad + 1))
  fi
done

# Every quoted include, one "file<TAB>line<TAB>name" each.
edges=()
while IFS=$'\t' read -r f line inc; do
  from=${f%/*}
  # As the compiler resolves "inc": next to the includer, then on the include path (src/).
  if [[ -f $from/$inc ]]; then
    normalize "$from/$inc"
  elif [[ -f $inc ]]; then
    normalize "$inc"
  else
    echo "FAIL src/$f:$line: #include \"$inc\" names no file under src/"
    bad=$((bad + 1))
    continue
  fi
  target=$normalized
  edges+=("$from -> $target")
  if ! allowed "$from" "$target"; then
    echo "FAIL src/$f:$line: #include \"$inc\": $from/ may not include src/$target" \
      "(allowed: its own directory${rule[$from]:+, ${rule[$from]}})"
    bad=$((bad + 1))
  fi
done < <(awk 'match($0, /^[ \t]*#[ \t]*include[ \t]*"[^"]*"/) {
                inc = substr($0, RSTART, RLENGTH); sub(/^[^"]*"/, "", inc); sub(/"$/, "", inc)
                print FILENAME "\t" FNR "\t" inc
              }' "${files[@]}")

if [[ $verbose == 1 ]]; then
  printf '%s\n' "${edges[@]}" | sort | uniq -c
fi
if [[ $bad -gt 0 ]]; then
  echo "check_dependencies: FAIL: $bad problem(s); the rule is the table in $0," \
    "docs/design.md explains it"
  exit 1
fi
echo "check_dependencies: PASS: ${#edges[@]} quoted includes in ${#files[@]} files under src/"
