"""What bench/'s pictures share (Python 3 only, no matplotlib): reading cuprim-bench's CSV and
merging several, the run's description, n as text; and for the SVG pictures, SVG text and lines,
markers, a plot area over categories, a legend, writing the file. Imported by plot.py,
plot_segmented.py and plot_ratio.py (each run as `python3 bench/SCRIPT.py`, so this directory is
on the import path).
"""
import csv
import math
import os
import re
import sys
from xml.sax.saxutils import escape

FONT = "DejaVu Sans, Arial, Helvetica, sans-serif"
KEY = ("suite", "primitive", "alg", "dtype", "n", "impl")  # what makes two rows the same one


def fail(prog, msg):
    print(f"{prog}: {msg}", file=sys.stderr)
    sys.exit(2)


def read_csv(prog, path):
    """(header lines without '#', data rows) of a cuprim-bench CSV."""
    try:
        with open(path, newline="") as f:
            lines = list(f)
    except OSError as e:
        fail(prog, f"cannot read {path}: {e.strerror}")
    header = [l[1:].strip() for l in lines if l.startswith("#")]
    rows = list(csv.DictReader(l for l in lines if not l.startswith("#")))
    if rows and "pct_copy_bw" not in rows[0]:
        fail(prog, f"{path}: not a cuprim-bench CSV (no pct_copy_bw column)")
    return header, rows


def latest(row_lists):
    """The rows of several files in order, a later file's row replacing an earlier one's with the
    same KEY."""
    by_key = {}
    for rows in row_lists:
        for r in rows:
            by_key[tuple(r[k] for k in KEY)] = r
    return list(by_key.values())


def checked(prog, rows):
    """The rows whose check did not fail; a note on stderr for each one left out."""
    kept = []
    for r in rows:
        check = r.get("check") or ""
        if check.startswith("FAIL") or check.startswith("ERROR"):
            print(f"{prog}: left out: {r['suite']} {r['primitive']} {r['alg']} {r['impl']}: "
                  f"{check[:60]}", file=sys.stderr)
        else:
            kept.append(r)
    return kept


def device(header, path):
    """'NVIDIA H100 80GB HBM3, CUB 3.0.1, 2026-11-24 00:03 UTC' from the first header line."""
    if not header:
        return os.path.basename(path)
    fields = [f.strip() for f in header[0].split("|")]
    name = fields[2] if len(fields) > 2 else fields[0]
    cub = re.search(r"CUB [0-9.]+", header[0])
    date = re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d", header[0])
    return ", ".join(x for x in (name, cub and cub.group(0), date and date.group(0) + " UTC") if x)


def fmt_n(n):
    n = int(n)
    k = n.bit_length() - 1
    return f"2^{k}" if n == 1 << k else str(n)


def superscript(s):
    """'2^20' -> '2²⁰' (plain text keeps the SVG simple)."""
    sup = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
    return re.sub(r"\^(\d+)", lambda m: m.group(1).translate(sup), s)


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

    def begin(self, w, h):
        self.add(f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
                 f'viewBox="0 0 {w} {h}" font-family="{FONT}" fill="#222">')
        self.add(f'<rect width="{w}" height="{h}" fill="white"/>')

    def end(self):
        """The whole document."""
        self.add("</svg>")
        return '<?xml version="1.0" encoding="UTF-8"?>\n' + "\n".join(self.out) + "\n"


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
    """A plot area from x0 to x1 over categories (evenly spaced, each in the middle of its
    column), y from lo to hi, log or linear."""

    def __init__(self, cats, x0, x1, y0, y1, lo, hi, log):
        self.cats, self.x0, self.x1 = cats, x0, x1
        self.y0, self.y1, self.lo, self.hi, self.log = y0, y1, lo, hi, log
        self.step = (x1 - x0) / len(cats)

    def x(self, cat):
        return self.x0 + self.step * (self.cats.index(cat) + 0.5)

    def y(self, v):
        if self.log:
            v = max(v, self.lo)
            f = (math.log10(v) - math.log10(self.lo)) / (math.log10(self.hi) - math.log10(self.lo))
        else:
            f = (v - self.lo) / (self.hi - self.lo)
        return self.y1 - f * (self.y1 - self.y0)

    def axes(self, svg, title, ylabel, ticks, minor=(), ref=None, cat_label=lambda c: [c],
             ylabel_x=20):
        """Background, grid, y ticks (value, label), the reference line ref = (value, style),
        frame, title, y label and the categories' labels (cat_label: its lines)."""
        x0, x1, y0, y1 = self.x0, self.x1, self.y0, self.y1
        svg.add(f'<rect x="{x0}" y="{y0}" width="{x1 - x0}" height="{y1 - y0}" '
                f'fill="#fafafa" stroke="none"/>')
        for v in minor:
            svg.line(x0, self.y(v), x1, self.y(v), "#000", 0.5, opacity=0.08)
        for v, label in ticks:
            svg.line(x0, self.y(v), x1, self.y(v), "#000", 0.8, opacity=0.2)
            svg.line(x0 - 4, self.y(v), x0, self.y(v), "#333", 1)
            svg.text(x0 - 7, self.y(v), label, size=12, anchor="end",
                     extra=' dominant-baseline="middle" class="ytick"')
        for i in range(1, len(self.cats)):
            x = x0 + self.step * i
            svg.line(x, y0, x, y1, "#000", 0.5, opacity=0.07)
        if ref is not None:
            value, style = ref
            svg.line(x0, self.y(value), x1, self.y(value), style["color"], style["width"],
                     dash=style["dash"])
        svg.add(f'<rect x="{x0}" y="{y0}" width="{x1 - x0}" height="{y1 - y0}" '
                f'fill="none" stroke="#333" stroke-width="1"/>')
        svg.text(x0, y0 - 9, title, size=14, anchor="start", weight="bold")
        svg.text(ylabel_x, (y0 + y1) / 2, ylabel, size=13, rotate=-90)
        for cat in self.cats:
            x = self.x(cat)
            svg.line(x, y1, x, y1 + 4, "#333", 1)
            for k, part in enumerate(cat_label(cat)):
                svg.text(x, y1 + 18 + 14 * k, part, size=12)

    def series(self, svg, points, style):
        """points: {category: (value, tip text)}, drawn in that order; a polyline through each
        run of neighbouring categories that have a point."""
        color, width = style["color"], style.get("width", 1.8)
        dash = f' stroke-dasharray="{style["dash"]}"' if style.get("dash") else ""
        run = []
        for cat in self.cats + [None]:
            if cat in points:
                run.append((self.x(cat), self.y(points[cat][0])))
                continue
            if len(run) > 1:
                svg.add(f'<polyline points="{" ".join(f"{x:.2f},{y:.2f}" for x, y in run)}" '
                        f'fill="none" stroke="{color}" stroke-width="{width}"{dash} '
                        f'stroke-linejoin="round"/>')
            run = []
        for cat, (value, tip) in points.items():
            if cat not in self.cats:
                continue
            marker(svg, style["marker"], self.x(cat), self.y(value), color, style.get("size", 4.5),
                   tip)


def legend(svg, x, y, entries):
    """Entries (label, style) from (x, y) down; returns the y below the last one."""
    for label, style in entries:
        dash = f' stroke-dasharray="{style["dash"]}"' if style.get("dash") else ""
        svg.add(f'<line x1="{x}" y1="{y:.1f}" x2="{x + 30}" y2="{y:.1f}" '
                f'stroke="{style["color"]}" stroke-width="{style.get("width", 1.8)}"{dash}/>')
        if style.get("marker"):
            marker(svg, style["marker"], x + 15, y, style["color"], style.get("size", 4.5))
        lines = label.split("\n")
        for k, part in enumerate(lines):
            svg.text(x + 38, y + 15 * k, part, size=12, anchor="start",
                     weight="bold" if style.get("width", 0) > 3 else None,
                     extra=' dominant-baseline="middle"')
        y += 15 * len(lines) + 10
    return y


def write(prog, path, text):
    """Writes the picture's text and prints its path."""
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        fail(prog, f"cannot write {path}: {e.strerror}")
    print(path)
