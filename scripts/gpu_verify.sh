#!/usr/bin/env bash
# The checks of every code path on one GPU, in phases that each fit one call of a time-limited
# machine: three builds side by side (the default architectures, and PTX alone for 7.5 and for
# 8.0, which the driver compiles for the GPU at hand, so that a Hopper runs the paths of older
# GPUs), then their tests, the sanitizers, and the benchmarks. Each phase runs
# scripts/gpu_suite.sh for the builds it concerns, in parallel where they do not compete for
# the timing, and prints the SUMMARY lines of each.
#
#   scripts/gpu_verify.sh PHASE [PHASE...]
#
# Phases:
#   build     configure and build build-def (default architectures; DEF_ARCHS=90: sm_90 alone,
#             the code a Hopper runs, one architecture to compile instead of five: on one H200's
#             16 cores, 2026-11-28, an sm_90 build beside 75-virtual and 80-virtual ones took
#             145 s), build-75 (75-virtual) and build-80 (80-virtual), at once (BUILDS="def 80"
#             picks some)
#   test      ctest in the three builds, at once (the GPU is shared; nothing here is timed);
#             VIRTUAL_QUICK=1 runs the two PTX builds' GPU tests in quick mode
#   sanitize  compute-sanitizer memcheck and racecheck over the gpu tests of build-def and
#             build-75 (quick mode, every cmocka test its own process, SANITIZE_JOBS at a time
#             per build; default 8); SAN_BUILDS, SAN_TOOLS and SAN_ARGS narrow it
#   bench     cuprim-bench of build-def (suites DEF_SUITES), then of build-80 (V80_SUITES), one
#             suite a process, alone (they are timed), each stopped after SUITE_TIMEOUT seconds
#             (default 300); BENCH_ARGS for every one (e.g. --quick); BENCH_REPEATS=N runs each
#             N times and prints the median ratios over the runs
#   demo      cuprim demo and cuprim info of build-def
# Environment: LOGS (default /tmp/cuprim-verify) holds every log; OUT, if set, receives
# summary.txt and, at the end of each phase, logs.tgz (the whole LOGS). JIT-compiled code is
# cached in /tmp/cuda-cache (4 GiB) so that each PTX kernel is compiled once per machine.
# Several GPUs: GPUS (e.g. "1 2 3") gives each build of the test and sanitize phases its own GPU
# of the list, round robin (CUDA_VISIBLE_DEVICES); BENCH_GPU the bench phase's. With four GPUs,
# two processes overlap the timed and the untimed work (on four H200s, 2026-11-28, the three
# builds took 2-3 minutes, each build's whole ctest on its own GPU 5-6, cli_gpu the longest):
#   scripts/gpu_verify.sh build
#   LOGS=/tmp/v-bench BENCH_GPU=0 scripts/gpu_verify.sh bench &
#   GPUS="1 2 3" scripts/gpu_verify.sh test sanitize; wait
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2

LOGS=${LOGS:-/tmp/cuprim-verify}
mkdir -p "$LOGS"
export CUDA_CACHE_PATH=${CUDA_CACHE_PATH:-/tmp/cuda-cache}
export CUDA_CACHE_MAXSIZE=${CUDA_CACHE_MAXSIZE:-4294967296}
summary=${OUT:-$LOGS}/summary.txt
jobs=$(nproc 2>/dev/null || echo 16)

# suite NAME DIR ARCHS ARGS...: scripts/gpu_suite.sh on one build, its output in LOGS/NAME.out.
suite() {
  local name=$1 dir=$2 archs=$3
  shift 3
  CUDA_ARCHS=$archs OUT=$LOGS/$name scripts/gpu_suite.sh --build-dir "$dir" "$@" \
    >"$LOGS/$name.out" 2>&1
}
# report NAME...: the SUMMARY lines of each, labelled, on stdout and into summary.txt.
report() {
  local name
  for name in "$@"; do
    sed -n '/^==================== SUMMARY/,/^====================$/p' "$LOGS/$name.out" |
      grep -vE '^(=+|logs:)' | sed "s/^/[$name] /" | tee -a "$summary"
    grep -q 'SUMMARY' "$LOGS/$name.out" ||
      { echo "[$name] no SUMMARY: last lines:"; tail -n 15 "$LOGS/$name.out"; } | tee -a "$summary"
  done
}
# each_build NAME FN BUILD...: `FN B` for every build B at once, then the SUMMARY lines of each
# NAME-B.
read -r -a gpus <<<"${GPUS:-}"
each_build() {
  local name=$1 fn=$2 b i=0
  shift 2
  for b in "$@"; do
    if ((${#gpus[@]})); then
      CUDA_VISIBLE_DEVICES=${gpus[i % ${#gpus[@]}]} "$fn" "$b" &
    else
      "$fn" "$b" &
    fi
    i=$((i + 1))
  done
  wait
  report $(printf "$name-%s " "$@")
}
pack() { [[ -n ${OUT:-} ]] && tar czf "$OUT/logs.tgz" -C "$(dirname "$LOGS")" "$(basename "$LOGS")"; }
trap pack EXIT
# Stopped from outside (`timeout 570 scripts/gpu_verify.sh ...` inside a time-limited call): say
# so, pack what the logs hold so far, and stop.
trap 'echo "gpu_verify: stopped (TERM) during $phase; partial logs in logs.tgz" | tee -a "$summary"; exit 124' TERM

# BUILDS: which builds the build and test phases concern (default all three). DEF_ARCHS: the
# architectures of build-def (default: the project's default list).
builds=${BUILDS:-def 75 80}
def_archs=${DEF_ARCHS:-}

for phase in "$@"; do
  echo "== $phase $(date -u +%H:%M:%S)" | tee -a "$summary"
  case $phase in
    build)
      # The default build compiles five architectures per file: nvcc does them side by side.
      build_one() {
        case $1 in
          def) CUDA_FLAGS=--threads=5 suite build-def build-def "$def_archs" --only build --jobs $((jobs * 2 / 3)) ;;
          *) suite build-$1 build-$1 $1-virtual --only build --jobs $((jobs / 4 + 1)) ;;
        esac
      }
      each_build build build_one $builds ;;
    test)
      # VIRTUAL_QUICK=1: the PTX builds' GPU tests in quick mode (every test, smaller sizes).
      # CTEST_ARGS: more ctest arguments for all of them (e.g. -R 'cli|segmented').
      q=${VIRTUAL_QUICK:-0}
      c=(${CTEST_ARGS:+--ctest-args "$CTEST_ARGS"})
      test_one() {
        if [[ $1 == def ]]; then
          suite test-def build-def "$def_archs" --no-build --only ctest "${c[@]}"
        else
          CUPRIM_TEST_QUICK=$q suite test-$1 build-$1 $1-virtual --no-build --only ctest "${c[@]}"
        fi
      }
      each_build test test_one $builds ;;
    sanitize)
      # SAN_BUILDS (default "def 75"), SAN_TOOLS (default memcheck,racecheck), SAN_ARGS: ctest
      # arguments that pick the programs (e.g. -R 'segmented|histogram_multi'),
      # SAN_STEP_TIMEOUT: stop any one job after that many seconds (it then counts as failed);
      # SAN_MATCH, SAN_FIRST: gpu_suite's --sanitize-match and --sanitize-first (the jobs to run,
      # and the slow ones to start first).
      n=${SANITIZE_JOBS:-8}
      c=(${SAN_ARGS:+--ctest-args "$SAN_ARGS"})
      san_builds=${SAN_BUILDS:-def 75}
      san_one() {
        local a=$def_archs
        [[ $1 != def ]] && a=$1-virtual
        suite san-$1 build-$1 "$a" --no-build --only "${SAN_TOOLS:-memcheck,racecheck}" \
          --sanitize-jobs "$n" ${SAN_STEP_TIMEOUT:+--step-timeout "$SAN_STEP_TIMEOUT"} "${c[@]}" \
          ${SAN_MATCH:+--sanitize-match "$SAN_MATCH"} ${SAN_FIRST:+--sanitize-first "$SAN_FIRST"}
      }
      each_build san san_one $san_builds ;;
    bench)
      # One cuprim-bench per suite, so that a slow suite cannot take the others' time: build-def
      # runs DEF_SUITES, then build-80 runs V80_SUITES; BENCH_ARGS go to each (e.g. --quick or
      # "--flush memset --offset 1"). BENCH_REPEATS=N runs each suite N times (-rK files; a suite
      # takes seconds) and writes the median ratios over the runs (bench/report.py --ratios).
      read -r -a more <<<"${BENCH_ARGS:-}"
      reps=${BENCH_REPEATS:-1}
      for spec in "def:${DEF_SUITES-reduce scan histogram}" "80:${V80_SUITES-reduce scan histogram}"; do
        b=${spec%%:*}
        for suite_name in ${spec#*:}; do
          csvs=()
          for ((r = 1; r <= reps; r++)); do
            stem=$LOGS/bench-$b-$suite_name
            [[ $reps -gt 1 ]] && stem+=-r$r
            csv=$stem.csv
            env ${BENCH_GPU:+CUDA_VISIBLE_DEVICES=$BENCH_GPU} \
              timeout "${SUITE_TIMEOUT:-300}" "build-$b/bench/cuprim-bench" --only "$suite_name" \
              --csv "$csv" "${more[@]}" >"$stem.log" 2>&1
            rc=$?
            csvs+=("$csv")
            echo "[bench-$b] $suite_name$([[ $reps -gt 1 ]] && echo " run $r"): exit $rc, $(grep -c . "$csv" 2>/dev/null || echo 0) CSV lines, $(grep 'cuprim-bench:' "$stem.log" | tail -n 1)" | tee -a "$summary"
          done
          if [[ $reps -gt 1 ]]; then
            python3 bench/report.py --ratios "${csvs[@]}" >"$LOGS/bench-$b-$suite_name-ratios.md" 2>&1
            sed "s/^/[bench-$b] /" "$LOGS/bench-$b-$suite_name-ratios.md" | tee -a "$summary"
          fi
        done
      done ;;
    demo)
      { build-def/tools/cuprim info; build-def/tools/cuprim demo; } >"$LOGS/demo.out" 2>&1
      echo "[demo] exit $?" | tee -a "$summary"
      cat "$LOGS/demo.out" ;;
    *) echo "gpu_verify: unknown phase '$phase'" >&2; exit 2 ;;
  esac
done
