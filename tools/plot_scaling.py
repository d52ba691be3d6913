#!/usr/bin/env python3
"""Scaling plot (PNG) from a table of runs: lines "kind gpus atoms atom-steps/s" (kind strong, or
weak or weak-... for atoms per GPU; '#' comments). Efficiency per GPU against the 1-GPU run of the
same kind.
usage: plot_scaling.py TABLE OUT.png [TITLE]"""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    table, out = sys.argv[1:3]
    title = sys.argv[3] if len(sys.argv) > 3 else "mdlite GPU scaling"
    runs = {}
    for line in open(table):
        line = line.split("#")[0].split()
        if line:
            runs.setdefault(line[0], []).append((int(line[1]), float(line[2]), float(line[3])))
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    for kind, rows in sorted(runs.items()):
        rows.sort()
        one = next(r for r in rows if r[0] == 1)
        eff = [100 * (r[2] / r[0]) / one[2] for r in rows]
        per = " per GPU" if kind.startswith("weak") else ""
        at = ", ".join(f"{e:.0f}% at {r[0]}" for r, e in zip(rows, eff) if r[0] > 1)
        ax.plot([r[0] for r in rows], eff, "o-", label=f"{kind} ({one[1]:.3g} atoms{per}): {at}")
    ax.axhline(90, ls=":", c="gray", lw=1)
    ax.axhline(80, ls=":", c="gray", lw=1)
    ax.set_xlabel("GPUs")
    ax.set_ylabel("efficiency per GPU (%)")
    ax.set_ylim(0, 110)
    ax.set_xticks(sorted({r[0] for rows in runs.values() for r in rows}))
    ax.set_title(title)
    ax.legend(loc="lower left")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
