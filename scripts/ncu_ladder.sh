#!/usr/bin/env bash
# Profiles a ladder with Nsight Compute: every algorithm of one primitive (the reduce ladder by
# default), each call alone (bench/one_call.c brackets it with cudaProfilerStart/Stop), with the
# hardware counters that explain the ladder's steps: warp divergence, shared-memory bank
# conflicts, barrier stalls, and how close each kernel comes to the SM's and DRAM's peaks. Prints
# one Markdown table per run (and writes it, the per-kernel table, the .ncu-rep reports and their
# raw CSV into the output directory). docs/ladder.md says what to look for in each column.
#
# usage: scripts/ncu_ladder.sh [--primitive reduce|scan|histogram] [--n N|2^K] [--dtype DT]
#                              [--bins B] [--alg A[,A...]] [--build DIR] [--out DIR]
#   --primitive  the ladder (default reduce); --list of cuprim-one-call gives its algorithms
#   --n          elements (default 2^26, cuprim-bench's large ladder size)
#   --dtype      f32 (default) or i32; histogram: u8 (default) or f32
#   --bins       histogram only: B bins (default 256 for u8, 4096 for f32)
#   --alg        only these algorithms (names as --list gives them; e.g. auto)
#   --build DIR  build tree (default build-ncu); configured (Release, sm_90, no tests, tools or
#                examples) if it has no CMakeCache.txt; the target cuprim-one-call (the library
#                and bench/one_call.c) is (re)built every time
#   --out DIR    output directory (default $OUT/ncu-PRIMITIVE if $OUT is set, else
#                out/ncu-PRIMITIVE)
# Environment: NCU, the ncu program (default: ncu on PATH, /usr/local/cuda/bin/ncu, or the
# newest /opt/nvidia/nsight-compute/*/ncu); METRICS, a comma-separated list that replaces the
# default one below (the table then shows what it can).
#
# Needs a GPU, Nsight Compute with permission to read the counters (root, or the driver option
# NVreg_RestrictProfilingToAdminUsers=0), CMake and python3 (standard library only). Independent
# of tools/ and of the test suite. ncu replays each kernel once per counter pass, with caches
# flushed and clocks locked to base (its defaults), so its durations are slower than
# cuprim-bench's and serve only to compare the rungs with one another.
#
# Exit status: 0 every algorithm profiled; 1 a step failed; 2 bad usage or no ncu; 77 no GPU.
set -euo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
primitive=reduce
n=2^26
dtype=
bins=
only=
build=$src/build-ncu
out=

usage() {
  sed -n '/^# usage:/,/^# Environment:/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
}
while [[ $# -gt 0 ]]; do
  case $1 in
    --primitive) primitive=${2:?}; shift 2 ;;
    --n) n=${2:?}; shift 2 ;;
    --dtype) dtype=${2:?}; shift 2 ;;
    --bins) bins=${2:?}; shift 2 ;;
    --alg) only=${2:?}; shift 2 ;;
    --build) build=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "ncu_ladder: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
case $primitive in
  reduce|scan) dtype=${dtype:-f32} ;;
  histogram) dtype=${dtype:-u8} ;;
  *) echo "ncu_ladder: --primitive is reduce, scan or histogram" >&2; exit 2 ;;
esac
if [[ -z $out ]]; then
  out=${OUT:-$src/out}/ncu-$primitive
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)

# The counters. Names as Nsight Compute 2023 and later spell them for sm_70 and newer.
default_metrics=(
  gpu__time_duration.sum                                        # kernel time
  smsp__sass_average_branch_targets_threads_uniform.pct         # branch efficiency
  smsp__sass_branch_targets_threads_divergent.sum               # divergent branch targets
  smsp__thread_inst_executed_per_inst_executed.ratio            # active threads per warp instr.
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum      # shared loads: bank conflicts
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum      # shared stores: bank conflicts
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum          # shared load wavefronts
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum          # shared store wavefronts
  smsp__inst_executed_op_shared_ld.sum                          # shared load instructions
  smsp__inst_executed_op_shared_st.sum                          # shared store instructions
  smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio  # waiting at __syncthreads
  smsp__inst_executed.sum                                       # warp instructions
  sm__throughput.avg.pct_of_peak_sustained_elapsed              # SM speed of light
  dram__throughput.avg.pct_of_peak_sustained_elapsed            # DRAM speed of light
  dram__bytes_read.sum                                          # DRAM bytes read
  lts__t_bytes.sum                                              # L2 traffic (global_tree's tree)
  sm__warps_active.avg.pct_of_peak_sustained_active             # achieved occupancy
)
metrics=${METRICS:-$(IFS=,; echo "${default_metrics[*]}")}

# ncu.
ncu=${NCU:-}
if [[ -z $ncu ]]; then
  ncu=$(command -v ncu || true)
fi
if [[ -z $ncu && -x /usr/local/cuda/bin/ncu ]]; then
  ncu=/usr/local/cuda/bin/ncu
fi
if [[ -z $ncu ]]; then
  ncu=$(printf "%s\n" /opt/nvidia/nsight-compute/*/ncu | sort -V | tail -n 1)
fi
if [[ -z $ncu || ! -x $ncu ]]; then
  echo "ncu_ladder: Nsight Compute (ncu) not found; set NCU=/path/to/ncu" >&2
  exit 2
fi

# The driver program.
echo "== ncu_ladder: build cuprim-one-call in $build" >&2
if [[ ! -f $build/CMakeCache.txt ]]; then
  cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCUPRIM_BUILD_BENCH=ON -DCUPRIM_BUILD_TESTS=OFF -DCUPRIM_BUILD_TOOLS=OFF \
    -DCUPRIM_BUILD_EXAMPLES=OFF >&2
fi
cmake --build "$build" --target cuprim-one-call -j "$(nproc)" >&2
driver=$build/bench/cuprim-one-call
mapfile -t algs < <("$driver" --list "$primitive")
if [[ -n $only ]]; then
  IFS=, read -r -a wanted <<<"$only"
  for a in "${wanted[@]}"; do
    printf '%s\n' "${algs[@]}" | grep -qx "$a" ||
      { echo "ncu_ladder: no algorithm '$a' (cuprim-one-call --list $primitive)" >&2; exit 2; }
  done
  algs=("${wanted[@]}")
fi
extra=()
if [[ -n $bins ]]; then
  [[ $primitive == histogram ]] || { echo "ncu_ladder: --bins is for histogram" >&2; exit 2; }
  extra=(--bins "$bins")
fi

# One run without the profiler first: the call works and the device is there.
rc=0
"$driver" "$primitive" auto --n "$n" --dtype "$dtype" "${extra[@]}" >&2 || rc=$?
if [[ $rc -eq 77 ]]; then
  echo "ncu_ladder: no CUDA device" >&2
  exit 77
elif [[ $rc -ne 0 ]]; then
  echo "ncu_ladder: cuprim-one-call $primitive auto failed ($rc)" >&2
  exit 1
fi

{
  echo "# ncu_ladder: $primitive, $dtype, n = $n${bins:+, $bins bins}"
  echo "# $("$ncu" --version | tail -n 1)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null |
    sed 's/^/# GPU: /' || true
  commit=$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo '?')
  echo "# $(date -u '+%Y-%m-%d %H:%M UTC'); commit $commit"
} > "$out/header.txt"
cat "$out/header.txt" >&2

status=0
for alg in "${algs[@]}"; do
  echo "== ncu_ladder: $primitive $alg" >&2
  rep=$out/$primitive-$alg
  if ! "$ncu" --profile-from-start off --metrics "$metrics" --force-overwrite --export "$rep" \
      "$driver" "$primitive" "$alg" --n "$n" --dtype "$dtype" "${extra[@]}" > "$rep.log" 2>&1; then
    echo "ncu_ladder: ncu failed for $alg; last lines of $rep.log:" >&2
    tail -n 15 "$rep.log" >&2
    if grep -q ERR_NVGPUCTRPERM "$rep.log"; then
      echo "ncu_ladder: no permission to read the GPU's counters: run as root, or set the" \
        "driver option NVreg_RestrictProfilingToAdminUsers=0" >&2
      exit 1
    fi
    status=1
    continue
  fi
  grep -E '^cuprim-one-call' "$rep.log" >&2 || true
  "$ncu" --import "$rep.ncu-rep" --csv --page raw --print-units base \
    --print-kernel-base function > "$rep.csv"
done

# The tables: per algorithm (its longest kernel, and the sum over its kernels), then per kernel.
python3 - "$out" "$primitive" "${algs[@]}" <<'PY' | tee "$out/table.md"
import csv, os, sys

out, primitive, algs = sys.argv[1], sys.argv[2], sys.argv[3:]
# Values are kept in ncu's base units: nanoseconds for durations (gpu__time_duration.sum), bytes
# for sizes. --print-units base asks for those already; a units row with another unit (either
# spelling: "us" or "usecond") is converted back to them. The tables print microseconds (us()).
TO_BASE = {"ns": 1.0, "nsecond": 1.0, "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6,
           "s": 1e9, "second": 1e9,
           "byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1e3, "MB": 1e6, "GB": 1e9}

def kernels(path):
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(f) if r]
    head = next(i for i, r in enumerate(rows) if "Kernel Name" in r)
    names, units = rows[head], rows[head + 1]
    if units and units[0].strip().isdigit():
        units = [""] * len(names)  # no units row: base units were asked for anyway
    result = []
    for r in rows[head + 1:]:
        if not r[0].strip().isdigit():
            continue  # the units row
        k = {}
        for name, unit, v in zip(names, units, r):
            try:
                k[name] = float(v.replace(",", "")) * TO_BASE.get(unit.strip(), 1.0)
            except ValueError:
                k[name] = v
        result.append(k)
    return result

def get(k, m):
    v = k.get(m)
    return v if isinstance(v, float) else None

def us(ns):
    """Nanoseconds (ncu's base unit of time) to microseconds."""
    return None if ns is None else ns * 1e-3

def fmt(v, spec):
    return "-" if v is None else format(v, spec)

def ratio(a, b):
    return a / b if a is not None and b else None

def short(name):
    """The kernel's function name, without return type, namespaces, templates or parameters."""
    name = str(name).replace("(anonymous namespace)::", "")
    name = name.removeprefix("void ")
    for stop in "<(":
        name = name.split(stop)[0]
    return name.split("::")[-1][:40]

header = open(os.path.join(out, "header.txt")).read().strip().splitlines()
print("\n".join(h.lstrip("# ") + "  " for h in header))
print()
print("Per algorithm: the sum over the call's kernels (time, conflicts) and the longest kernel's "
      "ratios (ncu durations: base clocks, caches flushed; compare rungs only).\n")
cols = ["#", "algorithm", "kernels", "time us", "longest kernel", "branch uniform %",
        "threads / warp instr", "divergent branch targets", "smem ld conflicts",
        "smem st conflicts", "smem wavefronts / ld", "smem wavefronts / st",
        "barrier stall / issue", "SM %", "DRAM %", "L2 MB", "occupancy %"]
print("| " + " | ".join(cols) + " |")
print("|" + "---:|:---|" + "---:|" * 2 + ":---|" + "---:|" * (len(cols) - 5))
detail = []
for i, alg in enumerate(algs):
    path = os.path.join(out, f"{primitive}-{alg}.csv")
    if not os.path.exists(path):
        print(f"| {i} | {alg} | profile failed |" + " |" * (len(cols) - 3))
        continue
    ks = kernels(path)
    if not ks:
        print(f"| {i} | {alg} | 0 |" + " |" * (len(cols) - 3))
        continue
    def total(m):
        vs = [get(k, m) for k in ks]
        return sum(vs) if all(v is not None for v in vs) else None
    top = max(ks, key=lambda k: get(k, "gpu__time_duration.sum") or 0.0)
    cells = [str(i), alg, str(len(ks)), fmt(us(total("gpu__time_duration.sum")), ".1f"),
             short(top.get("Kernel Name", "?")),
             fmt(get(top, "smsp__sass_average_branch_targets_threads_uniform.pct"), ".1f"),
             fmt(get(top, "smsp__thread_inst_executed_per_inst_executed.ratio"), ".1f"),
             fmt(total("smsp__sass_branch_targets_threads_divergent.sum"), ".3g"),
             fmt(total("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"), ".3g"),
             fmt(total("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"), ".3g"),
             fmt(ratio(get(top, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
                       get(top, "smsp__inst_executed_op_shared_ld.sum")), ".2f"),
             fmt(ratio(get(top, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"),
                       get(top, "smsp__inst_executed_op_shared_st.sum")), ".2f"),
             fmt(get(top, "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"),
                 ".2f"),
             fmt(get(top, "sm__throughput.avg.pct_of_peak_sustained_elapsed"), ".1f"),
             fmt(get(top, "dram__throughput.avg.pct_of_peak_sustained_elapsed"), ".1f"),
             fmt(ratio(total("lts__t_bytes.sum"), 1e6), ".0f"),
             fmt(get(top, "sm__warps_active.avg.pct_of_peak_sustained_active"), ".1f")]
    print("| " + " | ".join(cells) + " |")
    for k in ks:
        detail.append(
            [alg, short(k.get("Kernel Name", "?")), str(k.get("Grid Size", "?")),
             fmt(us(get(k, "gpu__time_duration.sum")), ".2f"),
             fmt(get(k, "smsp__sass_average_branch_targets_threads_uniform.pct"), ".1f"),
             fmt(get(k, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"), ".3g"),
             fmt(get(k, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"), ".3g"),
             fmt(get(k, "dram__throughput.avg.pct_of_peak_sustained_elapsed"), ".1f")])
print("\nPer kernel:\n")
dcols = ["algorithm", "kernel", "grid", "time us", "branch uniform %", "smem ld conflicts",
         "smem st conflicts", "DRAM %"]
print("| " + " | ".join(dcols) + " |")
print("|:---|:---|" + "---:|" * (len(dcols) - 2))
for d in detail:
    print("| " + " | ".join(c.replace("|", "\\|") for c in d) + " |")
PY
exit "$status"
