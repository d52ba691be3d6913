#!/usr/bin/env python3
"""Differential tester: small LAMMPS scripts made at random from the grammar docs/LAMMPS.md takes
(commands in valid random orders, overrides, variables and immediate formulas, units, every pair
style, data files of any name, output-only commands, groups with velocity edits and fixes on their
forces and temperatures, thermo's computes as c_ID columns, and now and then a line LAMMPS refuses), each
run by `lmp` and by mdlite in a folder of its own. Each script ends in one of these outcomes:

  agree            both run, and every value of every thermo row both print agrees to 1e-10
                   (relative, with an absolute floor of 1; timing columns aside)
  both refuse      lmp stops with an ERROR, mdlite exits 2 naming the script's file and line
  mdlite refuses   lmp runs, mdlite exits 2 naming file and line: a form mdlite does not take
                   (tallied by the command it names)
  BUG differ       both run, and a value, or the steps printed, differ
  BUG accepts      lmp refuses, mdlite runs
  mdlite stops     lmp runs, mdlite stops with exit 1 naming why (a barostat's box below twice
                   the list cutoff, which mdlite cannot run yet; an atom past the skin where lmp
                   counts dangerous builds, whose pairs it may have missed)
  both stop        lmp stops with a run's ERROR (Lost atoms) after its first row, mdlite with exit 1
  BUG exit         mdlite exits otherwise than 0, 1 with its reason, or 2 with file:line
  lmp failed       lmp exits otherwise than 0 or with its ERROR line: no verdict (a failure too)

usage: lammps_diff.py MDLITE [--seed S] [--count N] [--jobs J] [--keep DIR] [--lmp LMP] [--perturb]
--perturb, the test of the test: LAMMPS's copy of each script moves every atom by up to 1e-3 at
random once it is made (displace_atoms); every script that runs and prints a column of the forces
or energy must then differ (exit 0 when all do).
Exit 0 when no script is a BUG or lmp failed, 1 otherwise (each one's script is kept under --keep, or a
temporary folder that is named); 77 without lmp. Prints the counts and the refusals' commands.
"""
import argparse
import collections
import concurrent.futures
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

POT = "/usr/share/lammps/potentials"
TOL = 1e-10
TIMING = {"CPU", "T/CPU", "S/CPU"}  # their labels
SKIP = 77


SUFFIXED = {}  # style -> an accelerated variant this lmp has (lmp -h), filled by main


def suffixed(style):
    """The style with an accelerator suffix lmp has (mdlite takes every suffix as the plain style)."""
    return SUFFIXED.get(style, style)


class Script:
    """A script's lines as they are made, and the files it needs beside it."""

    def __init__(self, rng):
        self.rng = rng
        self.lines = []
        self.files = {}  # name -> text (data files, included scripts)
        self.expect_refusal = False
        self.groups = []   # the groups made (groups()), for the runs' fixes
        self.grng = None
        self.trng = None   # the thermostats' moving targets: their own stream (a seed's other lines stay)
        self.vrng = None   # velocity commands between runs: theirs

    def add(self, line):
        self.lines.append(line)

    def maybe(self, p):
        return self.rng.random() < p


def fcc_data(rng, a, cells, types, masses, velocities, shift):
    """An fcc crystal as a LAMMPS data file, its atoms displaced by up to shift, of `types` types."""
    basis = [(0, 0, 0), (0.5, 0.5, 0), (0.5, 0, 0.5), (0, 0.5, 0.5)]
    sites = [((i + b[0]) * a, (j + b[1]) * a, (k + b[2]) * a) for k in range(cells) for j in range(cells)
             for i in range(cells) for b in basis]
    L = a * cells
    text = f"random fcc crystal\n\n  {len(sites)} atoms\n  {types} atom types\n\n"
    text += "".join(f"0 {L!r} {d}lo {d}hi\n" for d in "xyz")
    if masses:
        text += "\n  Masses\n\n" + "".join(f"{t + 1} {m} # type{t + 1}\n" for t, m in enumerate(masses))
    text += "\nAtoms # atomic\n\n"
    text += "".join(f"{n + 1} {rng.randint(1, types)} "
                    f"{' '.join(repr((c + rng.uniform(-shift, shift)) % L) for c in p)}\n" for n, p in enumerate(sites))
    if velocities:
        text += "\nVelocities\n\n" + "".join(
            f"{n + 1} {' '.join(repr(rng.uniform(-velocities, velocities)) for _ in range(3))}\n"
            for n in range(len(sites)))
    return text


def lattice_keywords(s, style):
    """Now and then an orientation (x along [110]) or a shifted origin."""
    rng, out = s.rng, ""
    if style != "hcp" and s.maybe(0.2):
        out += " orient x 1 1 0 orient y -1 1 0 orient z 0 0 1"
    if s.maybe(0.15):
        out += f" origin {rng.choice(['0.1 0.2 0.3', '0.5 0 0.25'])}"
    return out


def region(s, nx, ny, nz):
    """region box: a block, or (a third of the time) a prism within LAMMPS's tilt limits, its tilts
    whole cells (a fraction of one would put atoms on top of each other across the tilted faces)."""
    rng = s.rng
    if not s.maybe(0.35) or "$" in str(nx):
        return f"region box block 0 {nx} 0 {ny} 0 {nz}"
    half = min(nx, ny) / 2
    tilts = [rng.choice([0, 1, -1, 2]) for _ in range(3)]
    tilts = [t if abs(t) <= half else 0 for t in tilts]
    return f"region box prism 0 {nx} 0 {ny} 0 {nz} {tilts[0]} {tilts[1]} {tilts[2]}"


def system(s, units):
    """The box and atoms: a lattice filled, or a data file read; returns (types, style hints)."""
    rng = s.rng
    if units == "lj":
        if s.maybe(0.35):
            types = rng.choice([1, 1, 2])
            name = rng.choice(["start.data", "start.dat", "data.start", "start.lmp", "coords.txt"])
            masses = [rng.choice(["1.0", "1.5", "2.0"]) for _ in range(types)] if s.maybe(0.7) else None
            s.files[name] = fcc_data(rng, 1.6796, 4, types, masses, rng.choice([0, 0.5]), 0.05)
            s.add(f"read_data {name}")
            return types, {"masses": bool(masses), "data": True}
        style, rho, cells = rng.choice([("fcc", 0.8442, 4), ("bcc", 0.8, 5), ("sc", 0.7, 6), ("hcp", 0.8442, 4)])
        n = rng.choice([cells, cells + 1, "${n}"])
        if n == "${n}":
            s.lines.insert(0, f"variable n index {cells}")
        s.add(f"lattice {style} {rho}{lattice_keywords(s, style)}")
        s.add(region(s, n, n, cells))
        s.add("create_box 1 box")
        s.add("create_atoms 1 box")
        return 1, {"masses": False, "data": False}
    if s.maybe(0.15):  # two species of one setfl file
        s.files["cuni.data"] = fcc_data(rng, 3.56, 4, 2, ["63.546", "58.69"] if s.maybe(0.5) else None, 0, 0.05)
        s.add("read_data cuni.data")
        return 2, {"masses": True, "data": True, "metal": "CuNi"}
    if s.maybe(0.3):
        name = rng.choice(["cu.data", "cu.dat", "data.cu"])
        masses = ["63.546"] if s.maybe(0.6) else None
        s.files[name] = fcc_data(rng, 3.615, 4, 1, masses, rng.choice([0, 0.02]), 0.05)
        s.add(f"read_data {name}")
        return 1, {"masses": bool(masses), "data": True, "metal": "Cu"}
    element = rng.choice(["Cu", "Cu", "Fe"])
    s.add(f"lattice {'fcc 3.615' if element == 'Cu' else 'bcc 2.8665'}")
    cells = rng.choice([1, 2, 4, 5]) if element == "Cu" else rng.choice([2, 6])  # 1, 2: under twice the list cutoff
    s.add(region(s, cells, cells, cells))
    s.add("create_box 1 box")
    s.add("create_atoms 1 box")
    return 1, {"masses": False, "data": False, "metal": element}


def pair(s, units, types, hints):
    """pair_style and pair_coeff lines, overrides included; the masses where the style needs them."""
    rng = s.rng
    if units == "lj":
        style = rng.choice(["lj/cut", "lj/cut", suffixed("lj/cut"), "morse"])
        rc = rng.choice(["2.5", "2.5", "2.0"])
        s.add(f"pair_style {style} {rc}")
        if style.startswith("lj"):
            if s.maybe(0.4):  # an override: the last write wins per pair
                s.add("pair_coeff * * 0.5 0.9")
            s.add(f"pair_coeff * * 1.0 1.0{rng.choice(['', ' 2.5', ' 2.2'])}")
            if types == 2:
                s.add("pair_coeff 1 2 0.8 1.1")
                s.add("pair_coeff 2 2 1.2 0.95")
            if s.maybe(0.3):
                s.add("pair_coeff 1 1 1.0 1.0 2.3")
            if s.maybe(0.3):
                s.add(f"pair_modify {rng.choice(['shift yes', 'tail yes', 'shift no'])}")
        else:
            s.add("pair_coeff * * 1.0 3.0 1.1")
            if types == 2:
                s.add("pair_coeff 1 2 0.9 2.8 1.05")
        if not hints["masses"] or s.maybe(0.3):
            s.add(f"mass * {rng.choice(['1.0', '1.3'])}")
            if s.maybe(0.3):
                s.add("mass 1 1.1")
        return
    element = hints.get("metal", "Cu")
    if element == "CuNi":
        s.add(f"pair_style {rng.choice(['eam/alloy', suffixed('eam/alloy')])}")
        s.add(f"pair_coeff * * {POT}/CuNi.eam.alloy {rng.choice(['Cu Ni', 'Ni Cu'])}")
        return
    if element == "Fe":
        s.add(f"pair_style {rng.choice(['eam/fs', suffixed('eam/fs')])}")
        s.add(f"pair_coeff * * {POT}/Fe_mm.eam.fs Fe")
        return
    choice = rng.choice(["eam", suffixed("eam"), "eam/alloy", "eam/alloy"])
    s.add(f"pair_style {choice}")
    if choice.startswith("eam/alloy"):
        s.add(f"pair_coeff * * {POT}/{rng.choice(['Cu_mishin1.eam.alloy', 'Cu_zhou.eam.alloy'])} Cu")
    else:
        s.add(f"pair_coeff {rng.choice(['1 1', '* *'])} {POT}/Cu_u3.eam")


def variables(s):
    """Variables of LAMMPS's styles, defined again (an index kept, an equal replaced), used in later lines."""
    rng = s.rng
    s.add(f"variable T0 index {rng.choice(['1.0', '1.2'])}")
    s.add("variable T0 index 9.9")  # LAMMPS keeps an index variable defined again
    s.add("variable half equal ${T0}/2")
    s.add("variable half equal v_T0*0.5")  # an equal variable is replaced
    s.add(f"variable nrun loop {rng.choice([2, 3])}")
    s.add('variable word string "two words"')
    s.add(f"variable s equal {rng.choice(['sqrt(400)', 'ceil(9.5)*2', '2^3+12', '(1<2)*20', 'round(19.6)', 'ln(exp(20))'])}")


def thermo_lines(s, units):
    rng = s.rng
    s.add(f"thermo {rng.choice([0, 5, 10])}")
    if s.maybe(0.6):
        words = ["temp", "pe", "ke", "etotal", "press", "vol", "density", "enthalpy", "evdwl", "epair", "emol",
                 "atoms", "elapsed", "dt", "time", "lx", "ly", "lz", "xlo", "xhi", "pxx", "pyy", "pzz", "pxy",
                 "pxz", "pyz", "fmax", "fnorm", "nbuild", "ndanger", "cella", "cellgamma", "etail", "ecouple",
                 "econserve"]
        s.add("thermo_style custom step " + " ".join(rng.sample(words, rng.randint(2, 7))))
    if s.maybe(0.4):
        s.add(f"thermo_modify norm {rng.choice(['yes', 'no'])}")
    if s.maybe(0.2):
        s.add("thermo_modify flush yes format float %14.6g")


def output_only(s):
    """Commands that change no number, sprinkled where a user writes them."""
    rng = s.rng
    pick = rng.choice(["echo screen", "echo none", 'print "settled at $(2*3) steps"', "processors * * *",
                       "atom_modify sort 0 0.0", 'print """a quoted # text\nover lines"""', "thermo_modify lost warn",
                       "atom_modify map array", "timer off", "include extra.in", "log run.log", "newton on",
                       "print 'done: ${one}' screen yes"])
    if pick == "include extra.in":
        s.files["extra.in"] = "# included\nvariable inc equal 1\n"
    if "${one}" in pick:
        s.add("variable one string ok")
    s.add(pick)


def runs(s, units):
    rng = s.rng
    T = "1.0" if units == "lj" else "300.0"
    tdamp = "0.5" if units == "lj" else "0.1"
    if s.maybe(0.25):
        s.add(f"min_style {rng.choice(['cg', 'cg', 'fire'])}")
        s.add(f"minimize {rng.choice(['0.0', '1e-6'])} {rng.choice(['0.0', '1e-8'])} {rng.choice([0, 5, 30])} "
              f"{rng.choice([0, 3, 1000])}")
    fixes = 0
    for r in range(rng.randint(1, 2)):
        # a crystal at rest under a barostat is unstable: it amplifies rounding (both codes' differently)
        at_rest = not any(x.startswith("velocity") for x in s.lines)
        kind = rng.choice(["nve", "nve", "nvt"] if at_rest else ["nve", "nve", "nvt", "npt"])
        if fixes:
            s.add(f"unfix f{fixes}")
            between_runs(s, T)
        fixes += 1
        if kind == "nve":
            s.add(f"fix f{fixes} all {rng.choice(['nve', suffixed('nve')])}")
        elif kind == "nvt":
            s.add(f"fix f{fixes} all nvt temp {T} {target_stop(s, T, units)} {tdamp}")
        else:
            P = "1.0" if units == "lj" else "0.0"
            s.add(f"fix f{fixes} all npt temp {T} {target_stop(s, T, units)} {tdamp} iso {P} {P} "
                  f"{'2.0' if units == 'lj' else '1.0'}")
        steps = rng.choice([0, 10, 20, "$(10+5)"] + (["${s}", "$(v_s)"] if any("variable s " in x for x in s.lines) else []))
        if r == 0 and s.groups:
            group_fixes(s, s.grng, units, kind)
        s.add(f"run {steps}")
        if s.maybe(0.3):
            s.add(f"write_data out{r}.data")


def between_runs(s, T):
    """A third of the second runs begin with velocity commands (their own stream): scale, set with
    sum, create with loop all, on all atoms or the scripts' groups."""
    if s.vrng is None or s.vrng.random() >= 0.35:
        return
    group = s.vrng.choice(["all"] + s.groups)
    # a scale of atoms at rest would scale their rounding (a temperature of 1e-31 to T): ill-posed
    created = any(x.startswith("velocity all create") for x in s.lines)
    edits = [f"velocity {group} scale {T}" if created else "velocity all set 0.0 0.0 0.0",
             f"velocity {group} set NULL 0.02 NULL sum yes", f"velocity {group} create {T} {s.vrng.randint(1, 99999)}",
             "velocity all set 0.0 0.0 0.0"]
    for line in s.vrng.sample(edits, s.vrng.randint(1, 2)):
        s.add(line)


def target_stop(s, T, units):
    """A thermostat's Tstop: its Tstart, or a third of the time a target moving over the run."""
    if s.trng is None or s.trng.random() >= 0.35:
        return T
    return s.trng.choice(["0.8", "1.6"] if units == "lj" else ["200.0", "500.0"])


def groups(s, grng, units, hints):
    """Groups (a third of the lattice scripts; their own random stream, so the other lines of a seed
    stay as they were): a layer of a block region in lattice units, the rest, ids with a range, a
    union; velocity set, ramp or scale on them, and computes of their temperatures."""
    if hints["data"] or grng.random() >= 0.35:
        return
    T = "1.0" if units == "lj" else "300.0"
    s.add("region layer block INF INF INF 0.9 INF INF")
    s.add("group low region layer")
    s.add("group rest subtract all low")
    s.add(f"group ids id 1:{grng.choice([10, 40])} {grng.choice([55, 97])}")
    s.add("group both union low ids")
    s.add("compute trest rest temp")
    created = any(x.startswith("velocity all create") for x in s.lines)
    edits = ["velocity low set 0.0 0.0 0.0", "velocity rest ramp vx 0.0 0.1 y 0.0 3.0 sum yes",
             "velocity ids set NULL 0.05 NULL sum yes"] + ([f"velocity rest scale {T} temp trest"] if created else [])
    for line in grng.sample(edits, grng.randint(0, 2)):
        s.add(line)
    s.groups = ["low", "rest", "ids", "both"]
    if grng.random() < 0.5:
        s.add("thermo_modify temp trest")


def computes(s, crng):
    """Thermo's computes (a third of the scripts; their own random stream): temp, ke, pe, com, ke/atom and
    pe/atom reduced, on all atoms or the scripts' groups, as c_ID columns."""
    if crng.random() >= 0.3:
        return
    g = crng.choice(["all"] + s.groups)
    # no orientorder/atom: this lmp's value at a later run's first row reads the run before's list (seed
    # 7022 of this grammar with it: 0.1557 where its own row of that step, and the configuration, give 0.1908)
    lines = [f"compute ct {g} temp", f"compute ck {g} ke", "compute cp all pe", f"compute cc {g} com",
             f"compute ca {g} ke/atom", f"compute cq {g} pe/atom",
             f"compute cr {crng.choice(['all'] + s.groups)} reduce {crng.choice(['sum', 'min', 'max', 'ave', 'sumsq', 'avesq'])} "
             f"vx fy c_ca c_cq"]
    for line in lines:
        s.add(line)
    cols = crng.sample(["c_ct", "c_ct[2]", "c_ck", "c_cp", "c_cc[*]", "c_cr[*]", "c_cr[3]"], crng.randint(2, 5))
    s.add("thermo_style custom step temp pe " + " ".join(cols))


def group_fixes(s, grng, units, kind):
    """Before the first run: fixes on the groups' forces, and now and then a thermostat on one."""
    T, tdamp = ("1.0", "0.5") if units == "lj" else ("300.0", "0.1")
    f = 0.01 if units == "lj" else 0.001
    fixes = [f"fix g1 low setforce 0.0 0.0 0.0", f"fix g2 ids addforce {f} 0.0 0.0", "fix g3 both aveforce NULL NULL 0.0",
             f"fix g4 rest setforce NULL {f} NULL", f"fix g5 all indent {2 * f * 100} sphere 0.25 0.3 0.35 0.8"]
    for line in grng.sample(fixes, grng.randint(1, 3)):
        s.add(line)
    # a rescaling of atoms at rest scales their rounding (seed 6630): only where velocities were made
    created = any(x.startswith("velocity all create") for x in s.lines)
    if kind == "nve" and grng.random() < 0.4 and created:
        s.add(f"fix t1 rest temp/berendsen {T} {target_stop(s, T, units)} {tdamp}")
        s.add("fix_modify t1 temp trest")


BAD = ["frobnicate 1 2", "mass 0 1.0", "units real", "pair_coeff 3 3 1.0 1.0", "run -5", "variable x equal 1/0",
       "print ${undefined}", "velocity all create 1.0 0", "timestep 0", 'print "unbalanced', "mass 1 -2.0",
       "thermo_style custom temp step"]


def make_script(seed):
    rng = random.Random(seed)
    s = Script(rng)
    units = rng.choice(["lj", "lj", "metal"])
    if s.maybe(0.2):  # set before units: units resets them, as in LAMMPS
        s.add("timestep 0.002")
        s.add("neighbor 0.5 bin")
    s.add(f"units {units}")
    s.add("atom_style atomic")
    if s.maybe(0.3):
        s.add("boundary p p p")
    types, hints = system(s, units)
    pair(s, units, types, hints)
    if units == "lj" and s.maybe(0.5):
        s.add(f"neighbor {rng.choice(['0.3', '0.4'])} {rng.choice(['bin', 'nsq'])}")
    elif units == "metal":
        s.add(f"neighbor {rng.choice(['1.0', '1.5'])} bin")
    if s.maybe(0.5):
        s.add(f"neigh_modify every {rng.choice([1, 2])} delay {rng.choice([0, 2])} check {rng.choice(['yes', 'no'])}")
    if not hints["data"] or s.maybe(0.5):
        T = rng.choice(["1.0", "1.5"]) if units == "lj" else rng.choice(["300.0", "600.0"])
        opts = rng.choice(["", " dist gaussian", " loop geom", " mom yes rot no", " dist gaussian loop geom"])
        if s.maybe(0.15):
            pass  # no velocity command: the atoms start at rest (or with the file's velocities)
        else:
            s.add(f"velocity all create {T} {rng.randint(1, 999999)}{opts}")
    if units == "metal" or s.maybe(0.3):
        s.add(f"timestep {rng.choice(['0.001', '0.002']) if units == 'metal' else '0.004'}")
    if s.maybe(0.4):
        variables(s)
        s.add('print "T0 = ${T0}, half = ${half}, word = ${word}, s = $s, $(v_s/4:%.3f)"')
    thermo_lines(s, units)
    s.grng = random.Random(seed * 1000003 + 17)
    s.trng = random.Random(seed * 1000033 + 29)
    s.vrng = random.Random(seed * 1000037 + 31)
    groups(s, s.grng, units, hints)
    computes(s, random.Random(seed * 1000039 + 37))
    for _ in range(rng.randint(0, 2)):
        s.lines.insert(rng.randint(len(s.lines) // 2, len(s.lines)), "")
        output_only(s)
    runs(s, units)
    if s.maybe(0.12):  # a line LAMMPS refuses, somewhere after the units
        s.lines.insert(rng.randint(2, len(s.lines)), rng.choice(BAD))
    return "\n".join(s.lines) + "\n", s.files


# ---- running and comparing ------------------------------------------------------------------

def lammps_rows(log):
    """Every thermo row of a table (LAMMPS's log, mdlite's screen), by step, its values in column
    order; and each step's column names."""
    rows, ncol, names, header = {}, None, {}, []
    for line in log.splitlines():
        w = line.split()
        if w and w[0] == "Step":
            ncol, header = len(w), w
        elif ncol and w and re.fullmatch(r"-?\d+", w[0]) and len(w) == ncol:
            try:  # a step a run ends on and the next begins on: both of its rows
                rows.setdefault(int(w[0]), []).append([float(x) for x in w])
                names.setdefault(int(w[0]), []).append(header)
            except ValueError:
                pass
        elif w and w[0] == "Loop":
            ncol = None
    return rows, names


def floor(name, units):
    """The absolute floor of a column's relative difference: 1, and for pressures in metal units
    (bar: 1.6e6 times eV per cubic Angstrom) 1000 bar, where a crystal at rest sums to rounding."""
    return 1000.0 if units == "metal" and name.startswith("P") and name not in ("PotEng",) else 1.0


def one(mdlite, lmp, seed, root, perturb=False):
    text, files = make_script(seed)
    units = "metal" if "units metal" in text else "lj"
    d = os.path.join(root, f"s{seed}")
    for sub in ("lammps", "mdlite"):
        os.makedirs(os.path.join(d, sub))
        for name, body in files.items():
            with open(os.path.join(d, sub, name), "w") as f:
                f.write(body)
    # both print every value to 17 digits: the format set before each run (thermo_style resets it)
    full = re.sub(r"^(\s*(run|minimize)\s)", r"thermo_modify format float %.17g\n\1", text, flags=re.M)
    for sub in ("lammps", "mdlite"):
        with open(os.path.join(d, sub, "in.test"), "w") as f:
            f.write(re.sub(r"^((create_atoms|read_data) .*)$", r"\1\ndisplace_atoms all random 1e-3 1e-3 1e-3 4242",
                           full, count=1, flags=re.M) if perturb and sub == "lammps" else full)
    env = dict(os.environ, OMP_NUM_THREADS="1")
    # lmp's Open MPI temporary folder one of its own: lmp runs that start and end beside
    # each other share /tmp/ompi.HOST.UID, and one's exit removes it under another's start (exit 1,
    # "Error in file ../../../orte/util/session_dir.c at line 107"): 2 of 2,000 here beside a ctest
    # lmp killed by a signal on its way out of an ERROR (its MPI_Abort; the ERROR line lost with its
    # buffered output: seed 141 once beside a ctest): run once more, and only a second death is a failure
    for attempt in range(2):
        with tempfile.TemporaryDirectory(prefix="lammps-diff-ompi-") as tmp:
            lp = subprocess.run([lmp, "-in", "in.test", "-log", "none", "-nocite"], cwd=os.path.join(d, "lammps"),
                                capture_output=True, text=True, env=dict(env, OMPI_MCA_orte_tmpdir_base=tmp), timeout=300)
        refusal = re.search(r"^ERROR( on proc \d+)?: .*", lp.stdout + lp.stderr, re.M)  # LAMMPS's own refusal
        if lp.returncode >= 0 or refusal:
            break
    if lp.returncode != 0 and not refusal:  # lmp stopped otherwise (its MPI start, a crash): no verdict
        return "lmp failed", seed, f"lmp exit {lp.returncode}: {lp.stderr.strip()[-200:]}", d
    lmp_ok = lp.returncode == 0 and not refusal
    mp = subprocess.run([mdlite, "run", "in.test"],
                        cwd=os.path.join(d, "mdlite"), capture_output=True, text=True, env=env, timeout=300)
    with open(os.path.join(d, "mdlite", "stdout"), "w") as f:
        f.write(mp.stdout)
    where = re.search(r"(in\.test|extra\.in):(\d+): (\S+)", mp.stderr) or \
        re.search(r"(\S+\.(data|dat|lmp|txt|eam|alloy|fs)|data\.\w+):(\d+):", mp.stderr)
    dangerous = re.search(r"^Dangerous builds = [1-9]", lp.stdout, re.M)
    if mp.returncode == 1 and lmp_ok and ("the run stops" in mp.stderr or (dangerous and "than the skin" in mp.stderr)):
        return "mdlite stops", seed, re.search(r"error: (.*)", mp.stderr).group(1)[:80], d
    if mp.returncode == 1 and refusal and re.search(r"^\s*Step ", lp.stdout, re.M) and "error: " in mp.stderr:
        return "both stop", seed, refusal.group(0)[:80], d
    if mp.returncode not in (0, 2) or (mp.returncode == 2 and not where):
        return "BUG exit", seed, f"mdlite exit {mp.returncode}: {mp.stderr.strip()[-300:]}", d
    if mp.returncode == 2:
        cmd = where.group(3).rstrip(":") if where.group(1) in ("in.test", "extra.in") else "a file it reads"
        return ("both refuse" if not lmp_ok else "mdlite refuses"), seed, cmd, d
    if not lmp_ok:
        return "BUG accepts", seed, refusal.group(0), d
    theirs, names = lammps_rows(lp.stdout)
    ours, ours_names = lammps_rows(mp.stdout)
    if set(ours) != set(theirs):
        return "BUG differ", seed, f"steps: mdlite {sorted(ours)[:8]}, LAMMPS {sorted(theirs)[:8]}", d
    worst = 0.0
    for step, ours_rows in ours.items():
        seen = {}
        for row, header in zip(ours_rows, ours_names[step]):  # LAMMPS's row of the same columns there
            # LAMMPS prints a step a run ends on again as the next run's first (a run 0's too); mdlite
            # once, or again where the row tells something new (edited velocities, new columns, a run
            # 0): its first row is LAMMPS's first, its later ones LAMMPS's last
            match = [r for r, h in zip(theirs[step], names[step]) if h == header]
            k = seen[tuple(header)] = seen.get(tuple(header), -1) + 1
            later = sum(1 for h in ours_names[step] if h == header) - k
            if len(match) <= k or len(match) < later:
                return "BUG differ", seed, f"step {step}: columns {header} against LAMMPS's {names[step]}", d
            for name, a, b in zip(header, row, match[k] if k == 0 else match[-later]):
                if name in TIMING:
                    continue
                rel = abs(a - b) / max(abs(b), floor(name, units))
                worst = max(worst, rel)
                if not rel <= TOL:
                    return "BUG differ", seed, f"step {step} {name}: mdlite {a!r}, LAMMPS {b!r} ({rel:.3g})", d
    return "agree", seed, f"{len(ours)} rows, worst {worst:.2g}", d


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mdlite")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--keep", default=None, help="a folder for the scripts (default: a temporary one)")
    ap.add_argument("--lmp", default=shutil.which("lmp"))
    ap.add_argument("--perturb", action="store_true", help="the test of the test (see above)")
    a = ap.parse_args()
    if not a.lmp:
        print("no lmp (LAMMPS): skipped")
        return SKIP
    root = a.keep or tempfile.mkdtemp(prefix="mdlite-lammps-diff-")
    os.makedirs(root, exist_ok=True)
    mdlite = os.path.abspath(a.mdlite)
    styles = subprocess.run([a.lmp, "-h"], capture_output=True, text=True).stdout
    for style in ("lj/cut", "eam", "eam/fs", "eam/alloy", "nve"):
        for suffix in ("opt", "omp", "gpu", "kk"):
            if re.search(rf"(^|\s){re.escape(style)}/{suffix}(\s|$)", styles, re.M):
                SUFFIXED[style] = f"{style}/{suffix}"
                break
    seeds = range(a.seed, a.seed + a.count)
    results = []
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        for r in pool.map(lambda s: one(mdlite, a.lmp, s, root, a.perturb), seeds):
            results.append(r)
    counts = collections.Counter(r[0] for r in results)
    refusals = {k: collections.Counter(r[2] for r in results if r[0] == k) for k in ("mdlite refuses", "both refuse")}
    bugs = [r for r in results if r[0].startswith("BUG") or r[0] == "lmp failed"]
    worst = max([float(r[2].split()[-1]) for r in results if r[0] == "agree"] + [0.0])
    print(f"lammps_diff: {len(results)} scripts (seeds {a.seed} to {a.seed + a.count - 1}): " +
          ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) + f"; worst agreement {worst:.2g}")
    for kind, tally in refusals.items():
        if tally:
            print(f"  {kind}, by the command mdlite names: " + ", ".join(f"{k} {v}" for k, v in tally.most_common()))
    for kind, seed, why, d in bugs:
        print(f"  {kind}: seed {seed}: {why}\n    script: {d}/mdlite/in.test")
    if a.perturb:
        energy = re.compile(r"\b(E_pair|PotEng|TotEng|Press|E_vdwl|Enthalpy|Fnorm|Pxx|Pyy|Pzz)\b")
        drawn = [r for r in results if r[0] in ("agree", "BUG differ") and
                 energy.search(open(os.path.join(r[3], "mdlite", "stdout")).read())]
        missed = [r for r in drawn if r[0] == "agree"]
        print(f"test of the test: {len(drawn) - len(missed)} of {len(drawn)} scripts whose atoms LAMMPS moved by 1e-3 "
              f"differ")
        for r in missed:
            print(f"  missed: seed {r[1]}: {r[3]}/mdlite/in.test")
        if not a.keep:
            shutil.rmtree(root, ignore_errors=True)
        return 1 if missed or not drawn else 0
    for kind, seed, why, d in results:
        if not kind.startswith("BUG") and kind != "lmp failed" and not a.keep:
            shutil.rmtree(d, ignore_errors=True)
    if not bugs and not a.keep:
        shutil.rmtree(root, ignore_errors=True)
    return 1 if bugs else 0


if __name__ == "__main__":
    sys.exit(main())
