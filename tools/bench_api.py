#!/usr/bin/python3
"""libmdlite from Python against the program, on one CPU core, alternated, medians of repeats:
  1. one energy-and-forces call (positions in, forces out) on in.eam's 32,000 atoms against the
     engine's own force phase per step in `mdlite run` (its phase table);
  2. Simulation.step(N) against `mdlite run`'s loop time for the same N steps.
usage: tools/bench_api.py [REPEATS] [STEPS]   (from the repository root, after tools/setup.sh)"""
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
import mdlite  # noqa: E402

CONFIG = os.path.join(ROOT, "input", "eam_cu.ini")
SETS = {"run.threads": 1, "output.thermo": 0, "output.thermo_file": ""}


def program(steps, folder):
    """`mdlite run` of CONFIG for `steps` steps: (loop seconds, force-phase seconds per step)."""
    cmd = [os.path.join(ROOT, "build", "mdlite"), "run", CONFIG, "--quiet", "--set", f"run.steps={steps}"]
    for k, v in SETS.items():
        cmd += ["--set", f"{k}={v}"]
    out = subprocess.run(cmd, cwd=folder, check=True, capture_output=True, text=True,
                         env=dict(os.environ, OMP_NUM_THREADS="1")).stdout
    loop = float(re.search(r"Loop time of (\S+) s", out).group(1))
    force = float(re.search(r"^Force\s*\|\s*(\S+)", out, re.M).group(1))
    return loop, force / steps


def python_call(sim, pos, calls):
    """The median time of `calls` calls that set the positions and read the forces (a new evaluation each)."""
    times = []
    for _ in range(calls):
        t = time.perf_counter()
        sim.positions = pos
        f = sim.forces
        times.append(time.perf_counter() - t)
    assert f.shape == pos.shape
    return statistics.median(times)


def main():
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    os.environ["OMP_NUM_THREADS"] = "1"
    with tempfile.TemporaryDirectory() as folder:
        sets = [f"{k}={v}" for k, v in SETS.items()]
        rows = []
        for r in range(repeats):
            loop, force = program(steps, folder)
            with mdlite.Simulation(CONFIG, sets=sets) as sim:
                pos = sim.positions
                call = python_call(sim, pos, 10)
                t = time.perf_counter()
                sim.step(steps)
                step_time = time.perf_counter() - t
            rows.append((force, call, loop, step_time))
            print(f"repeat {r + 1}: force phase {force * 1e3:.2f} ms/step, Python call {call * 1e3:.2f} ms; "
                  f"mdlite run {steps} steps {loop:.3f} s, Simulation.step {step_time:.3f} s", flush=True)
    med = [statistics.median(c) for c in zip(*rows)]
    print(f"median: Python energy+forces call / force phase = {med[1] / med[0]:.3f} "
          f"({med[1] * 1e3:.2f} / {med[0] * 1e3:.2f} ms, 32,000 atoms, 1 core)")
    print(f"median: Simulation.step({steps}) / mdlite run loop = {med[3] / med[2]:.3f} ({med[3]:.3f} / {med[2]:.3f} s)")


if __name__ == "__main__":
    main()
