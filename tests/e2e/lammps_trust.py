#!/usr/bin/env python3
"""LAMMPS scripts that run as LAMMPS runs them or are refused, class by class; each case compares
mdlite's thermo table with `lmp`'s on the same script (both printed to 17 digits, 1e-10 relative
with an absolute floor of 1) or expects a refusal naming the script's line (exit 2).

  semantics   the last write wins per type and pair (pair_coeff, mass, pair_style again), units
              resets timestep and skin, a listed pair takes pair_style's cutoff, a new fix's chains
              start at rest, minimize's zeros, long values, LAMMPS's refusals, a setfl file naming
              an element twice, data-file masses under EAM, convert's INI saved elsewhere
  keywords    every thermo keyword of the list against lmp, thermo_modify format and line multi,
              echo, print, log, include, quotes, $(...), suffixes, -var and -in
  messages    a script whose first line has a comment, a lattice at rest, read_data then velocity,
              indented headers, named Masses, a header count, 1/0, one error once, a potential
              path and a funcfl file given to eam/alloy named with the line, any data file name

usage: lammps_trust.py MDLITE CASE
"""
import os
import re
import shutil
import socket
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import SKIP, fail, own_mpi_tmpdir, run, run_lmp, workdir, write  # noqa: E402

POT = "/usr/share/lammps/potentials"
LJ = ("units lj\natom_style atomic\nlattice fcc 0.8442\nregion box block 0 4 0 4 0 4\ncreate_box {types} box\n"
      "create_atoms 1 box\n")
TOL = 1e-10


def table(text):
    """The rows of a thermo table (LAMMPS's log or mdlite's screen): [(step, header, values)]."""
    rows, header = [], None
    for line in text.splitlines():
        w = line.split()
        if w and w[0] == "Step":
            header = w
        elif header and w and re.fullmatch(r"-?\d+", w[0]) and len(w) == len(header):
            try:
                rows.append((int(w[0]), header, [float(x) for x in w]))
            except ValueError:
                pass
        elif w and w[0] == "Loop":
            header = None
    return rows


def both(d, name, text, files=(), mdlite_args=()):
    """The script through lmp and mdlite, each in a folder of its own (files copied beside it), every
    value printed to 17 digits: (lmp's rows, mdlite's rows, mdlite's process)."""
    full = re.sub(r"^(\s*(run|minimize)\s)", r"thermo_modify format float %.17g\n\1", text, flags=re.M)
    out = {}
    for sub in ("lammps", "mdlite"):
        folder = os.path.join(d, name, sub)
        os.makedirs(folder, exist_ok=True)
        for f in files:
            shutil.copy(f, folder)
        write(os.path.join(folder, "in.test"), full)
    lp = run_lmp(["lmp", "-in", "in.test", "-log", "none", "-nocite"], cwd=os.path.join(d, name, "lammps"),
             env=dict(os.environ, OMP_NUM_THREADS="1"))
    mp = run([MDLITE, "run", "in.test", *mdlite_args], cwd=os.path.join(d, name, "mdlite"))
    return table(lp.stdout), table(mp.stdout), mp


def agree(d, name, text, files=(), what="", mdlite_args=(), every_row=False):
    """Every row mdlite prints equals LAMMPS's row of that step with the same columns: its first; or,
    where mdlite prints a step again (a run that begins with edited velocities), its later rows
    LAMMPS's last (LAMMPS prints a step a run ends on again as the next run's first, a run 0's too).
    every_row: mdlite prints LAMMPS's rows, each step and columns as often and in the same order."""
    theirs, ours, p = both(d, name, text, files, mdlite_args)
    if not ours:
        fail(f"{name}: mdlite printed no thermo rows:\n{p.stdout}")
    if every_row and [(s, h) for s, h, _ in ours] != [(s, h) for s, h, _ in theirs]:
        fail(f"{name}: mdlite's rows {[(s, len(h)) for s, h, _ in ours]}, LAMMPS's {[(s, len(h)) for s, h, _ in theirs]}")
    worst, seen = 0.0, {}
    for step, header, row in ours:
        match = [r for s, h, r in theirs if s == step and h == header]
        k = seen[(step, tuple(header))] = seen.get((step, tuple(header)), -1) + 1
        later = sum(1 for s, h, _ in ours if s == step and h == header) - k
        if len(match) <= k or len(match) < later:
            fail(f"{name}: step {step} {header}: no such row in LAMMPS's log ({[(s, h) for s, h, _ in theirs]})")
        for label, a, b in zip(header, row, match[k] if k == 0 else match[-later]):
            if label in ("CPU", "T/CPU", "S/CPU"):
                continue
            rel = abs(a - b) / max(abs(b), 1.0)
            worst = max(worst, rel)
            if not rel <= TOL:
                fail(f"{name}: step {step} {label}: mdlite {a!r}, LAMMPS {b!r} ({rel:.3g})")
    print(f"{name}: {len(ours)} rows equal LAMMPS's (worst {worst:.2g}){': ' + what if what else ''}")
    return p


def refused(d, name, text, expect, files=(), args=()):
    """mdlite exits 2 with every string of expect in its message, which names in.test's line."""
    folder = os.path.join(d, name)
    os.makedirs(folder, exist_ok=True)
    for f in files:
        shutil.copy(f, folder)
    write(os.path.join(folder, "in.test"), text)
    p = run([MDLITE, "run", "in.test", *args], check=False, cwd=folder, timeout=60)
    errors = [line for line in p.stderr.splitlines() if "error:" in line]
    if p.returncode != 2 or any(e not in p.stderr for e in expect) or len(errors) != 1:
        fail(f"{name}: expected exit 2 and one error naming {expect}, got {p.returncode}:\n{p.stderr}")
    print(f"{name}: refused: {errors[0].strip()}")
    return p


def lammps_refuses(d, name, text):
    folder = os.path.join(d, name, "lammps")
    os.makedirs(folder, exist_ok=True)
    write(os.path.join(folder, "in.test"), text)
    p = run_lmp(["lmp", "-in", "in.test", "-log", "none"], check=False, cwd=folder)
    if "ERROR" not in p.stdout + p.stderr:
        fail(f"{name}: LAMMPS runs this script, which mdlite refuses")


# ---- 1. semantics --------------------------------------------------------------------------

def setfl_twice(path):
    """Cu_mishin1.eam.alloy with its element named twice, the second's embedding made 10% deeper: LAMMPS
    maps Cu to the first."""
    lines = open(f"{POT}/Cu_mishin1.eam.alloy").read().split("\n")
    nrho, _, nr = int(lines[4].split()[0]), 0, int(lines[4].split()[2])
    values = " ".join(lines[6:]).split()
    frho, rhor, phi = values[:nrho], values[nrho:nrho + nr], values[nrho + nr:nrho + 2 * nr]
    deeper = [repr(1.1 * float(v)) for v in frho]
    body = [*lines[:3], "2 Cu Cu", lines[4], lines[5], *frho, *rhor, lines[5], *deeper, *rhor, *phi, *phi, *phi]
    write(path, "\n".join(body) + "\n")


def semantics(d):
    base = LJ.format(types=1) + "mass 1 1.0\nvelocity all create 1.0 4711\nfix 1 all nve\nthermo 10\n"
    agree(d, "pair-override", base + "pair_style lj/cut 2.5\npair_coeff 1 1 0.5 0.9\npair_coeff * * 1.0 1.0\nrun 20\n",
          what="pair_coeff * * after pair_coeff 1 1: the last write wins")
    agree(d, "mass-override", base.replace("mass 1 1.0", "mass 1 2.0\nmass * 1.3") +
          "pair_style lj/cut 2.5\npair_coeff * * 1.0 1.0\nrun 20\n", what="mass * after mass 1")
    agree(d, "pair-style-again", base + "pair_style lj/cut 2.5\npair_coeff 1 1 1.0 1.0 2.0\npair_style lj/cut 2.2\n"
          "run 20\n", what="pair_style again: every pair's cutoff the new global one")
    data = os.path.join(d, "two.data")
    rows = [f"{n + 1} {1 + n % 2} {x * 1.6796} {y * 1.6796} {z * 1.6796}" for n, (x, y, z) in
            enumerate((i + bx, j + by, k + bz) for k in range(4) for j in range(4) for i in range(4)
                      for bx, by, bz in ((0, 0, 0), (.5, .5, 0), (.5, 0, .5), (0, .5, .5)))]
    write(data, f"two types\n\n256 atoms\n2 atom types\n\n0 6.7184 xlo xhi\n0 6.7184 ylo yhi\n0 6.7184 zlo zhi\n\n"
          f"Masses\n\n1 1.0\n2 2.0\n\nAtoms # atomic\n\n" + "\n".join(rows) + "\n")
    agree(d, "listed-cutoff", "units lj\nread_data two.data\nvelocity all create 1.0 99\npair_style lj/cut 2.0\n"
          "pair_coeff * * 1.0 1.0\npair_coeff 1 2 0.8 1.1\npair_coeff 1 1 1.0 1.0 2.3\nfix 1 all nve\nthermo 10\n"
          "run 20\n", [data], "a listed pair without a cutoff takes pair_style's, not a mixed one")
    agree(d, "units-reset", "timestep 0.01\nneighbor 0.8 bin\n" + base +
          "pair_style lj/cut 2.5\npair_coeff * * 1.0 1.0\nthermo_style custom step dt time pe\nrun 20\n",
          what="units resets the timestep and skin set before it")
    refused(d, "units-after-box", base + "units metal\n", ["in.test:11:", "units", "after the box"])
    lammps_refuses(d, "units-after-box", base + "units metal\n")
    agree(d, "new-fix", base.replace("fix 1 all nve\n", "") + "pair_style lj/cut 2.5\npair_coeff * * 1.0 1.0\n"
          "fix 1 all nvt temp 1.0 1.0 0.5\nrun 20\nunfix 1\nfix 2 all nvt temp 1.0 1.0 0.5\nrun 20\n"
          "fix 2 all nvt temp 1.0 1.0 0.5\nrun 20\n", what="a fix made again starts its chains at rest")
    relax = base.replace("velocity all create 1.0 4711\n", "").replace("fix 1 all nve\n", "") + \
        "pair_style lj/cut 2.5\npair_coeff * * 1.0 1.0\nthermo_style custom step pe fnorm\n"
    for args in ("0 0 0 0", "0 0 10 0", "0 0 10 3", "0 1e-6 100 0"):
        p = agree(d, f"minimize-{args.replace(' ', '_')}", relax + f"minimize {args}\n", what=f"minimize {args}")
        if "Iterations, force evaluations" not in p.stdout:
            fail(f"minimize {args}: no Minimization stats")
    long = "x" * 5000
    p = run([MDLITE, "run", write(os.path.join(d, "in.long"), base + f"variable w string {long}\n"
             f"variable {'n' * 300} equal 2*3\nprint \"${{w}} ${{{'n' * 300}}}\"\npair_style lj/cut 2.5\n"
             "pair_coeff * * 1.0 1.0\nrun 0\n")], cwd=d)
    if long + " 6" not in p.stdout:
        fail("a 5,000-character value and a 300-character name: not printed whole")
    print("a 5,000-character value and a 300-character variable name: printed whole")
    deep = os.path.join(d, *(["p" * 200] * 6))  # a data file whose path is longer than mdlite keeps
    os.makedirs(deep)
    shutil.copy(os.path.join(d, "two.data") if os.path.exists(os.path.join(d, "two.data")) else data, deep)
    p = refused(d, "long-path", f"units lj\nread_data {os.path.join(deep, 'two.data')}\n"
                "pair_style lj/cut 2.5\npair_coeff * * 1 1\nfix 1 all nve\nrun 1\n", ["in.test:2:", "characters"])
    refused(d, "no-atoms", LJ.format(types=1).replace("create_atoms 1 box\n", "") + "mass 1 1.0\n"
            "pair_style lj/cut 2.5\npair_coeff * * 1.0 1.0\nfix 1 all nve\nrun 10\n", ["in.test:10:", "no atoms"])
    refused(d, "no-mass", LJ.format(types=1) + "pair_style lj/cut 2.5\npair_coeff * * 1.0 1.0\nfix 1 all nve\n"
            "run 10\n", ["in.test:10:", "type 1 has no mass"])
    lammps_refuses(d, "no-mass", LJ.format(types=1) + "pair_style lj/cut 2.5\npair_coeff * * 1.0 1.0\n"
                   "fix 1 all nve\nrun 10\n")
    twice = os.path.join(d, "CuCu.eam.alloy")
    setfl_twice(twice)
    metal = "units metal\nlattice fcc 3.615\nregion box block 0 4 0 4 0 4\ncreate_box 1 box\ncreate_atoms 1 box\n" \
            "neighbor 1.0 bin\nfix 1 all nve\nthermo 10\n"
    agree(d, "setfl-twice", metal + "pair_style eam/alloy\npair_coeff * * CuCu.eam.alloy Cu\nvelocity all create 300 5\n"
          "run 20\n", [twice],
          "a setfl file naming Cu twice: the first, as LAMMPS maps it")
    cu = os.path.join(d, "cu.dat")
    rows = [f"{n + 1} 1 {x * 3.615} {y * 3.615} {z * 3.615}" for n, (x, y, z) in
            enumerate((i + bx, j + by, k + bz) for k in range(4) for j in range(4) for i in range(4)
                      for bx, by, bz in ((0, 0, 0), (.5, .5, 0), (.5, 0, .5), (0, .5, .5)))]
    write(cu, "cu\n\n256 atoms\n1 atom types\n\n0 14.46 xlo xhi\n0 14.46 ylo yhi\n0 14.46 zlo zhi\n\nMasses\n\n"
          "1 50.0\n\nAtoms # atomic\n\n" + "\n".join(rows) + "\n")
    p = agree(d, "data-masses-eam", "units metal\nread_data cu.dat\nneighbor 1.0 bin\n"
              f"pair_style eam\npair_coeff 1 1 {POT}/Cu_u3.eam\nvelocity all create 300 5\nfix 1 all nve\nthermo 10\n"
              "run 20\n", [cu],
              "a data file's Masses under eam: the potential file's mass, as LAMMPS's pair_coeff sets it")
    if "replaced by" not in p.stderr:
        fail(f"data-masses-eam: no note of the mass replaced:\n{p.stderr}")
    # convert's INI, saved elsewhere and run from a third folder, runs the same
    os.makedirs(os.path.join(d, "conv"))
    script = write(os.path.join(d, "conv", "in.conv"), metal + f"pair_style eam\npair_coeff 1 1 {POT}/Cu_u3.eam\n"
                   "velocity all create 300 5\nrun 20\nwrite_data out.data\n")
    ini = run([MDLITE, "convert", script], cwd=d).stdout
    os.makedirs(os.path.join(d, "elsewhere", "deep"))
    saved = write(os.path.join(d, "elsewhere", "deep", "saved.ini"), ini)
    a = run([MDLITE, "run", script, "--quiet"], cwd=d)
    first = open(os.path.join(d, "conv", "thermo.csv")).read()
    b = run([MDLITE, "run", saved, "--quiet", "--overwrite"], cwd=os.path.join(d, "elsewhere"))
    if open(os.path.join(d, "conv", "thermo.csv")).read() != first or a.returncode or b.returncode:
        fail("convert: the INI saved elsewhere does not run the script's run")
    print("convert: its INI, saved in another folder and run from a third, reads the same files and writes the "
          "same thermo.csv")


# ---- 3. what LAMMPS users write -------------------------------------------------------------

KEYWORDS = ("step elapsed elaplong dt time cpu tpcpu spcpu atoms temp press pe ke etotal enthalpy evdwl ecoul epair "
            "elong etail vol density lx ly lz xlo xhi ylo yhi zlo zhi pxx pyy pzz pxy pxz pyz fmax fnorm nbuild "
            "ndanger cella cellb cellc cellalpha cellbeta cellgamma")


def keywords(d):
    base = LJ.format(types=1) + "mass 1 1.0\nvelocity all create 1.0 4711\npair_style lj/cut 2.5\n" \
        "pair_coeff * * 1.0 1.0\npair_modify tail yes\nfix 1 all nvt temp 1.0 1.0 0.5\nthermo 10\n"
    agree(d, "all-keywords", base + f"thermo_style custom {KEYWORDS}\nrun 30\n", what=f"{len(KEYWORDS.split())} "
          "keywords (cpu, tpcpu, spcpu are clocks: not compared)")
    metal = "units metal\nlattice fcc 3.615\nregion box block 0 4 0 4 0 4\ncreate_box 1 box\ncreate_atoms 1 box\n" \
            f"neighbor 1.0 bin\npair_style eam/opt\npair_coeff 1 1 {POT}/Cu_u3.eam\nvelocity all create 300 5\n" \
            "fix 1 all nve\nthermo 10\n"
    agree(d, "eam-keywords", metal + f"thermo_style custom {KEYWORDS}\nrun 30\n", what="EAM, accelerator suffixes")
    # the output-only commands change no number: the same run with and without them
    extra = ("echo both\nprint \"a 'quoted' # text\"\nprint \"\"\"triple\"\"\" screen yes\nprocessors * * *\n"
             "atom_modify map array sort 0 0.0\ntimer off\ninfo\nlog run.log\ninclude more.in\nnewton on\n"
             "variable t equal $(2*0.5:%.3f)\nthermo_modify flush yes lost warn\n")
    write(os.path.join(d, "more.in"), "# included\nvariable inc equal 1\n")
    plain = agree(d, "quiet", base + "run 20\n")
    loud = agree(d, "loud", base.replace("atom_style atomic\n", "atom_style atomic\n" + extra.replace(
        "info\n", "").replace("log run.log\n", "")).replace("\nthermo 10\n", "\nthermo 10\ninfo\nlog run.log\n") +
        "run 20\n", [os.path.join(d, "more.in")])
    if table(plain.stdout) != table(loud.stdout):
        fail("output-only commands changed the thermo rows")
    log = open(os.path.join(d, "loud", "mdlite", "run.log")).read()
    for want in ("a 'quoted' # text", "triple", "print", "Loop time"):
        if want not in loud.stdout or want not in log:
            fail(f"echo/print/log: '{want}' missing from the screen or run.log")
    print("echo, print (quotes, triple quotes), processors, atom_modify, timer, info, log, include, newton, $(...) "
          "and thermo_modify flush/lost: the same rows; the prints and the echoed commands on the screen and in "
          "run.log")
    # thermo_modify format and line multi (the table only)
    p = run([MDLITE, "run", write(os.path.join(d, "in.fmt"), base + "thermo_style custom step temp pe\n"
             "thermo_modify format float %10.4f format int %5d format 3 %.2e\nrun 10\nthermo_modify line multi\n"
             "run 10\n")], cwd=d)
    if not re.search(r"^ {4}0 {5}1\.0000 -\d\.\d\de\+00 $", p.stdout, re.M) or "Temp     =" not in p.stdout or \
            "---------------- Step       20 ----- CPU =" not in p.stdout:
        fail(f"thermo_modify format / line multi: not LAMMPS's table:\n{p.stdout}")
    print("thermo_modify format float/int/N and line multi: LAMMPS's table")
    # -var and -in on the command line
    write(os.path.join(d, "in.var"), base + "run ${steps}\n")
    p = run([MDLITE, "run", "-in", "in.var", "-var", "steps", "10", "--quiet"], cwd=d)
    q = run_lmp(["lmp", "-in", "in.var", "-var", "steps", "10", "-log", "none"], cwd=d)
    if "Loop time" not in q.stdout:
        fail("-var: LAMMPS did not run")
    rows = open(os.path.join(d, "thermo.csv")).read().splitlines()
    if rows[-1].split(",")[0] != "10":
        fail(f"-in in.var -var steps 10: the run did not take 10 steps ({rows[-1]})")
    print("-in SCRIPT -var steps 10: run as lmp -in SCRIPT -var steps 10 runs it")


# ---- 8. messages that name the right cause ---------------------------------------------------

def messages(d):
    base = "pair_style lj/cut 2.5\npair_coeff * * 1.0 1.0\nfix 1 all nve\nthermo 10\nrun 20\n"
    agree(d, "comment-first", "units lj # reduced units\n" + LJ.format(types=1).replace("units lj\n", "") +
          "mass 1 1.0\nvelocity all create 1.0 9\n" + base, what="a first line with a comment is a script")
    agree(d, "at-rest", LJ.format(types=1) + "mass 1 1.0\n" + base, what="a lattice without velocity: at rest")
    rows = [f"{n + 1} 1 {x * 1.6796} {y * 1.6796} {z * 1.6796}" for n, (x, y, z) in
            enumerate((i + bx, j + by, k + bz) for k in range(4) for j in range(4) for i in range(4)
                      for bx, by, bz in ((0, 0, 0), (.5, .5, 0), (.5, 0, .5), (0, .5, .5)))]
    vel = "".join(f"{n + 1} 0.1 -0.2 0.3\n" for n in range(256))
    data = write(os.path.join(d, "start.dat"), "title\n\n   256 atoms\n   1 atom types\n\n 0 6.7184 xlo xhi\n"
                 " 0 6.7184 ylo yhi\n 0 6.7184 zlo zhi\n\n  Masses\n\n  1 1.0 # Ar\n\n  Atoms # atomic\n\n" +
                 "\n".join(rows) + "\n\n  Velocities\n\n" + vel)
    p = agree(d, "read-then-velocity", "units lj\nread_data start.dat\nvelocity all create 1.0 9\n" + base, [data],
              "read_data (indented headers, a .dat name, Masses naming Ar) then velocity create")
    if "replaces the velocities" not in p.stderr:
        fail(f"read-then-velocity: no note of the velocities replaced:\n{p.stderr}")
    short = write(os.path.join(d, "short.data"), open(data).read().replace("256 atoms", "260 atoms"))
    refused(d, "count", "units lj\nread_data short.data\nmass 1 1.0\n" + base,
            ["short.data", "the header gives 260 atoms, and the Atoms section holds 256"], [short])
    more = write(os.path.join(d, "more.data"), open(data).read().replace("256 atoms", "250 atoms").replace(
        "\n\n  Velocities\n\n" + vel, "\n"))
    refused(d, "count-more", "units lj\nread_data more.data\nmass 1 1.0\n" + base,
            ["more.data", "more lines than the header's 250 atoms"], [more])
    refused(d, "divide", "variable x equal 1/0\nvariable y equal v_x+1\nprint ${y}\n", ["in.test:3:", "division by zero"])
    refused(d, "cycle", "variable a equal v_b+1\nvariable b equal v_a*2\nprint ${a}\n", ["in.test:3:", "refers back"])
    refused(d, "no-potential", "units metal\nlattice fcc 3.615\nregion box block 0 4 0 4 0 4\ncreate_box 1 box\n"
            "create_atoms 1 box\npair_style eam\npair_coeff 1 1 nowhere.eam\n", ["in.test:7:", "pair_coeff",
                                                                                   "nowhere.eam", "cannot open"])
    refused(d, "funcfl-alloy", "units metal\nlattice fcc 3.615\nregion box block 0 4 0 4 0 4\ncreate_box 1 box\n"
            f"create_atoms 1 box\npair_style eam/alloy\npair_coeff * * {POT}/Cu_u3.eam Cu\nfix 1 all nve\nrun 1\n",
            ["in.test:7:", "Cu_u3.eam", "a DYNAMO funcfl file", "pair_style eam reads it"])
    refused(d, "huge", "variable x equal 1e300*1e300\nprint ${x}\n", ["in.test:2:", "not a finite number"])


def mpi_tmpdir(d):
    """The tests' lmp (and mpirun) runs share no Open MPI temporary folder (common.own_mpi_tmpdir):
    the state one lmp's exit leaves a starting one in (its /tmp/ompi.HOST.UID gone from under it),
    made to stay: in TMPDIR that name is a file. A plain lmp run fails there (the test of the test);
    run_lmp's, and an mpirun in own_mpi_tmpdir's environment, run."""
    blocked = os.path.join(d, "tmp")
    os.makedirs(blocked)
    write(os.path.join(blocked, f"ompi.{socket.gethostname()}.{os.getuid()}"), "")
    write(os.path.join(d, "in.test"), LJ.format(types=1) + "mass 1 1.0\npair_style lj/cut 2.5\n"
          "pair_coeff 1 1 1.0 1.0\nrun 0\n")
    env = dict(os.environ, TMPDIR=blocked)
    plain = run(["lmp", "-in", "in.test", "-log", "none"], check=False, cwd=d, env=env)
    if plain.returncode == 0:
        fail("test of the test: lmp ran with its MPI folder's name taken by a file")
    p = run_lmp(["lmp", "-in", "in.test", "-log", "none"], check=False, cwd=d, env=env)
    if p.returncode != 0:
        fail(f"run_lmp: lmp exit {p.returncode} where a plain run fails:\n{p.stderr[-600:]}")
    print(f"lmp: exit {plain.returncode} with its MPI folder taken ({plain.stderr.count('session_dir.c')} "
          "session_dir.c errors), exit 0 in a MPI folder of its own")
    mpirun = shutil.which("mpirun")
    if mpirun:
        with own_mpi_tmpdir(dict(env, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")) as e:
            q = run([mpirun, "--oversubscribe", "-np", "2", MDLITE, "run", "in.test"], check=False, cwd=d, env=e)
        if q.returncode != 0:
            fail(f"mpirun -np 2 mdlite in a MPI folder of its own: exit {q.returncode}:\n{q.stderr[-600:]}")
        print("mpirun -np 2 mdlite: exit 0 in a MPI folder of its own")


def main():
    global MDLITE
    MDLITE, case = sys.argv[1], sys.argv[2]
    if not shutil.which("lmp"):
        print("no lmp (LAMMPS): skipped")
        sys.exit(SKIP)
    d = workdir(f"lammps-trust-{case}")
    {"semantics": semantics, "keywords": keywords, "messages": messages, "mpi_tmpdir": mpi_tmpdir}[case](d)


if __name__ == "__main__":
    main()
