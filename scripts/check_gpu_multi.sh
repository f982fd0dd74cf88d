#!/usr/bin/env bash
# The gpu_multi test: scripts/gpu_multi.sh's steps and SUMMARY, checked without a GPU. A build
# tree of fake programs (the NCCL tests, the --devices tests, the example, cuprim info,
# cuprim-bench), a fake nvidia-smi that lists FAKE_GPUS GPUs and a fake compute-sanitizer that
# runs the program and adds memcheck's lines (with two API-error reports from libnccl unless
# --report-api-errors no). Checks that
#  - topo, ctest, example, memcheck and bench pass on two GPUs, with their key lines in
#    summary.txt (the API-error reports counted) and exit status 0;
#  - a failing example is a FAIL and exit status 1; so is a machine with one GPU;
#  - an unknown option is exit status 2.
# The cli step needs numpy and real programs; it runs on a GPU machine only.
#
#   scripts/check_gpu_multi.sh
#
# Exit status: 0 ok; 1 a check failed.
set -uo pipefail

fail() { echo "check_gpu_multi: FAIL: $*" >&2; exit 1; }
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
b=$work/build
mkdir -p "$work/bin" "$b/tools" "$b/tests" "$b/examples" "$b/bench"

# fake NAME BODY: an executable shell script.
fake() { printf '#!/usr/bin/env bash\n%s\n' "$2" >"$1"; chmod +x "$1"; }
fake "$work/bin/nvidia-smi" 'if [[ $1 == -L ]]; then
  for ((i = 0; i < ${FAKE_GPUS:-2}; ++i)); do echo "GPU $i: Fake GPU (UUID: GPU-$i)"; done
else printf "\tGPU0\tGPU1\nGPU0\t X \tNV18\nGPU1\tNV18\t X \n"; fi'
fake "$work/bin/compute-sanitizer" 'api=1
for a in "$@"; do [[ $a == no ]] && api=0; done
echo "========= COMPUTE-SANITIZER"
"${@: -1}"
if ((api)); then
  for e in 1 2; do
    echo "========= Program hit cudaErrorPeerAccessAlreadyEnabled (error 704) on CUDA API call to cudaGetLastError."
    echo "=========         Host Frame:  [0x1b25fd] in libnccl.so.2"
  done
  echo "========= ERROR SUMMARY: 2 errors"
else echo "========= ERROR SUMMARY: 0 errors"; fi'
fake "$b/tools/cuprim" 'echo "cuprim 0.2.0"; echo "NCCL 2.28.3 (fake)"'
fake "$b/tests/test_cli_gpu" 'echo "[  PASSED  ] 2 test(s)."'
fake "$b/tests/test_nccl_gpu" 'echo "[  PASSED  ] 3 test(s)."'
fake "$b/examples/example-nccl_reduce" '[[ $1 == 2 ]] || exit 3
echo "nccl_reduce: every rank has the sum"; exit "${FAKE_EXAMPLE_RC:-0}"'
fake "$b/bench/cuprim-bench" 'while [[ $# -gt 0 ]]; do [[ $1 == --csv ]] && echo "suite,x" >"$2"; shift; done'
{
  for t in nccl_api nccl_gpu example_nccl_reduce; do echo "add_test($t \"/bin/true\")"; done
} >"$b/CTestTestfile.cmake"

# multi LOGDIR ARGS...: gpu_multi.sh over the fake tree.
multi() {
  local logs=$1
  shift
  (cd "$root" && PATH="$work/bin:$PATH" OUT="$logs" scripts/gpu_multi.sh --no-build \
    --build-dir "$b" "$@") >"$logs.out" 2>&1
}
steps=topo,ctest,example,memcheck,bench

multi "$work/ok" --only $steps || fail "gpu_multi failed on two fake GPUs: $(tail -n 12 "$work/ok.out")"
s=$(cat "$work/ok/summary.txt")
# ctest's own words: "100% tests passed, 0 tests failed out of 3" (CMake 3.25), "100% tests passed
# out of 3" (CMake 4).
for want in '^topo +PASS .*NCCL 2.28.3' '^ctest +PASS 100% tests passed(, 0 tests failed)? out of 3' \
  '^cli_gpu +PASS \[  PASSED  \] 2 test' '^example +PASS nccl_reduce: every rank has the sum' \
  '^memcheck +PASS \[  PASSED  \] 3 test\(s\)\. ========= ERROR SUMMARY: 0 errors' \
  '^api-errs +INFO 2 API-error reports; 2 backtrace lines in libnccl' '^bench +PASS'; do
  grep -qE "$want" <<<"$s" || fail "no line /$want/ in summary.txt: $s"
done
grep -q FAIL <<<"$s" && fail "a FAIL on two fake GPUs: $s"

FAKE_EXAMPLE_RC=1 multi "$work/bad" --only $steps && fail "a failing example passed"
grep -qE '^example +FAIL' "$work/bad/summary.txt" || fail "no example FAIL: $(cat "$work/bad/summary.txt")"

FAKE_GPUS=1 multi "$work/one" --only topo && fail "one GPU passed"
grep -qE '^gpus +FAIL 1 GPUs visible' "$work/one/summary.txt" ||
  fail "no gpus FAIL with one GPU: $(cat "$work/one/summary.txt")"

multi "$work/usage" --bogus
rc=$?
[[ $rc == 2 ]] || fail "an unknown option exited $rc, not 2"
echo "check_gpu_multi: ok"
