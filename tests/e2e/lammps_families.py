#!/usr/bin/env python3
"""LAMMPS's command families that its example scripts use, each against `lmp` on the same script
(every row to 1e-10, lammps_trust.agree) or refused naming the script's line where LAMMPS runs or
refuses what mdlite does not take.

  dim2        dimension 2, the 2-d lattices sq, sq2 and hex, fix enforce2d: NVE, Nose-Hoover NVT,
              Berendsen, rescale, cg, velocity create's options, every box thermo keyword; refusals
  real        units real (LAMMPS's constants): NVE and NVT
  variables   v_NAME thermo columns: equal variables over thermo keywords, chained, normalised or not,
              redefined between runs; an atom variable defined, never used; refusals
  types       create_box of several types filled with one, set type / set region (INF, EDGE), group,
              balance, processors with stars; comm_style, fix balance, fix and compute property/atom
              (numbers unchanged); refusals
  fire        min_style fire moving the atoms' own velocities (temperature and pressure in thermo, a
              run after it going on from them), in 3-d and 2-d, min_modify's integrators and keys,
              fire/old; dt and time under it refused
  ramps       a thermostat's moving target (Tstart Tstop): temp/berendsen and temp/rescale (with its
              window), fix nvt and fix npt ramping over staged runs against lmp, run N upto (a ramp
              over its span), a restart along the ramp bit for bit; Langevin's and csvr's temperature
              following theirs; refusals (a pressure ramp, a restart of an unstaged ramp, upto past
              the step or after a minimize, pre no after the fixes changed)

usage: lammps_families.py MDLITE CASE
"""
import os
import random
import shutil
import sys

sys.path.insert(0, os.path.dirname(__file__))
import lammps_trust  # noqa: E402
from common import SKIP, fail, run, run_lmp, terminate_at_row, workdir, write  # noqa: E402
from lammps_trust import agree, lammps_refuses, refused  # noqa: E402

BOX_COLUMNS = "thermo_style custom step temp pe ke etotal press vol density pxx pyy pzz pxy pxz pyz lx ly lz zlo zhi\n"


def lj2d(lattice="sq2 0.8442", cells="0 20 0 20 -0.1 0.1", velocity="velocity all create 5.0 87287 loop geom"):
    return (f"units lj\ndimension 2\natom_style atomic\nlattice {lattice}\nregion box block {cells}\n"
            f"create_box 1 box\ncreate_atoms 1 box\nmass 1 1.0\n{velocity}\npair_style lj/cut 2.5\n"
            "pair_coeff 1 1 1.0 1.0 2.5\nneighbor 0.3 bin\nneigh_modify delay 0 every 1 check yes\n")


def dim2(d):
    agree(d, "sq2_nve", lj2d() + "fix 1 all nve\nfix 2 all enforce2d\n" + BOX_COLUMNS + "thermo 20\nrun 200\n",
          what="sq2, NVE, the box's keywords (the area as volume, pzz 0)")
    agree(d, "hex_nvt", lj2d("hex 0.7", "0 12 0 8 -0.5 0.5", "velocity all create 1.0 4928 dist gaussian mom yes") +
          "fix 1 all nvt temp 1.0 1.0 0.5\nfix 2 all enforce2d\nthermo 25\nrun 200\n", what="hex, Nose-Hoover NVT")
    agree(d, "sq_berendsen", lj2d("sq 0.6", "0 15 0 15 -0.5 0.5", "velocity all create 2.0 777 loop all") +
          "fix 1 all nve\nfix 2 all temp/berendsen 1.0 1.0 0.2\nfix 3 all enforce2d\nthermo 25\nrun 150\n"
          "unfix 2\nfix 2 all temp/rescale 10 1.5 1.5 0.0 1.0\nrun 100\n", what="sq, Berendsen then rescale")
    agree(d, "sq2_cg", lj2d() + "fix 1 all nve\nfix 2 all enforce2d\nthermo 50\nrun 100\n"
          "minimize 1.0e-6 1.0e-4 200 1000\n", what="cg after a run")
    agree(d, "no_enforce2d", lj2d("hex 0.7", "0 10 0 6 -0.5 0.5") + "fix 1 all nve\nthermo 20\nrun 100\n",
          what="2-d without fix enforce2d (every z force 0)")
    base3 = ("units lj\natom_style atomic\nlattice fcc 0.8442\nregion box block 0 4 0 4 0 4\ncreate_box 1 box\n"
             "create_atoms 1 box\nmass 1 1.0\npair_style lj/cut 2.5\npair_coeff 1 1 1.0 1.0 2.5\n")
    for name, text, expect in [
            ("enforce2d_3d", base3 + "fix 1 all nve\nfix 2 all enforce2d\nrun 10\n", ["in.test:11:", "3d"]),
            ("fcc_2d", "units lj\ndimension 2\nlattice fcc 0.8\n", ["in.test:3:", "incompatible"]),
            ("sq_3d", "units lj\nlattice sq 0.8\n", ["in.test:2:", "incompatible"]),
            ("orient_2d", "units lj\ndimension 2\nlattice sq 0.8 orient x 1 0 1 orient z -1 0 1\n",
             ["in.test:3:", "2d simulation"])]:
        refused(d, name, text, expect)
        lammps_refuses(d, name, text)
    refused(d, "langevin_2d", lj2d() + "fix 1 all nve\nfix 2 all langevin 1.0 1.0 1.0 48279\nfix 3 all enforce2d\n"
            "run 10\n", ["in.test:", "dimension", "langevin"])
    refused(d, "npt_2d", lj2d() + "fix 1 all npt temp 1.0 1.0 0.5 iso 1.0 1.0 5.0\nfix 3 all enforce2d\nrun 10\n",
            ["in.test:", "dimension", "npt"])
    refused(d, "dimension_late", "units lj\nlattice fcc 0.8\ndimension 2\n", ["in.test:3:", "after a lattice"])


def real(d):
    text = ("units real\natom_style atomic\nlattice fcc 5.26\nregion box block 0 4 0 4 0 4\ncreate_box 1 box\n"
            "create_atoms 1 box\nmass 1 39.95\nvelocity all create 120.0 4928 loop geom\npair_style lj/cut 8.76\n"
            "pair_coeff 1 1 0.2381 3.405\nthermo_style custom step temp pe ke etotal press vol density\nthermo 10\n")
    agree(d, "real_nve", text + "fix 1 all nve\nrun 100\n", what="real units, NVE")
    agree(d, "real_nvt", text + "timestep 2.0\nfix 1 all nvt temp 100.0 100.0 100.0\nrun 100\n",
          what="real units, Nose-Hoover NVT")


def variables(d):
    base = ("units metal\natom_style atomic\nlattice fcc 3.615\nregion box block 0 4 0 4 0 4\ncreate_box 1 box\n"
            "create_atoms 1 box\npair_style eam\npair_coeff 1 1 Cu_u3.eam\nvelocity all create 600.0 12345 loop geom\n"
            "fix 1 all nve\nthermo 10\n")
    files = [os.path.join(lammps_trust.POT, "Cu_u3.eam")]
    agree(d, "v_chain", base + "variable n equal 256\nvariable e equal pe/v_n\nvariable two equal 2*v_e+ke*0\n"
          "variable t equal temp/600\nvariable p equal press*vol/(atoms*temp)\n"
          "thermo_style custom step temp pe v_e v_two v_t v_p pxx\nrun 50\n", files, "chained, over the pressure tensor")
    agree(d, "v_norm", base + "thermo_modify norm yes\nvariable e equal pe*1000\nvariable s equal sqrt(ke)+exp(-temp/1000)\n"
          "thermo_style custom step temp pe v_e v_s\nthermo_modify norm yes\nrun 30\nvariable e equal etotal\nrun 30\n",
          files, "per atom, then redefined between runs")
    agree(d, "v_atom_unused", base + "variable fx atom fx\nvariable fx atom fx*2+x\nrun 20\n", files,
          "an atom variable defined, then defined again, never used")
    for name, extra, expect in [
            ("v_atom_in_equal", "variable a atom x*2\nvariable b equal v_a+1\nprint ${b}\n",
             ["in.test:14:", "atom-style"]),
            ("v_atom_substituted", "variable a atom x*2\nprint ${a}\n", ["in.test:13:", "${a}", "atom-style"]),
            ("v_atom_thermo", "variable a atom x*2\nthermo_style custom step v_a\nrun 10\n",
             ["in.test:14:", "v_a", "atom-style"]),
            ("v_undefined", "thermo_style custom step v_nothing\nrun 10\n", ["in.test:13:", "v_nothing"]),
            ("v_string", "variable w string hello\nthermo_style custom step v_w\nrun 10\n", ["in.test:14:", "equal-style"]),
            ("v_needs_temp", "variable t equal temp/2\nthermo_style custom step pe press v_t\nrun 10\n",
             ["in.test:14:", "v_t", "temp"])]:
        refused(d, name, base + extra, expect, files)
        lammps_refuses(d, name, base + extra)
    refused(d, "v_word", base + "variable x equal frobs*2\nthermo_style custom step v_x\nrun 10\n",
            ["frobs", "not a thermo keyword"], files)


def types(d):
    base = ("units lj\natom_style atomic\nprocessors * 1 1\nlattice fcc 0.8442\nregion box block 0 6 0 6 0 6\n"
            "create_box 3 box\ncreate_atoms 2 box\nmass * 1.0\nmass 3 3.0\n")
    pair = "pair_style lj/cut 2.5\npair_coeff * * 1.0 1.0 2.5\npair_coeff 1 3 1.2 0.9 2.5\npair_coeff * 2 1.0 1.0 3.0\n"
    agree(d, "set_region", base + "region long block 2 4 0 EDGE INF INF\nset region long type 3\n"
          "region low block INF INF INF 1.5 INF INF units box\nset region low type 1\nset type 2 type 1\n"
          "region tip block 5 6 5 6 5 6\nset region tip type 2\ngroup fast type 1 2\ngroup slow region long\n"
          "group rest subtract all slow\nvelocity all create 1.0 87287\n" + pair +
          "balance 1.0 shift x 5 1.1\nfix 1 all nve\nthermo 20\nrun 100\nbalance 1.0 shift x 5 1.1\nrun 60\n",
          what="types set by block regions (EDGE, INF, box units) and by type; groups; balance")
    for name, extra, expect in [
            ("set_prism", "region p prism 0 2 0 2 0 2 0.5 0 0\nset region p type 3\n", ["in.test:11:", "prism"]),
            ("set_other", "set type 2 mass 2.0\n", ["in.test:10:", "set"]),
            ("group_fix", "group g type 1\nvelocity all create 1.0 5\n" + pair + "fix 1 g nve\nrun 10\n",
             ["group g"])]:
        refused(d, name, base + extra, expect)
    refused(d, "set_after_run", base + "velocity all create 1.0 5\n" + pair + "fix 1 all nve\nrun 10\n"
            "set type 2 type 1\nrun 10\n", ["in.test:", "after a run"])
    text = "units lj\nlattice fcc 0.8\nregion r block 0 EDGE 0 1 0 1\n"
    refused(d, "edge_early", text, ["in.test:3:", "EDGE"])
    lammps_refuses(d, "edge_early", text)
    # balance/in.balance.*.dynamic and neigh.rcb: how LAMMPS shares the box changes no number
    keep = (base + "velocity all create 1.0 87287\n" + pair + "comm_style tiled\nfix p all property/atom d_WEIGHT\n"
            "compute p all property/atom d_WEIGHT\nvariable lastweight atom c_p\n")
    agree(d, "balance_fixes", keep + "fix 0 all balance 20 1.0 rcb weight neigh 0.8 weight store WEIGHT\n"
          "variable maximb equal f_0[1]\nfix 1 all nve\nthermo 20\nrun 100\n"
          "fix 0 all balance 20 1.1 shift x 5 1.0 weight var lastweight\nrun 60\n",
          what="comm_style tiled, fix property/atom, compute property/atom, fix balance (rcb, shift, weights) and a "
          "variable of its output, never used")
    for name, extra, expect in [
            ("balance_style", "fix 0 all balance 20 1.0 bogus x 5 1.0\n", ["in.test:", "'bogus'"]),
            ("property_charge", "fix p2 all property/atom q\n", ["in.test:", "mol, q and rmass"]),
            ("compute_property_x", "compute px all property/atom x\n", ["in.test:", "property/atom x"]),
            ("compute_twice", "compute p all temp\n", ["in.test:", "exists already"]),
            ("comm_style_other", "comm_style bricks\n", ["in.test:", "brick or tiled"]),
            ("balance_column", "fix 0 all balance 20 1.0 rcb weight time 1.0\nthermo_style custom step temp f_0[1]\n"
             "fix 1 all nve\nrun 10\n", ["in.test:", "f_0[1]", "largest load with weights"]),
            ("balance_variable_used", "fix 0 all balance 20 1.0 rcb\nvariable m equal f_0[1]\n"
             "thermo_style custom step temp v_m\nfix 1 all nve\nrun 10\n", ["in.test:", "evaluated during a run"])]:
        refused(d, name, keep + extra, expect)
    lammps_refuses(d, "balance_style", keep + "fix 0 all balance 20 1.0 bogus x 5 1.0\n")


def rattled_data(path, cells, a, seed, dim=3):
    """An fcc (or, dim 2, sq2) crystal of `cells` cells of edge a, its atoms moved at random by up to
    a / 20 (z at 0 in 2-d), as a LAMMPS data file."""
    rng = random.Random(seed)
    basis = [(0, 0, 0), (0.5, 0.5, 0), (0.5, 0, 0.5), (0, 0.5, 0.5)] if dim == 3 else [(0, 0, 0), (0.5, 0.5, 0)]
    zc = cells if dim == 3 else 1
    sites = [((i + b[0]) * a, (j + b[1]) * a, (k + b[2]) * a) for k in range(zc) for j in range(cells)
             for i in range(cells) for b in basis]
    moved = [(x + rng.uniform(-a / 20, a / 20), y + rng.uniform(-a / 20, a / 20),
              z + rng.uniform(-a / 20, a / 20) if dim == 3 else 0.0) for x, y, z in sites]
    L = cells * a
    zlo, zhi = (0.0, L) if dim == 3 else (-0.5, 0.5)
    text = f"rattled\n\n{len(moved)} atoms\n1 atom types\n\n0 {L!r} xlo xhi\n0 {L!r} ylo yhi\n{zlo} {zhi} zlo zhi\n"
    text += "\nMasses\n\n1 1.0\n\nAtoms # atomic\n\n"
    text += "".join(f"{n + 1} 1 {x % L!r} {y % L!r} {z if dim == 2 else z % L!r}\n" for n, (x, y, z) in enumerate(moved))
    with open(path, "w") as f:
        f.write(text)
    return path


def fire(d):
    tmp = os.path.join(d, "data")
    os.makedirs(tmp, exist_ok=True)
    three = rattled_data(os.path.join(tmp, "rattled3.data"), 4, 1.6796, 5)
    two = rattled_data(os.path.join(tmp, "rattled2.data"), 10, 1.5392, 7, dim=2)
    body = ("pair_style lj/cut 2.5\npair_coeff 1 1 1.0 1.0 2.5\nneighbor 0.3 bin\nneigh_modify delay 0 every 1 check yes\n"
            "thermo_style custom step temp pe ke etotal press pxx pyy pxy\nthermo 10\nmin_style fire\n"
            "minimize 0.0 1.0e-6 300 3000\nfix 1 all nve\nrun 60\n")
    agree(d, "fire_3d", "units lj\natom_style atomic\nread_data rattled3.data\n" + body, [three],
          "FIRE's velocities in temp, ke and the pressure tensor, then a run from them")
    agree(d, "fire_2d", "units lj\ndimension 2\natom_style atomic\nread_data rattled2.data\n" +
          body.replace(" pxx pyy pxy", "").replace("run 60", "fix 2 all enforce2d\nrun 60"), [two], "the same in 2-d")
    for name, modify in (("verlet", "alpha0 0.10 integrator verlet"), ("leapfrog", "integrator leapfrog delaystep 5"),
                         ("eulerexplicit", "integrator eulerexplicit tmax 10.0 tmin 0.0 delaystep 5 dtgrow 1.1 "
                          "dtshrink 0.5 alpha0 0.1 alphashrink 0.99 vdfmax 100000 halfstepback no initialdelay no")):
        agree(d, f"fire_{name}", "units lj\natom_style atomic\nread_data rattled3.data\n" +
              body.replace("min_style fire\n", f"min_style fire\nmin_modify {modify}\n"), [three], f"min_modify {modify}")
    agree(d, "fire_old", "units lj\natom_style atomic\nread_data rattled3.data\n" +
          body.replace("min_style fire\n", "min_style fire/old\n"), [three], "min_style fire/old")
    refused(d, "fire_modify_bad", "units lj\natom_style atomic\nread_data rattled3.data\n" +
            body.replace("min_style fire\n", "min_style fire\nmin_modify integrator rk4\n"), ["in.test:", "integrator"],
            [three])
    refused(d, "fire_dt", "units lj\natom_style atomic\nread_data rattled3.data\n" +
            body.replace("thermo_style custom step", "thermo_style custom step dt"), ["in.test:", "dt", "fire"], [three])


def lj3d(boundary, cells="0 5 0 5 0 5", temp="1.5", lattice="fcc 0.8442"):
    return (f"units lj\natom_style atomic\nboundary {boundary}\nlattice {lattice}\nregion box block {cells}\n"
            f"create_box 1 box\ncreate_atoms 1 box\nmass 1 1.0\nvelocity all create {temp} 87287 loop geom\n"
            "pair_style lj/cut 2.5\npair_coeff 1 1 1.0 1.0 2.5\nneighbor 0.3 bin\nneigh_modify delay 0 every 1 check yes\n")


def boundary(d):
    agree(d, "pspsp", lj3d("p s p") + "fix 1 all nve\n" + BOX_COLUMNS + "thermo 20\nrun 200\n",
          what="y shrink-wrapped: the box follows the atoms, its volume and pressure with it")
    agree(d, "sss_nvt", lj3d("s s s", temp="0.5") + "fix 1 all nvt temp 0.5 0.5 0.5\n" + BOX_COLUMNS +
          "thermo 25\nrun 200\n", what="a cluster, every face shrink-wrapped, Nose-Hoover NVT")
    agree(d, "mixed_faces", lj3d("ms m p", temp="0.8") + "fix 1 all nve\n" + BOX_COLUMNS + "thermo 20\nrun 150\n",
          what="ms along x, m along y: the m faces never inside the box as made")
    agree(d, "fixed_min", lj3d("f fs p", temp="0.1", lattice="fcc 0.8442 origin 0.25 0.25 0") + "fix 1 all nve\nthermo 10\nrun 20\n" +
          "minimize 1.0e-8 1.0e-8 100 1000\n" + BOX_COLUMNS.replace("step", "step fnorm") + "run 0\n",
          what="x fixed, y fixed below and shrink-wrapped above, atoms a quarter cell in from the faces; then cg")
    agree(d, "hex_2d_psp", lj2d("hex 0.7", "0 12 0 8 -0.25 0.25").replace("dimension 2\n", "dimension 2\nboundary p s p\n") +
          "fix 1 all nve\nfix 2 all enforce2d\n" + BOX_COLUMNS + "thermo 20\nrun 200\n", what="2-d, y shrink-wrapped")
    walls = lj3d("p f f", temp="3.0", lattice="fcc 0.8442 origin 0.25 0.25 0.25")
    agree(d, "walls", walls + "fix 1 all nve\nfix 2 all wall/reflect ylo EDGE yhi EDGE zlo 0.1 zhi 4.9\n" + BOX_COLUMNS +
          "thermo 25\nrun 300\n", what="a hot gas between fixed faces: walls at the y faces, z walls in lattice units")
    agree(d, "walls_box_nvt", walls + "fix 1 all nvt temp 2.0 2.0 0.5\nfix 2 all wall/reflect zhi 8.2 units box\n"
          "fix 3 all wall/reflect zlo EDGE ylo 0.2 yhi EDGE units box\nthermo 25\nrun 200\nunfix 3\n"
          "fix 3 all wall/reflect zlo EDGE ylo EDGE yhi EDGE\nrun 100\n", what="walls of two fixes, in box units, under NVT; "
          "replaced between runs")
    agree(d, "walls_2d", lj2d("hex 0.7", "0 12 0 8 -0.25 0.25").replace("dimension 2\n", "dimension 2\nboundary f f p\n") +
          "fix 1 all nve\nfix 2 all enforce2d\nfix 3 all wall/reflect xlo EDGE xhi EDGE ylo EDGE yhi EDGE\nthermo 50\n"
          "run 400\n", what="2-d, a hot liquid in a box of walls")
    for name, text, expect in [
            ("wall_periodic", lj3d("p f p") + "fix 1 all nve\nfix 2 all wall/reflect xlo EDGE\nrun 10\n",
             ["in.test:", "periodic"]),
            ("wall_twice", walls + "fix 1 all nve\nfix 2 all wall/reflect ylo EDGE ylo 0.5\nrun 10\n",
             ["in.test:", "twice"])]:
        refused(d, name, text, expect)
        lammps_refuses(d, name, text)
    refused(d, "wall_shrink", lj3d("p s p") + "fix 1 all nve\nfix 2 all wall/reflect ylo EDGE\nrun 10\n",
            ["in.test:", "shrink-wrapped"])
    refused(d, "wall_variable", walls + "variable z equal 4.0\nfix 1 all nve\nfix 2 all wall/reflect zhi v_z\nrun 10\n",
            ["in.test:", "variable"])
    for name, text, expect in [
            ("one_face_periodic", lj3d("ps p p") + "run 10\n", ["in.test:3:", "periodic"]),
            ("z_2d", lj2d().replace("dimension 2\n", "dimension 2\nboundary p p f\n") + "fix 1 all nve\nrun 10\n",
             ["in.test:3:", "2d", "Z"]),
            ("letter", lj3d("p q p") + "run 10\n", ["in.test:3:", "p, f, s, m"])]:
        refused(d, name, text, expect)
        lammps_refuses(d, name, text)
    refused(d, "after_box", lj3d("p p p") + "boundary p s p\n", ["in.test:", "after the box"])
    refused(d, "npt", lj3d("p s p") + "fix 1 all npt temp 1 1 0.5 iso 0 0 5\nrun 10\n", ["in.test:", "npt"])
    lost_atoms(d)
    faces_in_files(d)
    hex2d = lj2d("hex 0.7", "0 12 0 8 -0.25 0.25")
    for name, text in [("restart_psp", lj3d("p s p", cells="0 6 0 5 0 6")),
                       ("restart_2d", hex2d.replace("dimension 2\n", "dimension 2\nboundary p m p\n")),
                       ("restart_2d_periodic", hex2d)]:
        restart_exact(d, name, text + "fix 1 all nve\nthermo 25\nrun 200\n")


def faces_in_files(d):
    """The trajectories say which faces are periodic: extended XYZ's pbc (ASE's), H5MD's box boundary
    ("none" where not), each frame's box the shrink-wrapped one."""
    folder = os.path.join(d, "files")
    os.makedirs(folder, exist_ok=True)
    base = lj3d("p s p", cells="0 3 0 3 0 3") + "fix 1 all nve\nthermo 10\n"
    write(os.path.join(folder, "in.xyz"), base + "dump 1 all xyz 10 t.xyz\nrun 20\n")
    write(os.path.join(folder, "in.h5md"), base + "dump 1 all h5md 10 t.h5md\nrun 20\n")
    run([lammps_trust.MDLITE, "run", "in.xyz"], cwd=folder)
    heads = [line for line in open(os.path.join(folder, "t.xyz")) if "Lattice=" in line]
    if len(heads) != 3 or any('pbc="T F T"' not in h for h in heads) or heads[0].split()[4] == heads[-1].split()[4]:
        fail(f"files: the xyz frames' pbc or shrink-wrapped y edge: {heads}")
    msg = 'pbc="T F T" in 3 frames, the y edge moving'
    if shutil.which("h5dump"):
        run([lammps_trust.MDLITE, "run", "in.h5md"], cwd=folder)
        out = run(["h5dump", "-a", "/particles/trajectory/box/boundary", "t.h5md"], cwd=folder).stdout
        if '"periodic", "none", "periodic"' not in out.replace("\n", " ").replace("  ", " "):
            fail(f"files: H5MD box boundary: {out}")
        msg += "; H5MD boundary periodic none periodic"
    print(f"files: {msg}")


def restart_exact(d, name, text, extra=()):
    """A shrink-wrapped run stopped at step 100 and restarted from its checkpoint prints the rows of
    the run never stopped, bit for bit (extra: more --set arguments for every run)."""
    folder = os.path.join(d, name)
    os.makedirs(folder, exist_ok=True)
    write(os.path.join(folder, "in.test"), text)
    ini = run([lammps_trust.MDLITE, "convert", "in.test"], cwd=folder).stdout
    write(os.path.join(folder, "run.ini"), ini)
    traj = ["--set", "output.trajectory=r.h5md", "--set", "output.dump_every=25", "--set", "output.flush_every=1"]
    run([lammps_trust.MDLITE, "run", "run.ini", "--set", "output.thermo_file=a.csv", *extra], cwd=folder)
    run([lammps_trust.MDLITE, "run", "run.ini", "--set", "run.steps=100", "--set", "output.thermo_file=b.csv", *traj,
         *extra], cwd=folder)
    run([lammps_trust.MDLITE, "run", "run.ini", "--restart", "r.h5md", "--set", "run.steps=100", "--set",
         "output.thermo_file=b.csv", *traj, *extra], cwd=folder)
    rows = [open(os.path.join(folder, f)).read().splitlines() for f in ("a.csv", "b.csv")]
    if rows[0] != rows[1] or len(rows[0]) < 9:
        fail(f"{name}: the restarted run's rows are not the straight run's:\n{rows[0]}\n{rows[1]}")
    print(f"{name}: restarted at step 100, {len(rows[0]) - 1} rows equal to the straight run's, bit for bit")


def lost_atoms(d):
    """A hot gas through a fixed face: LAMMPS stops with Lost atoms, mdlite with exit 1 naming the atom
    and the face, its thermo rows up to there equal to LAMMPS's."""
    text = lj3d("p f p", cells="0 4 0 4 0 4", temp="3.0") + "thermo_modify format float %.17g\nfix 1 all nve\n" \
        "thermo 5\nrun 300\n"
    out = {}
    for who in ("lammps", "mdlite"):
        folder = os.path.join(d, "lost", who)
        os.makedirs(folder, exist_ok=True)
        write(os.path.join(folder, "in.test"), text)
        cmd = ["lmp", "-in", "in.test", "-log", "none", "-nocite"] if who == "lammps" else [lammps_trust.MDLITE, "run", "in.test"]
        out[who] = (run_lmp if who == "lammps" else run)(cmd, check=False, cwd=folder)
    p, lp = out["mdlite"], out["lammps"]
    if p.returncode != 1 or "left the box through its y" not in p.stderr or "boundary f" not in p.stderr:
        fail(f"lost: expected exit 1 naming the y face, got {p.returncode}:\n{p.stderr}")
    if "Lost atoms" not in lp.stdout + lp.stderr:
        fail("lost: lmp did not lose atoms: the case no longer tests the fixed face")
    theirs, ours = lammps_trust.table(lp.stdout), lammps_trust.table(p.stdout)
    for step, header, row in ours:
        match = [r for s_, h, r in theirs if s_ == step and h == header]
        if not match or max(abs(a - b) / max(abs(b), 1.0) for a, b in zip(row, match[0])) > lammps_trust.TOL:
            fail(f"lost: step {step} differs from LAMMPS's")
    print(f"lost: exit 1 at '{p.stderr.strip().splitlines()[-1][:90]}...'; {len(ours)} rows equal LAMMPS's")


def dump_tokens_agree(name, ours, theirs):
    """Two LAMMPS text dumps token by token: equal, or within one unit of %g's sixth digit (a value on
    a rounding tie, 0.6328125) or 1e-12 (a force of rounding noise)."""
    a, b = open(ours).read().split("\n"), open(theirs).read().split("\n")
    if len(a) != len(b):
        fail(f"{name}: {len(a)} lines against LAMMPS's {len(b)}")
    worst = 0  # values that differ
    for la, lb in zip(a, b):
        ta, tb = la.split(), lb.split()
        if len(ta) != len(tb) or (la != lb and not ta[0][0].isdigit() and ta[0][0] != "-"):
            fail(f"{name}: '{la}' against LAMMPS's '{lb}'")
        for x, y in zip(ta, tb):
            if x != y and abs(float(x) - float(y)) > max(1.01e-5 * abs(float(y)), 1e-12):
                fail(f"{name}: {x} against LAMMPS's {y} in '{la}'")
            worst += x != y
    return len(a), worst


def dumps(d):
    """dump custom with every column mdlite writes and dump atom, as lmp writes them (dump_modify sort
    id: LAMMPS's order is otherwise its own), the frames at the multiples of N over two runs."""
    all_columns = "id type x y z xs ys zs xu yu zu ix iy iz vx vy vz fx fy fz mass"
    prism = lj3d("p p p").replace("region box block 0 5 0 5 0 5", "region box prism 0 4 0 4 0 4 1.0 0.5 -0.5")
    for name, text in [
            ("custom_psp", lj3d("p s p", cells="0 4 0 4 0 4").replace("create_box 1 box", "create_box 2 box")
             .replace("mass 1 1.0", "mass * 1.0").replace("pair_coeff 1 1", "pair_coeff * *") +
             "set type 1 type 2\nfix 1 all nve\n" f"dump 1 all custom 25 d.txt {all_columns}\ndump_modify 1 sort id\n"
             "thermo 50\nrun 60\n"),
            ("atom_prism", prism + "fix 1 all nve\ndump d all atom 10 d.txt\ndump_modify d sort id\nthermo 10\nrun 25\n"
             "run 15\n"),
            ("custom_2d", lj2d("hex 0.7", "0 8 0 6 -0.25 0.25").replace("dimension 2\n", "dimension 2\nboundary f m p\n") +
             "fix 1 all nve\nfix 2 all enforce2d\nfix 3 all wall/reflect xlo EDGE xhi EDGE\n"
             "dump 1 all custom 20 d.txt id x y vx vy ix iy\ndump_modify 1 sort id\nrun 50\n")]:
        agree(d, name, text)
        lines, worst = dump_tokens_agree(name, os.path.join(d, name, "mdlite", "d.txt"),
                                         os.path.join(d, name, "lammps", "d.txt"))
        steps = open(os.path.join(d, name, "mdlite", "d.txt")).read().count("ITEM: TIMESTEP")
        print(f"{name}: the dump's {lines} lines, {steps} frames, LAMMPS's ({worst} values a last digit or 1e-12 "
              "apart: rounding ties, forces of rounding noise)")
    base = lj3d("p p p") + "fix 1 all nve\n"
    for name, extra, expect in [
            ("dump_column", "dump 1 all custom 10 d.txt id c_pe\nrun 10\n", ["in.test:", "c_pe"]),
            ("undump_id", "dump 1 all atom 10 d.txt\nundump 2\n", ["in.test:16:", "undump"]),
            ("dump_modify_id", "dump 1 all atom 10 d.txt\ndump_modify 2 sort id\n", ["in.test:16:", "dump_modify"])]:
        refused(d, name, base + extra, expect)
        lammps_refuses(d, name, base + extra)
    refused(d, "dump_modify_format", base + "dump 1 all atom 10 d.txt\ndump_modify 1 format line \"%d %d %g %g %g\"\n",
            ["in.test:16:", "sort id"])


RAMP = (lj3d("p p p", temp="1.0") + "fix 1 all nve\nfix 2 all temp/berendsen 1.0 2.0 0.1\nthermo 20\nrun 200\n"
        "unfix 2\nfix 2 all temp/rescale 10 2.0 0.5 0.05 1.0\nrun 200\nfix 2 all temp/rescale 10 0.5 0.5 0.05 1.0\n"
        "run 60\n")


def ramp_restart(d):
    """A staged ramp stopped by SIGTERM (its checkpoint at that frame) and restarted goes on along the
    ramp: its rows are the run never stopped, bit for bit."""
    import subprocess
    folder = os.path.join(d, "restart")
    os.makedirs(folder, exist_ok=True)
    write(os.path.join(folder, "in.test"), lj3d("p p p", cells="0 4 0 4 0 4", temp="1.0") +
          "fix 1 all nve\nfix 2 all temp/berendsen 1.0 2.0 0.5\nthermo 100\nrun 100\n"
          "fix 2 all temp/berendsen 2.0 0.7 0.5\nrun 8000\n")
    write(os.path.join(folder, "run.ini"), run([lammps_trust.MDLITE, "convert", "in.test"], cwd=folder).stdout)
    mdl = [lammps_trust.MDLITE, "run", "run.ini", "--quiet", "--set", "output.dump_every=50"]
    run([*mdl, "--set", "output.thermo_file=a.csv", "--set", "output.trajectory=a.h5md"], cwd=folder)
    p = subprocess.Popen([*mdl, "--set", "output.thermo_file=b.csv", "--set", "output.trajectory=b.h5md",
                          "--set", "output.flush_every=1"], cwd=folder, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    terminate_at_row(p, os.path.join(folder, "b.csv"), 1000)
    if p.returncode != 143:
        fail(f"ramp restart: the run stopped by SIGTERM exited {p.returncode} (it must be stopped mid-stage)")
    run([*mdl, "--restart", "b.h5md", "--set", "output.thermo_file=b.csv", "--set", "output.trajectory=b.h5md"],
        cwd=folder)
    rows = [open(os.path.join(folder, f)).read().splitlines() for f in ("a.csv", "b.csv")]
    body = [[r for r in x if r[:1].isdigit()] for x in rows]
    body[1] = [r for r in body[1] if int(r.split(",")[0]) % 100 == 0]  # less the row SIGTERM printed where it stopped
    if body[0] != body[1] or len(body[0]) < 80:
        fail(f"ramp restart: the restarted run's {len(body[1])} rows are not the straight run's {len(body[0])}")
    print(f"restart: stopped by SIGTERM in the second ramp, restarted: {len(body[0])} rows equal, bit for bit")


def ramps(d):
    agree(d, "berendsen_rescale", RAMP, what="temp/berendsen 1 to 2 over 200 steps, temp/rescale 2 to 0.5 over "
          "200 (window 0.05), then a fixed target again")
    ramp_restart(d)
    agree(d, "upto", lj3d("p p p", temp="1.0") + "fix 1 all nve\nthermo 10\nrun 30\nrun 100 upto\n"
          "fix 2 all temp/berendsen 1.0 2.0 0.5\nrun 150 upto pre yes\n",
          what="run N upto: to step N, a ramp over that span (LAMMPS's beginstep and endstep)")
    upto = lj3d("p p p", temp="1.0") + "fix 1 all nve\nthermo 10\n"
    refused(d, "upto_past", upto + "run 50\nrun 20 upto\n", ["in.test:", "at step 50 already"])
    refused(d, "upto_minimize", upto + "minimize 0 0 5 10\nrun 100 upto\n", ["in.test:", "minimize"])
    refused(d, "pre_no", upto + "run 20\nfix 2 all temp/berendsen 1.0 1.0 0.5\nrun 20 pre no\n",
            ["in.test:", "pre no"])
    # Langevin's and csvr's noise is mdlite's own: their temperature follows the ramp (tau 0.1, 864 atoms)
    for fix in ("langevin 0.5 1.5 0.1 4242", "temp/csvr 0.5 1.5 0.1 4242"):
        folder = os.path.join(d, fix.split()[0].replace("/", "_"))
        os.makedirs(folder, exist_ok=True)
        write(os.path.join(folder, "in.test"), lj3d("p p p", cells="0 6 0 6 0 6", temp="0.5") +
              f"fix 1 all nve\nfix 2 all {fix}\nthermo 100\nrun 4000\n")
        ini = run([lammps_trust.MDLITE, "convert", "in.test"], cwd=folder).stdout
        write(os.path.join(folder, "run.ini"), ini)
        run([lammps_trust.MDLITE, "run", "run.ini", "--set", "output.thermo_file=t.csv"], cwd=folder)
        rows = [line.split(",") for line in open(os.path.join(folder, "t.csv")) if line[0].isdigit()]
        worst = 0.0
        for r in rows[4:]:  # past the first 400 steps (tau 0.1 is 20 steps; the lag is a few tau)
            target = 0.5 + int(r[0]) / 4000
            worst = max(worst, abs(float(r[2]) - target) / target)
        if worst > 0.12:
            fail(f"{fix}: the temperature is {worst:.3f} off its moving target")
        print(f"{fix.split()[0]}: T follows 0.5 to 1.5 over 4000 steps within {worst:.3f} of the target")
    agree(d, "nose_hoover", lj3d("p p p", temp="1.0") + "fix 1 all nvt temp 1.0 2.0 0.5 tchain 3\nthermo_style custom "
          "step temp pe etotal press ecouple econserve\nthermo 20\nrun 300\nunfix 1\nfix 1 all npt temp 2.0 1.2 0.5 iso "
          "1.0 1.0 2.0\nthermo_style custom step temp pe etotal press vol\nrun 200\n",
          what="fix nvt temp 1 to 2 over 300 steps (its chain's masses following the target, ecouple), then fix npt "
          "temp 2 to 1.2 over 200 at a fixed pressure")
    refused(d, "npt_pressure_ramp", lj3d("p p p") + "fix 1 all npt temp 1.0 1.0 0.5 iso 0.0 1.0 2.0\nrun 10\n",
            ["in.test:", "Pstart = Pstop"])
    for fix in ("fix 1 all nvt temp v_t 2.0 0.5", "fix 1 all nve\nfix 2 all langevin v_t 2.0 0.5 77"):
        refused(d, "variable_target", lj3d("p p p") + f"variable t equal 1.0\n{fix}\nrun 10\n", ["in.test:", "v_t"]
                if "nvt" in fix else ["in.test:", "variable's target"])
    folder = os.path.join(d, "ini")
    os.makedirs(folder, exist_ok=True)
    base = [lammps_trust.MDLITE, "run", os.path.join(os.path.dirname(__file__), "..", "..", "input", "lj_melt.ini"),
            "--set", "system.cells=4 4 4", "--set", "run.steps=40", "--set", "run.target_temperature=1.0"]
    p = run([*base, "--set", "run.ensemble=nve", "--set", "run.final_temperature=2.0"], check=False, cwd=folder)
    if p.returncode != 2 or "final_temperature" not in p.stderr or "one target" not in p.stderr:
        fail(f"final_temperature under nve: expected exit 2 naming it, got {p.returncode}: {p.stderr}")
    ramp = [*base, "--set", "run.ensemble=nvt-berendsen", "--set", "run.tau=0.5", "--set", "run.final_temperature=2.0"]
    run([*ramp, "--set", "output.trajectory=r.h5md", "--set", "output.dump_every=20"], cwd=folder)
    p = run([*ramp, "--restart", "r.h5md", "--set", "output.trajectory=s.h5md"], check=False, cwd=folder)
    if p.returncode != 2 or "final_temperature" not in p.stderr:
        fail(f"a restart of an unstaged ramp: expected exit 2 naming final_temperature, got {p.returncode}: {p.stderr}")
    print("refused: a pressure ramp, final_temperature under nve, a restart of an unstaged ramp")
    # a stage that sets its own target and no final_temperature holds it still: bit for bit the run that
    # sets final_temperature = target there
    stages = ("[stage:heat]\nsteps = 100\nensemble = nvt-berendsen\ntarget_temperature = 1.0\n"
              "final_temperature = 2.0\ntau = 0.5\n[stage:hold]\nsteps = 100\ntarget_temperature = 1.5\n{}")
    rows = []
    for k, extra in enumerate(("", "final_temperature = 1.5\n")):
        cfg = write(os.path.join(folder, f"held{k}.ini"), open(base[2]).read().replace("[run]", "[run]\n; staged")
                    .replace("steps    = 100\n", "") + stages.format(extra))
        run([lammps_trust.MDLITE, "run", cfg, "--set", "system.cells=4 4 4", "--set", f"output.thermo_file=h{k}.csv"],
            cwd=folder)
        rows.append(open(os.path.join(folder, f"h{k}.csv")).read())
    if rows[0] != rows[1]:
        fail("a stage's own target_temperature without final_temperature did not hold its target still")
    print("a stage setting its own target holds it still (its rows those of final_temperature = target)")


def main():
    lammps_trust.MDLITE, case = sys.argv[1], sys.argv[2]
    if not shutil.which("lmp"):
        print("no lmp (LAMMPS): skipped")
        sys.exit(SKIP)
    d = workdir(f"lammps-families-{case}")
    {"dim2": dim2, "real": real, "variables": variables, "types": types, "fire": fire,
     "boundary": boundary, "dumps": dumps, "ramps": ramps}[case](d)


if __name__ == "__main__":
    main()
