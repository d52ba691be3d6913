#!/usr/bin/env python3
"""mdlite and LAMMPS (the Debian `lmp`) run the same 4000-atom LJ system from the same positions and
velocities for 100 NVE steps; every thermo column at every thermo step must agree to 1e-7 (relative,
with an absolute floor of 1e-7 for values near zero).

Nose-Hoover NVT and NPT: lammps_nose_hoover.py.

usage: lammps_compare.py MDLITE [lj|metal] [--threads N]
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


def main():
    mdlite = os.path.abspath(sys.argv[1])
    units = sys.argv[2] if len(sys.argv) > 2 else "lj"
    threads = sys.argv[sys.argv.index("--threads") + 1] if "--threads" in sys.argv else "1"
    lmp = shutil.which("lmp") or shutil.which("lmp_serial")
    if not lmp:
        fail("LAMMPS (lmp) not found: install the Debian package lammps (tools/setup.sh does)")
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
