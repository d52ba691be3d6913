#!/usr/bin/python3
"""libmdlite's GPU backend from Python (numpy alone: it runs on the GPU machine): a Simulation on the GPU
against one on the CPU, energy, forces and 100 steps, the refusals of what the GPU lacks, and the time
of one energy-and-forces call. Exit 77 where the library has no GPU backend or no GPU is found.
usage: gpu_api.py [PYTHON_PACKAGE_DIR]"""
import os
import sys
import time

sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else
                os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import numpy as np  # noqa: E402

import mdlite  # noqa: E402

POT = "/usr/share/lammps/potentials/Cu_u3.eam"
MIXED_TOL = 1e-4  # mixed precision: float pairs


def fcc(a, n, rattle, seed):
    base = np.array([[0, 0, 0], [0.5, 0.5, 0], [0.5, 0, 0.5], [0, 0.5, 0.5]])
    cells = np.array([[i, j, k] for i in range(n) for j in range(n) for k in range(n)])
    pos = (cells[:, None, :] + base[None]).reshape(-1, 3) * a
    return pos + np.random.default_rng(seed).normal(0, rattle, pos.shape), np.eye(3) * a * n


def pair(backend, pos, cell, keys):
    return mdlite.Simulation.from_arrays(pos, cell, species=["Cu"], keys=dict(keys, **{"run.backend": backend}))


def compare(name, pos, cell, keys, failures):
    with pair("cpu", pos, cell, keys) as c, pair("gpu", pos, cell, keys) as g:
        de = abs(g.energy - c.energy) / abs(c.energy)
        f0 = max(np.sqrt((c.forces ** 2).sum(1).mean()), 1e-3)
        df = np.abs(g.forces - c.forces).max() / f0
        c.velocities = g.velocities = np.random.default_rng(5).normal(0, 0.02, pos.shape)
        c.step(100), g.step(100)
        tc, tg = c.thermo, g.thermo
        dt = max(abs(tg[k] - tc[k]) / abs(tc[k]) for k in ("potential", "kinetic", "total"))
        try:
            g.virial
            failures.append(f"{name}: the GPU's virial tensor was not refused")
        except mdlite.InputError as e:
            assert "trace alone" in str(e)
        print(f"{name}: {len(pos)} atoms: energy {de:.1e}, forces {df:.1e}, 100 steps' thermo {dt:.1e}", flush=True)
        if max(de, df, dt) > MIXED_TOL:
            failures.append(f"{name}: GPU against CPU past {MIXED_TOL}")


def call_time(pos, cell, keys):
    """Median of 20 energy-and-forces calls on the GPU (positions in, forces out), and a step's time."""
    with pair("gpu", pos, cell, keys) as g:
        g.forces
        times = []
        for _ in range(20):
            t = time.perf_counter()
            g.positions = pos
            g.forces
            times.append(time.perf_counter() - t)
        g.step(10)
        t = time.perf_counter()
        g.step(1000)
        step = (time.perf_counter() - t) / 1000
    return float(np.median(times)), step


def main():
    if not mdlite.has_gpu():
        print("gpu_api: this libmdlite has no GPU backend")
        return 77
    failures = []
    eam = {"system.units": "metal", "potential.style": "eam", "potential.file.Cu": POT, "neighbor.skin": 1.0}
    lj = {"system.units": "metal", "potential.style": "lj", "potential.epsilon": 0.4, "potential.sigma": 2.3,
          "potential.cutoff": 5.5, "system.mass": 63.5}
    try:
        compare("EAM Cu", *fcc(3.615, 6, 0.05, 1), eam, failures)
    except mdlite.RunError as e:
        if "GPU" in str(e) or "CUDA" in str(e) or "device" in str(e):
            print(f"gpu_api: no GPU: {e}")
            return 77
        raise
    compare("LJ Cu", *fcc(3.615, 6, 0.05, 2), lj, failures)
    compare("EAM Cu, 4-atom cell", *fcc(3.615, 1, 0.05, 3), eam, failures)
    call, step = call_time(*fcc(3.615, 20, 0.05, 4), eam)
    print(f"EAM 32,000 atoms on the GPU: one energy-and-forces call {call * 1e3:.3f} ms, one NVE step "
          f"{step * 1e3:.3f} ms (Simulation.step(1000))")
    for f in failures:
        print("FAILED:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
