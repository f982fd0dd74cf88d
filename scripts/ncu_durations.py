#!/usr/bin/env python3
"""Per-call GPU kernel durations from an Nsight Compute CSV of cuprim-bench.

    ncu --metrics gpu__time_duration.sum --csv build-gpu/bench/cuprim-bench --only reduce \
        --samples 3 > ncu.csv
    scripts/ncu_durations.py ncu.csv

cuprim-bench flushes L2 with its read-only kernel before every timed call, so the kernels
between two flushes are one call (cuprim's or CUB's). Runs of identical calls (same kernels,
same grids) are printed as one line: the count, the kernels with their grids, and the median of
the call's summed kernel durations, with the parts of the first call. Nsight Compute runs the
kernels one at a time, so these are kernel durations on the GPU, without launch gaps or the
overlap of programmatic dependent launch: the difference to the bench's event times is what the
launches cost.
"""
import csv
import re
import sys

SEPARATORS = ("read_only_kernel",)  # the L2 flush (and the read-only ceiling)


def short_name(name):
    name = name.replace("void ", "").replace("<unnamed>::", "")
    return re.split(r"[<(]", name)[0].split("::")[-1]


def main(path):
    rows = [r for r in csv.reader(open(path)) if len(r) > 14 and r[0] != "ID"]
    calls, cur = [], []
    for r in rows:
        short = short_name(r[4])
        if short in SEPARATORS or short.startswith("fill") or short.startswith("exact_sum"):
            if cur:
                calls.append(cur)
                cur = []
            continue
        cur.append((short, r[8].replace(" ", ""), float(r[14].replace(",", "")) / 1000.0))
    if cur:
        calls.append(cur)
    i = 0
    while i < len(calls):
        key = " + ".join(f"{s}{g}" for s, g, _ in calls[i])
        j = i
        while j < len(calls) and " + ".join(f"{s}{g}" for s, g, _ in calls[j]) == key:
            j += 1
        tot = sorted(sum(d for _, _, d in c) for c in calls[i:j])
        parts = ", ".join(f"{d:.2f}" for _, _, d in calls[i])
        print(f"{j - i:3d}x {key[:100]:100s} {tot[len(tot) // 2]:9.2f} us  ({parts})")
        i = j


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
