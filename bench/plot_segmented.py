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
import csv
import math
import os
import re
import sys
from xml.sax.saxutils import escape

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
FONT = "DejaVu Sans, Arial, Helvetica, sans-serif"


def fail(msg):
    print(f"{PROG}: {msg}", file=sys.stderr)
    sys.exit(2)


def read_csv(path):
    """(header lines without '#', data rows) of a cuprim-bench CSV."""
    try:
        with open(path, newline="") as f:
            lines = list(f)
    except OSError as e:
        fail(f"cannot read {path}: {e.strerror}")
    header = [l[1:].strip() for l in lines if l.startswith("#")]
    rows = list(csv.DictReader(l for l in lines if not l.startswith("#")))
    if rows and "pct_copy_bw" not in rows[0]:
        fail(f"{path}: not a cuprim-bench CSV (no pct_copy_bw column)")
    return header, rows


def device(header, path):
    """'NVIDIA H100 80GB HBM3, CUB 3.0.1, 2026-11-24 00:03 UTC' from the first header line."""
    if not header:
        return os.path.basename(path)
    fields = [f.strip() for f in header[0].split("|")]
    name = fields[2] if len(fields) > 2 else fields[0]
    cub = re.search(r"CUB [0-9.]+", header[0])
    date = re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d", header[0])
    return ", ".join(x for x in (name, cub and cub.group(0), date and date.group(0) + " UTC") if x)


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


def fmt_n(n):
    n = int(n)
    k = n.bit_length() - 1
    return f"2^{k}" if n == 1 << k else str(n)


def superscript(s):
    """'2^20' -> '2²⁰' (plain text keeps the SVG simple)."""
    sup = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
    return re.sub(r"\^(\d+)", lambda m: m.group(1).translate(sup), s)


def layout_label(layout):
    if layout.startswith("uniform_"):
        return [superscript(layout[len("uniform_"):])]
    if layout.startswith("random_"):
        return ["random", layout[len("random_"):]]
    return layout.replace("_", " ").split(" ", 1)


class Svg:
    def __init__(self):
        self.out = []

    def add(self, s):
        self.out.append(s)

    def text(self, x, y, s, size=12, anchor="middle", weight=None, rotate=None, extra=""):
        attrs = f'x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}"'
        if weight:
            attrs += f' font-weight="{weight}"'
        if rotate is not None:
            attrs += f' transform="rotate({rotate} {x:.1f} {y:.1f})"'
        self.add(f"<text {attrs}{extra}>{escape(s)}</text>")

    def line(self, x1, y1, x2, y2, stroke, width=1, dash=None, opacity=None):
        attrs = f'x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{stroke}"'
        attrs += f' stroke-width="{width}"'
        if dash:
            attrs += f' stroke-dasharray="{dash}"'
        if opacity is not None:
            attrs += f' stroke-opacity="{opacity}"'
        self.add(f"<line {attrs}/>")


def marker(svg, shape, x, y, color, size=4.5, tip=None):
    """One marker centred on (x, y) (the translate() is the data point)."""
    s = size
    a, b, c = 1.25 * s, 1.15 * s, 0.85 * s
    paths = {
        "square": f"M{-s:.1f},{-s:.1f}h{2 * s:.1f}v{2 * s:.1f}h{-2 * s:.1f}z",
        "triangle": f"M0,{-a:.1f}L{b:.1f},{c:.1f}L{-b:.1f},{c:.1f}z",
        "down": f"M0,{a:.1f}L{b:.1f},{-c:.1f}L{-b:.1f},{-c:.1f}z",
        "diamond": f"M0,{-1.35 * s:.1f}L{1.2 * s:.1f},0L0,{1.35 * s:.1f}L{-1.2 * s:.1f},0z",
        "cross": f"M{-s:.1f},{-s:.1f}L{s:.1f},{s:.1f}M{-s:.1f},{s:.1f}L{s:.1f},{-s:.1f}",
    }
    at = f'transform="translate({x:.2f},{y:.2f})"'
    title = f"<title>{escape(tip)}</title>" if tip else ""
    if shape == "circle":
        svg.add(f'<circle class="pt" r="{s:.1f}" fill="{color}" stroke="white" '
                f'stroke-width="0.8" {at}>{title}</circle>')
    elif shape == "cross":
        svg.add(f'<path class="pt" d="{paths[shape]}" fill="none" stroke="{color}" '
                f'stroke-width="2.2" {at}>{title}</path>')
    else:
        svg.add(f'<path class="pt" d="{paths[shape]}" fill="{color}" stroke="white" '
                f'stroke-width="0.8" {at}>{title}</path>')


class Panel:
    """A plot area over the layouts: y from lo to hi, log or linear."""

    def __init__(self, layouts, y0, y1, lo, hi, log):
        self.layouts, self.y0, self.y1, self.lo, self.hi, self.log = layouts, y0, y1, lo, hi, log
        self.step = (RIGHT - LEFT) / len(layouts)

    def x(self, layout):
        return LEFT + self.step * (self.layouts.index(layout) + 0.5)

    def y(self, v):
        if self.log:
            v = max(v, self.lo)
            f = (math.log10(v) - math.log10(self.lo)) / (math.log10(self.hi) - math.log10(self.lo))
        else:
            f = (v - self.lo) / (self.hi - self.lo)
        return self.y1 - f * (self.y1 - self.y0)

    def axes(self, svg, title, ylabel, ticks, minor=()):
        y0, y1 = self.y0, self.y1
        svg.add(f'<rect x="{LEFT}" y="{y0}" width="{RIGHT - LEFT}" height="{y1 - y0}" '
                f'fill="#fafafa" stroke="none"/>')
        for v in minor:
            svg.line(LEFT, self.y(v), RIGHT, self.y(v), "#000", 0.5, opacity=0.08)
        for v, label in ticks:
            svg.line(LEFT, self.y(v), RIGHT, self.y(v), "#000", 0.8, opacity=0.2)
            svg.line(LEFT - 4, self.y(v), LEFT, self.y(v), "#333", 1)
            svg.text(LEFT - 7, self.y(v), label, size=12, anchor="end",
                     extra=' dominant-baseline="middle" class="ytick"')
        for i in range(1, len(self.layouts)):
            x = LEFT + self.step * i
            svg.line(x, y0, x, y1, "#000", 0.5, opacity=0.07)
        svg.line(LEFT, self.y(100), RIGHT, self.y(100), LIMIT_STYLE["color"], LIMIT_STYLE["width"],
                 dash=LIMIT_STYLE["dash"])
        svg.add(f'<rect x="{LEFT}" y="{y0}" width="{RIGHT - LEFT}" height="{y1 - y0}" '
                f'fill="none" stroke="#333" stroke-width="1"/>')
        svg.text(LEFT, y0 - 9, title, size=14, anchor="start", weight="bold")
        svg.text(20, (y0 + y1) / 2, ylabel, size=13, rotate=-90)
        for layout in self.layouts:
            x = self.x(layout)
            svg.line(x, y1, x, y1 + 4, "#333", 1)
            for k, part in enumerate(layout_label(layout)):
                svg.text(x, y1 + 18 + 14 * k, part, size=12)

    def series(self, svg, label, points, style):
        color, width = style["color"], style.get("width", 1.8)
        dash = f' stroke-dasharray="{style["dash"]}"' if style.get("dash") else ""
        run = []
        # One polyline per run of neighbouring layouts that have a point.
        for layout in self.layouts + [None]:
            if layout in points:
                run.append((self.x(layout), self.y(float(points[layout]["pct_copy_bw"]))))
                continue
            if len(run) > 1:
                svg.add(f'<polyline points="{" ".join(f"{x:.2f},{y:.2f}" for x, y in run)}" '
                        f'fill="none" stroke="{color}" stroke-width="{width}"{dash} '
                        f'stroke-linejoin="round"/>')
            run = []
        for layout, r in points.items():
            if layout not in self.layouts:
                continue
            name = label.replace("\n", " ")
            tip = (f"{name}, {layout}: {float(r['pct_copy_bw']):.2f}% of the byte limit, "
                   f"{float(r['median_us']):.1f} us")
            marker(svg, style["marker"], self.x(layout), self.y(float(r["pct_copy_bw"])), color,
                   style.get("size", 4.5), tip)


def legend(svg, y, entries):
    """Entries (label, style) from y down, beside the plot area."""
    for label, style in entries:
        dash = f' stroke-dasharray="{style["dash"]}"' if style.get("dash") else ""
        svg.add(f'<line x1="{LEGEND_X}" y1="{y:.1f}" x2="{LEGEND_X + 30}" y2="{y:.1f}" '
                f'stroke="{style["color"]}" stroke-width="{style.get("width", 1.8)}"{dash}/>')
        if style.get("marker"):
            marker(svg, style["marker"], LEGEND_X + 15, y, style["color"], style.get("size", 4.5))
        lines = label.split("\n")
        for k, part in enumerate(lines):
            svg.text(LEGEND_X + 38, y + 15 * k, part, size=12, anchor="start",
                     weight="bold" if style.get("width", 0) > 3 else None,
                     extra=' dominant-baseline="middle"')
        y += 15 * len(lines) + 10
    return y


def draw(header, rows, path):
    layouts = [l for l in LAYOUTS if any(r["primitive"].endswith(":" + l) for r in rows)]
    for r in rows:  # layouts this script does not know, after the known ones
        layout = r["primitive"].partition(":")[2]
        if layout and layout not in layouts:
            layouts.append(layout)
    reduce = [(label, series_points(rows, spec), style) for label, spec, style in REDUCE_SERIES]
    scan = [(label, series_points(rows, spec), style) for label, spec, style in SCAN_SERIES]

    svg = Svg()
    svg.add(f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
            f'viewBox="0 0 {W} {H}" font-family="{FONT}" fill="#222">')
    svg.add(f'<rect width="{W}" height="{H}" fill="white"/>')
    sizes = sorted({(r["dtype"], fmt_n(r["n"])) for r in rows})
    what = ", ".join(f"n = {superscript(n)} {dt}" for dt, n in sizes)
    svg.text(W / 2, 26, f"Segmented reduce and scan, {what}: % of the byte limit per layout",
             size=17, weight="bold")
    svg.text(W / 2, 48, device(header, path), size=13)

    # Reduce: log scale, a decade below the smallest value at most 0.01%.
    values = [float(r["pct_copy_bw"]) for _, pts, _ in reduce for r in pts.values()]
    lo = min(0.01, 10 ** math.floor(math.log10(min(values)))) if values else 0.01
    hi = max(150.0, max(values, default=0) * 1.15)
    top = Panel(layouts, *TOP_PANEL, lo, hi, log=True)
    decades = range(round(math.log10(lo)), 3)
    ticks = [(10.0 ** e, f"{10.0 ** e:g}%") for e in decades]
    minor = [m * 10.0 ** e for e in decades for m in range(2, 10) if m * 10.0 ** e < hi]
    top.axes(svg, "Reduce (SUM), segmented_reduce_sum; log scale", "% of the byte limit", ticks,
             minor)
    for label, pts, style in reduce:
        top.series(svg, label, pts, style)
    legend(svg, TOP_PANEL[0] + 10, [(label, style) for label, pts, style in reduce if pts]
           + [("the byte limit (100%)", LIMIT_STYLE)])

    # Scan: linear from 0.
    values = [float(r["pct_copy_bw"]) for _, pts, _ in scan for r in pts.values()]
    hi = max(100.0, 20 * math.ceil(max(values, default=0) / 20))
    bottom = Panel(layouts, *BOTTOM_PANEL, 0.0, hi, log=False)
    bottom.axes(svg, "Inclusive scan (sum) in each segment; linear scale", "% of the byte limit",
                [(v, f"{v:g}%") for v in range(0, int(hi) + 1, 20)])
    for label, pts, style in scan:
        bottom.series(svg, label, pts, style)
    legend(svg, BOTTOM_PANEL[0] + 10, [(label, style) for label, pts, style in scan if pts])

    svg.text(W / 2, H - 12, "segment layout: uniform segments of 1 to 2²⁰ elements, "
             "random sizes 0..2000, power law (one segment of n/4)", size=13)
    svg.add("</svg>")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + "\n".join(svg.out) + "\n"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv", help="cuprim-bench --csv output with the segmented suites")
    ap.add_argument("-o", "--out", required=True, help="the SVG file to write")
    args = ap.parse_args(argv)
    header, rows = read_csv(args.csv)
    rows = [r for r in rows if r.get("suite") in ("segmented_ladder", "segmented")]
    if not rows:
        fail(f"{args.csv}: no segmented_ladder or segmented rows "
             "(cuprim-bench --only segmented writes them)")
    kept = []
    for r in rows:
        check = r.get("check") or ""
        if check.startswith("FAIL") or check.startswith("ERROR"):
            print(f"{PROG}: left out: {r['suite']} {r['primitive']} {r['alg']} {r['impl']}: "
                  f"{check[:60]}", file=sys.stderr)
        else:
            kept.append(r)
    if not kept:
        fail(f"{args.csv}: every segmented row failed its check")
    text = draw(header, kept, args.csv)
    try:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        fail(f"cannot write {args.out}: {e.strerror}")
    print(args.out)


if __name__ == "__main__":
    main(sys.argv[1:])
