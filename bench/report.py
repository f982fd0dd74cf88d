#!/usr/bin/env python3
"""Markdown tables from cuprim-bench's CSV (standard library only).

    python3 bench/report.py bench.csv > tables.md
    python3 bench/report.py --ratios run1.csv run2.csv run3.csv   # repeated runs: median ratios
    python3 bench/report.py --ab a1.csv a2.csv -- b1.csv b2.csv     # an A/B: every row, B / A

For each suite, in the order of the CSV: the size sweeps, one table per primitive and dtype (cuprim
AUTO against CUB, the ratio CUB time / cuprim time, and the time of the bench's own reference
kernel at each size), and the ladders (Harris's table: time, bandwidth, step and cumulative
speedup, CUB as the last rung). docs/benchmarks.md and docs/ladder.md quote its output.
"""
import csv
import statistics
import sys

# The ceilings a primitive's bandwidth is measured against: reduce and histogram read their input
# once, so the read-only kernel is theirs; a scan reads and writes every element, as the D2D copy
# does. Reduce keeps both columns, as its console table does.
READ = ("pct_read_bw", "% of read-only")
COPY = ("pct_copy_bw", "% of copy")
BANDWIDTH = {"reduce": [READ, COPY], "scan": [COPY], "histogram": [READ], "histogram_multi": [READ],
             "histogram_weighted": [READ]}

# The sweeps' per-size reference rows (impl "bench" or "cuda"), by alg.
REFERENCE = {"read_only_kernel": "read-only kernel us", "memcpy_d2d": "D2D copy us"}

# Histogram ladder rows timed on data that falls into one bin: not rungs of the ladder.
ONE_BIN = "_one_bin"


def fmt_n(n):
    k = n.bit_length() - 1
    return f"2^{k}" if n == 1 << k else str(n)


def value(row, key):
    """The number in a field, or None where the bench left it empty (not applicable, or failed)."""
    v = row.get(key, "") if row else ""
    return float(v) if v != "" else None


def num(row, key, spec):
    v = value(row, key)
    return "-" if v is None else format(v, spec)


def speedup(before, after):
    return f"{before / after:.2f}x" if before and after else "-"


def print_row(cells):
    print("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")


def bandwidth(suite):
    return BANDWIDTH.get(suite.removesuffix("_ladder"), [READ, COPY])


def print_sweep(suite, prim, dtype, by_n):
    cols = bandwidth(suite)
    refs = [s["ref"]["alg"] for s in by_n.values() if "ref" in s]
    ref_label = REFERENCE[refs[0]] if refs else None
    head = ["n", "cuprim us", "CUB us", "CUB / cuprim", "cuprim GB/s", "CUB GB/s"]
    head += [label for _, label in cols] + ([ref_label] if ref_label else []) + ["check"]
    print(f"### {suite}: {prim} {dtype}\n")
    print_row(head)
    print("|" + "---:|" * (len(head) - 1) + ":---|")
    for n, s in by_n.items():
        c, b = s.get("cuprim"), s.get("cub")
        if not c or not b:
            continue
        check = c["check"] + ("" if b["check"] == "ok" else f"; CUB: {b['check']}")
        cells = [fmt_n(n), num(c, "median_us", ".2f"), num(b, "median_us", ".2f"),
                 num(c, "ratio_vs_cub", ".3f"), num(c, "gbps", ".0f"), num(b, "gbps", ".0f")]
        cells += [num(c, key, ".1f") for key, _ in cols]
        cells += [num(s.get("ref"), "median_us", ".2f")] if ref_label else []
        print_row(cells + [check])
    print()


def print_ladder(suite, prim, dtype, n, rows):
    cols = bandwidth(suite)
    head = ["#", "algorithm", "us", "GB/s"] + [label for _, label in cols]
    head += ["step", "cumulative", "CUB / this", "check"]
    print(f"### {suite}: {prim} {dtype}, n = {fmt_n(n)}\n")
    print_row(head)
    print("|---:|:---|" + "---:|" * (len(head) - 3) + ":---|")
    first, prev = value(rows[0], "median_us"), None
    rung = 0
    for r in rows:
        us = value(r, "median_us")
        if r["alg"].endswith(ONE_BIN):
            label, step, cumul = "-", "-", "-"
            name = f"{r['alg'].removesuffix(ONE_BIN)} ({r['impl']}), every sample in one bin"
        else:
            is_rung = r["impl"] == "cuprim" and r["alg"] != "auto"
            rung += is_rung
            label = str(rung) if is_rung else "-"
            name = f"{r['alg']} ({r['impl']})"
            step, cumul = speedup(prev, us), speedup(first, us)
            prev = us if us else prev
        cells = [label, name, num(r, "median_us", ".2f"), num(r, "gbps", ".0f")]
        cells += [num(r, key, ".1f") for key, _ in cols]
        cells += [step, cumul, num(r, "ratio_vs_cub", ".3f"), r["check"]]
        print_row(cells)
    print()


def read_csv(path):
    """The '#' header lines and the rows of one cuprim-bench CSV."""
    with open(path, newline="") as f:
        lines = list(f)
    headers = [l.strip() for l in lines if l.startswith("#")]
    return headers, list(csv.DictReader(l for l in lines if not l.startswith("#")))


def group(rows):
    """Per suite (in the order of the CSV, as dicts keep it): its sweeps, {(suite, primitive,
    dtype): {n: {impl or "ref": row}}}, and its ladders, {(suite, primitive, dtype, n): [rows]}."""
    sweeps, ladders = {}, {}
    for r in rows:
        suite, n = r["suite"], int(r["n"])
        if suite == "ceiling":
            continue
        base = suite.removesuffix("_ladder")
        if suite != base:
            key = (suite, r["primitive"], r["dtype"], n)
            ladders.setdefault(base, {}).setdefault(key, []).append(r)
            continue
        impl = "ref" if r["alg"] in REFERENCE else r["impl"]
        key = (suite, r["primitive"], r["dtype"])
        sweeps.setdefault(base, {}).setdefault(key, {}).setdefault(n, {})[impl] = r
    return sweeps, ladders


def main(path):
    headers, rows = read_csv(path)
    for h in headers:
        print(f"> {h.lstrip('# ')}  ")
    print()
    sweeps, ladders = group(rows)
    for base in dict.fromkeys(list(sweeps) + list(ladders)):
        for key, by_n in sweeps.get(base, {}).items():
            print_sweep(*key, by_n)
        for key, rs in ladders.get(base, {}).items():
            print_ladder(*key, rs)


def ratios(paths):
    """Repeated runs of the same suites: per sweep and size, the median of cuprim's ratio to CUB
    over the files, and in brackets the lowest and highest where they straddle 1.0."""
    runs = {}  # (suite, primitive, dtype) -> n -> [ratio per file]
    for path in paths:
        for by_base in group(read_csv(path)[1])[0].values():
            for key, by_n in by_base.items():
                for n, impls in by_n.items():
                    v = value(impls.get("cuprim"), "ratio_vs_cub")
                    if v is not None:
                        runs.setdefault(key, {}).setdefault(n, []).append(v)
    print(f"CUB time / cuprim time, median of {len(paths)} runs; [lowest, highest] where they "
          "straddle 1.0\n")
    header = None
    for (suite, prim, dtype), by_n in runs.items():
        sizes = sorted(by_n)
        if sizes != header:  # one table for the sweeps of the same sizes
            if header:
                print()
            header = sizes
            print_row(["sweep"] + [fmt_n(n) for n in sizes])
            print("|:---|" + "---:|" * len(sizes))
        cells = []
        for n in sizes:
            v = sorted(by_n[n])
            cell = f"{statistics.median(v):.3f}"
            if v[0] < 1.0 <= v[-1]:
                cell += f" [{v[0]:.3f}, {v[-1]:.3f}]"
            cells.append(cell)
        print_row([f"{suite} {prim} {dtype}"] + cells)


def ab(paths_a, paths_b):
    """Two variants' runs (two binaries in one call, ABBA, say): for every row of the CSV files,
    keyed by suite, primitive, algorithm, dtype, n and impl (the ladders and the kernel-choice
    rows share the others; a suite's primitives, histogram_even_256 and _4096 say, share the
    rest), the median over each variant's runs of the row's median time, the runs' times, and
    B / A. Rows missing from any run are left out and counted: give each variant the runs of the
    same suites."""
    def medians(paths):
        times = {}
        for path in paths:
            for r in read_csv(path)[1]:
                key = (r["suite"], r["primitive"], r["alg"], r["dtype"], int(r["n"]), r["impl"])
                times.setdefault(key, []).append(float(r["median_us"]))
        return times

    ta, tb = medians(paths_a), medians(paths_b)
    keys = [k for k in ta if len(ta[k]) == len(paths_a) and len(tb.get(k, ())) == len(paths_b)]
    print(f"median us over {len(paths_a)} runs of A and {len(paths_b)} of B, and B / A\n")
    print_row(["suite", "primitive", "alg", "dtype", "n", "impl", "A", "B", "B / A", "A runs",
               "B runs"])
    print("|:---|:---|:---|:---|---:|:---|---:|---:|---:|:---|:---|")
    for k in keys:
        a, b = statistics.median(ta[k]), statistics.median(tb[k])
        print_row([k[0], k[1], k[2], k[3], fmt_n(k[4]), k[5], f"{a:.3f}", f"{b:.3f}", f"{b / a:.3f}",
                   " ".join(f"{v:.3f}" for v in ta[k]), " ".join(f"{v:.3f}" for v in tb[k])])
    left = len(set(ta) | set(tb)) - len(keys)
    if left:
        print(f"\n{left} rows not in every run of both variants: left out")


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--ratios":
        ratios(sys.argv[2:])
    elif len(sys.argv) >= 4 and sys.argv[1] == "--ab" and "--" in sys.argv[2:]:
        cut = sys.argv.index("--", 2)
        if cut == 2 or cut == len(sys.argv) - 1:
            sys.exit("usage: report.py --ab A1.csv [A2.csv ...] -- B1.csv [B2.csv ...]")
        ab(sys.argv[2:cut], sys.argv[cut + 1:])
    elif len(sys.argv) == 2:
        main(sys.argv[1])
    else:
        sys.exit("usage: report.py BENCH.csv | report.py --ratios RUN1.csv RUN2.csv ... | "
                 "report.py --ab A1.csv ... -- B1.csv ...")
