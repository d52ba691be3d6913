#!/usr/bin/env python3
"""Driver for tools/bench_cpu.sh: times LAMMPS (`lmp`) and mdlite alternately on the same LJ melt,
or with --eam on LAMMPS's bench/in.eam (copper, Cu_u3.eam, 32,000 atoms).

LAMMPS runs bench/in.lj exactly as distributed (neighbor 0.3 bin, rebuild every 20 steps without
checking). mdlite runs input/lj_melt.ini (skin 0.3, displacement check every step, so it builds
its list more often). With --eam LAMMPS runs bench/in.eam as distributed (neighbor 1.0 bin, every 1
delay 5 check yes) with `pair_style eam` and with `eam/opt`, mdlite input/eam_cu.ini (the check
every step). All single-threaded; whole-command wall time, median of --repeat runs.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

IN_LJ = """# 3d Lennard-Jones melt (LAMMPS bench/in.lj)
variable x index {m}
variable y index {m}
variable z index {m}
variable xx equal 20*$x
variable yy equal 20*$y
variable zz equal 20*$z
units lj
atom_style atomic
lattice fcc 0.8442
region box block 0 ${{xx}} 0 ${{yy}} 0 ${{zz}}
create_box 1 box
create_atoms 1 box
mass 1 1.0
velocity all create 1.44 87287 loop geom
pair_style lj/cut 2.5
pair_coeff 1 1 1.0 1.0 2.5
neighbor 0.3 bin
neigh_modify delay 0 every 20 check no
fix 1 all nve
run 100
"""


IN_EAM = """# bulk Cu lattice (LAMMPS bench/in.eam)
variable x index 1
variable y index 1
variable z index 1
variable xx equal 20*$x
variable yy equal 20*$y
variable zz equal 20*$z
units metal
atom_style atomic
lattice fcc 3.615
region box block 0 ${{xx}} 0 ${{yy}} 0 ${{zz}}
create_box 1 box
create_atoms 1 box
pair_style {style}
pair_coeff 1 1 /usr/share/lammps/potentials/Cu_u3.eam
velocity all create 1600.0 376847 loop geom
neighbor 1.0 bin
neigh_modify every 1 delay 5 check yes
fix 1 all nve
timestep 0.005
thermo 50
run 100
"""


def timed(cmd, env, cwd):
    """Wall time, peak RSS (bytes) and stdout of one command."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=cwd, text=True)
    out = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{out}")
    return wall, usage.ru_maxrss * 1024, out


def loop_time(out):
    m = re.search(r"Loop time of ([0-9.eE+-]+)", out)
    return float(m.group(1)) if m else float("nan")


def eam(lmp, mdlite, repeat):
    """bench/in.eam: LAMMPS eam and eam/opt against mdlite, alternated."""
    d = tempfile.mkdtemp(prefix="mdlite-bench-")
    env1 = dict(os.environ, OMP_NUM_THREADS="1")
    cmds = {}
    for style in ("eam", "eam/opt"):
        name = "in.eam." + style.replace("/", "_")
        with open(os.path.join(d, name), "w") as f:
            f.write(IN_EAM.format(style=style))
        cmds["LAMMPS " + style] = [lmp, "-in", name, "-log", "none"]
    cmds["mdlite"] = [mdlite, "run", os.path.abspath("input/eam_cu.ini"), "--quiet", "--set", "output.thermo_file=",
                      "--set", "run.threads=1"]
    wall = {k: [] for k in cmds}
    loop = {k: [] for k in cmds}
    for _ in range(repeat):
        for k, cmd in cmds.items():
            w, _, out = timed(cmd, env1, d)
            wall[k].append(w), loop[k].append(loop_time(out))
    med = {k: (statistics.median(wall[k]), statistics.median(loop[k])) for k in cmds}
    print(f"\nbench/in.eam (Cu_u3.eam, 32,000 atoms), 100 steps, median of {repeat} alternating runs, 1 thread")
    print(f"{'code':>15} | {'wall s':>7} | {'loop s':>7} | {'runs (wall)':<40}")
    for k in cmds:
        print(f"{k:>15} | {med[k][0]:>7.3f} | {med[k][1]:>7.3f} | {' '.join(f'{x:.3f}' for x in wall[k]):<40}")
    for k in ("LAMMPS eam", "LAMMPS eam/opt"):
        print(f"mdlite against {k}: {med[k][0] / med['mdlite'][0]:.2f}x (wall), {med[k][1] / med['mdlite'][1]:.2f}x (loop)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--mdlite", default="build/mdlite")
    ap.add_argument("--eam", action="store_true", help="bench/in.eam instead of the LJ melt")
    args = ap.parse_args()
    lmp = shutil.which("lmp")
    if not lmp:
        sys.exit("lmp (Debian package lammps) not found")
    mdlite = os.path.abspath(args.mdlite)
    if args.eam:
        return eam(lmp, mdlite, args.repeat)
    cfg = os.path.abspath("input/lj_melt.ini")
    d = tempfile.mkdtemp(prefix="mdlite-bench-")
    env1 = dict(os.environ, OMP_NUM_THREADS="1")
    rows = []
    for m, cells in ((1, 20), (2, 40)):
        natoms = 4 * cells ** 3
        with open(os.path.join(d, f"in.lj.{m}"), "w") as f:
            f.write(IN_LJ.format(m=m))
        lcmd = [lmp, "-in", f"in.lj.{m}", "-log", "none"]
        mcmd = [mdlite, "run", cfg, "--quiet", "--set", f"system.cells={cells} {cells} {cells}",
                "--set", "output.thermo_file=", "--set", "run.threads=1"]
        lw, mw, ll, ml, rss = [], [], [], [], 0
        for _ in range(args.repeat):
            w, _, out = timed(lcmd, env1, d)
            lw.append(w), ll.append(loop_time(out))
            w, r, out = timed(mcmd, env1, d)
            mw.append(w), ml.append(loop_time(out))
            rss = max(rss, r)
        m2 = [loop_time(timed(mcmd[:-1] + ["run.threads=2"], dict(os.environ, OMP_NUM_THREADS="2"), d)[2])
              for _ in range(3)]
        rows.append((natoms, statistics.median(lw), statistics.median(mw), statistics.median(ll),
                     statistics.median(ml), statistics.median(m2), rss / natoms))
    print(f"\nLJ melt (bench/in.lj physics), 100 steps, median of {args.repeat} alternating runs, 1 thread")
    print(f"{'atoms':>8} | {'LAMMPS s':>9} | {'mdlite s':>9} | {'ratio':>6} | {'LAMMPS loop':>11} | "
          f"{'mdlite loop':>11} | {'atom-steps/s':>12} | {'2-thr loop':>10} | {'speed-up':>8} | {'RSS B/atom':>10}")
    for n, lw, mw, ll, ml, m2, rss in rows:
        print(f"{n:>8} | {lw:>9.3f} | {mw:>9.3f} | {lw / mw:>6.2f} | {ll:>11.3f} | {ml:>11.3f} | "
              f"{n * 100 / ml:>12.3e} | {m2:>10.3f} | {ml / m2:>8.2f} | {rss:>10.0f}")
    print("ratio = LAMMPS time / mdlite time (whole command); target >= 1.3")


if __name__ == "__main__":
    main()
