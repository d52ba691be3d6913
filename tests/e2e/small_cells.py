#!/usr/bin/env python3
"""Boxes shorter than twice cutoff + skin (every periodic image within the cutoff counts, as
LAMMPS's ghosts make it), against the Debian `lmp` on the same script: a 1-atom simple cubic cell
(Morse), the 4-atom cubic Cu cell and a rattled 32-atom 2x2x2 Cu cell (Cu_u3.eam), and 8 LJ atoms
in a box shorter than the LJ cutoff itself. Every thermo column LAMMPS prints (pe, ke, etotal,
temp, press, pxx .. pyz, fmax, fnorm) at step 0 to 1e-12 and over 200 NVE steps to 1e-10
(relative, that absolute floor); each atom's force (the double-precision checkpoint of mdlite's
H5MD dump, of the run and of the same script as run 0; lmp's dump custom) at step 0 to 1e-12 and
at the last step to 1e-10 of the largest force (at least 1). The pressure tensor's
components are compared to the scale of the row's largest (an off-diagonal zero by symmetry is
rounding beside 1e5 bar on the diagonal).

usage: small_cells.py MDLITE cells|npt|ranks [MPIEXEC]
  cells: the four cells above on one rank
  npt:   fix npt iso on the 32-atom cell (starting below twice the list cutoff), and an LJ crystal
         the barostat squeezes from above twice the list cutoff to below it (the run goes on,
         its lists' ghosts replacing the minimum image), thermo to 1e-8 over 200 steps
  ranks: the 32-atom cell and the LJ box on 2 and 4 ranks against one rank, to 1e-10
"""
import math
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import fail, run, run_lmp, workdir, write  # noqa: E402

POT = "/usr/share/lammps/potentials"
TOL0, TOL = 1e-12, 1e-10
THERMO = "step temp pe ke etotal press pxx pyy pzz pxy pxz pyz fmax fnorm"
PRESSURE = ("press", "pxx", "pyy", "pzz", "pxy", "pxz", "pyz")  # to the scale of the row's largest


def rows_of(text):
    """The thermo rows of a LAMMPS-style log (lmp's, or mdlite's screen) by step."""
    rows, hdr = {}, None
    for line in text.split("\n"):
        w = line.split()
        if w and w[0] == "Step":
            hdr = [h.lower() for h in w]
        elif hdr and w and re.fullmatch(r"-?\d+", w[0]) and len(w) == len(hdr):
            rows[int(w[0])] = dict(zip(hdr, map(float, w)))
        elif w and w[0] == "Loop":
            hdr = None
    return rows


def data_file(path, box, atoms, masses, velocities):
    """A LAMMPS data file (atom_style atomic): box (lo, hi) per axis, atoms (type, x, y, z)."""
    lines = ["LAMMPS data file", "", f"{len(atoms)} atoms", f"{len(masses)} atom types", ""]
    lines += [f"{lo!r} {hi!r} {a}lo {a}hi" for (lo, hi), a in zip(box, "xyz")]
    lines += ["", "Masses", ""] + [f"{t + 1} {m!r}" for t, m in enumerate(masses)]
    lines += ["", "Atoms # atomic", ""] + [f"{i + 1} {t} {x!r} {y!r} {z!r}" for i, (t, x, y, z) in enumerate(atoms)]
    lines += ["", "Velocities", ""] + [f"{i + 1} {v[0]!r} {v[1]!r} {v[2]!r}" for i, v in enumerate(velocities)]
    return write(path, "\n".join(lines) + "\n")


def fcc_rattled(n, a, amplitude, seed):
    """n x n x n cubic fcc cells of edge a, each atom moved by up to amplitude along each axis."""
    rng = random.Random(seed)
    basis = [(0, 0, 0), (0.5, 0.5, 0), (0.5, 0, 0.5), (0, 0.5, 0.5)]
    atoms = []
    for i in range(n):
        for j in range(n):
            for k in range(n):
                for b in basis:
                    atoms.append((1,) + tuple((c + f) * a + rng.uniform(-amplitude, amplitude)
                                              for c, f in zip((i, j, k), b)))
    return atoms


def velocities(n, scale, seed):
    rng = random.Random(seed)
    v = [[rng.gauss(0, scale) for _ in range(3)] for _ in range(n)]
    mean = [sum(x[d] for x in v) / n for d in range(3)]
    return [[x[d] - mean[d] for d in range(3)] for x in v]


# name: (setup lines, steps); each script's thermo every 50 steps, 17 digits
def cases(d):
    cu32 = data_file(os.path.join(d, "cu32.data"), [(0.0, 7.23)] * 3, fcc_rattled(2, 3.615, 0.15, 7),
                     [63.546], velocities(32, 0.04, 8))
    lj8 = data_file(os.path.join(d, "lj8.data"), [(0.0, 1.9), (0.0, 2.1), (0.0, 2.3)],
                    [(1, 0.95 * (i % 2) + 0.1 * math.sin(i), 1.05 * (i // 2 % 2) + 0.07 * math.cos(3 * i),
                      1.15 * (i // 4) + 0.05 * i) for i in range(8)], [1.0], velocities(8, 0.5, 9))
    eam = ["pair_style eam", f"pair_coeff 1 1 {POT}/Cu_u3.eam"]
    return {
        "sc1_morse": (["units metal", "lattice sc 2.6", "region box block 0 1 0 1 0 1", "create_box 1 box",
                       "create_atoms 1 box", "mass 1 63.546", "pair_style morse 6.0",
                       "pair_coeff 1 1 0.3429 1.3588 2.866"], 0),
        "cu4": (["units metal", "lattice fcc 3.615", "region box block 0 1 0 1 0 1", "create_box 1 box",
                 "create_atoms 1 box"] + eam + ["velocity all create 600 4928459 loop geom"], 200),
        "cu32": (["units metal", f"read_data {cu32}"] + eam, 200),
        "lj8": (["units lj", f"read_data {lj8}", "pair_style lj/cut 2.5", "pair_coeff 1 1 1.0 1.0",
                 "neighbor 0.3 bin", "timestep 0.002"], 200),
    }


def script(setup, steps, dump, fix="fix 1 all nve", thermo=THERMO):
    return "\n".join(setup + [fix, f"thermo_style custom {thermo}", "thermo_modify format float %.17g",
                              "thermo 50", dump, f"run {steps}"]) + "\n"


def lmp_forces(path):
    """lmp's dump custom (id fx fy fz, sorted): {step: [forces in id order]}."""
    frames, lines = {}, open(path).read().split("\n")
    for k, line in enumerate(lines):
        if line.startswith("ITEM: TIMESTEP"):
            step, n = int(lines[k + 1]), int(lines[k + 3])
            body = lines[k + 9:k + 9 + n]
            frames[step] = [[float(x) for x in b.split()[1:4]] for b in body]
    return frames


def mdlite_forces(path):
    """The forces of the last frame of mdlite's H5MD file in double precision (its checkpoint, run
    units, id order): {step: forces}."""
    import h5py
    with h5py.File(path, "r") as f:
        g = f["checkpoint"]
        return {int(g.attrs["step"]): g["force"][()].tolist()}


def run_both(mdlite, d, name, setup, steps, fix="fix 1 all nve", thermo=THERMO, mdlite_cmd=None):
    """The case through lmp and mdlite: (lmp rows, mdlite rows, lmp forces, mdlite forces)."""
    every = max(steps, 1)
    lmp_dump = (f"dump f all custom {every} {name}.lmp.forces id fx fy fz\n"
                f"dump_modify f format float %.17g sort id")
    write(os.path.join(d, f"in.{name}.lmp"), script(setup, steps, lmp_dump, fix, thermo))
    run_lmp(["lmp", "-in", f"in.{name}.lmp", "-log", f"{name}.lmp.log", "-screen", "none"], cwd=d)
    ours, forces = run_mdlite(mdlite, d, name, setup, steps, fix, thermo, mdlite_cmd)
    theirs = rows_of(open(os.path.join(d, f"{name}.lmp.log")).read())
    return theirs, ours, lmp_forces(os.path.join(d, f"{name}.lmp.forces")), forces


def run_mdlite(mdlite, d, name, setup, steps, fix, thermo, launcher=None, tag=""):
    """The case through mdlite, and again as run 0 where it runs steps: (thermo rows, the forces of
    the first and last steps from the two runs' checkpoints)."""
    rows, forces = {}, {}
    for n in sorted({0, steps}):
        base = f"{name}{tag}.{n}"
        write(os.path.join(d, f"in.{base}"),
              script(setup, n, f"dump t all h5md {max(n, 1)} {base}.h5 position force", fix, thermo))
        cmd = (launcher or []) + [mdlite, "run", f"in.{base}", "--overwrite", "--set", f"output.thermo_file={base}.csv"]
        out = (run_lmp if launcher else run)(cmd, cwd=d, timeout=300).stdout
        rows.update(rows_of(out) if n == steps else {})
        forces.update(mdlite_forces(os.path.join(d, f"{base}.h5")))
    return rows, forces


def compare_rows(ours, theirs, what, tol0, tol, pfloor=1.0):
    """Every reference column at every step (pressures to the row's largest, at least pfloor)."""
    worst = 0.0
    for step, ref in sorted(theirs.items()):
        row = ours.get(step)
        if row is None:
            fail(f"{what}: step {step} printed by the reference, not by mdlite")
        t = tol0 if step == 0 else tol
        for k, v in ref.items():
            if k == "step":
                continue
            scale = (max(abs(v), 1.0) if k in ("fmax", "fnorm")  # zero by symmetry in a perfect cell
                     else max([abs(v), pfloor] + [abs(ref[c]) for c in PRESSURE if c in ref]) if k in PRESSURE
                     else max(abs(v), 1.0))
            e = abs(row[k] - v) / scale
            worst = max(worst, e)
            if not e <= t:
                fail(f"{what}: step {step} {k}: mdlite {row[k]!r}, reference {v!r} (relative {e:.3g}, tolerance {t:g})")
    if sorted(ours) != sorted(theirs):
        fail(f"{what}: steps {sorted(ours)} against {sorted(theirs)}")
    return worst


def compare_forces(ours, theirs, what, tol0, tol):
    worst = 0.0
    for step, ref in theirs.items():
        got = ours.get(step)
        if got is None or len(got) != len(ref):
            fail(f"{what}: no forces of {len(ref)} atoms at step {step} in mdlite's dump")
        fscale = max(max(abs(c) for f in ref for c in f), 1.0)  # a perfect cell: rounding about zero
        e = max(abs(a - b) for f, g in zip(ref, got) for a, b in zip(f, g)) / fscale
        worst = max(worst, e)
        if not e <= (tol0 if step == 0 else tol):
            fail(f"{what}: step {step}: forces differ by {e:.3g} of the largest ({fscale:.3g})")
    return worst


def cells(mdlite):
    d = workdir("small_cells")
    for name, (setup, steps) in cases(d).items():
        theirs, ours, lf, mf = run_both(mdlite, d, name, setup, steps)
        w = compare_rows(ours, theirs, name, TOL0, TOL)
        wf = compare_forces(mf, lf, name, TOL0, TOL)
        print(f"{name}: {len(theirs)} rows of {len(theirs[0]) - 1} columns, worst relative {w:.3g}; "
              f"forces at steps {sorted(lf)}: worst {wf:.3g} of the largest")


def npt(mdlite):
    d = workdir("small_cells_npt")
    setup, _ = cases(d)["cu32"]
    fix = "fix 1 all npt temp 600 600 0.1 iso 0 0 0.5"
    theirs, ours, _, _ = run_both(mdlite, d, "cu32_npt", setup, 200, fix, THERMO + " vol lx")
    w = compare_rows(ours, theirs, "cu32_npt", 1e-8, 1e-8)
    print(f"cu32_npt: {len(theirs)} rows, worst relative {w:.3g}; lx from {theirs[0]['lx']:.6g} to "
          f"{theirs[200]['lx']:.6g} (twice the list cutoff: {2 * (4.95 + 2.0):.4g})")
    # the LJ crystal: 4 x 4 x 4 cells at 0.8442 (6.72 long), cutoff 3.0 + skin 0.3: twice that is 6.6
    lj = ["units lj", "lattice fcc 0.8442", "region box block 0 4 0 4 0 4", "create_box 1 box", "create_atoms 1 box",
          "mass 1 1.0", "velocity all create 1.0 87287 loop geom", "pair_style lj/cut 3.0", "pair_coeff 1 1 1.0 1.0",
          "neighbor 0.3 bin", "neigh_modify every 1 delay 0 check yes"]
    fix = "fix 1 all npt temp 1.0 1.0 0.5 iso 40.0 40.0 0.5"
    theirs, ours, _, _ = run_both(mdlite, d, "lj_squeezed", lj, 200, fix, THERMO + " vol lx")
    w = compare_rows(ours, theirs, "lj_squeezed", 1e-8, 1e-8)
    lx = [r["lx"] for r in theirs.values()]
    if not (lx[0] > 6.6 > min(lx)):
        fail(f"lj_squeezed: lx {lx}: the box never passed twice the list cutoff (6.6): the case tests nothing")
    print(f"lj_squeezed: {len(theirs)} rows, worst relative {w:.3g}; lx {lx[0]:.6g} -> {min(lx):.6g} (twice the "
          f"list cutoff 6.6)")


def ranks(mdlite, mpiexec):
    d = workdir("small_cells_ranks")
    for name in ("cu32", "lj8"):
        setup, steps = cases(d)[name]
        one, f1 = run_mdlite(mdlite, d, name, setup, steps, "fix 1 all nve", THERMO, None, ".r1")
        for n in (2, 4):
            many, fn = run_mdlite(mdlite, d, name, setup, steps, "fix 1 all nve", THERMO,
                                  [mpiexec, "--oversubscribe", "-np", str(n)], f".r{n}")
            w = compare_rows(many, one, f"{name} on {n} ranks", TOL, TOL)
            wf = compare_forces(fn, f1, f"{name} on {n} ranks", TOL, TOL)
            print(f"{name} on {n} ranks against 1: worst relative {w:.3g}, forces {wf:.3g} of the largest")


def main():
    if len(sys.argv) < 3:
        fail(__doc__)
    mdlite, case = sys.argv[1], sys.argv[2]
    if case == "cells":
        cells(mdlite)
    elif case == "npt":
        npt(mdlite)
    elif case == "ranks":
        ranks(mdlite, sys.argv[3])
    else:
        fail(f"unknown case {case}")


if __name__ == "__main__":
    main()
