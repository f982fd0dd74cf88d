#!/usr/bin/env bash
# Checks that the SVG pictures of docs/img/h100/ are what bench/'s SVG scripts draw from the CSV
# files of docs/data/ they name (the pictures need only Python 3; the PNG ones need matplotlib and
# are not checked here). This list is where each SVG picture's source and command are kept.
#
# usage: scripts/check_pictures.sh [--write]
#   --write  draw the pictures into docs/img/h100/ instead of comparing
# Exit status: 0 every picture matches (or --write drew them); 1 one does not, or a script
# failed; 2 bad usage; 77 skipped: no python3.
# Registered as the CTest test pictures (tests/CMakeLists.txt).
set -euo pipefail

write=0
case ${1:-} in
  --write) write=1 ;;
  '') ;;
  *) echo "usage: $0 [--write]" >&2; exit 2 ;;
esac

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
python=$(command -v python3 || true)
if [[ -z $python ]]; then
  echo "check_pictures: SKIP: no python3"
  exit 77
fi

D=docs/data
# picture (under docs/img/h100/)|the script;its arguments;... (the output option is appended)
pictures=(
  "segmented.svg|bench/plot_segmented.py;$D/h100-2026-11-25-1317-bench-90-seg.csv"
  "half_arg_ratio.svg|bench/plot_ratio.py;sm_90 build=$D/h100-2026-11-25-0054-bench-90-half.csv;80-virtual build=$D/h100-2026-11-25-0102-bench-80-half.csv,$D/h100-2026-11-25-0102-bench-80-arg.csv"
)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
for entry in "${pictures[@]}"; do
  name=${entry%%|*}
  IFS=';' read -r -a command <<<"${entry#*|}"
  out=$tmp/$name
  [[ $write == 1 ]] && out=docs/img/h100/$name
  script=${command[0]}
  if ! "$python" "${command[@]}" -o "$out" >/dev/null; then
    echo "check_pictures: FAIL: $script did not draw $name"
    bad=1
    continue
  fi
  if [[ $write == 1 ]]; then
    echo "check_pictures: wrote docs/img/h100/$name"
  elif cmp -s "$out" "docs/img/h100/$name"; then
    echo "check_pictures: ok $name"
  else
    echo "check_pictures: FAIL: docs/img/h100/$name is not what $script draws from its CSV" \
      "(scripts/check_pictures.sh --write redraws it)"
    bad=1
  fi
done
exit $bad
