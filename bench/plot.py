#!/usr/bin/env python3
"""Pictures from cuprim-bench's CSV (matplotlib, Agg backend: no display needed).

    python3 bench/plot.py bench.csv [more.csv ...] -o OUTDIR

Writes into OUTDIR, for each suite present in the CSV:

  SUITE.png         the size sweep (reduce, scan, histogram): one column per primitive and dtype.
                    Top: GB/s against n (log2 axis) for cuprim (AUTO), CUB, and the bench's own
                    reference at the same n (the read-only kernel over the same bytes, or a D2D
                    copy of the same elements), with the 2^28 ceiling of the same run dashed.
                    Bottom: CUB time / cuprim time (above 1: cuprim is faster).
  SUITE_ladder.png  the ladder: one panel per primitive, dtype and n; one bar per variant (GB/s,
                    labelled with its time), cuprim's AUTO and CUB last, the ceiling dashed.

Several files are merged in the order given: a row of a later file replaces a row of an earlier
one with the same (suite, primitive, alg, dtype, n, impl). So `plot.py full.csv scan.csv` draws
everything from the full run except what the later scan-only run measured again. Each panel uses
the ceilings measured by the run its rows came from. Rows whose check failed are left out (a
note on stderr says which); a panel with nothing left is not drawn.

Needs matplotlib (Debian: apt-get install python3-matplotlib). bench/report.py writes the same
data as Markdown tables; bench/plot_segmented.py draws the segmented suites (SVG, no matplotlib).
"""
import argparse
import csv
import io
import math
import os
import sys

try:
    import matplotlib
except ImportError:
    sys.exit("plot.py: needs matplotlib (Debian/Ubuntu: apt-get install python3-matplotlib, then "
             "run it with /usr/bin/python3; or pip install matplotlib)")

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend is chosen first)
from matplotlib.ticker import FuncFormatter, NullFormatter  # noqa: E402

from svg_plot import device, fmt_n, latest  # noqa: E402  (no matplotlib there)

DPI = 110

# The ceiling each primitive's bandwidth is compared with (as in bench/report.py): reduce and
# histogram read their input once (read-only kernel); a scan reads and writes each element (copy).
CEILING = {"reduce": "read", "histogram": "read", "scan": "copy"}
CEILING_LABEL = {"read": "read-only kernel, 2^28 f32", "copy": "D2D copy, 2^28 f32"}
BYTES_LABEL = {"read": "GB/s (bytes read)", "copy": "GB/s (bytes read + written)"}
# The sweeps' per-size reference rows, by alg.
REFERENCE = {"read_only_kernel": "read-only kernel, same bytes", "memcpy_d2d": "D2D copy, same n"}
ONE_BIN = "_one_bin"  # histogram ladder rows on one-bin data: shown apart from the rungs

COLOR = {"cuprim": "#1f77b4", "auto": "#d62728", "cub": "#2ca02c", "ref": "#7f7f7f"}


class Source:
    """One CSV file: its rows, its ceilings (GB/s) and the run's description."""

    def __init__(self, path):
        with open(path, newline="") as f:
            lines = list(f)
        self.path = path
        self.header = [l[1:].strip() for l in lines if l.startswith("#")]
        self.rows = list(csv.DictReader(l for l in lines if not l.startswith("#")))
        self.ceiling = {}
        for r in self.rows:
            if r["suite"] == "ceiling" and r["gbps"]:
                self.ceiling[r["primitive"]] = float(r["gbps"])
        for r in self.rows:
            r["_src"] = self

    def device(self):
        """'NVIDIA H100 80GB HBM3, CUB 3.0.1, 2026-11-21 21:08 UTC' from the first header line."""
        return device(self.header, self.path)


def number(row, key):
    v = row.get(key, "") if row else ""
    return float(v) if v not in ("", None) else None


def merged_rows(sources):
    """Rows of all files, a later file's row replacing an earlier one's with the same key."""
    rows, dropped = [], []
    for r in latest(s.rows for s in sources):
        check = r.get("check", "")
        if check.startswith("FAIL") or check.startswith("ERROR"):
            dropped.append(r)
        else:
            rows.append(r)
    for r in dropped:
        print(f"plot.py: left out ({r['_src'].path}): {r['suite']} {r['primitive']} {r['alg']} "
              f"{r['dtype']} n={r['n']} {r['impl']}: {r['check'][:60]}", file=sys.stderr)
    return rows


def save(fig, path):
    """Writes the figure as a PNG; with Pillow (a matplotlib dependency), as a 128-colour palette
    image: a third of the size of a true-colour one, and no different to the eye for these
    line and bar charts."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    try:
        from PIL import Image
    except ImportError:
        with open(path, "wb") as f:
            f.write(buf.getvalue())
        return path
    buf.seek(0)
    img = Image.open(buf).convert("RGB").quantize(colors=128, method=Image.Quantize.MEDIANCUT)
    img.save(path, optimize=True)
    return path


def log2_axis(ax, ns):
    ax.set_xscale("log", base=2)
    ax.set_xticks(sorted(ns))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"$2^{{{round(math.log2(x))}}}$"))
    ax.xaxis.set_minor_formatter(NullFormatter())


def title_of(primitive, dtype):
    return f"{primitive} {dtype}"


def grid_shape(count):
    ncols = 3 if count == 3 or count > 4 else min(count, 2)
    return ncols, (count + ncols - 1) // ncols


def plot_sweep(suite, rows, out_dir):
    """GB/s and the ratio to CUB against n, one column per (primitive, dtype)."""
    panels = {}
    for r in rows:
        panels.setdefault((r["primitive"], r["dtype"]), []).append(r)
    if not panels:
        return None
    ncols, nrows = grid_shape(len(panels))
    fig = plt.figure(figsize=(5.2 * ncols, 4.6 * nrows))
    outer = fig.add_gridspec(nrows, ncols, hspace=0.32, wspace=0.28)
    sources = set()
    for i, ((prim, dtype), rs) in enumerate(panels.items()):
        row, col = divmod(i, ncols)
        # A mixed suite (half: reduce, scan and histogram) takes each panel's from its primitive.
        ceiling_kind = CEILING.get(suite) or ("copy" if prim.startswith("scan") else "read")
        inner = outer[row, col].subgridspec(2, 1, height_ratios=[3, 1.25], hspace=0.06)
        ax = fig.add_subplot(inner[0])
        axr = fig.add_subplot(inner[1], sharex=ax)
        series = {"cuprim": {}, "cub": {}, "ref": {}}
        ref_name = None
        for r in rs:
            kind = "ref" if r["alg"] in REFERENCE else r["impl"]
            if kind in series and number(r, "gbps") is not None:
                series[kind][int(r["n"])] = r
            if kind == "ref":
                ref_name = REFERENCE[r["alg"]]
        src = next(iter(series["cuprim"].values()), rs[0])["_src"]
        sources.add(src)
        labels = {"cuprim": "cuprim (AUTO)", "cub": "CUB", "ref": ref_name or "reference"}
        styles = {"cuprim": dict(color=COLOR["auto"], marker="o", lw=2),
                  "cub": dict(color=COLOR["cub"], marker="s", lw=1.6),
                  "ref": dict(color=COLOR["ref"], marker=".", lw=1, ls=":")}
        for kind in ("ref", "cub", "cuprim"):
            pts = sorted(series[kind].items())
            if pts:
                ax.plot([n for n, _ in pts], [number(r, "gbps") for _, r in pts],
                        label=labels[kind], **styles[kind])
        ceiling = src.ceiling.get(ceiling_kind)
        if ceiling:
            ax.axhline(ceiling, color="black", ls="--", lw=0.9,
                       label=f"{CEILING_LABEL[ceiling_kind]}: {ceiling:.0f}")
        ax.set_yscale("log")
        ax.set_title(title_of(prim, dtype), fontsize=11)
        ax.grid(True, which="major", alpha=0.3)
        if col == 0:
            ax.set_ylabel(BYTES_LABEL[ceiling_kind])
        ax.legend(fontsize=8, loc="lower right")
        plt.setp(ax.get_xticklabels(), visible=False)

        pts = sorted((n, number(r, "ratio_vs_cub")) for n, r in series["cuprim"].items()
                     if number(r, "ratio_vs_cub") is not None)
        if pts:
            xs, ys = [n for n, _ in pts], [y for _, y in pts]
            axr.axhline(1.0, color="black", lw=0.8)
            axr.plot(xs, ys, color=COLOR["auto"], marker="o", lw=1.6)
            lo, hi = min(ys + [1.0]), max(ys + [1.0])
            pad = 0.08 * (hi - lo) + 0.05
            axr.set_ylim(lo - pad, hi + pad)
        log2_axis(axr, {int(r["n"]) for r in rs})
        axr.grid(True, alpha=0.3)
        axr.set_xlabel("n (elements)")
        if col == 0:
            axr.set_ylabel("CUB / cuprim\n(time)")
    runs = "; ".join(sorted(s.device() for s in sources))
    fig.suptitle(f"{suite}: cuprim against CUB — {runs}", fontsize=11, y=0.91 + 0.08 / nrows)
    return save(fig, os.path.join(out_dir, f"{suite}.png"))


def plot_ladder(suite, rows, out_dir):
    """One bar chart per (primitive, dtype, n): GB/s of every variant, in the CSV's order."""
    base = suite.removesuffix("_ladder")
    panels = {}
    for r in rows:
        panels.setdefault((r["primitive"], r["dtype"], int(r["n"])), []).append(r)
    if not panels:
        return None
    ceiling_kind = CEILING.get(base, "read")
    ncols, nrows = grid_shape(len(panels))
    most = max(len(rs) for rs in panels.values())
    fig, axes = plt.subplots(nrows, ncols, figsize=(6.4 * ncols, (0.34 * most + 1.3) * nrows),
                             squeeze=False)
    sources = set()
    for i, ((prim, dtype, n), rs) in enumerate(panels.items()):
        ax = axes[divmod(i, ncols)]
        labels, values, colors, hatches, notes = [], [], [], [], []
        rung = 0
        for r in rs:
            gbps, us = number(r, "gbps"), number(r, "median_us")
            if gbps is None:
                continue
            one_bin = r["alg"].endswith(ONE_BIN)
            alg = r["alg"].removesuffix(ONE_BIN)
            if r["impl"] == "cub":
                label, color = f"CUB {alg}", COLOR["cub"]
            elif alg == "auto":
                label, color = "auto (the default)", COLOR["auto"]
            else:
                rung += 1
                label, color = f"{rung}. {alg}", COLOR["cuprim"]
            if one_bin:
                label += ", one-bin data"
            labels.append(label)
            values.append(gbps)
            colors.append(color)
            hatches.append("//" if one_bin else "")
            notes.append(f"{us:.1f} us" if us is not None else "")
            sources.add(r["_src"])
        ys = list(range(len(values)))[::-1]
        bars = ax.barh(ys, values, color=colors, edgecolor="white")
        for bar, h in zip(bars, hatches):
            bar.set_hatch(h)
        top = max(values) if values else 1.0
        src = rs[0]["_src"]
        ceiling = src.ceiling.get(ceiling_kind)
        if ceiling:
            ax.axvline(ceiling, color="black", ls="--", lw=0.9)
            ax.text(ceiling, len(values) - 0.5, f"{CEILING_LABEL[ceiling_kind].split(',')[0]}"
                    f" {ceiling:.0f} ", fontsize=7, va="bottom", ha="right")
            top = max(top, ceiling)
        for y, v, note in zip(ys, values, notes):
            ax.text(v + 0.01 * top, y, f"{v:.0f} GB/s, {note}", va="center", fontsize=7.5,
                    bbox=dict(facecolor="white", edgecolor="none", alpha=0.8, pad=0.5))
        ax.set_yticks(ys)
        ax.set_yticklabels(labels, fontsize=8.5)
        ax.set_xlim(0, top * 1.32)
        ax.set_ylim(-0.6, len(values) + 0.25)
        ax.set_xlabel(BYTES_LABEL[ceiling_kind])
        ax.set_title(f"{title_of(prim, dtype)}, n = {fmt_n(n)}", fontsize=10.5)
        ax.grid(True, axis="x", alpha=0.3)
    for j in range(len(panels), nrows * ncols):
        axes[divmod(j, ncols)].set_visible(False)
    runs = "; ".join(sorted(s.device() for s in sources))
    fig.suptitle(f"{base} ladder — {runs}", fontsize=11)
    fig.tight_layout()
    return save(fig, os.path.join(out_dir, f"{suite}.png"))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv", nargs="+", help="cuprim-bench --csv output; later files win")
    ap.add_argument("-o", "--out", required=True, help="directory for the PNG files")
    args = ap.parse_args(argv)
    sources = [Source(p) for p in args.csv]
    rows = merged_rows(sources)
    os.makedirs(args.out, exist_ok=True)
    suites = {}
    for r in rows:
        if r["suite"] != "ceiling":
            suites.setdefault(r["suite"], []).append(r)
    written = []
    for suite, rs in suites.items():
        if suite.endswith("_ladder"):
            written.append(plot_ladder(suite, rs, args.out))
        else:
            written.append(plot_sweep(suite, rs, args.out))
    for p in written:
        if p:
            print(p)
    if not any(written):
        sys.exit("plot.py: no rows to draw")


if __name__ == "__main__":
    main(sys.argv[1:])
