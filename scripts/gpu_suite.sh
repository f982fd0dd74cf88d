#!/usr/bin/env bash
# The checks that CI (no GPU) cannot make, for a machine with an NVIDIA GPU. Run it from the
# repository root:
#
#   scripts/gpu_suite.sh [options]
#
# Steps, all on by default, each with its log in the log directory:
#   build      configure (Release; the default architectures, or CUDA_ARCHS) and build into
#              build-gpu
#   ctest      ctest --output-on-failure: every test
#   memcheck   compute-sanitizer --tool memcheck over each test labelled `gpu` (ctest -L '^gpu$'),
#              except those also labelled `nosanitize`, with CUPRIM_TEST_QUICK=1
#   racecheck  compute-sanitizer --tool racecheck over the same (NCCL's own kernels left out)
#   synccheck  compute-sanitizer --tool synccheck over the same
#              (a sanitized run whose one finding is the sanitizer's own "failure to track a
#              kernel launch" runs once more, and the SUMMARY line names it: see sanitize_job)
#   bench      build-gpu/bench/cuprim-bench --csv $OUT/bench.csv (without OUT: build-gpu/bench.csv)
#   demo       build-gpu/tools/cuprim demo
# and at the end a SUMMARY block, one line per step with PASS/FAIL/SKIP and its key line. The
# block is also written, step by step, to <log dir>/summary.txt, so that it survives a run that
# is cut short.
#
# Options:
#   --no-build --no-ctest --no-sanitize --no-memcheck --no-racecheck --no-synccheck --no-bench
#   --no-demo
#                       leave out a step (--no-build reuses build-gpu as it is)
#   --only STEP[,STEP]  run only these steps (names as above; `sanitize` = memcheck,racecheck,synccheck)
#   --bench-only        same as --only build,bench
#   --quick-bench       pass --quick to cuprim-bench (a reduced set of sizes)
#   --bench-args "..."  more arguments for cuprim-bench (e.g. "--only reduce --samples 21")
#   --ctest-args "..."  more arguments for both ctest runs (e.g. "-R reduce")
#   --build-dir DIR     default build-gpu (with --no-build, also a tree that scripts/gpu_pack.sh
#                       unpacked: programs built on another machine)
#   --jobs N            build parallelism (default: the number of CPUs)
#   --step-timeout S    stop any one step (one program under a sanitizer) after S seconds
#   --deadline S        stop everything S seconds after the suite started: a step or sanitizer
#                       job still running then is stopped (exit 124), one not started by then is
#                       not started (its log says so), and the SUMMARY block is still written
#                       (for a call with a time limit, whose kill would lose the summary)
#   --sanitize-jobs N   run the sanitizer steps as N parallel processes (default 1: one program
#                       after another): each cmocka program (tests/test_*.c) is split into the
#                       tests it lists (CUPRIM_TEST_LIST=1), one process each
#                       (CUPRIM_TEST_FILTER=name), and the memcheck, racecheck and synccheck jobs
#                       share one pool; each job, as it ends, adds a line to <log dir>/jobs.txt
#                       (TOOL-JOB, PASS/FAIL/CUT/NOTRUN, exit status, seconds, its SUMMARY
#                       line). On an H100, racecheck of
#                       reduce_gpu alone did not finish in 560 s as one process; split into 12
#                       parallel processes, its tests took at most 320 s. Racecheck jobs appear
#                       to slow each other down more than in proportion: shard 3/64 of nccl_gpu's
#                       test_virtual_ranks took 220 s beside 16 shorter jobs, while its like
#                       shards (7/64, 11/64, ...) had not finished after 570 s running together
#                       (H100, 2026-11-24): give the slowest jobs fewer neighbours.
#   --sanitize-match REGEX
#                       only the sanitizer jobs whose name (PROGRAM-test_NAME with more than one
#                       sanitize job, else PROGRAM; -shardK after it with --sanitize-shards,
#                       then -partJ with --sanitize-parts)
#                       matches the bash regex (for instance
#                       'scan_gpu-test_(misaligned|nan)'); none matching is a failure
#   --sanitize-first REGEX
#                       start the jobs whose name matches first (the slow ones: a call that
#                       runs out of time then cuts the quick ones instead)
#   --sanitize-shards N[:REGEX]
#                       with --sanitize-jobs > 1: split each job of one cmocka test whose name
#                       (PROGRAM-test_NAME) matches the bash regex REGEX (default: every one)
#                       into N jobs, PROGRAM-test_NAME-shardK
#                       for K = 0..N-1, which run with CUPRIM_TEST_SHARD=K/N: between them they
#                       run each of the test's cases once (tests/test_fixture_gpu.h,
#                       tf_shard_case). For the tests that take longest under racecheck; a test
#                       that does not count its cases runs whole in each shard.
#   --sanitize-parts M  with --sanitize-shards: split each shard job into M jobs,
#                       ...-shardK-partJ for J = 0..M-1, which run with CUPRIM_TEST_PART=J/M:
#                       between them they run each part of the shard's cases once
#                       (tf_shard_part). For a case too long for one job even alone
#                       (test_virtual_ranks' largest size under racecheck: 6 parts of 3 (P,
#                       layout) pairs); a case without parts runs whole in each part job.
#   -h, --help
# Environment: OUT, if set, is the log directory (else build-gpu/gpu-suite); CUDA_ARCHS
# overrides the architectures (CMAKE_CUDA_ARCHITECTURES; default: the project's default list,
# e.g. CUDA_ARCHS=90 for a faster build, or 80-virtual to run the PTX path on a Hopper);
# CUDA_FLAGS, if set, is CMAKE_CUDA_FLAGS (e.g. --threads=4: nvcc compiles several
# architectures of one file at once).
# Exit status: 0 every step that ran passed; 1 otherwise; 2 bad usage or missing prerequisites.
#
# cmocka: if the system has no cmocka, the suite unpacks the Debian packages found in .deps/
# (libcmocka0_*.deb and libcmocka-dev_*.deb, git-ignored) into /tmp/cuprim-cmocka and points
# CMake (CMAKE_PREFIX_PATH), pkg-config and the dynamic loader (LD_LIBRARY_PATH) at them. Fetch
# them on a machine with network access and the same distribution (Ubuntu 24.04) with
#   mkdir -p .deps && cd .deps && apt-get download libcmocka0 libcmocka-dev
set -uo pipefail

usage() { sed -n '2,/^set -uo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; }

# ---------------------------------------------------------------- options
all_steps=(build ctest memcheck racecheck synccheck bench demo)
declare -A want=([build]=1 [ctest]=1 [memcheck]=1 [racecheck]=1 [synccheck]=1 [bench]=1 [demo]=1)
build_dir=build-gpu
jobs=$(nproc 2>/dev/null || echo 16)
bench_args=()
ctest_args=()
step_timeout=0
deadline=0
sanitize_jobs=1
sanitize_match=
sanitize_first=
sanitize_shards=1
sanitize_shard_match=
sanitize_parts=1
# count_1_4096 V: V is a whole number from 1 to 4096 (shards and parts, as the tests take them).
count_1_4096() { [[ $1 =~ ^[1-9][0-9]{0,3}$ ]] && (($1 <= 4096)); }

while [[ $# -gt 0 ]]; do
  case $1 in
    --no-build | --no-ctest | --no-memcheck | --no-racecheck | --no-synccheck | --no-bench | --no-demo)
      want[${1#--no-}]=0 ;;
    --no-sanitize) want[memcheck]=0; want[racecheck]=0; want[synccheck]=0 ;;
    --only | --bench-only)
      if [[ $1 == --bench-only ]]; then list=build,bench; else list=${2:?--only needs a list}; shift; fi
      for s in "${all_steps[@]}"; do want[$s]=0; done
      IFS=, read -r -a picked <<<"${list//sanitize/memcheck,racecheck,synccheck}"
      for s in "${picked[@]}"; do
        [[ -n ${want[$s]+x} ]] || { echo "gpu_suite: unknown step '$s'" >&2; exit 2; }
        want[$s]=1
      done ;;
    --quick-bench) bench_args+=(--quick) ;;
    --bench-args) read -r -a more <<<"${2:?}"; bench_args+=("${more[@]}"); shift ;;
    --ctest-args) read -r -a more <<<"${2:?}"; ctest_args+=("${more[@]}"); shift ;;
    --build-dir) build_dir=${2:?}; shift ;;
    --jobs) jobs=${2:?}; shift ;;
    --step-timeout) step_timeout=${2:?}; shift ;;
    --deadline) deadline=${2:?}; shift ;;
    --sanitize-jobs) sanitize_jobs=${2:?}; shift ;;
    --sanitize-match) sanitize_match=${2:?}; shift ;;
    --sanitize-first) sanitize_first=${2:?}; shift ;;
    --sanitize-shards)
      sanitize_shards=${2:?}
      sanitize_shard_match=
      if [[ $sanitize_shards == *:* ]]; then
        sanitize_shard_match=${sanitize_shards#*:}
        sanitize_shards=${sanitize_shards%%:*}
      fi
      if ! count_1_4096 "$sanitize_shards"; then
        echo "gpu_suite: --sanitize-shards takes N[:REGEX] with 1 <= N <= 4096, not '$2'" >&2
        exit 2
      fi
      shift ;;
    --sanitize-parts)
      sanitize_parts=${2:?}
      if ! count_1_4096 "$sanitize_parts"; then
        echo "gpu_suite: --sanitize-parts takes M with 1 <= M <= 4096, not '$2'" >&2
        exit 2
      fi
      shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "gpu_suite: unknown option '$1' (--help lists them)" >&2; exit 2 ;;
  esac
  shift
done
if [[ $sanitize_shards -gt 1 && ! $sanitize_jobs -gt 1 ]]; then
  echo "gpu_suite: --sanitize-shards splits the jobs of --sanitize-jobs N (N > 1)" >&2
  exit 2
fi
for v in "$step_timeout" "$deadline"; do
  [[ $v =~ ^[0-9]+$ ]] || { echo "gpu_suite: --step-timeout and --deadline take seconds, not '$v'" >&2; exit 2; }
done
if [[ $sanitize_parts -gt 1 && ! $sanitize_shards -gt 1 ]]; then
  echo "gpu_suite: --sanitize-parts splits the jobs of --sanitize-shards N (N > 1)" >&2
  exit 2
fi

[[ -f CMakeLists.txt && -d include/cuprim ]] || {
  echo "gpu_suite: run me from the repository root" >&2; exit 2; }
root=$(pwd)
case $build_dir in /*) ;; *) build_dir=$root/$build_dir ;; esac
log_dir=${OUT:-$build_dir/gpu-suite}
mkdir -p "$log_dir"
summary_file=$log_dir/summary.txt
: >"$summary_file"
rm -f "$log_dir/jobs.txt"

# ---------------------------------------------------------------- bookkeeping
summary=()
failed=0
record_tag='gpu_suite: '
# shellcheck source=scripts/gpu_common.sh
source "$root/scripts/gpu_common.sh" # record, cmocka_from_deps
# run_logged LOG CMD...: runs CMD with its output in LOG (and the step timeout, if any).
# With --deadline, the limit is at most what is left of it, and nothing starts once it has passed
# (exit 124, as for a run that was cut).
run_logged() {
  local log=$1 limit=$step_timeout left
  shift
  if [[ $deadline -gt 0 ]]; then
    left=$((deadline - SECONDS))
    if [[ $left -le 0 ]]; then
      echo "gpu_suite: not started: the --deadline of $deadline s had passed" >"$log"
      return 124
    fi
    [[ $limit -eq 0 || $left -lt $limit ]] && limit=$left
  fi
  if [[ $limit -gt 0 ]]; then
    timeout --kill-after=10 "$limit" "$@" >"$log" 2>&1
  else
    "$@" >"$log" 2>&1
  fi
}
# show_tail LOG: the end of a failed step's log, so that the reason comes back with the output.
show_tail() { echo "---- last lines of $1"; tail -n "${2:-25}" "$1"; echo "----"; }

# ---------------------------------------------------------------- environment
if command -v nvidia-smi >/dev/null 2>&1; then
  device=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)
fi
device=${device:-unknown (no nvidia-smi)}
echo "gpu_suite: device: $device; logs in $log_dir"
echo "device     $device" >>"$summary_file"

nvcc_path=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
sanitizer=$(command -v compute-sanitizer || echo "$(dirname "$nvcc_path")/compute-sanitizer")

cmocka_from_deps "$root" || exit 2

# ---------------------------------------------------------------- build
built=1
if [[ ${want[build]} == 1 ]]; then
  echo "gpu_suite: build: configure and build $build_dir (-j$jobs)"
  log=$log_dir/build.log
  # shellcheck disable=SC2016 # $1.. are bash -c's positional parameters
  if run_logged "$log" bash -c '
      cmake -S . -B "$1" -DCMAKE_BUILD_TYPE=Release ${2:+-DCMAKE_CUDA_ARCHITECTURES="$2"} \
        -DCUPRIM_BUILD_TESTS=ON ${4:+-DCMAKE_CUDA_FLAGS="$4"} &&
      cmake --build "$1" -j "$3"' _ "$build_dir" "${CUDA_ARCHS:-}" "$jobs" "${CUDA_FLAGS:-}"; then
    record build PASS "$(grep -c 'Building' "$log") objects compiled, $(grep -ci 'warning' "$log") warning lines"
  else
    built=0
    show_tail "$log" 40
    record build FAIL "$(grep -m1 -iE 'error' "$log" || tail -n 1 "$log")"
  fi
elif [[ ! -d $build_dir ]]; then
  built=0
  record build FAIL "--no-build, and there is no $build_dir"
fi
skip_unbuilt() { [[ $built == 1 ]] && return 1; record "$1" SKIP "the build failed"; }

# ---------------------------------------------------------------- ctest
if [[ ${want[ctest]} == 1 ]] && ! skip_unbuilt ctest; then
  echo "gpu_suite: ctest: every test"
  log=$log_dir/ctest.log
  run_logged "$log" ctest --test-dir "$build_dir" --output-on-failure "${ctest_args[@]}"
  rc=$?
  key=$(grep -E 'tests passed|No tests were found' "$log" | tail -n 1)
  notrun=$(grep -cE '^[[:space:]]+[0-9]+ - .*\((Skipped|Disabled|Not Run)\)' "$log")
  [[ $notrun -gt 0 ]] && key+=" ($notrun did not run: see ctest.log)"
  if [[ $rc -eq 0 ]]; then
    record ctest PASS "$key"
  else
    show_tail "$log" 40
    record ctest FAIL "${key:-ctest exited with $rc} $(sed -n '/tests FAILED:/,$p' "$log" |
      grep -oE '[0-9]+ - [^ ]+' | cut -d' ' -f3 | head -n 8 | tr '\n' ' ')"
  fi
fi

# ---------------------------------------------------------------- compute-sanitizer
# The `gpu` tests, one line each: name, working directory, ENVIRONMENT property and command,
# separated by $'\x1f' (not a tab: `read` would merge an empty field), the last two as shell
# words (printf %q). Read from `ctest -N -V`, which prints
#   N: Test command: /path/exe "arg" "arg"
#   N: Working Directory: /path
#   N: Environment variables:
#   N:  NAME=value
#     Test #N: name
gpu_tests() {
  local line rest wd env=() cmd=()
  while IFS= read -r line; do
    if [[ $line =~ ^[0-9]+:\ Test\ command:\ (.*)$ ]]; then
      rest=${BASH_REMATCH[1]}
      cmd=("${rest%% \"*}")
      rest=${rest:${#cmd[0]}}
      while [[ $rest =~ ^\ \"([^\"]*)\"(.*)$ ]]; do
        cmd+=("${BASH_REMATCH[1]}")
        rest=${BASH_REMATCH[2]}
      done
      wd=.
      env=()
    elif [[ $line =~ ^[0-9]+:\ Working\ Directory:\ (.*)$ ]]; then
      wd=${BASH_REMATCH[1]}
    elif [[ $line =~ ^[0-9]+:\ \ ([A-Za-z_][A-Za-z0-9_]*=.*)$ ]]; then
      env+=("${BASH_REMATCH[1]}")
    elif [[ $line =~ ^\ +Test\ +#[0-9]+:\ (.*)$ ]]; then
      printf '%s\x1f%s\x1f%s\x1f%s\n' "${BASH_REMATCH[1]}" "$wd" \
        "$([[ ${#env[@]} -gt 0 ]] && printf '%q ' "${env[@]}")" "$(printf '%q ' "${cmd[@]}")"
    fi
  done < <(ctest --test-dir "$build_dir" -N -V -L '^gpu$' -LE '^nosanitize$' "${ctest_args[@]}")
}

# cmocka_tests WD EXE: the cmocka test names of a test program (one built from tests/<EXE name>.c),
# one per line, as the program lists them, run in WD: with CUPRIM_TEST_LIST=1 it prints the
# tests it would run, in order, and exits before touching the device (tests/test_util.h).
# Nothing for other programs (examples, the demo), which would run instead of listing; a test
# program that lists nothing, or something that is not a test name, is said on stderr and runs as
# one job.
cmocka_tests() {
  local wd=$1 exe=$2 names
  [[ -f $root/tests/$(basename "$exe").c ]] || return 0
  if ! names=$(cd "$wd" && CUPRIM_TEST_LIST=1 "$exe") || [[ -z $names ]] ||
    grep -qvE '^test_[A-Za-z0-9_]+$' <<<"$names"; then
    echo "gpu_suite: $exe did not list its tests (CUPRIM_TEST_LIST=1); it runs as one job" >&2
    return 0
  fi
  printf '%s\n' "$names"
}

# sanitize_job TOOL WD ENV CMD FILTER SHARD PART LOG [OPTION...]: one program, or one of its
# tests (FILTER), or one shard of that test (SHARD, K/N), or one part of that shard (PART, J/M),
# under the sanitizer (with OPTIONs), with CUPRIM_TEST_QUICK=1; its exit status goes to LOG.rc.
#
# A run whose only finding is the sanitizer's own failure ("Internal Sanitizer Error: Detected a
# failure to track a kernel launch. Future records might be incomplete", which racecheck counts
# as "1 hazard displayed (1 error, ...)" though it reports no hazard) runs once more: on an H100,
# 5 of 144 racecheck runs of reduce_gpu's test_threads_share_context (host threads launching on
# one context), 16 at a time, ended so; its one run alone was clean (2026-11-25). The first log
# is kept as LOG.internal; a second such run fails as the first would have.
sanitize_job() {
  local tool=$1 wd=$2 job_env=$3 job_cmd=$4 filter=$5 shard=$6 part=$7 log=$8 rc=0 try
  shift 8
  local more=("$@") began=$SECONDS status
  rm -f "$log.internal" # from an earlier run into the same log directory
  for try in 1 2; do
    rc=0
    (
      cd "$wd" || exit 1
      export CUPRIM_TEST_QUICK=1
      [[ -n $filter ]] && export CUPRIM_TEST_FILTER=$filter
      [[ -n $shard ]] && export CUPRIM_TEST_SHARD=$shard
      [[ -n $part ]] && export CUPRIM_TEST_PART=$part
      eval "run_logged \"\$log\" env $job_env \"\$sanitizer\" --tool $tool --error-exitcode 1 \
            --target-processes all \"\${more[@]}\" $job_cmd"
    ) || rc=$?
    if [[ $try == 2 ]] || ! only_internal_error "$log"; then break; fi
    mv "$log" "$log.internal"
  done
  echo "$rc" >"$log.rc"
  # The job's line in jobs.txt: one short append, whole beside the other jobs' appends.
  status=FAIL
  if [[ $rc == 0 ]]; then
    status=PASS
  elif grep -q '^gpu_suite: not started' "$log"; then
    status=NOTRUN
  elif [[ $rc == 124 || $rc == 137 ]]; then
    status=CUT
  fi
  echo "$(basename "$log" .log) $status rc=$rc $((SECONDS - began))s" \
    "$(grep -m1 -oE '[A-Z]+ SUMMARY: .*' "$log")" >>"$log_dir/jobs.txt"
}

# only_internal_error LOG: whether the sanitizer's one finding in LOG is that internal error:
# every "=========" line is the banner, empty, a SUMMARY line or that error's line (a hazard, an
# invalid access or an API error adds lines of its own, and its backtrace more). Other internal
# errors (such as "failed to handle a hardware exception", which left the test program failing)
# are not run again.
only_internal_error() {
  local lost='Internal Sanitizer Error: Detected a failure to track a kernel launch'
  grep -q "^========= $lost" "$1" &&
    ! grep -E '^=========' "$1" |
      grep -qvE "^========= *(COMPUTE-SANITIZER|$lost.*|[A-Z]+ SUMMARY: .*)?\$"
}

# sanitize TOOL...: every `gpu` test under compute-sanitizer --tool TOOL, for each TOOL, in
# $sanitize_jobs parallel processes; then one SUMMARY line per tool. With one process at a time
# each program runs whole; with more, each cmocka program is split into its tests (one process
# each), and all the tools' jobs share one pool.
sanitize() {
  local tools=("$@") list tool name wd env cmd exe t shard part log running=0 n bad retried unit=programs
  [[ $sanitize_jobs -gt 1 ]] && unit="jobs"
  list=$(gpu_tests)
  if [[ -z $list ]]; then
    for tool in "${tools[@]}"; do
      record "$tool" FAIL "no tests labelled gpu (ctest --test-dir $build_dir -N -L '^gpu\$')"
    done
    return
  fi
  declare -A logs
  # Every job as one line (tool, program, directory, environment, command, cmocka test, shard,
  # part, log), those that --sanitize-match picks, the ones --sanitize-first names at the front.
  local first=() rest=() job k j shards parts jobname
  for tool in "${tools[@]}"; do
    logs[$tool]=
    while IFS=$'\x1f' read -r name wd env cmd; do
      local tests=
      if [[ $sanitize_jobs -gt 1 ]]; then
        eval "exe=(${cmd})"
        tests=$(cmocka_tests "$wd" "${exe[0]}")
      fi
      for t in ${tests:-"-"}; do
        [[ $t == - ]] && t=
        shards=1
        [[ -n $t && $sanitize_shards -gt 1 && $name-$t =~ $sanitize_shard_match ]] &&
          shards=$sanitize_shards
        parts=1
        [[ $shards -gt 1 ]] && parts=$sanitize_parts
        for ((k = 0; k < shards; ++k)); do
          for ((j = 0; j < parts; ++j)); do
            jobname=$name${t:+-$t}
            [[ $shards -gt 1 ]] && jobname+=-shard$k
            [[ $parts -gt 1 ]] && jobname+=-part$j
            [[ -n $sanitize_match && ! $jobname =~ $sanitize_match ]] && continue
            log=$log_dir/$tool-$jobname.log
            logs[$tool]+="$log"$'\n'
            job="$tool"$'\x1f'"$name"$'\x1f'"$wd"$'\x1f'"$env"$'\x1f'"$cmd"$'\x1f'"$t"
            job+=$'\x1f'"$([[ $shards -gt 1 ]] && echo "$k/$shards")"
            job+=$'\x1f'"$([[ $parts -gt 1 ]] && echo "$j/$parts")"$'\x1f'"$log"
            if [[ -n $sanitize_first && $jobname =~ $sanitize_first ]]; then
              first+=("$job")
            else
              rest+=("$job")
            fi
          done
        done
      done
    done <<<"$list"
  done
  if [[ $((${#first[@]} + ${#rest[@]})) -eq 0 ]]; then
    for tool in "${tools[@]}"; do
      record "$tool" FAIL "no $unit match --sanitize-match '$sanitize_match'"
    done
    return
  fi
  for job in "${first[@]}" "${rest[@]}"; do
    IFS=$'\x1f' read -r tool name wd env cmd t shard part log <<<"$job"
    while [[ $running -ge $sanitize_jobs ]]; do
      wait -n
      running=$((running - 1))
    done
    # NCCL's communicator set-up (ncclCommInitAll) probes kernels of its own that are not
    # built for every GPU, and takes the cudaErrorNoKernelImageForDevice of each
    # cudaFuncGetAttributes in stride; the sanitizer would count those as errors of the
    # program. The NCCL tests leave API errors out (memory errors still count);
    # test_no_cuda_error_left checks that cuprim leaves none behind.
    # Under racecheck the NCCL tests also leave NCCL's own device kernels (global functions
    # named ncclDevKernel_*, mangled _Z<len>ncclDevKernel_...) uninstrumented: they are not
    # ours, and instrumenting them made the NCCL tests take several calls (racecheck of
    # nccl_gpu test_one_rank_reduce and _scan, 75-virtual, 8 shards each: 80-91 s with them
    # left out, 2026-11-25). cuprim's own kernels (_ZN6cuprim...) are all checked.
    local more=()
    [[ $name == *nccl* ]] && more=(--report-api-errors no)
    [[ $name == *nccl* && $tool == racecheck ]] &&
      more+=(--kernel-name-exclude 'regex=^_Z[0-9]+ncclDevKernel')
    sanitize_job "$tool" "$wd" "$env" "$cmd" "$t" "$shard" "$part" "$log" "${more[@]}" &
    running=$((running + 1))
  done
  echo "gpu_suite: ${tools[*]}: $(printf '%s' "${logs[@]}" | grep -c .) $unit under compute-sanitizer, $sanitize_jobs at a time"
  wait
  for tool in "${tools[@]}"; do
    n=0
    bad=()
    while IFS= read -r log; do
      [[ -n $log ]] || continue
      n=$((n + 1))
      rc=$(cat "$log.rc" 2>/dev/null || echo missing)
      # memcheck and synccheck end with "ERROR SUMMARY: 0 errors", racecheck with
      # "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)".
      if [[ $rc != 0 ]] || ! grep -qE '(ERROR SUMMARY: 0 errors|SUMMARY: 0 hazards displayed \(0 errors, 0 warnings\))' "$log"; then
        bad+=("$(basename "$log" .log): exit $rc, $(grep -m1 -oE '[A-Z]+ SUMMARY: .*' "$log" || echo 'no SUMMARY line')")
        show_tail "$log" 30
      fi
    done <<<"${logs[$tool]}"
    retried=$(printf '%s' "${logs[$tool]}" | while IFS= read -r log; do
      [[ -n $log && -f $log.internal ]] && basename "$log" .log; done)
    retried=${retried:+(run again after an internal sanitizer error: $(tr '\n' ' ' <<<"$retried" | sed 's/ $//'))}
    if [[ ${#bad[@]} -eq 0 ]]; then
      record "$tool" PASS "$n/$n $unit: $(grep -h -m1 -oE '[A-Z]+ SUMMARY: .*' "$log_dir/$tool-"*.log | sort -u | tr '\n' ' ')$retried"
    else
      record "$tool" FAIL "${#bad[@]}/$n $unit: $(IFS=';'; echo "${bad[*]}")${retried:+ $retried}"
    fi
  done
}

picked_tools=()
for tool in memcheck racecheck synccheck; do
  if [[ ${want[$tool]} == 1 ]] && ! skip_unbuilt "$tool"; then
    if [[ ! -x $sanitizer ]]; then
      record "$tool" FAIL "compute-sanitizer not found (looked for $sanitizer)"
    elif [[ $sanitize_jobs -gt 1 ]]; then
      picked_tools+=("$tool") # one pool for all the tools, below
    else
      sanitize "$tool" # one tool after another, each SUMMARY line as soon as it is known
    fi
  fi
done
[[ ${#picked_tools[@]} -gt 0 ]] && sanitize "${picked_tools[@]}"

# ---------------------------------------------------------------- bench
if [[ ${want[bench]} == 1 ]] && ! skip_unbuilt bench; then
  bench=$build_dir/bench/cuprim-bench
  csv=${OUT:-$build_dir}/bench.csv
  log=$log_dir/bench.log
  if [[ ! -x $bench ]]; then
    record bench FAIL "$bench was not built (CUPRIM_BUILD_BENCH=OFF?)"
  else
    echo "gpu_suite: bench: $bench --csv $csv ${bench_args[*]}"
    run_logged "$log" "$bench" --csv "$csv" "${bench_args[@]}"
    rc=$?
    key="$(grep 'cuprim-bench:' "$log" | tail -n 1); $( [[ -f $csv ]] && wc -l <"$csv" || echo 0) CSV lines in $csv"
    if [[ $rc -eq 0 ]]; then record bench PASS "$key"; else show_tail "$log"; record bench FAIL "exit $rc: $key"; fi
  fi
fi

# ---------------------------------------------------------------- demo
if [[ ${want[demo]} == 1 ]] && ! skip_unbuilt demo; then
  log=$log_dir/demo.log
  echo "gpu_suite: demo: $build_dir/tools/cuprim demo"
  run_logged "$log" "$build_dir/tools/cuprim" demo
  rc=$?
  cat "$log"
  # One row per primitive; a row's check column starts with "ok:" when the host agrees.
  key="$(grep -c ' ok: ' "$log") of 3 primitives checked ok against the host"
  if [[ $rc -eq 0 ]]; then record demo PASS "$key"; else record demo FAIL "exit $rc: $(tail -n 1 "$log")"; fi
fi

# ---------------------------------------------------------------- summary
echo
echo "==================== SUMMARY ($device)"
printf '%s\n' "${summary[@]}"
echo "logs: $log_dir"
echo "===================="
exit $failed
