#!/usr/bin/env python3
"""Triclinic boxes (LAMMPS's restricted form: a along x, b in the xy plane) against the Debian `lmp`
on the same script, and the files that carry them.

usage: triclinic.py MDLITE CASE [MPIEXEC]
  md:       an LJ liquid (fcc in `region prism`, 200 NVE steps) and an EAM crystal (Cu_u3.eam in a
            prism of whole cells), every thermo column (xy xz yz, cella .. cellgamma, the pressure
            tensor included) to 1e-10, step 0 to 1e-12, and the last step's forces to 1e-10
  cells:    fcc Cu's 1-atom primitive cell, a rattled 4-atom sheared cell read from a data file with
            the tilt line, hcp Mg's 2-atom primitive cell (Mg_mm.eam.fs), a diamond cell in an
            oriented lattice: energy, forces and pressure tensor to 1e-12 (run 0)
  lattices: lattice hcp, diamond, custom, orient, origin, spacing in block and prism regions:
            write_data of both programs, every atom's position equal to the bit (the initial
            data file, written after mdlite's first wrap: to 1e-14)
  ranks:    the LJ liquid on 2 and 4 ranks against one, to 1e-10
  npt:      fix npt iso on the LJ liquid's and the EAM crystal's prisms (the tilts scale with the
            edges), 200 steps, every column and the last forces to 1e-8
  files:    mdlite's data file read back by lmp (the same energy to 1e-12); extended XYZ Lattice=
            (9 values) and H5MD box/edges (the 3x3 matrix) as ASE and MDAnalysis read them; a
            restart from the H5MD checkpoint equal to the run never stopped; ASE's bulk("Cu")
            (a primitive cell in another orientation) read from extended XYZ, rotated into LAMMPS's
            form: its energy per atom that of the cubic cell
  minimize: CG on the rattled sheared cell: lmp's iterations and final energy to 1e-10
  bad:      tilts past LAMMPS's limits (data file, INI, region prism), a degenerate and a left-handed
            Lattice=, orient vectors not orthogonal or not right-handed (script and INI), a tilt that
            is not a number: exit 2, the file, line or key named
"""
import math
import os
import random
import shutil
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import fail, run, run_lmp, workdir, write  # noqa: E402
from small_cells import compare_forces, compare_rows, lmp_forces, mdlite_forces, rows_of  # noqa: E402

POT = "/usr/share/lammps/potentials"
THERMO = "step temp pe ke etotal press pxx pyy pzz pxy pxz pyz fmax fnorm vol lx ly lz xy xz yz cella cellb cellc " \
         "cellalpha cellbeta cellgamma"
LJ = ["units lj", "lattice fcc 0.8442", "region box prism 0 8 0 8 0 8 1.6 -0.8 0.8", "create_box 1 box",
      "create_atoms 1 box", "mass 1 1.0", "velocity all create 1.44 87287 loop geom", "pair_style lj/cut 2.5",
      "pair_coeff 1 1 1.0 1.0", "neighbor 0.3 bin", "neigh_modify delay 0 every 1 check yes"]
EAM = ["units metal", "lattice fcc 3.615", "region box prism 0 5 0 5 0 5 1 -1 2", "create_box 1 box",
       "create_atoms 1 box", "pair_style eam", f"pair_coeff 1 1 {POT}/Cu_u3.eam",
       "velocity all create 1200 4928459 loop all"]


def script(setup, steps, dump, fix="fix 1 all nve", thermo=THERMO, every=50, extra=()):
    return "\n".join(list(setup) + [fix, f"thermo_style custom {thermo}", "thermo_modify format float %.17g",
                                    f"thermo {every}", dump] + list(extra) + [f"run {steps}"]) + "\n"


def both(mdlite, d, name, setup, steps, fix="fix 1 all nve", thermo=THERMO, launcher=None, lmp=True):
    """The script through lmp (thermo rows, last step's forces) and mdlite (rows, checkpoint forces)."""
    theirs = lf = None
    if lmp:
        write(os.path.join(d, f"in.{name}.lmp"), script(
            setup, steps, f"dump f all custom {max(steps, 1)} {name}.forces id fx fy fz\n"
                          "dump_modify f format float %.17g sort id", fix, thermo))
        run_lmp(["lmp", "-in", f"in.{name}.lmp", "-log", f"{name}.lmp.log", "-screen", "none"], cwd=d)
        theirs = rows_of(open(os.path.join(d, f"{name}.lmp.log")).read())
        lf = lmp_forces(os.path.join(d, f"{name}.forces"))
    write(os.path.join(d, f"in.{name}"), script(setup, steps, f"dump t all h5md {max(steps, 1)} {name}.h5md position "
                                                              f"force image", fix, thermo))
    cmd = (launcher or []) + [mdlite, "run", f"in.{name}", "--overwrite", "--set", f"output.thermo_file={name}.csv"]
    ours = rows_of((run_lmp if launcher else run)(cmd, cwd=d, timeout=600).stdout)
    return theirs, ours, lf, mdlite_forces(os.path.join(d, f"{name}.h5md"))


def md(mdlite):
    d = workdir("triclinic_md")
    for name, setup in (("lj", LJ), ("eam", EAM)):
        theirs, ours, lf, mf = both(mdlite, d, name, setup, 200)
        if not theirs[0]["xy"] and not theirs[0]["xz"]:
            fail(f"{name}: the reference's box is not triclinic: the case tests nothing")
        w = compare_rows(ours, theirs, name, 1e-12, 1e-10)
        wf = compare_forces(mf, {200: lf[200]}, name, 1e-10, 1e-10)
        print(f"{name}: {len(theirs)} rows of {len(theirs[0]) - 1} columns, worst relative {w:.3g} (tilts "
              f"{theirs[0]['xy']:.4g} {theirs[0]['xz']:.4g} {theirs[0]['yz']:.4g}); forces at step 200 {wf:.3g}")


def restricted(a, b, c):
    """LAMMPS's restricted form of the cell a, b, c: lx ly lz xy xz yz."""
    dot = lambda u, v: sum(x * y for x, y in zip(u, v))  # noqa: E731
    lx = math.sqrt(dot(a, a))
    xy = dot(b, a) / lx
    ly = math.sqrt(dot(b, b) - xy * xy)
    xz = dot(c, a) / lx
    yz = (dot(b, c) - xy * xz) / ly
    lz = math.sqrt(dot(c, c) - xz * xz - yz * yz)
    # a tilt of half the edge (every primitive fcc cell has one) exactly half, so LAMMPS's limit holds
    snap = lambda t, l: math.copysign(0.5 * l, t) if abs(abs(t / l) - 0.5) < 1e-12 else t  # noqa: E731
    return lx, ly, lz, snap(xy, lx), snap(xz, lx), snap(yz, ly)


def prism_box(lx, ly, lz, xy, xz, yz):
    return f"region box prism 0 {lx!r} 0 {ly!r} 0 {lz!r} {xy!r} {xz!r} {yz!r} units box"


def sheared_data(path):
    """4 Cu atoms in a sheared cubic cell, each moved by up to 0.15 A: a data file with the tilt line."""
    rng = random.Random(11)
    a, tilt = 3.615, (0.9, -0.6, 0.4)
    lines = ["sheared fcc cell", "", "4 atoms", "1 atom types", "", f"0 {a!r} xlo xhi", f"0 {a!r} ylo yhi",
             f"0 {a!r} zlo zhi", f"{tilt[0]!r} {tilt[1]!r} {tilt[2]!r} xy xz yz", "", "Masses", "", "1 63.546", "",
             "Atoms # atomic", ""]
    for i, f in enumerate([(0, 0, 0), (0.5, 0.5, 0), (0.5, 0, 0.5), (0, 0.5, 0.5)]):
        p = [a * f[0] + tilt[0] * f[1] + tilt[1] * f[2], a * f[1] + tilt[2] * f[2], a * f[2]]
        p = [x + rng.uniform(-0.15, 0.15) for x in p]
        lines.append(f"{i + 1} 1 {p[0]!r} {p[1]!r} {p[2]!r}")
    return write(path, "\n".join(lines) + "\n")


def cell_cases(d):
    a = 3.615
    fcc = restricted((0, a / 2, a / 2), (a / 2, 0, a / 2), (a / 2, a / 2, 0))
    am, cm = 3.21, 5.21
    hcp = restricted((am, 0, 0), (am / 2, am * math.sqrt(3) / 2, 0), (0, 0, cm))
    sheared = sheared_data(os.path.join(d, "sheared.data"))
    cu = ["pair_style eam", f"pair_coeff 1 1 {POT}/Cu_u3.eam"]
    return {
        "fcc_primitive": ["units metal", prism_box(*fcc), "create_box 1 box",
                          f"lattice custom 1.0 a1 {fcc[0]!r} 0 0 a2 {fcc[3]!r} {fcc[1]!r} 0 a3 {fcc[4]!r} {fcc[5]!r} "
                          f"{fcc[2]!r} basis 0 0 0 spacing 1 1 1", "create_atoms 1 box"] + cu,
        "sheared_rattled": ["units metal", f"read_data {sheared}"] + cu,
        "hcp_mg": ["units metal", prism_box(*hcp), "create_box 1 box",
                   f"lattice custom 1.0 a1 {hcp[0]!r} 0 0 a2 {hcp[3]!r} {hcp[1]!r} 0 a3 {hcp[4]!r} {hcp[5]!r} "
                   f"{hcp[2]!r} basis 0 0 0 basis {1 / 3!r} {1 / 3!r} 0.5 spacing 1 1 1", "create_atoms 1 box",
                   "mass 1 24.305", "pair_style eam/fs", f"pair_coeff * * {POT}/Mg_mm.eam.fs Mg"],
        "diamond_oriented": ["units metal", "lattice diamond 5.431 orient x 1 1 0 orient y -1 1 0 orient z 0 0 1",
                             "region box prism 0 2 0 2 0 1 0.5 0 0", "create_box 1 box", "create_atoms 1 box",
                             "mass 1 28.0855", "pair_style morse 4.0", "pair_coeff 1 1 0.2 1.5 2.35"],
    }


def cells(mdlite):
    d = workdir("triclinic_cells")
    for name, setup in cell_cases(d).items():
        theirs, ours, lf, mf = both(mdlite, d, name, setup, 0)
        # a crystal near equilibrium: its pressure a small difference of pair virials of 1e4-1e5 bar
        w = compare_rows(ours, theirs, name, 1e-12, 1e-12, pfloor=1e3)
        wf = compare_forces(mf, lf, name, 1e-12, 1e-12)
        r = theirs[0]
        print(f"{name}: pe {r['poteng']:.12g}, press {r['press']:.8g}, worst "
              f"relative {w:.3g}, forces {wf:.3g} (cell {r['cella']:.5g} {r['cellb']:.5g} {r['cellc']:.5g}, "
              f"{r['cellalpha']:.5g} {r['cellbeta']:.5g} {r['cellgamma']:.5g})")


LATTICES = {
    "hcp": ("metal", "lattice hcp 3.21", "region box block 0 3 0 2 0 2"),
    "diamond": ("metal", "lattice diamond 5.43", "region box block 0 2 0 2 0 2"),
    "orient110": ("metal", "lattice fcc 3.615 orient x 1 1 0 orient y -1 1 0 orient z 0 0 1",
                  "region box block 0 3 0 3 0 2"),
    "orient111": ("metal", "lattice fcc 3.615 orient x 1 -1 0 orient y 1 1 -2 orient z 1 1 1",
                  "region box block 0 2 0 2 0 2"),
    "origin": ("metal", "lattice fcc 3.615 origin 0.25 0.25 0.25", "region box block 0 2 0 2 0 2"),
    "spacing": ("metal", "lattice bcc 2.87 spacing 1 1 1.5", "region box block 0 2 0 2 0 2"),
    "custom_prism": ("metal", "lattice custom 3.0 a1 1 0 0 a2 0.5 0.8660254037844386 0 a3 0 0 1.6 basis 0 0 0 "
                              "basis 0.3333333 0.3333333 0.5", "region box prism 0 4 0 4 0 3 2 0 0"),
    "fcc_prism_lj": ("lj", "lattice fcc 0.8442", "region box prism 0 4 0 4 0 4 2 -1 1"),
    "prism_box_units": ("metal", "lattice fcc 3.615", "region box prism -1 10 2 12.5 0 9 3 1 -2 units box"),
    "block_box_units": ("metal", "lattice fcc 3.615", "region box block -2.3 9.1 0.5 11 1 8.7 units box"),
}


def data_atoms(path):
    lines = open(path).read().split("\n")
    k = lines.index("Atoms # atomic")
    out = {}
    for line in lines[k + 2:]:
        if not line.strip():
            break
        w = line.split()
        out[int(w[0])] = [float(x) for x in w[2:5]]
    return out


def lattices(mdlite):
    d = workdir("triclinic_lattices")
    for name, (units, lat, reg) in LATTICES.items():
        body = f"units {units}\n{lat}\n{reg}\ncreate_box 1 box\ncreate_atoms 1 box\nmass 1 1.0\nwrite_data {{}}\n"
        write(os.path.join(d, f"in.{name}.lmp"), body.format(f"{name}.lmp.data"))
        run_lmp(["lmp", "-in", f"in.{name}.lmp", "-screen", "none", "-log", "none"], cwd=d)
        write(os.path.join(d, f"in.{name}"), body.format(f"{name}.data") +
              "pair_style lj/cut 1.0\npair_coeff 1 1 0.001 0.5\nrun 0\n")
        run([mdlite, "run", f"in.{name}", "--overwrite"], cwd=d)
        ref, got = data_atoms(os.path.join(d, f"{name}.lmp.data")), data_atoms(os.path.join(d, f"{name}.data"))
        if sorted(ref) != sorted(got):
            fail(f"{name}: LAMMPS made {len(ref)} atoms, mdlite {len(got)}")
        worst = max(abs(x - y) for i in ref for x, y in zip(ref[i], got[i]))
        tri = "prism" in reg
        if not worst <= (1e-14 * 30 if tri else 0.0):
            fail(f"{name}: atom positions differ by {worst:.3g} from LAMMPS's (ids in create_atoms order)")
        print(f"{name}: {len(ref)} atoms, each where LAMMPS puts it (worst {worst:.3g})")


def ranks(mdlite, mpiexec):
    d = workdir("triclinic_ranks")
    _, one, _, f1 = both(mdlite, d, "one", LJ, 200, lmp=False)
    for n in (2, 4):
        _, many, _, fn = both(mdlite, d, f"r{n}", LJ, 200, launcher=[mpiexec, "--oversubscribe", "-np", str(n)],
                              lmp=False)
        w = compare_rows(many, one, f"{n} ranks", 1e-10, 1e-10)
        wf = compare_forces(fn, f1, f"{n} ranks", 1e-10, 1e-10)
        print(f"LJ prism on {n} ranks against 1: worst relative {w:.3g}, forces {wf:.3g}")


def files(mdlite):
    import h5py
    import numpy as np
    from ase.build import bulk
    import ase.io
    import MDAnalysis as mda
    d = workdir("triclinic_files")
    # mdlite's data file, read back by lmp
    ours = rows_of(run([mdlite, "run", write(os.path.join(d, "in.eam"), script(
        EAM, 20, "", every=20) + "write_data out.data\n"), "--overwrite"], cwd=d).stdout)
    text = open(os.path.join(d, "out.data")).read()
    if "xy xz yz" not in text:
        fail("mdlite's data file has no tilt line")
    write(os.path.join(d, "in.back"), "\n".join(["units metal", "read_data out.data", "pair_style eam",
                                                  f"pair_coeff 1 1 {POT}/Cu_u3.eam",
                                                  "thermo_style custom step pe press xy xz yz",
                                                  "thermo_modify format float %.17g", "run 0"]) + "\n")
    run_lmp(["lmp", "-in", "in.back", "-log", "back.log", "-screen", "none"], cwd=d)
    back = rows_of(open(os.path.join(d, "back.log")).read())[0]
    e = abs(back["poteng"] - ours[20]["poteng"]) / abs(ours[20]["poteng"])
    if not e <= 1e-12 or back["xy"] != ours[20]["xy"]:
        fail(f"lmp on mdlite's data file: pe {back['poteng']!r} against mdlite's {ours[20]['poteng']!r}, xy {back['xy']}")
    print(f"data file: lmp reads mdlite's (tilts {back['xy']:.6g} {back['xz']:.6g} {back['yz']:.6g}), pe to {e:.2g}")
    # extended XYZ and H5MD, as ASE and MDAnalysis read them
    sets = ["--set", "output.trajectory=t.xyz", "--set", "output.dump_every=10"]
    run([mdlite, "run", os.path.join(d, "in.eam"), "--overwrite"] + sets, cwd=d)
    want = np.array([[ours[20]["lx"], 0, 0], [ours[20]["xy"], ours[20]["ly"], 0],
                     [ours[20]["xz"], ours[20]["yz"], ours[20]["lz"]]])
    cell = ase.io.read(os.path.join(d, "t.xyz"), index=-1).cell.array
    if not np.allclose(cell, want, rtol=1e-9, atol=1e-9):
        fail(f"ASE's cell of the extended XYZ file {cell.tolist()}, not {want.tolist()}")
    run([mdlite, "run", os.path.join(d, "in.eam"), "--overwrite", "--set", "output.trajectory=t.h5md",
         "--set", "output.dump_every=10"], cwd=d)
    with h5py.File(os.path.join(d, "t.h5md"), "r") as f:
        edges = f["particles/trajectory/box/edges/value"][-1]
    if not np.allclose(edges, want, rtol=1e-12):
        fail(f"H5MD box/edges {edges.tolist()}, not the rows a, b, c {want.tolist()}")
    u = mda.Universe(os.path.join(d, "t.h5md"))
    u.trajectory[-1]
    dims = u.dimensions
    wantd = [ours[20][k] for k in ("cella", "cellb", "cellc", "cellalpha", "cellbeta", "cellgamma")]
    if not np.allclose(dims, wantd, rtol=1e-6):
        fail(f"MDAnalysis's dimensions {list(dims)}, LAMMPS's cella .. cellgamma {wantd}")
    print(f"extended XYZ (ASE's cell) and H5MD edges (MDAnalysis's dimensions {np.round(dims, 4).tolist()}) hold the "
          "triclinic box")
    # a restart from the checkpoint is the run never stopped
    straight = rows_of(run([mdlite, "run", os.path.join(d, "in.eam"), "--overwrite", "--set",
                            "output.trajectory=s.h5md", "--set", "output.dump_every=10"], cwd=d).stdout)
    run([mdlite, "run", os.path.join(d, "in.eam"), "--overwrite", "--set", "output.trajectory=cut.h5md", "--set",
         "output.dump_every=10", "--set", "run.steps=10"], cwd=d)
    again = rows_of(run([mdlite, "run", os.path.join(d, "in.eam"), "--overwrite", "--set",
                         "output.trajectory=cut.h5md", "--set", "output.dump_every=10", "--restart", "cut.h5md"],
                        cwd=d).stdout)
    if again.get(20) != straight[20]:
        fail(f"restart at step 10: step 20 {again.get(20)} against the straight run's {straight[20]}")
    print("restart from the step-10 checkpoint: step 20 equal to the straight run's, every column to the bit")
    # ASE's primitive fcc cell, in its own orientation
    atoms = bulk("Cu", "fcc", a=3.615)
    ase.io.write(os.path.join(d, "cu1.xyz"), atoms, format="extxyz")
    ini = write(os.path.join(d, "cu1.ini"), "[system]\nunits = metal\ninput = cu1.xyz\ntemperature = 0\n"
                "[potential]\nstyle = eam\nfile.Cu = " + f"{POT}/Cu_u3.eam\n[run]\nsteps = 0\n"
                "[output]\nthermo_columns = step pe press\nthermo_format = float=%.17g\nthermo_norm = yes\n")
    p = run([mdlite, "run", ini, "--overwrite"], cwd=d)
    pe1 = list(rows_of(p.stdout).values())[0]["poteng"]
    cube = write(os.path.join(d, "cu4.ini"), open(ini).read().replace("input = cu1.xyz\n",
                 "lattice = fcc\nlattice_constant = 3.615\ncells = 1 1 1\nspecies = Cu\n"))
    pe4 = list(rows_of(run([mdlite, "run", cube, "--overwrite"], cwd=d).stdout).values())[0]["poteng"]
    if "rotated" not in p.stderr or not abs(pe1 - pe4) <= 1e-12 * abs(pe4):
        fail(f"ASE's bulk('Cu'): pe/atom {pe1!r} against the cubic cell's {pe4!r}; stderr {p.stderr}")
    print(f"ASE's bulk('Cu') primitive cell (rotated into LAMMPS's form, with a note): pe/atom {pe1:.15g}, the cubic "
          f"cell's {pe4:.15g}")


def minimize(mdlite):
    d = workdir("triclinic_minimize")
    setup = ["units metal", f"read_data {sheared_data(os.path.join(d, 'sheared.data'))}", "pair_style eam",
             f"pair_coeff 1 1 {POT}/Cu_u3.eam"]
    body = "\n".join(setup + ["thermo_style custom step pe press pxy", "thermo_modify format float %.17g",
                              "minimize 0 1e-10 500 5000"]) + "\n"
    write(os.path.join(d, "in.min"), body)
    run_lmp(["lmp", "-in", "in.min", "-log", "lmp.log", "-screen", "none"], cwd=d)
    theirs = rows_of(open(os.path.join(d, "lmp.log")).read())
    ours = rows_of(run([mdlite, "run", "in.min", "--overwrite"], cwd=d).stdout)
    last = max(theirs)
    if max(ours) != last:
        fail(f"minimize: mdlite ended at iteration {max(ours)}, lmp at {last}")
    e = abs(ours[last]["poteng"] - theirs[last]["poteng"]) / abs(theirs[last]["poteng"])
    if not e <= 1e-10:
        fail(f"minimize: final pe {ours[last]['poteng']!r} against lmp's {theirs[last]['poteng']!r}")
    print(f"minimize on the sheared rattled cell: {last} iterations as lmp, final pe {theirs[last]['poteng']:.15g} "
          f"(relative {e:.2g})")


def npt(mdlite):
    """fix npt iso on triclinic boxes (the tilts scale with the edges, LAMMPS's scalexy/xz/yz yes):
    the LJ liquid squeezed and the EAM crystal relaxed, 200 steps, every column against lmp."""
    d = workdir("triclinic_npt")
    for name, setup, fix in (("lj", LJ, "fix 1 all npt temp 1.44 1.44 0.5 iso 4.0 4.0 1.0"),
                             ("eam", EAM, "fix 1 all npt temp 1200 1200 0.1 iso 20000 20000 0.5")):
        theirs, ours, lf, mf = both(mdlite, d, name, setup, 200, fix=fix)
        first, last = theirs[0], theirs[200]
        moved = abs(last["xy"] / first["xy"] - 1)
        if moved < 1e-4 or abs(last["xy"] / last["ly"] - first["xy"] / first["ly"]) > 1e-12:
            fail(f"{name}: xy {first['xy']} -> {last['xy']}: lmp's tilt did not scale with ly (the case tests nothing)")
        w = compare_rows(ours, theirs, f"npt {name}", 1e-8, 1e-8)
        wf = compare_forces(mf, {200: lf[200]}, f"npt {name}", 1e-8, 1e-8)
        print(f"npt iso {name}: {len(theirs)} rows, worst relative {w:.3g}; xy {first['xy']:.6g} -> "
              f"{last['xy']:.6g} ({moved:.3g}); forces at step 200 {wf:.3g}")


def bad(mdlite):
    d = workdir("triclinic_bad")
    good = open(sheared_data(os.path.join(d, "ok.data"))).read()
    runner = "pair_style eam\npair_coeff 1 1 {}/Cu_u3.eam\nrun 0\n".format(POT)
    cases = [
        ("data tilt past the limit", "big.data", good.replace("0.9 -0.6 0.4 xy", "1.9 -0.6 0.4 xy"),
         f"units metal\nread_data big.data\n{runner}", "big.data:9: xy xz yz"),
        ("data tilt not a number", "nan.data", good.replace("0.9 -0.6 0.4 xy", "nan -0.6 0.4 xy"),
         f"units metal\nread_data nan.data\n{runner}", "nan.data:9"),
        ("region prism past the limit", None, None,
         f"units metal\nlattice fcc 3.615\nregion box prism 0 2 0 2 0 2 1.2 0 0\ncreate_box 1 box\n{runner}",
         "in.case:4"),
        ("orient not orthogonal", None, None,
         f"units metal\nlattice fcc 3.615 orient x 1 1 0 orient y 1 0 0 orient z 0 0 1\n{runner}", "in.case:2"),
        ("orient left-handed", None, None,
         f"units metal\nlattice fcc 3.615 orient x 1 1 0 orient y 1 -1 0 orient z 0 0 1\n{runner}", "in.case:2"),
    ]
    write(os.path.join(d, "ok.data"), good)
    for what, dfile, dtext, text, named in cases:
        if dfile:
            write(os.path.join(d, dfile), dtext)
        write(os.path.join(d, "in.case"), text)
        p = run([mdlite, "run", "in.case", "--overwrite"], cwd=d, check=False)
        if p.returncode != 2 or named not in p.stderr:
            fail(f"{what}: exit {p.returncode}, expected 2 naming '{named}': {p.stderr}")
        print(f"{what}: exit 2, {p.stderr.strip().splitlines()[-1][:150]}")
    inis = [("INI tilt past the limit", "tilt = 6 0 0", "[system] tilt"),
            ("INI orient not right-handed", "lattice_orient = 1 1 0 1 -1 0 0 0 1", "[system] lattice_orient"),
            ("INI tilt without a box", None, "[system] tilt")]
    for what, line, named in inis:
        body = "[system]\nunits = lj\nlattice = fcc\ndensity = 0.8442\ntemperature = 1.0\n"
        body += "box = 10 10 10\n" + line + "\n" if line else "cells = 4 4 4\ntilt = 1 0 0\n"
        p = run([mdlite, "run", write(os.path.join(d, "case.ini"), body), "--overwrite"], cwd=d, check=False)
        if p.returncode != 2 or named not in p.stderr or "case.ini:" not in p.stderr:
            fail(f"{what}: exit {p.returncode}, expected 2 naming case.ini and '{named}': {p.stderr}")
        print(f"{what}: exit 2, {p.stderr.strip().splitlines()[-1][:150]}")
    for what, lattice in (("a degenerate Lattice=", "3 0 0 0 3 0 3 3 0"), ("a left-handed Lattice=", "3 0 0 0 3 0 0 0 -3")):
        write(os.path.join(d, "c.xyz"), f'1\nLattice="{lattice}" Properties=species:S:1:pos:R:3\nCu 0 0 0\n')
        ini = write(os.path.join(d, "x.ini"), f"[system]\nunits = metal\ninput = c.xyz\ntemperature = 0\n"
                    f"[potential]\nstyle = eam\nfile.Cu = {POT}/Cu_u3.eam\n")
        p = run([mdlite, "run", ini, "--overwrite"], cwd=d, check=False)
        if p.returncode != 2 or "c.xyz:2: Lattice=" not in p.stderr:
            fail(f"{what}: exit {p.returncode}, expected 2 naming c.xyz:2: {p.stderr}")
        print(f"{what}: exit 2, {p.stderr.strip().splitlines()[-1][:150]}")


def main():
    if len(sys.argv) < 3:
        fail(__doc__)
    mdlite, case = sys.argv[1], sys.argv[2]
    if not os.path.exists(f"{POT}/Cu_u3.eam"):
        print("SKIP: no Cu_u3.eam (Debian's lammps-data: tools/setup.sh)")
        sys.exit(77)
    cases = {"md": md, "cells": cells, "lattices": lattices, "files": files, "minimize": minimize, "bad": bad, "npt": npt}
    if case == "ranks":
        ranks(mdlite, sys.argv[3])
    elif case in cases:
        cases[case](mdlite)
    else:
        fail(f"unknown case {case}")


if __name__ == "__main__":
    main()
