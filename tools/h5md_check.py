#!/usr/bin/env python3
"""Checks an H5MD file written by mdlite: layout, shapes, monotone steps, hard-linked step/time, units.

usage: tools/h5md_check.py FILE.h5 [--quiet]
Exits 0 when the file is sound, 1 with the reasons otherwise, 2 when it cannot be read at all.
Needs h5py; re-runs itself with an interpreter that has it (Debian: python3-h5py).
"""
import sys

import _need  # noqa: E402

_need.modules("h5py", "numpy", hint="python3-h5py")
import h5py
import numpy as np

METAL_UNITS = {"position": "Angstrom", "velocity": "Angstrom ps-1", "force": "kJ mol-1 Angstrom-1"}


def unit_of(ds):
    u = ds.attrs.get("unit")
    return u.decode() if isinstance(u, bytes) else u


def check(path):
    problems = []
    bad = problems.append
    f = h5py.File(path, "r")
    if "h5md" not in f:
        bad("no /h5md group")
    else:
        v = f["h5md"].attrs.get("version")
        if v is None or list(v) != [1, 1]:
            bad(f"/h5md version is {v}, expected [1 1]")
        if "author" not in f["h5md"] or "name" not in f["h5md/author"].attrs:
            bad("/h5md/author lacks a name")
        if "creator" not in f["h5md"] or not {"name", "version"} <= set(f["h5md/creator"].attrs):
            bad("/h5md/creator lacks name/version")
    if "particles/trajectory" not in f:
        bad("no /particles/trajectory")
        return problems
    t = f["particles/trajectory"]
    units = f["parameters/units"][()].decode() if "parameters/units" in f else None
    if "parameters/config" not in f:
        bad("no /parameters/config")
    series = [k for k in ("position", "velocity", "force", "image") if k in t]
    if not series:
        bad("no position, velocity, force or image")
        return problems
    n = None
    first = t[series[0]]
    for name in series:
        g = t[name]
        for part in ("step", "time", "value"):
            if part not in g:
                bad(f"{name} lacks {part}")
        if any(part not in g for part in ("step", "time", "value")):
            continue
        val, step, time = g["value"], g["step"][()], g["time"][()]
        if val.ndim != 3 or val.shape[2] != 3:
            bad(f"{name}/value has shape {val.shape}, expected (frames, atoms, 3)")
            continue
        n = n or val.shape[1]
        if val.shape[1] != n:
            bad(f"{name}/value has {val.shape[1]} atoms, {series[0]} {n}")
        if not (len(step) == len(time) == val.shape[0]):
            bad(f"{name}: {len(step)} steps, {len(time)} times, {val.shape[0]} frames")
        if len(step) > 1 and not np.all(np.diff(step) > 0):
            bad(f"{name}/step is not strictly increasing")
        if len(time) > 1 and not np.all(np.diff(time) >= 0):
            bad(f"{name}/time decreases")
        if g["step"].id != first["step"].id or g["time"].id != first["time"].id:
            bad(f"{name}/step and time are not shared with {series[0]}'s")
        if units == "metal" and name in METAL_UNITS and unit_of(val) != METAL_UNITS[name]:
            bad(f"{name}/value unit is {unit_of(val)!r}, expected {METAL_UNITS[name]!r}")
        if units == "metal" and unit_of(g["time"]) != "ps":
            bad(f"{name}/time unit is {unit_of(g['time'])!r}, expected 'ps'")
        if units == "lj" and "unit" in val.attrs:
            bad(f"{name}/value has a unit in lj units")
    # H5MD 1.1 units module: unit attributes are strings, and they are declared by the module
    unit_attrs = []
    f.visititems(lambda name, obj: unit_attrs.append((name, obj.attrs["unit"])) if "unit" in obj.attrs else None)
    for name, u in unit_attrs:
        if not isinstance(u, (str, bytes)):
            bad(f"{name}: unit attribute is {type(u).__name__}, not a string")
    if unit_attrs and "h5md/modules/units" not in f:
        bad("unit attributes without the H5MD units module (/h5md/modules/units)")
    if "h5md/modules/units" in f and list(f["h5md/modules/units"].attrs.get("version", [])) != [1, 0]:
        bad("/h5md/modules/units has no version [1 0]")
    for name in series:
        if name in t and "step" in t[name] and t[name]["step"].dtype.kind != "i":
            bad(f"{name}/step is not an integer dataset")
    if "box" not in t:
        bad("no box")
    else:
        b = t["box"]
        if b.attrs.get("dimension") != 3:
            bad(f"box dimension is {b.attrs.get('dimension')}, expected 3")
        boundary = [x.decode() if isinstance(x, bytes) else x for x in b.attrs.get("boundary", [])]
        if len(boundary) != 3 or not set(boundary) <= {"periodic", "none"}:
            bad(f"box boundary is {boundary}, expected 3 of periodic/none")
        if "edges/value" not in b:
            bad("no box/edges/value")
        else:
            # a vector (cuboid) or a matrix of edge vectors (triclinic; mdlite writes the diagonal
            # matrix of its rectangular box, the form MDAnalysis 2.4 reads)
            e = b["edges/value"]
            if e.shape not in ((len(first["step"]), 3), (len(first["step"]), 3, 3)):
                bad(f"box/edges/value has shape {e.shape}, expected ({len(first['step'])}, 3) or (.., 3, 3)")
            elif e.ndim == 3 and np.any(e[()] * (1 - np.eye(3)) != 0):
                bad("box/edges/value of a rectangular box has off-diagonal entries")
            if b["edges/step"].id != first["step"].id:
                bad("box/edges/step is not position's step (hard link)")
            if units == "metal" and unit_of(e) != "Angstrom":
                bad(f"box/edges unit is {unit_of(e)!r}")
    for name in ("species", "mass", "id"):
        if name not in t:
            bad(f"no {name}")
        elif t[name].shape != (n,):
            bad(f"{name} has shape {t[name].shape}, expected ({n},)")
    if "species" in t and t["species"].dtype.kind == "i":
        names = t["species"].attrs.get("names", [])
        if len(t["species"]) and (t["species"][()].min() < 0 or t["species"][()].max() >= len(names)):
            bad(f"species values outside the {len(names)} names")
    if "observables" in f:
        for name, g in f["observables"].items():
            if not {"step", "time", "value"} <= set(g):
                bad(f"observables/{name} lacks step/time/value")
            elif len(g["value"]) != len(g["step"]):
                bad(f"observables/{name}: {len(g['value'])} values for {len(g['step'])} steps")
    return problems


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    path = sys.argv[1]
    try:
        problems = check(path)
    except (OSError, KeyError) as e:
        print(f"{path}: cannot read: {e}")
        sys.exit(2)
    if problems:
        print(f"{path}: {len(problems)} problem(s):")
        for p in problems:
            print("  - " + p)
        sys.exit(1)
    if "--quiet" not in sys.argv:
        with h5py.File(path, "r") as f:
            t = f["particles/trajectory"]
            s = next(t[k] for k in ("position", "velocity", "force", "image") if k in t)
            print(f"{path}: OK ({s['value'].shape[0]} frames of {s['value'].shape[1]} atoms, steps "
                  f"{s['step'][0]}..{s['step'][-1]})")


if __name__ == "__main__":
    main()
