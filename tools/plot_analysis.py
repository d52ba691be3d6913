#!/usr/bin/env python3
"""Plots mdlite's on-the-fly analysis: g(r) of each species pair (rdf.csv) and the MSD of each
species against time (msd.csv) with its diffusion coefficient, one curve per stage, into PNGs
with the units the files' headers give.

usage: tools/plot_analysis.py [RDF.csv] [MSD.csv] [-o PREFIX]   (rdf.csv msd.csv by default;
PREFIX.rdf.png and PREFIX.msd.png, else rdf.png and msd.png beside each input)
Needs matplotlib; re-runs itself with an interpreter that has it (Debian: python3-matplotlib).
"""
import argparse
import csv
import os
import re
import sys

import _need  # noqa: E402

_need.modules("matplotlib", hint="python3-matplotlib")
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt


def read(path):
    """(comment lines, header, rows by stage) of an mdlite analysis CSV."""
    with open(path) as f:
        lines = f.read().splitlines()
    comments = [x[1:].strip() for x in lines if x.startswith("#")]
    rows = list(csv.reader(x for x in lines if x and not x.startswith("#")))
    stages = {}
    for r in rows[1:]:
        stages.setdefault(r[0], []).append([float(v) for v in r[1:]])
    return comments, rows[0], stages


def unit(comments, what, default):
    """The unit a header comment gives for `what` ("r: bin centre in sigma" -> sigma)."""
    for c in comments:
        m = re.search(rf"\b{what}[^;]* in ([A-Za-z^0-9]+)", c)
        if m:
            return m.group(1)
    return default


def plot_rdf(path, out):
    comments, header, stages = read(path)
    length = unit(comments, "r", "sigma")
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for stage, rows in stages.items():
        for k, name in enumerate(header[3:]):
            ax.plot([r[1] for r in rows], [r[2 + k] for r in rows], label=f"{stage}: {name[2:]}")
    ax.axhline(1.0, color="grey", lw=0.5)
    ax.set_xlabel(f"r ({length})")
    ax.set_ylabel("g(r)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    return out


def plot_msd(path, out):
    comments, header, stages = read(path)
    time, length = unit(comments, "time", "tau"), unit(comments, "msd", "sigma^2")
    slopes = {m.group(1): m.group(2) for c in comments for m in [re.match(r"stage (\S+): D .*?:(.*)", c)] if m}
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for stage, rows in stages.items():
        t0 = rows[0][1]
        for k, name in enumerate(header[3:]):
            d = re.search(rf"D_{re.escape(name[4:])} = (\S+)", slopes.get(stage, ""))
            ax.plot([r[1] - t0 for r in rows], [r[2 + k] for r in rows],
                    label=f"{stage}: {name[4:]}" + (f", D = {float(d.group(1)):.4g}" if d else ""))
    ax.set_xlabel(f"time since the stage's start ({time})")
    ax.set_ylabel(f"MSD ({length})")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("files", nargs="*", default=["rdf.csv", "msd.csv"])
    p.add_argument("-o", "--prefix")
    a = p.parse_args()
    for path in a.files:
        with open(path) as f:
            kind = "rdf" if "radial distribution" in f.readline() else "msd"
        out = f"{a.prefix}.{kind}.png" if a.prefix else os.path.join(os.path.dirname(path), f"{kind}.png")
        print((plot_rdf if kind == "rdf" else plot_msd)(path, out))


if __name__ == "__main__":
    main()
