#!/usr/bin/env python3
"""mdlite and LAMMPS (the Debian `lmp`) run the same 4000-atom LJ system from the same positions and
velocities for 100 NVE steps; every thermo column at every thermo step must agree to 1e-7 (relative,
with an absolute floor of 1e-7 for values near zero).

With --nvt: the same state under a Nose-Hoover chain (LAMMPS's `fix nvt temp T T tau`, tchain M)
for 200 steps, several targets, taus and chains: temperature, potential energy, pressure, volume
and the conserved energy (mdlite's `conserved` against LAMMPS's etotal + ecouple / N) agree to 1e-8
relative (pressure against max(|p|, 1)). A slightly wrong integrator must miss that by orders of
magnitude: mdlite run with chain 1, or a timestep 1% off, against LAMMPS's reference.

usage: lammps_compare.py MDLITE [lj|metal] [--threads N] [--nvt]
"""
import math
import os
import random
import shutil
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import fail, read_thermo, run, workdir, write  # noqa: E402

TOL = 1e-7
SYSTEMS = {
    # units: (lattice constant, cells, mass, epsilon, sigma, cutoff, skin, dt, temperature, species)
    "lj": (1.6795962, 10, 1.0, 1.0, 1.0, 2.5, 0.3, 0.005, 1.44, "A"),
    "metal": (5.385, 10, 39.948, 0.0104, 3.405, 8.5, 2.0, 0.005, 60.0, "Ar"),
}
BOLTZ = {"lj": 1.0, "metal": 8.617343e-5}
MVV2E = {"lj": 1.0, "metal": 1.0364269e-4}


def make_system(units):
    a, n, mass, _, _, _, _, _, T, _ = SYSTEMS[units]
    rng = random.Random(2026)
    basis = [(0, 0, 0), (0.5, 0.5, 0), (0.5, 0, 0.5), (0, 0.5, 0.5)]
    L = a * n
    pos, vel = [], []
    sd = math.sqrt(BOLTZ[units] * T / (mass * MVV2E[units]))
    for k in range(n):
        for j in range(n):
            for i in range(n):
                for b in basis:
                    p = [a * (c + bc) + 0.05 * a * (rng.random() - 0.5) for c, bc in zip((i, j, k), b)]
                    pos.append([x % L for x in p])
                    vel.append([rng.gauss(0, sd) for _ in range(3)])
    mean = [sum(v[d] for v in vel) / len(vel) for d in range(3)]
    vel = [[v[d] - mean[d] for d in range(3)] for v in vel]
    return L, pos, vel


def write_inputs(d, units, L, pos, vel):
    _, _, mass, eps, sigma, rc, skin, dt, _, sp = SYSTEMS[units]
    lines = [str(len(pos)),
             f'Lattice="{L!r} 0 0 0 {L!r} 0 0 0 {L!r}" Properties=species:S:1:pos:R:3:velo:R:3 pbc="T T T"']
    lines += [f"{sp} {p[0]!r} {p[1]!r} {p[2]!r} {v[0]!r} {v[1]!r} {v[2]!r}" for p, v in zip(pos, vel)]
    write(os.path.join(d, "start.xyz"), "\n".join(lines) + "\n")
    write(os.path.join(d, "run.ini"), f"""; compared with LAMMPS by tests/e2e/lammps_compare.py
[system]
units = {units}
input = start.xyz
mass = {mass!r}
[potential]
epsilon = {eps!r}
sigma = {sigma!r}
cutoff = {rc!r}
[neighbor]
skin = {skin!r}
[run]
steps = 100
timestep = {dt!r}
[output]
thermo = 10
thermo_file = mdlite.csv
""")
    data = [f"LAMMPS data written by lammps_compare.py\n\n{len(pos)} atoms\n1 atom types\n",
            f"0 {L!r} xlo xhi\n0 {L!r} ylo yhi\n0 {L!r} zlo zhi\n", f"Masses\n\n1 {mass!r}\n", "Atoms # atomic\n"]
    data += [f"{i + 1} 1 {p[0]!r} {p[1]!r} {p[2]!r}" for i, p in enumerate(pos)]
    data += ["\nVelocities\n"]
    data += [f"{i + 1} {v[0]!r} {v[1]!r} {v[2]!r}" for i, v in enumerate(vel)]
    write(os.path.join(d, "start.data"), "\n".join(data) + "\n")
    write(os.path.join(d, "in.compare"), f"""units {units}
atom_style atomic
read_data start.data
pair_style lj/cut {rc!r}
pair_coeff 1 1 {eps!r} {sigma!r}
neighbor {skin!r} bin
neigh_modify delay 0 every 1 check yes
timestep {dt!r}
fix 1 all nve
thermo_style custom step time temp pe ke etotal press
thermo_modify norm yes format float %.17g
thermo 10
run 100
""")


def parse_lammps_log(text, columns=7):
    rows, inside = [], False
    for line in text.splitlines():
        f = line.split()
        if f[:3] == ["Step", "Time", "Temp"]:
            inside = True
            continue
        if inside and f and f[0] == "Loop":
            break
        if inside and len(f) == columns:
            rows.append([float(x) for x in f])
    return rows


NVT_TOL = 1e-8
NVT_CASES = {  # units: (target temperature, tau, chain) runs
    "lj": [(1.2, 0.5, 3), (1.6, 0.1, 1), (1.0, 2.0, 5)],
    "metal": [(50.0, 0.5, 3), (80.0, 0.1, 2)],
}


def nvt_run(mdlite, lmp, d, units, target, tau, chain, mdlite_sets=()):
    """The worst relative difference of mdlite's NVT thermo from LAMMPS's, and the column."""
    _, _, _, _, _, _, _, dt, _, _ = SYSTEMS[units]
    ini = open(os.path.join(d, "run.ini")).read().replace(
        "[run]\n", f"[run]\nensemble = nvt-nose-hoover\ntarget_temperature = {target!r}\ntau = {tau!r}\n"
                   f"chain = {chain}\n").replace("steps = 100", "steps = 200").replace("mdlite.csv", "nvt.csv")
    write(os.path.join(d, "nvt.ini"), ini)
    args = [mdlite, "run", "nvt.ini", "--quiet", "--overwrite", "--set", "run.threads=1"]
    for s in mdlite_sets:
        args += ["--set", s]
    run(args, cwd=d)
    lmp_in = open(os.path.join(d, "in.compare")).read().replace(
        "fix 1 all nve", f"fix 1 all nvt temp {target!r} {target!r} {tau!r} tchain {chain}").replace(
        "thermo_style custom step time temp pe ke etotal press", "thermo_style custom step time temp pe ke etotal "
        "press vol ecouple").replace("run 100", "run 200")
    write(os.path.join(d, "in.nvt"), lmp_in)
    log = run([lmp, "-in", "in.nvt", "-log", "none"], cwd=d, env=dict(os.environ, OMP_NUM_THREADS="1")).stdout
    ref = [r for r in parse_lammps_log(log, 9)]
    ours = read_thermo(os.path.join(d, "nvt.csv"))
    if len(ref) != 21 or len(ours) != 21:
        fail(f"NVT {units} T {target} tau {tau} chain {chain}: {len(ref)} LAMMPS rows, {len(ours)} mdlite rows")
    n = len(open(os.path.join(d, "start.xyz")).read().split("\n")) - 3
    worst = (0.0, "")
    for r, o in zip(ref, ours):
        want = {"temperature": r[2], "potential_energy": r[3], "pressure": r[6], "volume": r[7],
                "conserved": r[5] + r[8] / n}
        for c, v in want.items():
            diff = abs(o[c] - v) / max(abs(v), 1.0)
            if diff > worst[0]:
                worst = (diff, f"step {int(r[0])} {c}: mdlite {o[c]!r} LAMMPS {v!r}")
    return worst


def nvt(mdlite, lmp, units):
    d = workdir(f"lammps-nvt-{units}")
    L, pos, vel = make_system(units)
    write_inputs(d, units, L, pos, vel)
    for target, tau, chain in NVT_CASES[units]:
        worst = nvt_run(mdlite, lmp, d, units, target, tau, chain)
        if worst[0] > NVT_TOL:
            fail(f"NVT {units} T {target} tau {tau} chain {chain}: {worst[1]} (rel diff {worst[0]:.3g} > {NVT_TOL})")
        print(f"NVT {units}, T {target}, tau {tau}, chain {chain}: 21 rows x 5 columns agree with LAMMPS to "
              f"{worst[0]:.3g} ({worst[1]})")
    # the test of the test: an integrator slightly off misses by orders of magnitude
    target, tau, chain = NVT_CASES[units][0]
    dt = SYSTEMS[units][7]
    for name, sets in (("chain 1 instead of 3", ["run.chain=1"]), ("timestep 1% long", [f"run.timestep={dt * 1.01!r}"])):
        worst = nvt_run(mdlite, lmp, d, units, target, tau, chain, sets)
        if worst[0] < 100 * NVT_TOL:
            fail(f"NVT {units}, {name}: only {worst[0]:.3g} from LAMMPS's chain; the comparison cannot tell")
        print(f"NVT {units}, {name}: {worst[0]:.3g} from LAMMPS (the comparison tells: > {100 * NVT_TOL:g})")


def main():
    mdlite = os.path.abspath(sys.argv[1])
    units = sys.argv[2] if len(sys.argv) > 2 else "lj"
    threads = sys.argv[sys.argv.index("--threads") + 1] if "--threads" in sys.argv else "1"
    lmp = shutil.which("lmp") or shutil.which("lmp_serial")
    if not lmp:
        fail("LAMMPS (lmp) not found: install the Debian package lammps (tools/setup.sh does)")
    if "--nvt" in sys.argv:
        return nvt(mdlite, lmp, units)
    d = workdir(f"lammps-{units}")
    L, pos, vel = make_system(units)
    write_inputs(d, units, L, pos, vel)
    run([mdlite, "run", "run.ini", "--quiet", "--set", f"run.threads={threads}"], cwd=d)
    env = dict(os.environ, OMP_NUM_THREADS="1")
    log = run([lmp, "-in", "in.compare", "-log", "none"], cwd=d, env=env).stdout
    ref = parse_lammps_log(log)
    ours = read_thermo(os.path.join(d, "mdlite.csv"))
    if len(ref) != 11 or len(ours) != 11:
        fail(f"expected 11 thermo rows, LAMMPS {len(ref)}, mdlite {len(ours)}\n{log[-2000:]}")
    cols = ["step", "time", "temperature", "potential_energy", "kinetic_energy", "total_energy", "pressure"]
    worst = (0.0, "")
    for r, o in zip(ref, ours):
        for k, c in enumerate(cols):
            diff = abs(o[c] - r[k]) / max(abs(r[k]), 1.0)
            if diff > worst[0]:
                worst = (diff, f"step {int(r[0])} {c}: mdlite {o[c]!r} LAMMPS {r[k]!r}")
            if diff > TOL:
                fail(f"step {int(r[0])} {c}: mdlite {o[c]!r}, LAMMPS {r[k]!r} (rel diff {diff:.3g} > {TOL})")
    print(f"{units}: 11 thermo rows x 7 columns agree with LAMMPS; largest relative difference {worst[0]:.3g} "
          f"({worst[1]})")


if __name__ == "__main__":
    main()
