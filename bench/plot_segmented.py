#!/usr/bin/env python3
"""The segmented suite's picture from cuprim-bench's CSV, as an SVG (Python 3 only, no matplotlib).

    python3 bench/plot_segmented.py bench-segmented.csv -o segmented.svg

Reads the `segmented_ladder` and `segmented` suites of one CSV and draws, against the segment
layout (uniform segments of 1 to 2^20 elements, random sizes, power law), each call's share of the
byte limit (the `pct_copy_bw` column: the time to move the call's bytes once at the run's copy
bandwidth, over the call's time). Top: the reduce, log scale: the four rungs, AUTO (bold), CUB's
DeviceSegmentedReduce::Sum and cuprim_batched_reduce (uniform layouts only). Bottom: the inclusive
scan, linear: cuprim_segmented_scan (AUTO), cuprim_batched_scan and CUB's
DeviceScan::InclusiveSumByKey. Rows whose check failed are left out (a note on stderr says which).
Hovering a marker in a browser shows its row's numbers. Exit status 2 on a file it cannot read or
write, or a CSV without segmented rows.
"""
import argparse
import math
import sys

from svg_plot import (Panel, Svg, checked, device, fail, fmt_n, legend, read_csv, superscript,
                      write)

PROG = "plot_segmented.py"
LAYOUTS = ["uniform_1", "uniform_4", "uniform_16", "uniform_64", "uniform_256", "uniform_1024",
           "uniform_4096", "uniform_65536", "uniform_2^20", "random_0..2000", "power_law"]
RUNGS = ["thread_per_segment", "warp_per_segment", "block_per_segment", "merge_path"]

# Okabe-Ito colours (distinct under the common colour-vision deficiencies), one marker shape each.
# A series: legend label, (suite, primitive before the colon, alg or None for any, impl), style.
REDUCE_SERIES = [
    ("1 thread_per_segment", ("segmented_ladder", "segmented_reduce_sum", RUNGS[0], "cuprim"),
     dict(color="#56B4E9", marker="circle")),
    ("2 warp_per_segment", ("segmented_ladder", "segmented_reduce_sum", RUNGS[1], "cuprim"),
     dict(color="#E69F00", marker="square")),
    ("3 block_per_segment", ("segmented_ladder", "segmented_reduce_sum", RUNGS[2], "cuprim"),
     dict(color="#009E73", marker="triangle")),
    ("4 merge_path", ("segmented_ladder", "segmented_reduce_sum", RUNGS[3], "cuprim"),
     dict(color="#CC79A7", marker="diamond")),
    ("CUB\nDeviceSegmentedReduce::Sum", ("segmented_ladder", "segmented_reduce_sum", None, "cub"),
     dict(color="#0072B2", marker="cross", dash="7 4")),
    ("cuprim_batched_reduce", ("segmented", "batched_reduce_sum", "auto", "cuprim"),
     dict(color="#000000", marker="down", dash="2 3")),
    ("0 auto (the default)", ("segmented_ladder", "segmented_reduce_sum", "auto", "cuprim"),
     dict(color="#D55E00", marker="circle", width=3.5, size=5.5)),
]
SCAN_SERIES = [
    ("CUB DeviceScan::\nInclusiveSumByKey",
     ("segmented", "segmented_scan_inclusive_sum", None, "cub"),
     dict(color="#0072B2", marker="cross", dash="7 4")),
    ("cuprim_batched_scan", ("segmented", "batched_scan_inclusive_sum", "auto", "cuprim"),
     dict(color="#000000", marker="down", dash="2 3")),
    ("cuprim_segmented_scan\n(auto)",
     ("segmented", "segmented_scan_inclusive_sum", "auto", "cuprim"),
     dict(color="#D55E00", marker="circle", width=3.5, size=5.5)),
]
LIMIT_STYLE = dict(color="#333", width=1.2, dash="5 3", marker=None)

W, H = 900, 716
LEFT, RIGHT = 72, 640          # plot area, x; the legend sits to the right of it
LEGEND_X = 652
TOP_PANEL = (88, 388)          # plot area, y, of the reduce panel
BOTTOM_PANEL = (470, 640)      # and of the scan panel


def series_points(rows, spec):
    """{layout: row} of the rows that spec (suite, primitive, alg, impl) selects."""
    suite, prim, alg, impl = spec
    pts = {}
    for r in rows:
        p, _, layout = r["primitive"].partition(":")
        if (r["suite"] == suite and p == prim and r["impl"] == impl
                and (alg is None or r["alg"] == alg) and r["pct_copy_bw"] not in ("", None)):
            pts[layout] = r
    return pts


def layout_label(layout):
    if layout.startswith("uniform_"):
        return [superscript(layout[len("uniform_"):])]
    if layout.startswith("random_"):
        return ["random", layout[len("random_"):]]
    return layout.replace("_", " ").split(" ", 1)


def points_of(pts, label):
    """{layout: (% of the limit, tip)} for Panel.series."""
    name = label.replace("\n", " ")
    return {layout: (float(r["pct_copy_bw"]),
                     f"{name}, {layout}: {float(r['pct_copy_bw']):.2f}% of the byte limit, "
                     f"{float(r['median_us']):.1f} us") for layout, r in pts.items()}


def draw(header, rows, path):
    layouts = [l for l in LAYOUTS if any(r["primitive"].endswith(":" + l) for r in rows)]
    for r in rows:  # layouts this script does not know, after the known ones
        layout = r["primitive"].partition(":")[2]
        if layout and layout not in layouts:
            layouts.append(layout)
    reduce = [(label, series_points(rows, spec), style) for label, spec, style in REDUCE_SERIES]
    scan = [(label, series_points(rows, spec), style) for label, spec, style in SCAN_SERIES]

    svg = Svg()
    svg.begin(W, H)
    sizes = sorted({(r["dtype"], fmt_n(r["n"])) for r in rows})
    what = ", ".join(f"n = {superscript(n)} {dt}" for dt, n in sizes)
    svg.text(W / 2, 26, f"Segmented reduce and scan, {what}: % of the byte limit per layout",
             size=17, weight="bold")
    svg.text(W / 2, 48, device(header, path), size=13)

    # Reduce: log scale, a decade below the smallest value at most 0.01%.
    values = [float(r["pct_copy_bw"]) for _, pts, _ in reduce for r in pts.values()]
    lo = min(0.01, 10 ** math.floor(math.log10(min(values)))) if values else 0.01
    hi = max(150.0, max(values, default=0) * 1.15)
    top = Panel(layouts, LEFT, RIGHT, *TOP_PANEL, lo, hi, log=True)
    decades = range(round(math.log10(lo)), 3)
    ticks = [(10.0 ** e, f"{10.0 ** e:g}%") for e in decades]
    minor = [m * 10.0 ** e for e in decades for m in range(2, 10) if m * 10.0 ** e < hi]
    top.axes(svg, "Reduce (SUM), segmented_reduce_sum; log scale", "% of the byte limit", ticks,
             minor, ref=(100, LIMIT_STYLE), cat_label=layout_label)
    for label, pts, style in reduce:
        top.series(svg, points_of(pts, label), style)
    legend(svg, LEGEND_X, TOP_PANEL[0] + 10,
           [(label, style) for label, pts, style in reduce if pts]
           + [("the byte limit (100%)", LIMIT_STYLE)])

    # Scan: linear from 0.
    values = [float(r["pct_copy_bw"]) for _, pts, _ in scan for r in pts.values()]
    hi = max(100.0, 20 * math.ceil(max(values, default=0) / 20))
    bottom = Panel(layouts, LEFT, RIGHT, *BOTTOM_PANEL, 0.0, hi, log=False)
    bottom.axes(svg, "Inclusive scan (sum) in each segment; linear scale", "% of the byte limit",
                [(v, f"{v:g}%") for v in range(0, int(hi) + 1, 20)], ref=(100, LIMIT_STYLE),
                cat_label=layout_label)
    for label, pts, style in scan:
        bottom.series(svg, points_of(pts, label), style)
    legend(svg, LEGEND_X, BOTTOM_PANEL[0] + 10,
           [(label, style) for label, pts, style in scan if pts])

    svg.text(W / 2, H - 12, "segment layout: uniform segments of 1 to 2²⁰ elements, "
             "random sizes 0..2000, power law (one segment of n/4)", size=13)
    return svg.end()


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv", help="cuprim-bench --csv output with the segmented suites")
    ap.add_argument("-o", "--out", required=True, help="the SVG file to write")
    args = ap.parse_args(argv)
    header, rows = read_csv(PROG, args.csv)
    rows = [r for r in rows if r.get("suite") in ("segmented_ladder", "segmented")]
    if not rows:
        fail(PROG, f"{args.csv}: no segmented_ladder or segmented rows "
             "(cuprim-bench --only segmented writes them)")
    kept = checked(PROG, rows)
    if not kept:
        fail(PROG, f"{args.csv}: every segmented row failed its check")
    write(PROG, args.out, draw(header, kept, args.csv))


if __name__ == "__main__":
    main(sys.argv[1:])
