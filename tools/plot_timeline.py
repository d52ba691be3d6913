#!/usr/bin/env python3
"""Draws a Gantt chart of a `mdlite run --profile FILE.csv` timeline: the run's phases (set-up,
loop, drain, close...) on top, then one lane each for compute (steps), copy (snapshot to host
memory) and write (the writer thread), so the overlap and whatever lies outside the loop show.

usage: tools/plot_timeline.py TIMELINE.csv [-o OUTPUT.png] [--from S] [--to S]
Needs matplotlib; re-runs itself with an interpreter that has it (Debian: python3-matplotlib).
"""
import argparse
import csv
import os
import sys

import _need  # noqa: E402

_need.modules("matplotlib", hint="python3-matplotlib")
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

LANES = ["run", "compute", "copy", "write"]
COLORS = {"run": "tab:gray", "compute": "tab:blue", "copy": "tab:orange", "write": "tab:green"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("timeline")
    ap.add_argument("-o", "--output")
    ap.add_argument("--from", dest="t_from", type=float, default=None)
    ap.add_argument("--to", dest="t_to", type=float, default=None)
    a = ap.parse_args()
    with open(a.timeline) as f:
        rows = [r for r in csv.DictReader(f)]
    if not rows:
        sys.exit(f"{a.timeline}: empty timeline")
    lo = a.t_from if a.t_from is not None else min(float(r["start_s"]) for r in rows)
    hi = a.t_to if a.t_to is not None else max(float(r["end_s"]) for r in rows)
    fig, ax = plt.subplots(figsize=(11, 3.8))
    totals = {k: 0.0 for k in LANES}
    top = len(LANES) - 1
    for r in rows:
        s, e = float(r["start_s"]), float(r["end_s"])
        totals[r["lane"]] += e - s
        if e < lo or s > hi:
            continue
        y = top - LANES.index(r["lane"])
        run = r["lane"] == "run"
        ax.broken_barh([(s, max(e - s, 1e-6))], (y - 0.4, 0.8), color=COLORS[r["lane"]], linewidth=0,
                       alpha=0.5 if run else 1.0, edgecolor="white" if run else None)
        if run and (e - s) > 0.03 * (hi - lo):  # name the phases wide enough to hold a label
            ax.text((max(s, lo) + min(e, hi)) / 2, y, r.get("what", ""), ha="center", va="center", fontsize=7)
    ax.set_yticks(list(range(top, -1, -1)))
    ax.set_yticklabels(["run"] + [f"{k}\n{totals[k]:.3g} s" for k in LANES[1:]])
    ax.set_xlim(lo, hi)
    ax.set_xlabel("time since the run started (s)")
    ax.set_title(os.path.basename(a.timeline))
    fig.tight_layout()
    out = a.output or os.path.splitext(a.timeline)[0] + ".png"
    fig.savefig(out, dpi=110)
    print(f"wrote {out}: compute {totals['compute']:.3g} s, copy {totals['copy']:.3g} s, write {totals['write']:.3g} s")


if __name__ == "__main__":
    main()
