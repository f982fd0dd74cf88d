#!/usr/bin/env bash
# The checks of several GPUs of one host (the NCCL component, docs/multi-gpu.md), for a machine
# with two or more GPUs. Run it from the repository root:
#
#   scripts/gpu_multi.sh [options]
#
# Steps, each with its log in the log directory, and a SUMMARY block at the end (also written,
# step by step, to <log dir>/summary.txt):
#   build    configure (Release, CUDA_ARCHS or 90) and build into the build directory
#   topo     nvidia-smi -L, nvidia-smi topo -m and `cuprim info`: the GPUs, their links, NCCL
#   ctest    ctest of nccl_api, nccl_gpu (every rank on its own GPU: the test_multi_gpu_* tests)
#            and example_nccl_reduce, then test_cli_gpu's test_devices_* (--devices lists)
#   example  example-nccl_reduce 2: two processes, one GPU each
#   memcheck compute-sanitizer --tool memcheck over test_nccl_gpu's test_multi_gpu_* tests (quick
#            mode), twice: once without API-error reports (the memory errors: must be none), once
#            with them, whose report lines are counted and whose first host backtraces are kept
#            (the CUDA API errors that NCCL meets and handles inside libnccl)
#   cli      `cuprim reduce|scan|histogram` on a generated .npy of GIB GiB (f32 in [0, 1), and
#            i32 in [-1000, 1000) for the bit-exact scan), with --device 0 and with --devices
#            0,1 --chunk CHUNK (several passes per GPU): the same bytes for reduce (sum, max),
#            histogram and the i32 scan; the f32 scan within REL of the one-GPU scan element by
#            element (float sums in another order), both measured against a float64 cumsum
#   bench    cuprim-bench --only nccl (one GPU against all of them at 2^26 and 2^30 f32), alone
#
# Options:
#   --only STEP[,STEP]  run only these steps
#   --no-build          use the build directory as it is (built here, or unpacked by
#                       scripts/gpu_pack.sh)
#   --build-dir DIR     default build-multi
#   --gib G             size of the cli step's files in GiB (default 4)
#   --chunk N           the cli step's --chunk for the several-GPU runs (default 100000000)
#   --rel R             the f32 scan's element-wise bound against one GPU (default 1e-4)
#   --samples N         cuprim-bench samples (default: cuprim-bench's)
#   -h, --help
# Environment: OUT, if set, is the log directory (else BUILD_DIR/gpu-multi); NCCL_NVLS_ENABLE is
# set to 0 unless already set (NVLink multicast stays off on shared machines).
# Exit status: 0 every step that ran passed; 1 otherwise; 2 bad usage.
set -uo pipefail

usage() { sed -n '2,/^set -uo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; }

all_steps=(build topo ctest example memcheck cli bench)
declare -A want
for s in "${all_steps[@]}"; do want[$s]=1; done
build_dir=build-multi
gib=4
chunk=100000000
rel=1e-4
samples=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --only)
      for s in "${all_steps[@]}"; do want[$s]=0; done
      IFS=, read -r -a picked <<<"${2:?--only needs a list}"
      for s in "${picked[@]}"; do
        [[ -n ${want[$s]+x} ]] || { echo "gpu_multi: unknown step '$s'" >&2; exit 2; }
        want[$s]=1
      done
      shift ;;
    --no-build) want[build]=0 ;;
    --build-dir) build_dir=${2:?}; shift ;;
    --gib) gib=${2:?}; shift ;;
    --chunk) chunk=${2:?}; shift ;;
    --rel) rel=${2:?}; shift ;;
    --samples) samples=(--samples "${2:?}"); shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "gpu_multi: unknown option '$1'" >&2; usage >&2; exit 2 ;;
  esac
  shift
done

[[ -f CMakeLists.txt && -d include/cuprim ]] || {
  echo "gpu_multi: run me from the repository root" >&2; exit 2; }
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
log_dir=${OUT:-$build_dir/gpu-multi}
mkdir -p "$log_dir"
summary_file=$log_dir/summary.txt
: >"$summary_file"
summary=()
failed=0
record_tag='gpu_multi: '
# shellcheck source=scripts/gpu_common.sh
source scripts/gpu_common.sh # record, cmocka_from_deps
cmocka_from_deps "$(pwd)" || exit 2
cli=$build_dir/tools/cuprim
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
echo "gpu_multi: $gpus GPUs, build $build_dir, logs in $log_dir"
[[ $gpus -ge 2 ]] || record gpus FAIL "$gpus GPUs visible: the steps need two or more"

if ((want[build])); then
  log=$log_dir/build.log
  if cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DCUPRIM_BUILD_TESTS=ON \
    -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}" -DCUPRIM_CHECK_FORMAT=OFF >"$log" 2>&1 &&
    cmake --build "$build_dir" -j "$(nproc)" >>"$log" 2>&1; then
    record build PASS "$(grep -m1 'cuprim: NCCL' "$log")"
  else
    record build FAIL "see build.log: $(grep -m1 -i 'error' "$log")"
  fi
fi

if ((want[topo])); then
  log=$log_dir/topo.txt
  { date -u; nvidia-smi -L; nvidia-smi topo -m; "$cli" info --runs 3; } >"$log" 2>&1
  record topo "$([[ $? -eq 0 ]] && echo PASS || echo FAIL)" \
    "$(grep -m1 'GPU0' "$log" | sed 's/\x1b\[[0-9;]*m//g' | tr -s ' \t' ' '); $(grep -m1 -i 'nccl' "$log")"
fi

if ((want[ctest])); then
  log=$log_dir/ctest.log
  ctest --test-dir "$build_dir" --output-on-failure -R '^(nccl_api|nccl_gpu|example_nccl_reduce)$' \
    >"$log" 2>&1
  rc=$?
  record ctest "$([[ $rc -eq 0 ]] && echo PASS || echo FAIL)" \
    "$(grep -E 'tests passed|tests failed' "$log" | tail -n 1)"
  log=$log_dir/cli-devices.log
  CUPRIM_TEST_FILTER='test_devices_*' "$build_dir/tests/test_cli_gpu" >"$log" 2>&1
  rc=$?
  record cli_gpu "$([[ $rc -eq 0 ]] && echo PASS || echo FAIL)" \
    "$(grep -E 'PASSED|FAILED' "$log" | tr '\n' ' ')"
fi

if ((want[example])); then
  log=$log_dir/example.log
  "$build_dir/examples/example-nccl_reduce" 2 >"$log" 2>&1
  record example "$([[ $? -eq 0 ]] && echo PASS || echo FAIL)" "$(tail -n 1 "$log")"
fi

if ((want[memcheck])); then
  prog=$build_dir/tests/test_nccl_gpu
  (CUPRIM_TEST_QUICK=1 CUPRIM_TEST_FILTER='test_multi_gpu_*' compute-sanitizer --tool memcheck \
    --report-api-errors no --error-exitcode 1 "$prog" >"$log_dir/memcheck.log" 2>&1
  echo $? >"$log_dir/memcheck.rc") &
  (CUPRIM_TEST_QUICK=1 CUPRIM_TEST_FILTER='test_multi_gpu_*' compute-sanitizer --tool memcheck \
    --show-backtrace host "$prog" >"$log_dir/memcheck-api.log" 2>&1) &
  wait
  log=$log_dir/memcheck.log
  rc=$(cat "$log_dir/memcheck.rc")
  ok=$([[ $rc -eq 0 ]] && grep -q 'ERROR SUMMARY: 0 errors' "$log" && grep -q 'PASSED' "$log" &&
    echo PASS || echo FAIL)
  record memcheck "$ok" "$(grep -E 'PASSED|FAILED|ERROR SUMMARY' "$log" | tr '\n' ' ')"
  # What the API-error reports are, counted, and where the first ones come from.
  api=$log_dir/memcheck-api-summary.txt
  { grep -E '^========= (Program hit|ERROR SUMMARY)|PASSED|FAILED' "$log_dir/memcheck-api.log" |
      sort | uniq -c | sort -rn
    echo "--- the first reports with their host backtraces:"
    awk '/Program hit/ {n++} n >= 1 && n <= 4' "$log_dir/memcheck-api.log" | head -n 120
  } >"$api"
  record api-errs INFO "$(grep -c 'Program hit' "$log_dir/memcheck-api.log") API-error reports; \
$(grep -c 'Program hit.*libnccl\|libnccl' "$log_dir/memcheck-api.log") backtrace lines in libnccl"
fi

if ((want[cli])); then
  log=$log_dir/cli.txt
  data=${CLI_DATA:-/tmp/cuprim-multi} # the inputs and outputs: 6 x GIB GiB
  dir=$data/out
  mkdir -p "$data" "$dir"
  : >"$log"
  python3 - "$data" "$gib" >>"$log" 2>&1 <<'EOF'
import sys, numpy as np
d, gib = sys.argv[1], float(sys.argv[2])
n = int(gib * 2**30) // 4
rng = np.random.default_rng(19)
np.save(f"{d}/f32.npy", rng.random(n, dtype=np.float32))
np.save(f"{d}/i32.npy", rng.integers(-1000, 1000, n, dtype=np.int32))
print(f"wrote {n} f32 and {n} i32 elements ({n * 4} bytes each)")
EOF
  ok=PASS
  # one NAME EXT FILE ARGS...: `cuprim ARGS` on FILE with --device 0, then with --devices 0,1
  # --chunk; outputs NAME-one.EXT and NAME-two.EXT, compared byte for byte unless NAME ends in
  # -float (a float sum in text: the two values within REL of each other).
  one() {
    local name=$1 ext=$2 file=$3
    shift 3
    local a=$dir/$name-one.$ext b=$dir/$name-two.$ext t0 t1 t2
    t0=$(date +%s%N)
    "$cli" "$@" --device 0 -o "$a" "$file" >>"$log" 2>&1 || { echo "$name one: rc $?" >>"$log"; ok=FAIL; }
    t1=$(date +%s%N)
    "$cli" "$@" --devices 0,1 --chunk "$chunk" -o "$b" "$file" >>"$log" 2>&1 ||
      { echo "$name two: rc $?" >>"$log"; ok=FAIL; }
    t2=$(date +%s%N)
    printf '%s: one GPU %d ms, two GPUs --chunk %s %d ms' "$name" $(((t1 - t0) / 1000000)) \
      "$chunk" $(((t2 - t1) / 1000000)) >>"$log"
    if [[ $name != *-float ]]; then
      if cmp -s "$a" "$b"; then echo ", same bytes" >>"$log"; else echo ", DIFFERENT" >>"$log"; ok=FAIL; fi
    elif [[ $ext == txt ]]; then
      python3 -c '
import sys
a, b = (float(open(f).read().split()[0]) for f in sys.argv[1:3])
d = abs(a - b) / max(abs(a), 1.0)
print(f", {a!r} and {b!r}: relative difference {d:.3g} (bound {sys.argv[3]})")
sys.exit(d > float(sys.argv[3]))' "$a" "$b" "$rel" >>"$log" 2>&1 || ok=FAIL
    else
      echo >>"$log"
    fi
  }
  one reduce-sum-float txt "$data/f32.npy" reduce
  one reduce-max txt "$data/f32.npy" reduce --op max
  one reduce-i32 txt "$data/i32.npy" reduce
  one argmax txt "$data/f32.npy" reduce --op argmax
  one histogram npy "$data/f32.npy" histogram --bins 256 --range 0 1
  one scan-i32 npy "$data/i32.npy" scan
  one scan-f32-float npy "$data/f32.npy" scan
  for f in "$dir"/reduce-*.txt "$dir"/argmax-*.txt; do echo "$(basename "$f"): $(cat "$f")"; done >>"$log"
  python3 - "$data/f32.npy" "$dir/scan-f32-float-one.npy" "$dir/scan-f32-float-two.npy" "$rel" \
    >>"$log" 2>&1 <<'EOF' || ok=FAIL
import sys, numpy as np
x = np.load(sys.argv[1], mmap_mode="r")
one, two = np.load(sys.argv[2], mmap_mode="r"), np.load(sys.argv[3], mmap_mode="r")
rel = float(sys.argv[4])
worst_12, worst_1, worst_2, bad, step = 0.0, 0.0, 0.0, 0, 1 << 26
acc = 0.0
for s in range(0, len(x), step):
    ref = np.cumsum(x[s:s + step], dtype=np.float64) + acc
    acc = ref[-1]
    a, b = one[s:s + step].astype(np.float64), two[s:s + step].astype(np.float64)
    scale = np.maximum(np.abs(ref), 1.0)
    d = np.abs(b - a) / scale
    worst_12 = max(worst_12, d.max())
    worst_1 = max(worst_1, (np.abs(a - ref) / scale).max())
    worst_2 = max(worst_2, (np.abs(b - ref) / scale).max())
    bad += int((d > rel).sum())
print(f"scan f32: every element: max |two - one| / |ref| = {worst_12:.3g} (bound {rel:g}), "
      f"{bad} over; against float64: one GPU {worst_1:.3g}, two GPUs {worst_2:.3g}")
sys.exit(1 if bad else 0)
EOF
  record cli "$ok" "$(grep -c 'same bytes' "$log") same-byte outputs; $(grep -m1 '^scan f32' "$log")"
fi

if ((want[bench])); then
  log=$log_dir/bench-nccl.log
  "$build_dir/bench/cuprim-bench" --only nccl "${samples[@]}" --csv "$log_dir/bench-nccl.csv" \
    >"$log" 2>&1
  record bench "$([[ $? -eq 0 ]] && echo PASS || echo FAIL)" "bench-nccl.csv: $(grep -c . "$log_dir/bench-nccl.csv") lines"
fi

echo "==================== SUMMARY"
printf '%s\n' "${summary[@]}"
echo "===================="
exit "$failed"
