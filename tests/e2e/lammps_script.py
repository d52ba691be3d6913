#!/usr/bin/env python3
"""LAMMPS input scripts run by mdlite (`mdlite run in.X`) against the Debian `lmp` on the same script:
every thermo row both print agrees to 1e-10 (relative, with that absolute floor), and the data
files both write (write_data) hold the same atoms to 1e-8. Cases: LAMMPS's bench/in.lj and
bench/in.eam as they are; a script of three runs (Nose-Hoover NVT, NVE, NPT) with variables, a
continued command and write_data after two of them; a script that reads LAMMPS's data file and
writes its own; scripts and data files mdlite must refuse (exit 2, naming file and line).

usage: lammps_script.py MDLITE [lj|eam|stages|bad|data_bad]
"""
import os
import random
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import SKIP, fail, read_thermo, run, run_lmp, workdir, write  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(HERE, "..", "lammps", "scripts")
POT = "/usr/share/lammps/potentials"
TOL = 1e-10
# LAMMPS's log headers, and the columns of mdlite's thermo.csv (a script's CSV keeps mdlite's usual
# columns), by the LAMMPS names
NAMES = {"Step": "step", "Temp": "temp", "PotEng": "pe", "E_pair": "pe", "KinEng": "ke", "TotEng": "etotal",
         "Press": "press", "Volume": "vol"}
CSV = {"step": "step", "temperature": "temp", "potential_energy": "pe", "kinetic_energy": "ke",
       "total_energy": "etotal", "pressure": "press", "volume": "vol"}


def lammps_rows(log):
    """Every thermo row of a LAMMPS log by step (a step printed twice, at a run's end and the next
    one's start, must print the same numbers)."""
    rows, hdr = {}, None
    for line in open(log):
        w = line.split()
        if w and w[0] == "Step":
            hdr = [NAMES.get(h, h) for h in w]
        elif hdr and w and re.fullmatch(r"-?\d+", w[0]) and len(w) == len(hdr):
            row = dict(zip(hdr, map(float, w)))
            rows[int(w[0])] = row
        elif w and w[0] == "Loop":
            hdr = None
    return rows


def run_lammps(script, cwd):
    """The script through lmp with thermo printed to 17 digits (the format set before every run, as
    thermo_style resets it); its log's rows."""
    text = re.sub(r"^(\s*(run|minimize)\s)", r"thermo_modify format float %.17g\n\1", open(script).read(),
                  flags=re.M)
    path = write(os.path.join(cwd, os.path.basename(script)), text)
    run_lmp(["lmp", "-in", os.path.basename(path), "-log", "lmp.log", "-screen", "none"], cwd=cwd)
    return lammps_rows(os.path.join(cwd, "lmp.log"))


def compare_thermo(ours, theirs, what):
    """Every value of LAMMPS's rows (but E_mol, 0 here) against mdlite's thermo.csv at the same step."""
    worst, n = 0.0, 0
    ours = [{CSV[k]: v for k, v in row.items() if k in CSV} for row in ours]
    for row in ours:
        ref = theirs.get(row["step"])
        if ref is None:
            fail(f"{what}: step {row['step']} is in mdlite's thermo.csv, not in LAMMPS's log")
        for k in ref:
            if k not in row and k != "E_mol":
                fail(f"{what}: LAMMPS's column {k} is not in mdlite's thermo.csv")
        for k, v in row.items():
            if k == "step" or k not in ref:
                continue
            d = abs(v - ref[k]) / max(abs(ref[k]), 1.0)
            worst = max(worst, d)
            n += 1
            if not d <= TOL:
                fail(f"{what}: step {row['step']} {k}: mdlite {v!r}, LAMMPS {ref[k]!r} (relative {d:.3g})")
    if set(theirs) - {r["step"] for r in ours}:
        fail(f"{what}: LAMMPS printed steps {sorted(set(theirs) - {r['step'] for r in ours})} that mdlite did not")
    print(f"{what}: {len(ours)} rows, {n} values, worst relative difference {worst:.3g} (tolerance {TOL:g})")


def read_data(path):
    """A data file's box, and each atom's unwrapped position and velocity by id."""
    lines = open(path).read().split("\n")
    box, atoms, vel, section = [], {}, {}, None
    for line in lines:
        w = line.split("#")[0].split()
        if len(w) == 4 and w[2].endswith("lo"):
            box.append((float(w[0]), float(w[1])))
        elif len(w) in (1, 2) and w[0] in ("Atoms", "Velocities", "Masses", "Pair", "PairIJ"):
            section = w[0]
        elif section == "Atoms" and len(w) == 8:
            img = [int(x) for x in w[5:8]]
            atoms[int(w[0])] = [float(w[2 + d]) + img[d] * (box[d][1] - box[d][0]) for d in range(3)]
        elif section == "Velocities" and len(w) == 4:
            vel[int(w[0])] = [float(x) for x in w[1:]]
    return box, atoms, vel


def compare_data(ours, theirs, what, tol=1e-8):
    b1, a1, v1 = read_data(ours)
    b2, a2, v2 = read_data(theirs)
    if sorted(a1) != sorted(a2) or sorted(v1) != sorted(v2) or not a1:
        fail(f"{what}: the files hold different atoms ({len(a1)} / {len(a2)})")
    worst = max(abs(x - y) for i in a1 for x, y in zip(a1[i] + v1[i], a2[i] + v2[i]))
    worst = max([worst] + [abs(x - y) for p, q in zip(b1, b2) for x, y in zip(p, q)])
    if not worst <= tol:
        fail(f"{what}: positions, velocities or box differ by {worst:.3g}")
    print(f"{what}: {len(a1)} atoms, box, positions and velocities within {worst:.3g} of LAMMPS's write_data")


def case_run(mdlite, names, extra=()):
    """Copies the scripts (and extra files) to a folder for mdlite and one for LAMMPS; runs them in turn."""
    d = workdir("script")
    for sub in ("mdlite", "lammps"):
        os.makedirs(os.path.join(d, sub))
        for f in list(names) + list(extra):
            shutil.copy(f if os.path.isabs(f) else os.path.join(SCRIPTS, f), os.path.join(d, sub))
    return d


def main():
    mdlite, case = sys.argv[1], sys.argv[2]
    if case in ("lj", "eam", "stages", "minimize") and not shutil.which("lmp"):
        print("no lmp (LAMMPS): skipped")
        sys.exit(SKIP)
    if case in ("lj", "eam"):
        script = "in." + case
        d = case_run(mdlite, [script], [os.path.join(POT, "Cu_u3.eam")] if case == "eam" else [])
        p = run([mdlite, "run", os.path.join(d, "mdlite", script)], cwd=d)
        if "LAMMPS" in p.stderr or "not used" in p.stderr:
            fail(f"{script}: unexpected warnings:\n{p.stderr}")
        theirs = run_lammps(os.path.join(d, "lammps", script), os.path.join(d, "lammps"))
        compare_thermo(read_thermo(os.path.join(d, "mdlite", "thermo.csv")), theirs, f"bench/{script}")
        # step 0 to the last bit: the lattice and LAMMPS's velocity create, written by both
        text = re.sub(r"^run.*", "run 0\nwrite_data step0.data", open(os.path.join(SCRIPTS, script)).read(), flags=re.M)
        for sub in ("mdlite", "lammps"):
            write(os.path.join(d, sub, "in.step0"), text)
        run([mdlite, "run", os.path.join(d, "mdlite", "in.step0"), "--overwrite"], cwd=d)
        run_lmp(["lmp", "-in", "in.step0", "-log", "none", "-screen", "none"], cwd=os.path.join(d, "lammps"))
        _, xa, va = read_data(os.path.join(d, "mdlite", "step0.data"))
        _, xb, vb = read_data(os.path.join(d, "lammps", "step0.data"))
        differ = sum(xa[i] != xb[i] or va[i] != vb[i] for i in xb) if sorted(xa) == sorted(xb) else len(xb)
        if differ:
            fail(f"bench/{script}: step 0: {differ} of {len(xb)} atoms' positions or velocities differ from LAMMPS's")
        print(f"bench/{script}: step 0's {len(xb)} positions and velocities are LAMMPS's to the last bit")
    elif case == "stages":
        d = case_run(mdlite, ["in.stages", "in.read"])
        out = run([mdlite, "run", os.path.join(d, "mdlite", "in.stages")], cwd=d).stdout
        header = next(line.split() for line in out.splitlines() if line.split()[:1] == ["Step"])
        if header != ["Step", "Temp", "PotEng", "KinEng", "TotEng", "Press", "Volume"]:
            fail(f"in.stages: the table's columns are {header}, not the script's thermo_style")
        theirs = run_lammps(os.path.join(d, "lammps", "in.stages"), os.path.join(d, "lammps"))
        compare_thermo(read_thermo(os.path.join(d, "mdlite", "thermo.csv")), theirs, "in.stages (3 runs)")
        for f in ("nvt.data", "final.data"):
            compare_data(os.path.join(d, "mdlite", f), os.path.join(d, "lammps", f), f"in.stages {f}")
        # both continue from LAMMPS's data file (its Pair Coeffs section is skipped, with a warning)
        shutil.copy(os.path.join(d, "lammps", "nvt.data"), os.path.join(d, "mdlite", "nvt.data"))
        p = run([mdlite, "run", os.path.join(d, "mdlite", "in.read"), "--overwrite"], cwd=d)
        if "Pair Coeffs: not read" not in p.stderr:
            fail(f"in.read: no warning for LAMMPS's Pair Coeffs:\n{p.stderr}")
        theirs = run_lammps(os.path.join(d, "lammps", "in.read"), os.path.join(d, "lammps"))
        compare_thermo(read_thermo(os.path.join(d, "mdlite", "thermo.csv")), theirs, "in.read (read_data)")
        compare_data(os.path.join(d, "mdlite", "read.data"), os.path.join(d, "lammps", "read.data"), "in.read read.data")
        # the test of the test: LAMMPS from another seed is far from mdlite
        text = open(os.path.join(SCRIPTS, "in.stages")).read().replace("4928459", "4928460")
        wrong = write(os.path.join(d, "lammps", "in.wrong"), text)
        theirs = run_lammps(wrong, os.path.join(d, "lammps"))
        run([mdlite, "run", os.path.join(d, "mdlite", "in.stages"), "--overwrite"], cwd=d)
        ours = read_thermo(os.path.join(d, "mdlite", "thermo.csv"))
        miss = max(abs(r["temperature"] - theirs[r["step"]]["temp"]) for r in ours if r["step"] > 0)
        if not miss > 100 * TOL:
            fail(f"test of the test: LAMMPS from another seed is only {miss:.3g} away")
        print(f"test of the test: LAMMPS from another velocity seed misses by {miss:.3g}")
    elif case == "minimize":
        minimize(mdlite)
    elif case == "bad":
        bad_scripts(mdlite)
    elif case == "data_bad":
        bad_data(mdlite)
    else:
        fail(f"unknown case {case}")


def lattice_data(path, a, cells, drop, shift, masses, velocities, seed):
    """An fcc crystal as a LAMMPS data file: the atom at index `drop` removed (None: none), every atom
    moved by up to `shift` along each axis, velocities of up to `velocities` (0: no section)."""
    rng = random.Random(seed)
    basis = [(0, 0, 0), (0.5, 0.5, 0), (0.5, 0, 0.5), (0, 0.5, 0.5)]
    sites = [((i + b[0]) * a, (j + b[1]) * a, (k + b[2]) * a) for k in range(cells) for j in range(cells)
             for i in range(cells) for b in basis]
    if drop is not None:
        del sites[drop]
    L = a * cells
    text = f"fcc, displaced\n\n{len(sites)} atoms\n1 atom types\n\n"
    text += "".join(f"0 {L!r} {d}lo {d}hi\n" for d in "xyz")
    if masses:
        text += f"\nMasses\n\n1 {masses}\n"
    text += "\nAtoms # atomic\n\n"
    text += "".join(f"{n + 1} 1 {' '.join(repr((c + rng.uniform(-shift, shift)) % L) for c in p)}\n"
                    for n, p in enumerate(sites))
    if velocities:
        text += "\nVelocities\n\n" + "".join(
            f"{n + 1} {' '.join(repr(rng.uniform(-velocities, velocities)) for _ in range(3))}\n" for n in range(len(sites)))
    write(path, text)


def min_stats(text):
    """(iterations, evaluations, final energy, stopping criterion) of the last "Minimization stats"
    block of LAMMPS's log or mdlite's output."""
    it = re.findall(r"Iterations, force evaluations = (\d+) (\d+)", text)[-1]
    final = re.findall(r"Energy initial, next-to-last, final =\s*\n\s*(\S+)\s+(\S+)\s+(\S+)", text)[-1]
    return int(it[0]), int(it[1]), float(final[2]), re.findall(r"Stopping criterion = (.*)", text)[-1].strip()


def minimize(mdlite):
    """Relaxations against LAMMPS's minimize (cg, and fire): a displaced LJ crystal (then NVE and NVT
    runs), a vacancy in fcc Cu under EAM and under Morse. The final energy within 1e-8 (relative), the
    iterations within LAMMPS's +-20% and the same stopping criterion, the thermo rows to 1e-10, the data files to 1e-8."""
    names = ["in.relax", "in.vacancy", "in.vacancy_morse"]
    d = case_run(mdlite, names, [os.path.join(POT, "Cu_u3.eam")])
    vacancy = open(os.path.join(SCRIPTS, "in.vacancy")).read()
    # LAMMPS's other stopping rules: the evaluations run out; the energy tolerance
    for name, line in (("in.maxeval", "minimize    0.0 0.0 1000 25"), ("in.etol", "minimize    1.0e-6 0.0 1000 100000")):
        names.append(name)
        for sub in ("mdlite", "lammps"):
            write(os.path.join(d, sub, name), vacancy.replace("minimize    0.0 1.0e-8 1000 100000", line))
    # FIRE (min_style fire): the vacancy, and the LJ crystal's relaxation. LAMMPS's atoms carry FIRE's
    # velocities meanwhile, and keep them after; mdlite's keep their own: only the energy is compared
    relax = open(os.path.join(SCRIPTS, "in.relax")).read()
    fire = {"in.vacancy_fire": vacancy.replace("min_modify  dmax 0.1 line quadratic", "min_style   fire")
                                      .replace("vacancy_relaxed.data", "vacancy_fire.data"),
            "in.relax_fire": relax[:relax.index("fix ")].replace("min_style   cg", "min_style   fire")
                                                     .replace("relaxed.data", "relaxed_fire.data")}
    fire = {k: re.sub(r"thermo_style custom .*", "thermo_style custom step pe", v) for k, v in fire.items()}
    for name, text in fire.items():
        names.append(name)
        for sub in ("mdlite", "lammps"):
            write(os.path.join(d, sub, name), text)
    for sub in ("mdlite", "lammps"):
        lattice_data(os.path.join(d, sub, "displaced.data"), 1.6795961913825073, 5, None, 0.1, "1.0", 0.5, 7)
        lattice_data(os.path.join(d, sub, "vacancy.data"), 3.615, 4, 42, 0.05, None, 0, 11)
    for script in names:
        out = run([mdlite, "run", os.path.join(d, "mdlite", script), "--overwrite"], cwd=d).stdout
        theirs = run_lammps(os.path.join(d, "lammps", script), os.path.join(d, "lammps"))
        compare_thermo(read_thermo(os.path.join(d, "mdlite", "thermo.csv")), theirs, script)
        ours, lmp = min_stats(out), min_stats(open(os.path.join(d, "lammps", "lmp.log")).read())
        rel = abs(ours[2] - lmp[2]) / abs(lmp[2])
        if not rel <= 1e-8 or abs(ours[0] - lmp[0]) > 0.2 * lmp[0] or ours[3] != lmp[3]:
            fail(f"{script}: mdlite {ours[0]} iterations to {ours[2]!r} ({ours[3]}), LAMMPS {lmp[0]} to {lmp[2]!r} "
                 f"({lmp[3]}; energy {rel:.3g} apart)")
        print(f"{script}: {ours[0]} iterations ({ours[1]} evaluations), LAMMPS {lmp[0]} ({lmp[1]}); final "
              f"energy {ours[2]!r} against {lmp[2]!r} ({rel:.2g} relative); stopped on {ours[3]}")
    for f in ("relaxed.data", "final.data", "vacancy_relaxed.data"):
        compare_data(os.path.join(d, "mdlite", f), os.path.join(d, "lammps", f), f)
    # the test of the test: LAMMPS's backtracking line search takes another path
    write(os.path.join(d, "lammps", "in.wrong"), vacancy.replace("line quadratic", "line backtrack"))
    run_lammps(os.path.join(d, "lammps", "in.wrong"), os.path.join(d, "lammps"))
    lmp = min_stats(open(os.path.join(d, "lammps", "lmp.log")).read())
    ours = min_stats(run([mdlite, "run", os.path.join(d, "mdlite", "in.vacancy"), "--overwrite"], cwd=d).stdout)
    if ours[:2] == lmp[:2]:
        fail(f"test of the test: LAMMPS's backtracking search also takes {lmp[0]} iterations, {lmp[1]} evaluations")
    print(f"test of the test: LAMMPS with line backtrack takes {lmp[0]} iterations, {lmp[1]} evaluations "
          f"(mdlite's quadratic: {ours[0]}, {ours[1]})")


BASE = "units lj\natom_style atomic\nlattice fcc 0.8442\nregion box block 0 4 0 4 0 4\ncreate_box 1 box\n" \
       "create_atoms 1 box\nmass 1 1.0\nvelocity all create 1.0 1234 loop geom\npair_style lj/cut 2.5\n" \
       "pair_coeff 1 1 1.0 1.0\nfix 1 all nve\n"


def refused(mdlite, d, name, text, expect):
    path = write(os.path.join(d, name), text)
    p = run([mdlite, "run", path], check=False, cwd=d)
    if p.returncode != 2 or any(e not in p.stderr for e in expect):
        fail(f"{name}: expected exit 2 naming {expect}, got {p.returncode}:\n{p.stdout}{p.stderr}")
    print(f"{name}: refused: {p.stderr.strip().splitlines()[-1]}")


def bad_scripts(mdlite):
    d = workdir("script-bad")
    n = BASE.count("\n")
    refused(mdlite, d, "in.coul", BASE.replace("lj/cut 2.5", "lj/cut/coul/long 10"), ["in.coul:9:", "pair_style"])
    refused(mdlite, d, "in.sd", BASE + "min_style sd\nminimize 1e-4 1e-6 100 1000\n", [f"in.sd:{n + 1}:", "min_style"])
    refused(mdlite, d, "in.minargs", BASE + "minimize 1e-4 1e-6 100\n", [f"in.minargs:{n + 1}:", "minimize"])
    refused(mdlite, d, "in.kspace", BASE + "kspace_style pppm 1e-4\nrun 10\n", [f"in.kspace:{n + 1}:", "kspace_style"])
    refused(mdlite, d, "in.var", BASE + "run ${steps}\n", [f"in.var:{n + 1}:", "variable steps"])
    refused(mdlite, d, "in.expr", BASE + "variable s equal random(1,2,3)\nrun ${s}\n", [f"in.expr:{n + 2}:", "random()"])
    refused(mdlite, d, "in.dt", BASE + "run 10\ntimestep 0.002\nrun 10\n", ["in.dt:", "timestep changes between runs"])
    refused(mdlite, d, "in.norun", BASE, ["in.norun:", "no run"])
    refused(mdlite, d, "in.fix", BASE + "fix 2 all nvt temp 1 1 0.5\nrun 10\n", ["fix nve and fix nvt together"])
    # a style mdlite has no meaning for is named with its own line, not paired as an ensemble
    refused(mdlite, d, "in.momentum", BASE + "fix 2 all momentum 100 linear 1 1 1\nfix 3 all viscous 0.1\nrun 10\n",
            [f"in.momentum:{n + 3}:", f"fix 2 momentum (line {n + 1})", "a fix style mdlite does not run"])
    refused(mdlite, d, "in.boxrelax", BASE + "fix 3 all box/relax iso 0.0\nminimize 1e-6 1e-6 10 100\n",
            [f"in.boxrelax:{n + 2}:", f"fix 3 box/relax (line {n + 1})", "a fix style mdlite does not run"])
    refused(mdlite, d, "in.velocity", BASE + "run 10\nvelocity all create 1.0 5 loop geom\nrun 10\n",
            [f"in.velocity:{n + 2}:", "loop geom after a run"])
    refused(mdlite, d, "in.mix", BASE.replace("create_atoms 1 box", "region half block 0 2 0 4 0 4\ncreate_atoms 1 region half basis 1 1"),
            ["in.mix:7:", "create_atoms", "no keywords"])
    # a key the script sets reaches the configuration with its script line
    refused(mdlite, d, "in.skin", BASE + "neighbor -0.3 bin\nrun 10\n", [f"in.skin:{n + 1}:", "skin"])


def bad_data(mdlite):
    d = workdir("data-bad")
    good = ("title\n\n4 atoms\n1 atom types\n0 10 xlo xhi\n-5 5 ylo yhi\n0 10 zlo zhi\n\nMasses\n\n1 1.0\n\n"
            "Atoms # atomic\n\n1 1 1 1 1\n2 1 2 2 2\n3 1 3 3 3\n4 1 14 4 4 0 0 0\n")
    ini = "[system]\ninput = {f}\ntemperature = 1.0\n[run]\nsteps = 0\n[output]\nthermo_file =\n"
    # the good file reads; the atom at x = 14 is mapped into the box with its image
    write(os.path.join(d, "good.data"), good)
    cfg = write(os.path.join(d, "good.ini"), ini.format(f="good.data") + "data_file = out.data\n")
    run([mdlite, "run", cfg], cwd=d)
    _, atoms, _ = read_data(os.path.join(d, "out.data"))
    out = open(os.path.join(d, "out.data")).read()
    if abs(atoms[4][0] - 14) > 1e-12 or "4 1 4 4 4 1 0 0" not in out or "-5 5 ylo yhi" not in out:
        fail(f"good.data: atom 4 not mapped into the box with image 1:\n{open(os.path.join(d, 'out.data')).read()}")
    print("good.data: read (y from -5 to 5), atom 4 (x = 14 in a box of 10) written as x = 4 with image 1, the origin kept")
    # a data file that would overwrite the input, or another output: refused before anything is written
    for clash, sets, why in (("the input", "data_file = good.data\n", "an output must not overwrite an input"),
                             ("thermo_file", "thermo_file = o.data\ndata_file = o.data\n", "two outputs cannot share")):
        cfg = write(os.path.join(d, "clash.ini"), ini.format(f="good.data").replace("thermo_file =\n", "") + sets)
        p = run([mdlite, "run", cfg], check=False, cwd=d)
        if p.returncode != 2 or why not in p.stderr or os.path.exists(os.path.join(d, "o.data")):
            fail(f"data_file clashing with {clash}: exit {p.returncode}, expected 2 ({why}):\n{p.stderr}")
        print(f"data_file clashing with {clash}: refused: {p.stderr.strip().splitlines()[-1]}")
    cases = [("dup", good.replace("3 1 3 3 3", "2 1 3 3 3"), ":17:", "atom id 2 given twice"),
             ("missing", good.replace("4 1 14 4 4 0 0 0\n", ""), ":", "the file ends inside its Atoms section"),
             ("tri", good.replace("0 10 zlo zhi\n", "0 10 zlo zhi\n6 0 0 xy xz yz\n"), ":8:", "skew is too large"),
             ("type", good.replace("2 1 2 2 2", "2 3 2 2 2"), ":16:", "atom type from 1 to 1"),
             ("number", good.replace("3 1 3 3 3", "3 1 3 x 3"), ":17:", "'x' is not a number"),
             ("bonds", good.replace("1 atom types", "1 atom types\n3 bonds"), ":5:", "atom_style atomic"),
             ("style", good.replace("Atoms # atomic", "Atoms # full"), ":13:", "atom_style atomic only"),
             ("box", good.replace("-5 5 ylo yhi", "5 -5 ylo yhi"), ":6:", "yhi must be above ylo"),
             ("mass", good.replace("1 1.0\n\nAtoms", "1 -1.0\n\nAtoms"), ":11:", "needs a mass above 0"),
             ("section", good + "\nBonds\n\n1 1 1 2\n", ":", "not a section"),
             ("huge", good.replace("4 atoms", "400000000 atoms"), "", "more than the file's"),
             ("far", good.replace("4 1 14 4 4", "4 1 1e9 4 4"), ":18:", "a million box lengths"),
             ("nan", good.replace("4 1 14 4 4", "4 1 nan 4 4"), ":18:", "not a finite number")]
    for name, text, line, message in cases:
        write(os.path.join(d, f"{name}.data"), text)
        cfg = write(os.path.join(d, f"{name}.ini"), ini.format(f=f"{name}.data"))
        p = run([mdlite, "run", cfg], check=False, cwd=d)
        want = f"{name}.data{line}"
        if p.returncode != 2 or want not in p.stderr or message not in p.stderr:
            fail(f"{name}.data: expected exit 2 with '{want}' and '{message}', got {p.returncode}:\n{p.stderr}")
        print(f"{name}.data: refused: {p.stderr.strip().splitlines()[-1]}")


if __name__ == "__main__":
    main()
