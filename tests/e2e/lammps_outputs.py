#!/usr/bin/env python3
"""Output files that hold what they claim or do not exist, conventions recorded where they are
written, scripts that cannot hang, and a data file's ranges:

  files        a run that fails before its first row leaves no thermo file and the earlier one where
               it was; every write_data writes its own file (before the first run, after a run twice,
               after a run 0), each LAMMPS's; SIGTERM during a minimisation writes its last state
  conventions  the CSV's energies say per atom or totals; a restart appending totals to a per-atom
               CSV, or unwrapped positions to a wrapped trajectory, is refused naming both
  hang         variables that refer back to themselves, a chain of 60 doublings, and FIFOs given to
               read_data, include, pair_coeff and log: exit 2, within seconds
  ranges       a data file's box and coordinates held to [1e-30, 1e30], said as the INI says it

usage: lammps_outputs.py MDLITE CASE
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from common import SKIP, fail, read_thermo, run, run_lmp, workdir, write  # noqa: E402
from lammps_script import compare_data  # noqa: E402

POT = "/usr/share/lammps/potentials"
LJ = ("units lj\nlattice fcc 0.8442\nregion box block 0 {n} 0 {n} 0 {n}\ncreate_box 1 box\ncreate_atoms 1 box\n"
      "mass 1 1.0\npair_style lj/cut 2.5\npair_coeff * * 1.0 1.0\n")


def mdlite(args, cwd, code=0, **kw):
    p = run([MDLITE, *args], check=False, cwd=cwd, **kw)
    if p.returncode != code:
        fail(f"mdlite {' '.join(args)}: exit {p.returncode}, expected {code}:\n{p.stdout[-2000:]}\n{p.stderr}")
    return p


def files(d):
    # a run that fails before its first row: no thermo file of its own, the earlier one untouched
    write(os.path.join(d, "thermo.csv"), "an earlier run's rows\n")
    overlap = LJ.format(n=4) + "velocity all create 1.0 5\nfix 1 all nve\nrun 10\n"
    data = "two atoms on one site\n\n2 atoms\n1 atom types\n\n0 10 xlo xhi\n0 10 ylo yhi\n0 10 zlo zhi\n\n" \
           "Masses\n\n1 1.0\n\nAtoms # atomic\n\n1 1 5 5 5\n2 1 5 5 5\n"
    write(os.path.join(d, "overlap.data"), data)
    script = write(os.path.join(d, "in.overlap"), "units lj\nread_data overlap.data\npair_style lj/cut 2.5\n"
                   "pair_coeff * * 1.0 1.0\nfix 1 all nve\nrun 10\n")
    p = mdlite(["run", script], d, code=1)
    left = sorted(f for f in os.listdir(d) if "thermo" in f)
    if left != ["thermo.csv"] or open(os.path.join(d, "thermo.csv")).read() != "an earlier run's rows\n":
        fail(f"a run that failed before its first row left {left}, the earlier file "
             f"{open(os.path.join(d, 'thermo.csv')).read()!r}:\n{p.stderr}")
    print(f"a run stopped before its first row ({p.stderr.strip().splitlines()[-1][:80]}...): no file of its own, the "
          "earlier thermo.csv where it was")
    # every write_data writes its own file, as LAMMPS's do
    text = LJ.format(n=4) + ("velocity all create 1.0 5\nwrite_data start.data\nfix 1 all nve\nrun 10\n"
                             "write_data a.data\nwrite_data b.data\nrun 0\nwrite_data zero.data\nrun 10\n"
                             "write_data end.data\n")
    for sub in ("mdlite", "lammps"):
        os.makedirs(os.path.join(d, sub))
        write(os.path.join(d, sub, "in.data"), text)
    mdlite(["run", "in.data"], os.path.join(d, "mdlite"))
    run_lmp(["lmp", "-in", "in.data", "-log", "none"], cwd=os.path.join(d, "lammps"))
    for f in ("start.data", "a.data", "b.data", "zero.data", "end.data"):
        compare_data(os.path.join(d, "mdlite", f), os.path.join(d, "lammps", f), f"write_data {f}")
    # SIGTERM during a minimisation (FIRE, which runs its iterations out): its last state written and said
    relax = write(os.path.join(d, "in.relax"), LJ.format(n=16) + "velocity all create 0.5 7\nfix 1 all nve\n"
                  "run 40\nunfix 1\nthermo_style custom step pe\nmin_style fire\nminimize 0.0 0.0 100000 1000000\n"
                  "write_data relaxed.data\n")
    proc = subprocess.Popen([MDLITE, "run", relax], cwd=d, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for line in proc.stdout:  # the minimisation's banner: whatever the load, the signal lands in it
        if re.match(r"mdlite: stage run2 \(2 of 2\): minimize", line):
            break
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    if proc.returncode != 143 or "during the minimisation" not in err or not os.path.exists(
            os.path.join(d, "relaxed.data")):
        fail(f"SIGTERM during the minimisation: exit {proc.returncode}, files {os.listdir(d)}:\n{err}")
    lines = open(os.path.join(d, "relaxed.data")).read().count("\n")
    print(f"SIGTERM during the minimisation: exit 143, '{err.strip().splitlines()[-1]}' ({lines} lines in "
          "relaxed.data)")


def conventions(d):
    ini = ("[system]\nlattice = fcc\ndensity = 0.8442\ncells = 4 4 4\ntemperature = 1.0\n[run]\nsteps = 20\n"
           "[output]\nthermo = 10\ntrajectory = t.h5md\ndump_every = 10\nthermo_file = t.csv\n")
    cfg = write(os.path.join(d, "norm.ini"), ini)
    mdlite(["run", cfg, "--quiet"], d)
    read_thermo(os.path.join(d, "t.csv"), per_atom=True)
    mdlite(["run", cfg, "--quiet", "--overwrite", "--set", "output.thermo_norm=no", "--set", "output.thermo_file=tot.csv",
            "--set", "output.trajectory=tot.h5md"], d)
    read_thermo(os.path.join(d, "tot.csv"), per_atom=False)
    head = open(os.path.join(d, "t.csv")).readline()
    print(f"the CSV's header says its energies' normalisation: {head.strip()[:70]}...")
    p = mdlite(["run", cfg, "--quiet", "--restart", "t.h5md", "--set", "run.steps=40", "--set",
                "output.thermo_norm=no"], d, code=2)
    if "per atom" not in p.stderr or "totals" not in p.stderr:
        fail(f"appending totals to a per-atom CSV: {p.stderr}")
    print(f"appending totals to a per-atom CSV: refused: {p.stderr.strip().splitlines()[-1]}")
    import h5py
    with h5py.File(os.path.join(d, "t.h5md"), "r") as f:
        recorded = f["parameters/positions"][()].decode()
    p = mdlite(["run", cfg, "--quiet", "--restart", "t.h5md", "--set", "run.steps=40", "--set",
                "output.positions=unwrapped"], d, code=2)
    if recorded != "wrapped" or "its positions are wrapped, this run's unwrapped" not in p.stderr:
        fail(f"parameters/positions {recorded!r}; appending unwrapped: {p.stderr}")
    print(f"the trajectory records its positions ({recorded}); appending unwrapped ones: refused")
    xyz = write(os.path.join(d, "x.ini"), ini.replace("t.h5md", "t.xyz").replace("t.csv", "x.csv"))
    mdlite(["run", xyz, "--quiet"], d)
    if "mdlite_positions=wrapped" not in open(os.path.join(d, "t.xyz")).read():
        fail("extended XYZ: no mdlite_positions in its frames")
    print("extended XYZ frames say mdlite_positions=wrapped")
    # a script's types are numbers; under EAM its data file names their element, and ASE reads it
    script = write(os.path.join(d, "in.cu"), "units metal\nlattice fcc 3.615\nregion box block 0 4 0 4 0 4\n"
                   f"create_box 1 box\ncreate_atoms 1 box\npair_style eam\npair_coeff 1 1 {POT}/Cu_u3.eam\n"
                   "neighbor 1.0 bin\nfix 1 all nve\nrun 0\nwrite_data cu.data\n")
    mdlite(["run", script, "--quiet"], d)
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
    import mdlite_analysis
    atoms = mdlite_analysis.ase_data(os.path.join(d, "cu.data"))
    if "# Cu" not in open(os.path.join(d, "cu.data")).read() or set(atoms.get_chemical_symbols()) != {"Cu"}:
        fail(f"a script's Cu data file: ASE reads {set(atoms.get_chemical_symbols())}")
    print(f"a script's Cu data file names its type Cu: ase_data reads {len(atoms)} Cu atoms")


def hang(d):
    def quick(name, text, expect, extra=()):
        script = write(os.path.join(d, name), text)
        t0 = time.time()
        p = run([MDLITE, "run", script, *extra], check=False, cwd=d, timeout=20)
        took = time.time() - t0
        if p.returncode != 2 or any(e not in p.stderr for e in expect) or took > 10:
            fail(f"{name}: exit {p.returncode} after {took:.1f} s, expected 2 naming {expect}:\n{p.stderr}")
        print(f"{name}: exit 2 in {took:.2f} s: {p.stderr.strip().splitlines()[-1][:110]}")

    quick("in.cycle", "variable a equal v_b+1\nvariable b equal v_c+1\nvariable c equal v_a+1\nprint $a\n",
          ["in.cycle:4:", "refers back"])
    chain = "variable v0 equal 1\n" + "".join(f"variable v{k} equal v_v{k - 1}+v_v{k - 1}\n" for k in range(1, 61))
    script = write(os.path.join(d, "in.chain"), chain + "print \"$(v_v60)\"\n" + LJ.format(n=4) + "run 0\n")
    t0 = time.time()
    p = run([MDLITE, "run", script], cwd=d, timeout=20)
    if time.time() - t0 > 10 or "1152921504606846976" not in p.stdout:
        fail(f"60 doublings: {time.time() - t0:.1f} s, output {p.stdout[:200]}")
    print(f"60 doublings (2^60 evaluations without a cache): {time.time() - t0:.2f} s, $(v_v60) = 2^60")
    fifo = os.path.join(d, "fifo")
    os.mkfifo(fifo)
    quick("in.fifo_data", "units lj\nread_data fifo\n", ["in.fifo_data:2:", "not a regular file"])
    quick("in.fifo_include", "units lj\ninclude fifo\n", ["in.fifo_include:2:", "not a regular file"])
    quick("in.fifo_pot", "units metal\nlattice fcc 3.615\nregion box block 0 4 0 4 0 4\ncreate_box 1 box\n"
          "create_atoms 1 box\npair_style eam\npair_coeff 1 1 fifo\n", ["in.fifo_pot:7:", "not a regular file"])
    quick("in.fifo_log", "log fifo\n" + LJ.format(n=4) + "fix 1 all nve\nrun 1\n", ["fifo", "FIFO"])


def ranges(d):
    good = ("title\n\n4 atoms\n1 atom types\n0 10 xlo xhi\n0 10 ylo yhi\n0 10 zlo zhi\n\nMasses\n\n1 1.0\n\n"
            "Atoms # atomic\n\n1 1 1 1 1\n2 1 2 2 2\n3 1 3 3 3\n4 1 4 4 4\n")
    cases = [("big_box", good.replace("0 10 xlo xhi", "0 1e31 xlo xhi"), ":5:", "'1e31' must be <= 1e+30"),
             ("tiny_box", good.replace("0 10 ylo yhi", "0 1e-31 ylo yhi"), ":6:", "must be >= 1e-30"),
             ("far_atom", good.replace("4 1 4 4 4", "4 1 4 -2e30 4"), ":18:", "'-2e30' must be >= -1e+30"),
             ("mass", good.replace("1 1.0\n\nAtoms", "1 1e31\n\nAtoms"), ":11:", "'1e31' must be <= 1e+30")]
    for name, text, line, why in cases:
        write(os.path.join(d, f"{name}.data"), text)
        cfg = write(os.path.join(d, f"{name}.ini"), f"[system]\ninput = {name}.data\ntemperature = 1\n[run]\nsteps = 0\n")
        p = mdlite(["run", cfg], d, code=2)
        if f"{name}.data{line}" not in p.stderr or why not in p.stderr:
            fail(f"{name}: expected '{name}.data{line}' and '{why}':\n{p.stderr}")
        print(f"{name}: refused: {p.stderr.strip().splitlines()[-1]}")
    p = mdlite(["run", cfg, "--set", "system.box=1e31 1 1", "--set", "system.input="], d, code=2)
    print(f"the INI's words for the same range: {p.stderr.strip().splitlines()[-1]}")


def main():
    global MDLITE
    MDLITE, case = os.path.abspath(sys.argv[1]), sys.argv[2]
    if case == "files" and not shutil.which("lmp"):
        print("no lmp (LAMMPS): skipped")
        sys.exit(SKIP)
    d = workdir(f"lammps-outputs-{case}")
    {"files": files, "conventions": conventions, "hang": hang, "ranges": ranges}[case](d)


if __name__ == "__main__":
    main()
