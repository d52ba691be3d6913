#!/usr/bin/env python3
"""Plots temperature, energies and pressure against time, from thermo.csv or an H5MD file's
observables, into a PNG.

usage: tools/plot_thermo.py INPUT (thermo.csv | traj.h5md) [-o OUTPUT.png]
Needs matplotlib (and h5py for H5MD); re-runs itself with an interpreter that has them
(Debian: python3-matplotlib python3-h5py).
"""
import argparse
import csv
import os
import sys

import _need  # noqa: E402

_need.modules("matplotlib", hint="python3-matplotlib python3-h5py")
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

COLUMNS = ["temperature", "potential_energy", "kinetic_energy", "total_energy", "pressure"]


def read_csv(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"{path}: no thermo rows")
    data = {k: [float(r[k]) for r in rows] for k in ["time"] + COLUMNS}
    return data, None


def read_h5md(path):
    import h5py
    with h5py.File(path, "r") as f:
        obs = f["observables"]
        data = {"time": list(obs["temperature/time"][()])}
        for k in COLUMNS:
            data[k] = list(obs[f"{k}/value"][()])
        units = f["parameters/units"][()].decode() if "parameters/units" in f else "lj"
        unit = {k: obs[f"{k}/value"].attrs.get("unit") for k in COLUMNS} if units == "metal" else None
        if unit:
            unit["time"] = obs["temperature/time"].attrs.get("unit")
    return data, unit


def label(name, unit):
    u = unit.get(name) if unit else None
    u = u.decode() if isinstance(u, bytes) else u
    return f"{name.replace('_', ' ')}" + (f" ({u})" if u else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("input")
    ap.add_argument("-o", "--output", default=None)
    a = ap.parse_args()
    data, unit = read_csv(a.input) if a.input.endswith(".csv") else read_h5md(a.input)
    out = a.output or os.path.splitext(a.input)[0] + ".png"
    fig, axes = plt.subplots(3, 1, figsize=(7, 8), sharex=True)
    t = data["time"]
    axes[0].plot(t, data["temperature"], color="tab:red")
    axes[0].set_ylabel(label("temperature", unit))
    for ax in axes:
        ax.ticklabel_format(useOffset=False, axis="y")
    for k, c in (("potential_energy", "tab:blue"), ("kinetic_energy", "tab:orange"), ("total_energy", "black")):
        axes[1].plot(t, data[k], color=c, label=k.replace("_", " "))
    axes[1].set_ylabel("energy per atom" + (f" ({unit['total_energy']})" if unit else ""))
    axes[1].legend(fontsize=8)
    axes[2].plot(t, data["pressure"], color="tab:green")
    axes[2].set_ylabel(label("pressure", unit))
    axes[2].set_xlabel(label("time", unit))
    fig.suptitle(os.path.basename(a.input))
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    print(f"wrote {out} ({len(t)} points)")


if __name__ == "__main__":
    main()
