#!/usr/bin/env python3
"""Plots temperature, energies, the total energy's drift and pressure against time, from
thermo.csv or an H5MD file's observables, into a PNG, with units on every axis.

usage: tools/plot_thermo.py INPUT (thermo.csv | traj.h5md) [-o OUTPUT.png] [--units lj|metal]
(an H5MD file names its units; a CSV does not: --units says them, lj by default)
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
    per_atom = "potential_energy_per_atom" in rows[0]  # the CSV says whether its energies are per atom
    data = {k: [float(r[k + "_per_atom" if per_atom and k.endswith("energy") else k]) for r in rows]
            for k in ["time"] + COLUMNS}
    data["per_atom"] = per_atom
    return data, None  # a CSV does not name its units


def read_h5md(path):
    import h5py
    with h5py.File(path, "r") as f:
        obs = f["observables"]
        data = {"time": list(obs["temperature/time"][()])}
        for k in COLUMNS:
            data[k] = list(obs[f"{k}/value"][()])
        units = f["parameters/units"][()].decode() if "parameters/units" in f else "lj"
    return data, units


# the units of each column, as LAMMPS's lj and metal styles define them
UNITS = {"lj": dict(time="τ", temperature="ε/k_B", energy="ε", pressure="ε/σ³"),
         "metal": dict(time="ps", temperature="K", energy="eV", pressure="bar")}


def sane_limits(ax, values):
    """A constant curve (a thermostatted temperature) gets a readable axis, not 1e-12 ticks."""
    lo, hi = min(values), max(values)
    pad = 1e-3 * max(abs(lo), abs(hi))
    if hi - lo < pad:
        ax.set_ylim(lo - pad, hi + pad)


def label(name, units, key=None):
    return f"{name} ({UNITS[units][key or name]})"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("input")
    ap.add_argument("-o", "--output", default=None)
    ap.add_argument("--units", choices=["lj", "metal"], default=None, help="a CSV's units (default lj)")
    a = ap.parse_args()
    data, units = read_csv(a.input) if a.input.endswith(".csv") else read_h5md(a.input)
    units = a.units or units or "lj"
    out = a.output or os.path.splitext(a.input)[0] + ".png"
    fig, axes = plt.subplots(4, 1, figsize=(7, 10), sharex=True)
    t = data["time"]
    axes[0].plot(t, data["temperature"], color="tab:red")
    axes[0].set_ylabel(label("temperature", units))
    for ax, k in zip(axes, ("temperature", "total_energy", None, "pressure")):
        ax.ticklabel_format(useOffset=False, axis="y")
        if k:
            sane_limits(ax, data[k])
    for k, c in (("potential_energy", "tab:blue"), ("kinetic_energy", "tab:orange"), ("total_energy", "black")):
        axes[1].plot(t, data[k], color=c, label=k.replace("_", " "))
    axes[1].set_ylabel(label("energy per atom" if data.get("per_atom", True) else "energy (totals)", units, "energy"))
    axes[1].legend(fontsize=8)
    # the drift has its own axis: on the energies' scale a drift of 1e-5 is a flat line
    e0 = data["total_energy"][0]
    axes[2].plot(t, [e - e0 for e in data["total_energy"]], color="black")
    axes[2].set_ylabel(label("total energy - E(0)", units, "energy"))
    axes[2].ticklabel_format(style="sci", scilimits=(-3, 3), axis="y")
    axes[3].plot(t, data["pressure"], color="tab:green")
    axes[3].set_ylabel(label("pressure", units))
    axes[3].set_xlabel(label("time", units))
    fig.suptitle(os.path.basename(a.input))
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    print(f"wrote {out} ({len(t)} points)")


if __name__ == "__main__":
    main()
