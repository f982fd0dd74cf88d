#!/usr/bin/env bash
# The gpu_suite test: scripts/gpu_suite.sh's compute-sanitizer pool, checked without a GPU. A
# build tree of two fake `gpu` tests and a fake compute-sanitizer (first on PATH) that prints the
# sanitizer's banner, waits FAKE_SLEEP seconds and prints memcheck's SUMMARY line. Checks that
#  - each job adds its line to jobs.txt (PASS, its SUMMARY line) and the suite passes;
#  - with --deadline, a job still running then is stopped (CUT), one not started yet is not
#    started (NOTRUN), the SUMMARY block is still written (memcheck FAIL) and the suite exits 1,
#    long before the fake sanitizer's own end.
#
#   scripts/check_gpu_suite.sh
#
# Exit status: 0 ok; 1 a check failed.
set -uo pipefail

fail() { echo "check_gpu_suite: FAIL: $*" >&2; exit 1; }
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/build"

cat >"$work/bin/compute-sanitizer" <<'FAKE'
#!/usr/bin/env bash
trap 'exit 143' TERM
echo "========= COMPUTE-SANITIZER"
sleep "${FAKE_SLEEP:-0}" &
wait $!
echo "========= ERROR SUMMARY: 0 errors"
FAKE
printf '#!/bin/sh\nexit 0\n' >"$work/build/fake_gpu_test"
chmod +x "$work/bin/compute-sanitizer" "$work/build/fake_gpu_test"
cat >"$work/build/CTestTestfile.cmake" <<CTEST
add_test(fake_a "$work/build/fake_gpu_test")
set_tests_properties(fake_a PROPERTIES LABELS "gpu")
add_test(fake_b "$work/build/fake_gpu_test")
set_tests_properties(fake_b PROPERTIES LABELS "gpu")
CTEST

# suite LOGDIR ARGS...: gpu_suite.sh's memcheck step alone over the fake tree, one job at a time.
suite() {
  local logs=$1
  shift
  (cd "$root" && PATH="$work/bin:$PATH" OUT="$logs" scripts/gpu_suite.sh --no-build \
    --build-dir "$work/build" --only memcheck --sanitize-jobs 2 "$@") >"$logs.out" 2>&1
}

FAKE_SLEEP=0 suite "$work/plain" || fail "the suite failed: $(tail -n 5 "$work/plain.out")"
jobs=$(sort "$work/plain/jobs.txt")
[[ $(grep -c . <<<"$jobs") == 2 ]] || fail "jobs.txt has not two lines: $jobs"
grep -qvE '^memcheck-fake_[ab] PASS rc=0 [0-9]+s ERROR SUMMARY: 0 errors$' <<<"$jobs" &&
  fail "a job's line in jobs.txt: $jobs"
grep -qE '^memcheck +PASS 2/2 jobs' "$work/plain/summary.txt" ||
  fail "no memcheck PASS line in summary.txt: $(cat "$work/plain/summary.txt")"

# One job slot: fake_a runs until the deadline, fake_b is due only after it.
began=$SECONDS
FAKE_SLEEP=120 suite "$work/late" --sanitize-jobs 1 --deadline 8
rc=$?
took=$((SECONDS - began))
[[ $rc == 1 ]] || fail "a suite cut by --deadline exited $rc, not 1"
((took < 60)) || fail "--deadline 8 took $took s"
jobs=$(cat "$work/late/jobs.txt")
grep -qE '^memcheck-fake_a CUT rc=124 [0-9]+s $' <<<"$jobs" || fail "fake_a not CUT: $jobs"
# (0 s, or 1 where the machine is busy: a job not started still forks and writes its log; CI on
# a fresh clone beside a second build recorded 1 s, 2026-11-30)
grep -qE '^memcheck-fake_b NOTRUN rc=124 [01]s $' <<<"$jobs" || fail "fake_b not NOTRUN: $jobs"
grep -qE '^memcheck +FAIL 2/2 programs' "$work/late/summary.txt" ||
  fail "no memcheck FAIL line in summary.txt: $(cat "$work/late/summary.txt")"
bad=$(PATH="$work/bin:$PATH" "$root/scripts/gpu_suite.sh" --deadline soon 2>&1) &&
  fail "--deadline soon was taken"
grep -q 'take seconds' <<<"$bad" || fail "--deadline soon: $bad"
echo "check_gpu_suite: ok ($took s for the cut run)"
