#!/usr/bin/env bash
# Checks that every public header, include/cuprim/*.h, stands alone and stays pure C:
#   - it includes only cuprim's own headers, <stddef.h>, <stdint.h> and <cuda_runtime_api.h>
#     (nccl.h, the optional multi-GPU component, also <nccl.h>);
#   - cuprim.h includes it (every public header but nccl.h, which needs NCCL);
#   - a file that includes it, twice, and nothing else compiles as C11 with
#     -Wall -Wextra -Wpedantic -Werror, and as C++17 with the same flags (the headers promise
#     both). The CUDA (and NCCL) include directories are passed with -isystem: their own
#     warnings are not ours.
# The headers are listed when the check runs, so a new header is checked without reconfiguring.
# nccl.h is left out, with a line saying so, when NCCL's include directory is not given.
#
# usage: scripts/check_public_headers.sh
# Environment: CC, CXX (default cc, c++); CUDA_INCLUDE_DIR (the directory of
#   cuda_runtime_api.h; default: found next to nvcc); NCCL_INCLUDE_DIR (the directory of nccl.h;
#   empty: nccl.h is not compiled).
# Exit status: 0 pass; 1 a header fails; 2 bad usage or no CUDA include directory.
# Registered as the CTest test public_headers (tests/CMakeLists.txt).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cc=${CC:-cc}
cxx=${CXX:-c++}
cuda_inc=${CUDA_INCLUDE_DIR:-}
nccl_inc=${NCCL_INCLUDE_DIR:-}
if [[ -z $cuda_inc ]] && command -v nvcc >/dev/null; then
  cuda_inc=$(dirname "$(dirname "$(command -v nvcc)")")/include
fi
if [[ ! -f $cuda_inc/cuda_runtime_api.h ]]; then
  echo "check_public_headers: no cuda_runtime_api.h in '$cuda_inc' (set CUDA_INCLUDE_DIR)" >&2
  exit 2
fi

# What a public header may include, besides cuprim's own headers ("core.h", <cuprim/core.h>).
allowed_system='stddef.h stdint.h cuda_runtime_api.h'
allowed_nccl='nccl.h' # cuprim/nccl.h only

work=$(mktemp -d "${TMPDIR:-/tmp}/cuprim-headers.XXXXXX")
trap 'rm -rf "$work"' EXIT

flags=(-Wall -Wextra -Wpedantic -Werror -fsyntax-only -I "$root/include" -isystem "$cuda_inc")
failed=()
checked=0
for path in "$root"/include/cuprim/*.h; do
  h=$(basename "$path")
  extra=()
  if [[ $h == nccl.h ]]; then
    if [[ -z $nccl_inc ]]; then
      echo "SKIP cuprim/$h: NCCL's include directory is not known (NCCL_INCLUDE_DIR)"
      continue
    fi
    extra=(-isystem "$nccl_inc")
  fi

  # Its includes: cuprim's own headers, and the short list above.
  ok=1
  while IFS= read -r inc; do
    name=${inc:1:${#inc}-2} # strip the quotes or angle brackets
    if [[ -f $root/include/cuprim/$name || $name == cuprim/* && -f $root/include/$name ]]; then
      continue
    fi
    allowed=" $allowed_system "
    [[ $h == nccl.h ]] && allowed+="$allowed_nccl "
    if [[ $allowed != *" $name "* ]]; then
      echo "FAIL cuprim/$h includes $inc: a public header includes only cuprim's headers and" \
        "<${allowed_system// />, <}>"
      ok=0
    fi
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*\([<"][^>"]*[>"]\).*/\1/p' "$path")

  # Alone, twice (the include guard), as C11 and as C++17.
  printf '#include <cuprim/%s>\n#include <cuprim/%s>\n' "$h" "$h" >"$work/tu.c"
  if ! "$cc" -std=c11 "${flags[@]}" "${extra[@]}" -x c "$work/tu.c" 2>"$work/err"; then
    echo "FAIL cuprim/$h does not compile alone as C11 ($cc -std=c11 ${flags[*]}):"
    cat "$work/err"
    ok=0
  fi
  if ! "$cxx" -std=c++17 "${flags[@]}" "${extra[@]}" -x c++ "$work/tu.c" 2>"$work/err"; then
    echo "FAIL cuprim/$h does not compile alone as C++17 ($cxx -std=c++17 ${flags[*]}):"
    cat "$work/err"
    ok=0
  fi
  # The umbrella header brings in every header but the optional component's.
  if [[ $h != cuprim.h && $h != nccl.h ]] &&
    ! grep -Eq "^[[:space:]]*#[[:space:]]*include[[:space:]]*[\"<](cuprim/)?${h}[\">]" \
      "$root/include/cuprim/cuprim.h"; then
    echo "FAIL cuprim/$h is not included by cuprim/cuprim.h"
    ok=0
  fi
  checked=$((checked + 1))
  if [[ $ok == 1 ]]; then
    echo "ok   cuprim/$h"
  else
    failed+=("$h")
  fi
done

if [[ $checked == 0 ]]; then
  echo "check_public_headers: FAIL: no header found in $root/include/cuprim" >&2
  exit 1
fi
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "check_public_headers: FAIL: ${failed[*]}"
  exit 1
fi
echo "check_public_headers: PASS: $checked headers"
