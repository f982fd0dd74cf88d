#!/usr/bin/env python3
"""CUB's time over cuprim's against n, from cuprim-bench's CSV, as an SVG (Python 3 only, no
matplotlib).

    python3 bench/plot_ratio.py "sm_90 build=half.csv,arg.csv" "80-virtual=half80.csv" -o ratio.svg

One panel per argument LABEL=FILE[,FILE...] (the files of one build or run, merged: a row of a
later file replaces the same row of an earlier one). In each, one line per (suite, primitive,
dtype) of the chosen suites (--suites, default half,arg): the `ratio_vs_cub` column of the rows of
cuprim's AUTO (above 1: cuprim is faster), with a dashed line at 1. Rows whose check failed are
left out (a note on stderr says which). Hovering a marker in a browser shows its numbers. Exit
status 2 on a file it cannot read or write, or no rows to draw.
"""
import argparse
import math
import sys

from svg_plot import (Panel, Svg, checked, device, fail, fmt_n, latest, legend, read_csv,
                      superscript, write)

PROG = "plot_ratio.py"
# Okabe-Ito colours and one marker shape each, in the order the series are met.
STYLES = [dict(color=c, marker=m) for c, m in (
    ("#D55E00", "circle"), ("#0072B2", "square"), ("#009E73", "triangle"),
    ("#CC79A7", "diamond"), ("#E69F00", "down"), ("#56B4E9", "cross"), ("#000000", "circle"))]
ONE_STYLE = dict(color="#333", width=1.2, dash="5 3", marker=None)

W = 900
LEFT, RIGHT = 72, 640  # plot area, x; the legend sits to the right of it
LEGEND_X = 652
TOP, PANEL_H, GAP = 88, 230, 82  # the first panel's top, each panel's height, between panels


def merged(paths):
    """(the first file's header, rows) of several CSV files, later rows replacing earlier ones."""
    files = [read_csv(PROG, path) for path in paths]
    return files[0][0], latest(rows for _, rows in files)


def series_of(rows, suites):
    """{(suite, primitive, dtype): {n: row}} of cuprim's AUTO rows with a ratio to CUB."""
    out = {}
    for r in rows:
        if (r["suite"] in suites and r["impl"] == "cuprim" and r["alg"] == "auto"
                and r.get("ratio_vs_cub") not in ("", None)):
            out.setdefault((r["suite"], r["primitive"], r["dtype"]), {})[int(r["n"])] = r
    return out


def label_of(key):
    suite, primitive, dtype = key
    return f"{primitive.replace('_', ' ')} {dtype}"


def draw(panels, suites):
    keys = []  # every series of every panel, in the order met: one style each
    for _, _, _, series in panels:
        keys += [k for k in series if k not in keys]
    style = {k: STYLES[i % len(STYLES)] for i, k in enumerate(keys)}
    H = TOP + len(panels) * (PANEL_H + GAP) - 12

    svg = Svg()
    svg.begin(W, H)
    svg.text(W / 2, 26, f"CUB time / cuprim time against n ({', '.join(suites)} suites)",
             size=17, weight="bold")
    svg.text(W / 2, 48, "above 1: cuprim is faster; cold L2, median, CUB on the same buffers in "
             "the same run", size=13)
    for i, (title, header, path, series) in enumerate(panels):
        ns = sorted({n for pts in series.values() for n in pts})
        values = [float(r["ratio_vs_cub"]) for pts in series.values() for r in pts.values()]
        lo, hi = min(0.9, min(values)), max(1.2, max(values))
        step = 0.1 if hi - lo <= 1.0 else 0.2 if hi - lo <= 2.0 else 0.5
        lo, hi = math.floor(lo / step + 1e-9) * step, math.ceil(hi / step - 1e-9) * step
        y0 = TOP + i * (PANEL_H + GAP)
        panel = Panel(ns, LEFT, RIGHT, y0, y0 + PANEL_H, lo, hi, log=False)
        ticks = [(v, f"{v:.1f}") for v in
                 (lo + step * k for k in range(int(round((hi - lo) / step)) + 1))]
        panel.axes(svg, f"{title}: {device(header, path)}", "CUB / cuprim", ticks,
                   ref=(1.0, ONE_STYLE), cat_label=lambda n: [superscript(fmt_n(n))])
        for key, pts in series.items():
            name = label_of(key)
            panel.series(svg, {n: (float(r["ratio_vs_cub"]),
                                   f"{title}, {name}, n = {fmt_n(n)}: "
                                   f"{float(r['ratio_vs_cub']):.3f} ({float(r['median_us']):.2f} "
                                   f"us)") for n, r in sorted(pts.items())}, style[key])
        legend(svg, LEGEND_X, y0 + 10, [(label_of(k), style[k]) for k in series]
               + [("1: the same time", ONE_STYLE)])
    return svg.end()


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("panels", nargs="+", metavar="LABEL=FILE[,FILE...]",
                    help="one panel: its title and the cuprim-bench --csv files it is drawn from")
    ap.add_argument("--suites", default="half,arg", help="the suites drawn (default half,arg)")
    ap.add_argument("-o", "--out", required=True, help="the SVG file to write")
    args = ap.parse_args(argv)
    suites = [s for s in args.suites.split(",") if s]
    panels = []
    for spec in args.panels:
        title, eq, files = spec.partition("=")
        if not eq or not files:
            fail(PROG, f"'{spec}': expected LABEL=FILE[,FILE...]")
        paths = files.split(",")
        header, rows = merged(paths)
        series = series_of(checked(PROG, rows), suites)
        if not series:
            fail(PROG, f"{files}: no rows of cuprim's AUTO with a ratio to CUB in the suites "
                 f"{','.join(suites)}")
        panels.append((title, header, paths[0], series))
    write(PROG, args.out, draw(panels, suites))


if __name__ == "__main__":
    main(sys.argv[1:])
