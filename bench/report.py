#!/usr/bin/env python3
"""Markdown tables from cuprim-bench's CSV (standard library only).

    python3 bench/report.py bench.csv > tables.md

For each suite: the size sweep (cuprim AUTO against CUB, with the ratio CUB time / cuprim time)
and the ladders (Harris's table: time, bandwidth, step and cumulative speedup). docs/benchmarks.md
and docs/ladder.md quote its output.
"""
import csv
import sys
from collections import defaultdict


def fmt_n(n):
    n = int(n)
    k = n.bit_length() - 1
    return f"2^{k}" if n == 1 << k else str(n)


def main(path):
    header, rows = [], []
    with open(path, newline="") as f:
        lines = [l for l in f]
    header = [l.strip() for l in lines if l.startswith("#")]
    rows = list(csv.DictReader(l for l in lines if not l.startswith("#")))
    for h in header:
        print(f"> {h.lstrip('# ')}  ")
    print()

    # Size sweeps: rows with impl cuprim and a CUB row of the same suite/primitive/dtype/n.
    sweep = defaultdict(dict)
    for r in rows:
        if r["suite"] in ("ceiling",) or r["suite"].endswith("_ladder"):
            continue
        key = (r["suite"], r["primitive"], r["dtype"])
        sweep[key].setdefault(int(r["n"]), {})[r["impl"]] = r
    for (suite, prim, dtype), by_n in sorted(sweep.items()):
        print(f"### {suite}: {prim} {dtype}\n")
        print("| n | cuprim us | CUB us | CUB / cuprim | cuprim GB/s | % of read-only | % of copy | check |")
        print("|---:|---:|---:|---:|---:|---:|---:|:---|")
        for n in sorted(by_n):
            c, b = by_n[n].get("cuprim"), by_n[n].get("cub")
            if not c or not b:
                continue
            print(f"| {fmt_n(n)} | {float(c['median_us']):.2f} | {float(b['median_us']):.2f} | "
                  f"{float(c['ratio_vs_cub']):.3f} | {float(c['gbps']):.0f} | "
                  f"{float(c['pct_read_bw']):.1f} | {float(c['pct_copy_bw']):.1f} | {c['check']} |")
        print()

    # Ladders.
    ladders = defaultdict(list)
    for r in rows:
        if r["suite"].endswith("_ladder"):
            ladders[(r["suite"], r["primitive"], r["dtype"], int(r["n"]))].append(r)
    for (suite, prim, dtype, n), rs in sorted(ladders.items()):
        print(f"### {suite}: {prim} {dtype}, n = {fmt_n(n)}\n")
        print("| # | algorithm | us | GB/s | % of read-only | step | cumulative | CUB / this |")
        print("|---:|:---|---:|---:|---:|---:|---:|---:|")
        first = prev = None
        for i, r in enumerate(rs):
            us = float(r["median_us"])
            first = first or us
            step = f"{prev / us:.2f}x" if prev else "-"
            label = str(i + 1) if r["impl"] == "cuprim" and r["alg"] != "auto" else "-"
            print(f"| {label} | {r['alg']} ({r['impl']}) | {us:.2f} | {float(r['gbps']):.0f} | "
                  f"{float(r['pct_read_bw']):.1f} | {step} | {first / us:.2f}x | "
                  f"{float(r['ratio_vs_cub']):.3f} |")
            prev = us
        print()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: report.py BENCH.csv")
    main(sys.argv[1])
