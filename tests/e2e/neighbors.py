#!/usr/bin/env python3
"""`mdlite neighbors` checks.

usage: neighbors.py MDLITE reference XY_FILE   -- cell and brute lists of XY_FILE (cutoff 1.9, open
                                                  boundaries) equal to a reference built here by a
                                                  separate search in Python (exact distances)
       neighbors.py MDLITE example XY_FILE     -- the shipped honeycomb: ~22,000 atoms in a ~243 A
                                                  square, every atom with 1-3 neighbours within 1.9 A
       neighbors.py MDLITE periodic            -- --box: periodic images are found, open ones are not
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import SKIP, fail, run, workdir, write  # noqa: E402


def read_lists(path, nan_padded=False):
    rows = []
    with open(path) as f:
        for line in f:
            vals = [v for v in line.split() if v != "NaN"]
            nums = [int(float(v)) for v in vals]
            rows.append(nums)
    return rows


def build(mdlite, xy, d, method, *extra):
    out = os.path.join(d, f"{method}.txt")
    p = run([mdlite, "neighbors", xy, "--cutoff", "1.9", "--method", method, "--output", out, *extra])
    return read_lists(out), p.stdout.strip()


def reference_lists(xy, cutoff):
    """Each atom's neighbours within cutoff (open boundaries, r^2 < cutoff^2 in double), found over a
    grid of cutoff-wide cells: [count, sorted indices...] per atom."""
    pts = []
    with open(xy) as f:
        for line in f:
            if line.strip():
                x, y = map(float, line.split())
                pts.append((x, y))
    cells = {}
    for i, (x, y) in enumerate(pts):
        cells.setdefault((int(x // cutoff), int(y // cutoff)), []).append(i)
    rows = []
    for i, (x, y) in enumerate(pts):
        cx, cy = int(x // cutoff), int(y // cutoff)
        near = sorted(j for a in (-1, 0, 1) for b in (-1, 0, 1) for j in cells.get((cx + a, cy + b), ())
                      if j != i and (x - pts[j][0]) ** 2 + (y - pts[j][1]) ** 2 < cutoff * cutoff)
        rows.append([len(near), *near])
    return rows


def reference(mdlite, xy):
    want = reference_lists(xy, 1.9)
    d = workdir("nbref")
    for method in ("cell", "brute"):
        got, info = build(mdlite, xy, d, method)
        if len(got) != len(want):
            fail(f"{method}: {len(got)} atoms, reference {len(want)}")
        for i, (g, w) in enumerate(zip(got, want)):
            if g[0] != len(g) - 1:
                fail(f"{method}: atom {i}: count {g[0]} but {len(g) - 1} indices")
            if g != w:
                fail(f"{method}: atom {i}: got {g}, reference {w}")
        print(f"{method}: all {len(got)} atoms match the reference ({sum(r[0] for r in want)} neighbours); {info}")


def example(mdlite, xy):
    d = workdir("nbex")
    rows, info = build(mdlite, xy, d, "cell")
    xs, ys = [], []
    with open(xy) as f:
        for line in f:
            if line.strip():
                x, y = map(float, line.split())
                xs.append(x), ys.append(y)
    span = (max(xs) - min(xs), max(ys) - min(ys))
    if not (20000 <= len(rows) <= 24000):
        fail(f"{len(rows)} atoms, expected about 22,000")
    if not all(230 < s < 256 for s in span):
        fail(f"extent {span}, expected a square of about 243 A")
    bad = [i for i, r in enumerate(rows) if not 1 <= r[0] <= 3]
    if bad:
        fail(f"{len(bad)} atoms without 1-3 neighbours, e.g. atom {bad[0]}: {rows[bad[0]]}")
    counts = {k: sum(1 for r in rows if r[0] == k) for k in (1, 2, 3)}
    print(f"{len(rows)} atoms, extent {span[0]:.1f} x {span[1]:.1f} A, neighbour counts {counts}; {info}")


def periodic(mdlite):
    d = workdir("nbper")
    xy = write(os.path.join(d, "pts.xy"), "0.5 0.5\n9.5 0.5\n5 5\n5 9.7\n")
    open_rows, _ = build(mdlite, xy, d, "cell")
    per_rows, _ = build(mdlite, xy, d, "brute", "--box", "10", "10")
    per_cell, _ = build(mdlite, xy, d, "cell", "--box", "10", "10")
    if open_rows != [[0], [0], [0], [0]]:
        fail(f"open boundaries: expected no neighbours, got {open_rows}")
    if per_rows != [[1, 1], [1, 0], [0], [0]] or per_cell != per_rows:
        fail(f"periodic: expected atoms 0 and 1 to be neighbours across x, got brute {per_rows} cell {per_cell}")
    print("open: no neighbours; --box 10 10: atoms 0 and 1 neighbours through the boundary (cell and brute)")


if __name__ == "__main__":
    mdlite, case = os.path.abspath(sys.argv[1]), sys.argv[2]
    if case == "reference":
        reference(mdlite, sys.argv[3])
    elif case == "example":
        example(mdlite, sys.argv[3])
    else:
        periodic(mdlite)
