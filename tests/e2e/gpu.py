#!/usr/bin/env python3
"""GPU backend checks (CTest label gpu). Each case exits 77 (skipped) when `mdlite info` lists no GPU.

usage: gpu.py MDLITE INPUT_DIR CASE [REF_DIR [LIST]]
LIST (auto, plain or packed) sets [neighbor] list (`neighbors --list`) in every run of the case.
cases: compare      step-0 forces and 100 steps of thermo against the CPU backend (4000 atoms)
       neighbors    all builders x layouts give the CPU's neighbour sets; the reference file
       determinism  cell and brute: identical thermo twice; brute-atomic: how much thermo moves
       thermostats  Berendsen and Langevin against the CPU backend over 50 steps
       barostat     npt-nose-hoover against the CPU backend over 200 steps (the box on the device),
                    through a box that shrinks past its cell grid; compare; restart; the conserved
                    energy's drift against NVE's; a runaway box stops
       drift        NVE 32,000 atoms, shifted potential, 100,000 steps at dt 0.005
       packed       70,304 and 32,000 atoms: thermo with packed lists (16-bit entries, through tables
                    and relative to the row's atom) bitwise that of plain ones; half the list's bytes
       fold         the chained kicks in the force pass give bitwise the thermo of their own pass
                    (8 and 1 force lanes per atom, two species of two masses, rows past the capacity)
       persistent   the persistent step (one launch, many NVE steps) bitwise the graphs' steps: thermo
                    and the last data file (8, 4 and 1 lanes, two species, rows past the capacity,
                    an outer list, packed rows, the brute builder, in.lj's rebuild rule, Langevin, Nose-Hoover)
       prune        an outer list pruned to the run's skin gives the thermo of direct lists (8 and 1
                    lanes, a thin outer skin, two species, rows past the capacity), folded or not
       sort         the sort by cell in two kernels (up to 262,144 atoms) and CUB's radix sort (above)
                    each give the CPU's thermo, 500 to 275,684 atoms (1 to 141 blocks, then CUB)
       analysis     on-the-fly g(r) and MSD on the device: equal to numpy's of the run's own frames
                    (2,048 atoms, two species) and to the CPU backend's at a 32,000-atom state (the
                    warp builder's list); stages nvt -> npt -> npt (carried) -> nve (the box fixed
                    again) against the CPU
       eam_ensembles  EAM (funcfl, eam/alloy, eam/fs) against the CPU backend over 200 steps in every
                    ensemble the GPU runs (mixed: thermo to 1e-4, the pressure to 2e-3)
       scripts      LAMMPS's bench/in.lj and bench/in.eam as scripts against the CPU backend
       minimize     LAMMPS's minimize (cg, fire) on the GPU against the CPU (LJ, an EAM vacancy)
       cells        boxes under twice cutoff + skin and triclinic boxes against the CPU backend (LJ,
                    EAM, thermostats, the barostat, g(r) and the MSD, minimisation)
       overflow     a list too short never gives a wrong step: a fixed 8-slot list (every row
                    covered by the force kernel) and a list that overflows mid-run (and grows)
                    print the thermo of a list that fits
"""
import itertools
import math
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import PRISM_LJ, SKIP, fail, read_thermo, run, workdir, write  # noqa: E402
from physics import check_conserved  # noqa: E402

LIST = "auto"  # [neighbor] list for every GPU run of the case (the command line's LIST)


def list_sets():
    return ["--set", f"neighbor.list={LIST}"] if LIST != "auto" else []


def gpu_info(mdlite):
    info = run([mdlite, "info"]).stdout
    if "GPU 0:" not in info:
        print("SKIP: no GPU found (mdlite info):\n" + info)
        sys.exit(SKIP)
    precision = re.search(r"GPU precision: (\w+)", info).group(1)
    return precision, info


def step0_forces(out):
    """`mdlite compare`'s rms step-0 force difference over the force scale."""
    return float(re.search(r"step 0 forces: [^=]*= ([0-9.e+-]+)", out).group(1))


def compare(mdlite, inp, d, precision):
    # a perturbed lattice with random velocities: on a perfect lattice the step-0 forces vanish by
    # symmetry and their relative difference would measure only rounding noise
    from lammps_compare import make_system, write_inputs
    L, pos, vel = make_system("lj")
    write_inputs(d, "lj", L, pos, vel)
    # every number of force lanes per atom the GPU chooses by size (force.cu: 8 below 35,000 atoms,
    # 16,000 in double; 4 below 65,536; then 1), each against the CPU: the perturbed 4,000 atoms and
    # in.lj's lattice of 48,668 and 70,304 atoms
    ftol, ttol = (1e-4, 1e-4) if precision == "mixed" else (1e-12, 1e-10)
    melt = os.path.join(inp, "lj_melt.ini")
    for lanes, args in (("8", [os.path.join(d, "run.ini")]), ("4", [melt, "--set", "system.cells=23 23 23"]),
                        ("1", [melt, "--set", "system.cells=26 26 26"])):
        out = run([mdlite, "compare", *args, "--steps", "100", *list_sets()]).stdout
        print(out)
        fnorm = step0_forces(out)
        worst = float(re.search(r"largest thermo difference: ([0-9.e+-]+)", out).group(1))
        if fnorm > ftol:
            fail(f"{lanes} lanes: step-0 force difference {fnorm:.3g} > {ftol} ({precision})")
        if worst > ttol:
            fail(f"{lanes} lanes: thermo difference {worst:.3g} > {ttol} ({precision})")
        print(f"OK {precision}, {lanes} force lanes per atom: forces {fnorm:.3g} (< {ftol}), thermo {worst:.3g} "
              f"(< {ttol})")
    # a perfect lattice: the step-0 forces vanish by symmetry (~1e-14), so the difference is
    # measured against the system's force scale, not against them
    out = run([mdlite, "compare", os.path.join(inp, "lj_melt.ini"), "--steps", "20", "--set",
               "system.cells=6 6 6"]).stdout
    fnorm = step0_forces(out)
    if fnorm > ftol:
        fail(f"perfect lattice: step-0 force difference {fnorm:.3g} > {ftol} against the force scale ({precision})")
    print(f"OK perfect lattice: step-0 forces {fnorm:.3g} of the force scale (< {ftol})")
    # the tail correction ([potential] tail = yes): the energy and pressure both backends report, and
    # under Nose-Hoover NPT the pressure the device's barostat follows
    for label, extra in (("NVE", []), ("Nose-Hoover NPT", ["--set", "run.ensemble=npt-nose-hoover", "--set",
                                                            "run.target_temperature=1.44", "--set", "run.tau=0.5",
                                                            "--set", "run.target_pressure=5", "--set",
                                                            "run.pressure_tau=2"])):
        out = run([mdlite, "compare", os.path.join(d, "run.ini"), "--steps", "100", "--set", "potential.tail=yes",
                   *extra]).stdout
        worst = float(re.search(r"largest thermo difference: ([0-9.e+-]+)", out).group(1))
        if worst > ttol:
            fail(f"tail correction, {label}: thermo difference {worst:.3g} > {ttol} ({precision})")
        print(f"OK {precision}, tail correction, {label}: thermo {worst:.3g} (< {ttol})")
    # the rebuilds the device decides are the ones the CPU decides (check every 1, 3 and 10 steps;
    # at 10 the builds are all "dangerous": due at the first step they were allowed); lists built
    # directly (pruned lists are rebuilt when the outer list is due as well: `prune` checks them)
    for check in ("1", "3", "10"):
        o = run([mdlite, "compare", os.path.join(inp, "lj_melt.ini"), "--steps", "300", "--set", "system.cells=6 6 6",
                 "--set", f"neighbor.check={check}"]).stdout
        b = [int(x) for x in re.search(r"builds: cpu (\d+) \((\d+) dangerous\), gpu (\d+) \((\d+) dangerous\)",
                                          o).groups()]
        slack = 0 if precision == "double" else 2
        if b[0] < 10 or abs(b[0] - b[2]) > slack or abs(b[1] - b[3]) > slack or (check == "10" and b[1] < 10):
            fail(f"check {check}: builds cpu {b[0]} ({b[1]} dangerous), gpu {b[2]} ({b[3]} dangerous)")
        print(f"check {check}: builds cpu {b[0]} ({b[1]} dangerous), gpu {b[2]} ({b[3]} dangerous)")


def compare_within(mdlite, what, args, ftol, ttol, precision):
    """`mdlite compare` of args over 100 steps: the step-0 forces within ftol of the force scale, the
    thermo within ttol."""
    out = run([mdlite, "compare", *args, "--steps", "100", *list_sets()]).stdout
    fnorm = step0_forces(out)
    worst = float(re.search(r"largest thermo difference: ([0-9.e+-]+)", out).group(1))
    if fnorm > ftol or worst > ttol:
        fail(f"{what}: step-0 forces {fnorm:.3g} (< {ftol}?), thermo {worst:.3g} (< {ttol}?) ({precision})\n{out}")
    print(f"OK {precision}, {what}: forces {fnorm:.3g} (< {ftol}), thermo {worst:.3g} (< {ttol})")


def morse(mdlite, inp, d, precision):
    """The Morse style on the GPU against the CPU: input/morse_cu.ini at each number of force lanes
    (4,000, 48,668 and 70,304 atoms) and two species whose three pairs are listed."""
    from lammps_compare import make_system, write_inputs
    L, pos, vel = make_system("morse2")
    write_inputs(d, "morse2", L, pos, vel)
    # mixed: float positions (an ulp is 7.6e-6 A in the 93 A box of 70,304 atoms) and ~230 neighbors
    # within 9 A (LJ's in.lj has 76): the worst atom's force is off by ~1e-4 of the force scale (H100:
    # 4.1e-5 / 9.4e-5 / 1.03e-4 at 4,000 / 48,668 / 70,304 atoms), the thermo by 2e-5 to 3e-5
    ftol, ttol = (3e-4, 1e-4) if precision == "mixed" else (1e-12, 1e-10)
    cu = os.path.join(inp, "morse_cu.ini")
    for label, args in (("8 lanes", [cu, "--set", "system.cells=10 10 10"]),
                        ("4 lanes", [cu, "--set", "system.cells=23 23 23"]),
                        ("1 lane", [cu, "--set", "system.cells=26 26 26"]),
                        ("two species", [os.path.join(d, "run.ini")])):
        compare_within(mdlite, f"Morse, {label}", args, ftol, ttol, precision)


def eam(mdlite, inp, d, precision):
    """EAM on the GPU against the CPU (mdlite compare): input/eam_cu.ini (funcfl) at 4,000, 32,000 and
    108,000 atoms (the cell, staged and warp builders), with the brute-force builder and the row
    layout (`compare` takes a method both backends have), and under Nose-Hoover NPT; eam/alloy (two
    species) and eam/fs from lammps_compare's perturbed states."""
    from lammps_compare import POT, make_system, write_inputs
    if not os.path.exists(f"{POT}/Cu_u3.eam"):
        print(f"SKIP: no {POT}/Cu_u3.eam (Debian's lammps-data)")
        return
    ftol, ttol = (3e-4, 1e-4) if precision == "mixed" else (1e-12, 1e-10)
    cases = [("funcfl, 4,000 atoms", [os.path.join(inp, "eam_cu.ini"), "--set", "system.cells=10 10 10"]),
             ("funcfl, 32,000 atoms", [os.path.join(inp, "eam_cu.ini")]),
             ("funcfl, 108,000 atoms (one lane per atom)", [os.path.join(inp, "eam_cu.ini"), "--set",
                                                           "system.cells=30 30 30"]),
             ("funcfl, 4,000 atoms, brute-force list, rows laid out atom by atom",
              [os.path.join(inp, "eam_cu.ini"), "--set", "system.cells=10 10 10", "--set", "neighbor.method=brute",
               "--set", "neighbor.layout=row"]),
             ("funcfl, 4,000 atoms, Nose-Hoover NPT (the box moves)",
              [os.path.join(inp, "eam_cu.ini"), "--set", "system.cells=10 10 10", "--set",
               "run.ensemble=npt-nose-hoover", "--set", "run.target_temperature=1600", "--set", "run.tau=0.1",
               "--set", "run.target_pressure=5000", "--set", "run.pressure_tau=0.5"])]
    for name in ("eam_alloy", "eam_fs"):
        sub = os.path.join(d, name)
        os.makedirs(sub, exist_ok=True)
        L, pos, vel = make_system(name)
        write_inputs(sub, name, L, pos, vel)
        cases.append((name, [os.path.join(sub, "run.ini")]))
    for label, args in cases:
        compare_within(mdlite, f"EAM, {label}", args, ftol, ttol, precision)


EAM_ENSEMBLES = {
    "nve": [],
    "nvt-nose-hoover": ["--set", "run.tau=0.1"],
    "npt-nose-hoover": ["--set", "run.tau=0.1", "--set", "run.target_pressure=5000", "--set", "run.pressure_tau=0.5"],
    "nvt-langevin": ["--set", "run.tau=0.1"],
    "nvt-berendsen": ["--set", "run.tau=0.1"]}


def eam_ensembles(mdlite, inp, d, precision):
    """EAM on the GPU against the CPU (which equals LAMMPS to 1e-13) over 200 steps in every ensemble
    the GPU runs: funcfl Cu (Cu_u3), Zhou's eam/alloy Cu (CuTa), eam/alloy CuNi, eam/fs Fe (Fe_mm,
    bcc) and eam/fs CuZr (lammps_compare's perturbed state). Double precision: every thermo column
    within 1e-10 (H100: at most 5.3e-12). Mixed: temperature and energies within 1e-4 (H100: at most
    6.6e-6), the pressure within 2e-3 of max(|P|, 1 bar) (H100: 1.0e-3 for Fe under NVE, whose
    pressure crosses zero; 5.3e-4 for CuNi and 1.5e-4 for Cu under NPT at 5,000 bar: the float
    positions' rounding, ~4e-6 A in these boxes, in a virial that is the small difference of large
    pair and embedding parts)."""
    from lammps_compare import POT, make_system, write_inputs
    if not os.path.exists(f"{POT}/Fe_mm.eam.fs"):
        print(f"SKIP: no {POT}/Fe_mm.eam.fs (Debian's lammps-data)")
        return
    fe = os.path.join(d, "fe.ini")
    write(fe, f"""[system]
units = metal
lattice = bcc
lattice_constant = 2.8665
cells = 12 12 12
species = Fe
temperature = 1200
seed = 4242
[potential]
style = eam/fs
file = {POT}/Fe_mm.eam.fs
[neighbor]
skin = 1.0
[run]
timestep = 0.002
[output]
thermo = 20
""")
    sub = os.path.join(d, "eam_fs")
    os.makedirs(sub, exist_ok=True)
    L, pos, vel = make_system("eam_fs")
    write_inputs(sub, "eam_fs", L, pos, vel)
    systems = {"Cu_u3 funcfl, 4,000 atoms": [os.path.join(inp, "eam_cu.ini"), "--set", "system.cells=10 10 10"],
               "Zhou's Cu, 4,000 atoms": [os.path.join(inp, "eam_zhou_cu.ini"), "--set", "system.cells=10 10 10"],
               "CuNi eam/alloy, 16,384 atoms": [os.path.join(inp, "eam_cuni.ini")],
               "Fe eam/fs, 3,456 atoms": [fe],
               "CuZr eam/fs, perturbed": [os.path.join(sub, "run.ini")]}
    ftol, ttol, ptol = (3e-4, 1e-4, 2e-3) if precision == "mixed" else (1e-12, 1e-10, 1e-10)
    over = []
    for (name, args), (ensemble, extra) in itertools.product(systems.items(), EAM_ENSEMBLES.items()):
        temperature = [] if ensemble == "nve" else ["--set", "run.target_temperature=1000"]
        out = run([mdlite, "compare", *args, "--set", f"run.ensemble={ensemble}", *temperature, *extra, "--set",
                   "output.thermo=20", "--steps", "200"]).stdout
        fnorm = step0_forces(out)
        rows = re.search(r"\(relative differences, GPU vs CPU\)\n(.*?)\nlargest", out, re.S).group(1).splitlines()
        columns = [max(float(r.split()[k + 1]) for r in rows) for k in range(5)]
        worst = max(columns[:4])
        print(f"{precision} {name}, {ensemble}: forces {fnorm:.3g}, thermo {worst:.3g}, pressure {columns[4]:.3g} "
              f"(temperature, pe, ke, total: {' '.join(f'{c:.2g}' for c in columns[:4])})")
        if fnorm > ftol or worst > ttol or columns[4] > ptol:
            over.append(f"{name}, {ensemble}: forces {fnorm:.3g} (< {ftol}?), thermo {worst:.3g} (< {ttol}?), "
                        f"pressure {columns[4]:.3g} (< {ptol}?)")
    if over:
        fail(f"{precision}: " + "; ".join(over))
    print(f"OK {precision}: {len(systems) * len(EAM_ENSEMBLES)} runs of 200 steps: thermo within {ttol}, pressure "
          f"within {ptol} of the CPU")


def minimize(mdlite, inp, d, precision):
    """LAMMPS's minimize (cg and fire) on the GPU against the CPU: a displaced LJ crystal and a vacancy
    in fcc Cu under EAM. Double precision: the CPU's iterations, evaluations and final energy to
    1e-10; mixed: the energy to 1e-6 (its float forces end the line searches sooner), a stop LAMMPS
    names."""
    from lammps_compare import POT
    from lammps_script import lattice_data, min_stats
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lammps", "scripts")
    lattice_data(os.path.join(d, "displaced.data"), 1.6795961913825073, 5, None, 0.1, "1.0", 0.5, 7)
    lattice_data(os.path.join(d, "vacancy.data"), 3.615, 4, 42, 0.05, None, 0, 11)
    scripts = {"in.relax": open(os.path.join(src, "in.relax")).read()}
    scripts["in.relax"] = scripts["in.relax"][:scripts["in.relax"].index("fix ")]
    if os.path.exists(f"{POT}/Cu_u3.eam"):
        shutil.copy(f"{POT}/Cu_u3.eam", d)
        scripts["in.vacancy"] = open(os.path.join(src, "in.vacancy")).read()
    for name in list(scripts):
        # each script under FIRE, its thermo the potential energy (FIRE's velocities: lammps_families fire)
        fire = re.sub(r"thermo_style .*", "thermo_style custom step pe", scripts[name])
        scripts[name + "_fire"] = re.sub(r"min_(style|modify) .*", "min_style fire", fire)
    for name, text in scripts.items():
        write(os.path.join(d, name), text)
        got = {b: min_stats(run([mdlite, "run", os.path.join(d, name), "--backend", b, "--overwrite"], cwd=d).stdout)
               for b in ("cpu", "gpu")}
        rel = abs(got["gpu"][2] - got["cpu"][2]) / abs(got["cpu"][2])
        same = got["gpu"][:2] == got["cpu"][:2] and got["gpu"][3] == got["cpu"][3]
        if (precision == "double" and (rel > 1e-10 or not same)) or rel > 1e-6:
            fail(f"{name}: GPU {got['gpu']}, CPU {got['cpu']} ({precision})")
        print(f"OK {precision}, {name}: GPU {got['gpu'][0]} iterations, {got['gpu'][1]} evaluations ({got['gpu'][3]}), "
              f"CPU {got['cpu'][0]}, {got['cpu'][1]}; final energies {rel:.2g} apart")


def scripts(mdlite, inp, d, precision):
    """LAMMPS's bench/in.lj (lists rebuilt every 20 steps without the distance check) and bench/in.eam
    (delay 5) as scripts, GPU against CPU (mdlite compare); and in.lj run through, its summary's
    count of the builds that found an atom past half the skin equal to the CPU's."""
    from lammps_compare import POT
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lammps", "scripts")
    for f in ("in.lj", "in.eam"):
        shutil.copy(os.path.join(src, f), d)
    ftol, ttol = (3e-4, 1e-4) if precision == "mixed" else (1e-12, 1e-10)
    compare_within(mdlite, "bench/in.lj", [os.path.join(d, "in.lj")], ftol, ttol, precision)
    if os.path.exists(f"{POT}/Cu_u3.eam"):
        shutil.copy(f"{POT}/Cu_u3.eam", d)
        compare_within(mdlite, "bench/in.eam", [os.path.join(d, "in.eam")], ftol, ttol, precision)
    counts = {}
    for backend in ("cpu", "gpu"):
        out = run([mdlite, "run", os.path.join(d, "in.lj"), "--backend", backend, "--overwrite"], cwd=d).stdout
        counts[backend] = re.search(r"builds that found an atom past half the skin = (\d+)", out).group(1)
    if counts["cpu"] != counts["gpu"]:
        fail(f"bench/in.lj: builds past half the skin, CPU {counts['cpu']}, GPU {counts['gpu']}")
    print(f"OK {precision}, bench/in.lj run: {counts['gpu']} builds found an atom past half the skin on both backends")
    # thermo keywords: the GPU's fmax and fnorm (its forces downloaded) and counters against the CPU's;
    # the pressure tensor refused there (exit 2, naming the key)
    keys = ("region half block INF 10 INF INF INF INF\ngroup half region half\ncompute t half temp\n"
            "compute k all ke\ncompute c half com\ncompute ka half ke/atom\ncompute r all reduce max vx fy c_ka\n"
            "thermo 10\nthermo_style custom step pe fmax fnorm nbuild ndanger elapsed dt c_t c_t[2] c_k c_c[*] c_r[*]\n"
            "thermo_modify format float %.17g\nrun 40\n")
    write(os.path.join(d, "in.keys"), open(os.path.join(src, "in.lj")).read().replace("run\t\t100\n", keys))
    rows = {}
    for backend in ("cpu", "gpu"):
        out = run([mdlite, "run", os.path.join(d, "in.keys"), "--backend", backend, "--overwrite"], cwd=d).stdout
        rows[backend] = [line.split() for line in out.splitlines() if re.match(r"^ +\d+ ", line)]
    tol = 1e-4 if precision == "mixed" else 1e-10
    if len(rows["cpu"]) != len(rows["gpu"]) or not rows["cpu"]:
        fail(f"thermo keywords: {len(rows['cpu'])} CPU rows, {len(rows['gpu'])} GPU rows")
    # each column to tol of its largest value (a lattice's fmax of 1e-13 at step 0 is rounding's)
    scale = [max(max(abs(float(r[k])) for r in rows["cpu"]), 1.0) for k in range(len(rows["cpu"][0]))]
    for a, b in zip(rows["cpu"], rows["gpu"]):
        for k, (x, y) in enumerate(zip(a, b)):
            if abs(float(x) - float(y)) > tol * scale[k]:
                fail(f"thermo keywords, step {a[0]} column {k}: CPU {x}, GPU {y}")
    p = run([mdlite, "run", os.path.join(d, "in.keys"), "--backend", "gpu", "--overwrite", "--set",
             "output.thermo_columns=step pxx"], cwd=d, check=False)
    if p.returncode != 2 or "pxx" not in p.stderr:
        fail(f"pxx on the GPU: exit {p.returncode}, expected 2:\n{p.stderr}")
    write(os.path.join(d, "in.peatom"), open(os.path.join(src, "in.lj")).read().replace(
        "run\t\t100\n", "compute pa all pe/atom\ncompute r all reduce sum c_pa\nthermo_style custom step c_r\nrun 10\n"))
    p = run([mdlite, "run", os.path.join(d, "in.peatom"), "--backend", "gpu", "--overwrite"], cwd=d, check=False)
    if p.returncode != 2 or "compute pe/atom" not in p.stderr:
        fail(f"pe/atom on the GPU: exit {p.returncode}, expected 2 naming it:\n{p.stderr}")
    print(f"OK {precision}, thermo keywords pe fmax fnorm nbuild ndanger elapsed dt and computes temp ke com reduce on a "
          f"group: the GPU's equal the CPU's "
          f"({len(rows['gpu'])} rows, to {tol:g}); pxx and pe/atom refused on the GPU")


def read_rows(path):
    with open(path) as f:
        return [line.split() for line in f]


def random_xyz(d, name, n, L, seed):
    """n random atoms in a periodic box L (a length, or three)."""
    import random
    rng = random.Random(seed)
    L = L if isinstance(L, tuple) else (L, L, L)
    pts = [(rng.random() * L[0], rng.random() * L[1], rng.random() * L[2]) for _ in range(n)]
    return write(os.path.join(d, name), f"{len(pts)}\nrandom\n" +
                 "\n".join(f"A {x!r} {y!r} {z!r}" for x, y, z in pts) + "\n")


def rim_xyz(d, name, pairs, L, rc, seed):
    """Pairs of atoms a hair inside or outside rc of each other (1e-10 to 1e-6 of it): a float test
    of their distance cannot tell which, so double precision must decide them in double."""
    import math
    import random
    rng = random.Random(seed)
    lines = []
    for _ in range(pairs):
        a = [rng.random() * L for _ in range(3)]
        u = [rng.gauss(0, 1) for _ in range(3)]
        norm = math.sqrt(sum(c * c for c in u))
        r = rc * (1 + rng.choice((-1, 1)) * 10 ** rng.uniform(-10, -6))
        b = [(a[k] + r * u[k] / norm) % L for k in range(3)]
        lines += [f"A {a[0]!r} {a[1]!r} {a[2]!r}", f"A {b[0]!r} {b[1]!r} {b[2]!r}"]
    return write(os.path.join(d, name), f"{len(lines)}\nrim\n" + "\n".join(lines) + "\n")


def rows_differ(got, want, path, box, rc, precision):
    """The first atom whose row differs from the CPU's, or None. In mixed precision the GPU tests
    distances in float: a pair within float rounding of the cutoff (|r - rc| < 1e-4) may fall either
    way, and only such pairs may differ."""
    if len(got) != len(want):
        return -1
    pos = None
    for i, (a, b) in enumerate(zip(got, want)):
        if a == b:
            continue
        if precision != "mixed" or not box:
            return i
        if pos is None:
            pos = [tuple(map(float, line.split()[1:4])) for line in open(path).read().split("\n")[2:] if line]
        for j in set(a[1:]) ^ set(b[1:]):
            d2 = 0.0
            for k in range(3):
                x = pos[i][k] - pos[int(j)][k]
                x -= box[k] * round(x / box[k])
                d2 += x * x
            if abs(d2 ** 0.5 - rc) >= 1e-4:
                return i
    return None


def neighbors(mdlite, inp, d, precision, ref_dir=None):
    # random periodic 3-d configurations, dense and sparse, below and above 65,536 atoms (the staged
    # builder, then the warp builder), and the 2-d reference set. The warp builder packs a warp's rows
    # (double precision, or --list packed) when their candidates' chunks fit its table; in a sparse
    # system a warp's 32 atoms span many rows of cells, and some warps' rows stay atom indices: the
    # sparse set must give both kinds in one list
    # (big-sparse: 10 cells along x, ~16 atoms a row of cells, so that a warp's atoms span 2 or 3 rows
    # and its ranges fit the table or not)
    sets = [(random_xyz(d, "r.xyz", 3000, 12.0, 7), ["--box", "12", "12", "12"], "2.8"),
            (random_xyz(d, "sparse.xyz", 1000, 25.0, 8), ["--box", "25", "25", "25"], "2.5"),
            (random_xyz(d, "big.xyz", 70000, 34.0, 10), ["--box", "34", "34", "34"], "2.8"),
            (random_xyz(d, "big-sparse.xyz", 70000, (25.0, 165.0, 165.0), 11), ["--box", "25", "165", "165"], "2.5")]
    if precision == "double":  # pairs on the radius: every builder decides them in double, as the CPU does
        sets.append((rim_xyz(d, "rim.xyz", 1500, 14.0, 2.8, 9), ["--box", "14", "14", "14"], "2.8"))
    if ref_dir and os.path.exists(os.path.join(ref_dir, "xy.txt")):
        sets.append((os.path.join(ref_dir, "xy.txt"), [], "1.9"))
    for path, extra, rc in sets:
        cpu = os.path.join(d, "cpu.txt")
        run([mdlite, "neighbors", path, "--cutoff", rc, "--output", cpu, "--overwrite", *extra])
        want = read_rows(cpu)
        big = "big" in os.path.basename(path)
        # and each list pruned from an outer one 0.4 longer (its own sort and cells); the warp builder's
        # lists packed and plain (the brute methods are quadratic: not on 70,000 atoms)
        methods = ("cell",) if big else ("cell", "brute", "brute-atomic")
        forms = ("plain", "packed") if big else (LIST,)
        for method, layout, outer, form in itertools.product(methods, ("transposed", "row"), ("0", "0.4"), forms):
            out = os.path.join(d, f"{method}-{layout}.txt")
            p = run([mdlite, "neighbors", path, "--cutoff", rc, "--backend", "gpu", "--method", method,
                     "--layout", layout, "--output", out, "--overwrite", "--repeat", "3", "--outer-skin", outer,
                     "--list", form, *extra])
            got = read_rows(out)
            packed = re.search(r"16-bit entries in (\d+) of (\d+) warps", p.stderr)
            if big and form == "packed" and layout == "transposed":
                if not packed:
                    fail(f"{os.path.basename(path)}: the warp builder did not pack the transposed list")
                k, of = int(packed.group(1)), int(packed.group(2))
                print(f"{os.path.basename(path)}: packed rows in {k} of {of} warps")
                if path.endswith("big-sparse.xyz") and not 0 < k < of:
                    fail(f"big-sparse.xyz: packed rows in {k} of {of} warps; the check needs both kinds")
            elif packed and not (big and form == "auto" and precision == "double"):
                fail(f"{os.path.basename(path)} {method}/{layout}: packed where it should not be")
            box = tuple(float(v) for v in extra[1:4]) if extra else None
            bad = rows_differ(got, want, path, box, float(rc), precision)
            if bad is not None:
                fail(f"{os.path.basename(path)} {method}/{layout}, outer +{outer}, list {form}: differs from the CPU "
                     f"list (atom {bad}) by more than the pairs on the cutoff")
            print(f"{os.path.basename(path)} {method:12s} {layout:10s} outer +{outer} list {form}: same as CPU; "
                  f"{p.stdout.strip()}")
    if ref_dir and os.path.exists(os.path.join(ref_dir, "neighbor.txt")):
        ref = [[v for v in line.split() if v != "NaN"] for line in open(os.path.join(ref_dir, "neighbor.txt"))]
        got = read_rows(os.path.join(d, "cell-transposed.txt"))
        if [[int(float(v)) for v in r] for r in ref] != [[int(v) for v in r] for r in got]:
            fail("GPU lists differ from the reference neighbor.txt")
        print("reference neighbor.txt reproduced by every GPU builder and layout")


def packed(mdlite, inp, d, precision):
    # 70,304 atoms (the warp builder: entries through each warp's table; one force lane per atom, so
    # a packed list's entries are taken in the order of atom indices' and the forces are bitwise the
    # same) and 32,000 atoms (the staged builder: entries relative to the row's atom; 8 or 4 lanes,
    # which may sum in another order): any entry decoded to a wrong atom shows in the thermo
    cfg = os.path.join(inp, "lj_melt.ini")
    for cells, form, tol in (("26", "tables", 0.0), ("20", "relative", 1e-5 if precision == "mixed" else 1e-12)):
        sets = (f"system.cells={cells} {cells} {cells}", "run.steps=300", "output.thermo=20")
        got = {v: thermo_run(mdlite, cfg, d, v, *sets, f"neighbor.list={v}") for v in ("packed", "plain")}
        builds = {v: re.search(r"Neighbor list builds = (\d+)", out).group(1) for v, (_, out) in got.items()}
        worst = max(abs(x[k] - y[k]) / max(1.0, abs(y[k])) for x, y in zip(got["packed"][0], got["plain"][0]) for k in x)
        if len(got["packed"][0]) != len(got["plain"][0]) or worst > tol or builds["packed"] != builds["plain"]:
            fail(f"{form}: packed and plain lists differ by {worst:.3g} > {tol}: builds {builds}")
        # a packed row holds two entries in each int: the list takes half the ints for the same entries
        mem = {v: re.search(r"\((\d+) bytes/atom\), neighbor list capacity (\d+)", out).groups()
               for v, (_, out) in got.items()}
        (pb, pc), (b, c) = [tuple(map(int, mem[v])) for v in ("packed", "plain")]
        if b - pb < 2 * min(pc, c) - 8:
            fail(f"{form}: packed lists take {pb} bytes/atom (capacity {pc}) against {b} (capacity {c}): "
                 "not half the list's ints")
        print(f"{form}, {4 * int(cells) ** 3} atoms: packed and plain lists give identical thermo "
              f"({len(got['plain'][0])} rows, {builds['plain']} builds, {precision}); {pb} against {b} bytes/atom, "
              f"capacity {pc} / {c}")


def fold(mdlite, inp, d, precision):
    # double precision folds the chained kicks into the force pass; with sync_phases = yes no step is
    # chained, so none is folded. The same arithmetic either way (common.cuh's kick_drift_of), so any
    # atom integrated from the wrong force, mass or position shows in the thermo; the summary counts
    # the folded steps (mixed precision folds none: its thermo is checked the same way)
    lj, ka = os.path.join(inp, "lj_melt.ini"), os.path.join(inp, "ka_mixture.ini")
    runs = [("32,000 atoms (8 force lanes; double: 4)", lj, ["system.cells=20 20 20", "run.steps=300",
                                                            "output.thermo=20"]),
            ("70,304 atoms (1 lane)", lj, ["system.cells=26 26 26", "run.steps=300", "output.thermo=20"]),
            ("KA mixture, mass.B = 2", ka, ["run.ensemble=nve", "system.mass.B=2.0", "run.steps=300",
                                            "output.thermo=20"]),
            ("fixed 8-slot list", lj, ["system.cells=10 10 10", "run.steps=200", "output.thermo=20",
                                       "neighbor.max_neighbors=8", "neighbor.grow=no"])]
    tol = 1e-5 if precision == "mixed" else 1e-12
    for name, cfg, sets in runs:
        got = {v: thermo_run(mdlite, cfg, d, "fold" + v, *sets, f"output.sync_phases={v}", "run.gpu_step=graphs")
               for v in ("no", "yes")}
        folded = {v: re.search(r"Steps with the kicks in the force pass = (\d+)", out) for v, (_, out) in got.items()}
        builds = {v: re.search(r"Neighbor list builds = (\d+)", out).group(1) for v, (_, out) in got.items()}
        want = precision == "double"
        if bool(folded["no"]) != want or (want and int(folded["no"].group(1)) < 100) or folded["yes"]:
            fail(f"{name}: folded steps {folded['no'] and folded['no'].group(1)} in the graphs, "
                 f"{folded['yes'] and folded['yes'].group(1)} with sync_phases ({precision})")
        worst = max(abs(x[k] - y[k]) / max(1.0, abs(y[k])) for x, y in zip(got["no"][0], got["yes"][0]) for k in x)
        if len(got["no"][0]) != len(got["yes"][0]) or worst > tol or builds["no"] != builds["yes"]:
            fail(f"{name}: the folded kicks change the thermo by {worst:.3g} > {tol} (builds {builds})")
        print(f"{name}: thermo within {worst:.2g} with the kicks chained"
              f"{' and folded (' + folded['no'].group(1) + ' steps)' if want else ''} and apart "
              f"({len(got['no'][0])} rows, {builds['no']} builds, {precision})")


def persistent(mdlite, inp, d, precision):
    # the persistent step (many NVE steps in one cooperative launch, graphs' steps at the rebuilds)
    # against a graph per step ([run] gpu_step = graphs): every thermo row and the last state's data
    # file to the bit, the same builds, and the summary counts the steps it made (none with graphs).
    # Each force lane count (8, 4, 1), two species of two masses, rows past a fixed capacity (the
    # force kernel's every-atom pass), an outer list pruned (the prune's test), packed rows, the
    # brute builder, LAMMPS's in.lj rule (every 20 steps, no distance check), Langevin's force (its noise
    # from the device's step) with a moving target, Nose-Hoover's chains (their sum over the atoms in the
    # graphs' order)
    lj, ka = os.path.join(inp, "lj_melt.ini"), os.path.join(inp, "ka_mixture.ini")
    base = ["run.steps=400", "output.thermo=50"]
    runs = [("500 atoms (8 lanes)", lj, ["system.cells=5 5 5"]),
            ("32,000 atoms (4 lanes in mixed)", lj, ["system.cells=20 20 20"]),
            ("70,304 atoms (1 lane)", lj, ["system.cells=26 26 26"]),
            ("KA mixture, mass.B = 2", ka, ["run.ensemble=nve", "system.mass.B=2.0"]),
            ("fixed 8-slot list", lj, ["system.cells=10 10 10", "neighbor.max_neighbors=8", "neighbor.grow=no"]),
            ("outer list", lj, ["system.cells=10 10 10", "neighbor.outer_skin=0.4"]),
            ("packed rows", lj, ["system.cells=12 12 12", "neighbor.list=packed"]),
            ("brute builder", lj, ["system.cells=6 6 6", "neighbor.method=brute"]),
            ("in.lj's rule", lj, ["system.cells=10 10 10", "neighbor.check=20", "neighbor.distance_check=no"]),
            ("Langevin, its target ramped", lj, ["system.cells=10 10 10", "run.ensemble=nvt-langevin",
                                                 "run.target_temperature=1.0", "run.final_temperature=1.5",
                                                 "run.tau=0.5"]),
            ("Langevin, two species", ka, ["run.ensemble=nvt-langevin", "system.mass.B=2.0"]),
            ("Nose-Hoover chains", lj, ["system.cells=10 10 10", "run.ensemble=nvt-nose-hoover",
                                        "run.target_temperature=1.0", "run.tau=0.5"]),
            ("Nose-Hoover, two species, 70,304 atoms", ka, ["run.ensemble=nvt-nose-hoover", "system.mass.B=2.0",
                                                             "system.cells=26 26 26"])]
    for name, cfg, sets in runs:
        got = {}
        for mode in ("graphs", "persistent"):
            data = os.path.join(d, f"{mode}.data")
            rows, out = thermo_run(mdlite, cfg, d, "p" + mode, *base, *sets, f"run.gpu_step={mode}",
                                   f"output.data_file={data}")
            made = re.search(r"Steps in the persistent step = (\d+)", out)
            builds = re.search(r"Neighbor list builds = (\d+)", out).group(1)
            with open(data) as f:
                got[mode] = (rows, f.read(), int(made.group(1)) if made else 0, builds)
        (rg, dg, mg, bg), (rp, dp, mp, bp) = got["graphs"], got["persistent"]
        if mg != 0 or mp < 200:
            fail(f"{name}: {mp} steps in the persistent step ({mg} with graphs), expected most of 400")
        if rg != rp or dg != dp or bg != bp:
            diff = next((k for k, (x, y) in enumerate(zip(rg, rp)) if x != y), None)
            fail(f"{name}: the persistent step differs from the graphs' ({len(rg)}/{len(rp)} rows, first differing "
                 f"row {diff}, data files {'equal' if dg == dp else 'differ'}, builds {bg}/{bp}, {precision})")
        print(f"{name}: {len(rg)} rows and the data file bitwise the graphs', {mp} of 400 steps persistent, "
              f"{bg} builds ({precision})")
    # auto: mixed precision up to 4,096 atoms takes it, double never; a rescaling thermostat's run never does
    _, out = thermo_run(mdlite, lj, d, "auto", *base, "system.cells=8 8 8")
    if ("Steps in the persistent step" in out) != (precision == "mixed"):
        fail(f"2,048 atoms, gpu_step = auto ({precision}): persistent steps {'not ' if precision == 'mixed' else ''}"
             "where the rule says")
    _, out = thermo_run(mdlite, lj, d, "rescale", *base, "system.cells=8 8 8", "run.ensemble=nvt-berendsen",
                        "run.target_temperature=1.0", "run.tau=1.0", "run.gpu_step=persistent")
    if "Steps in the persistent step" in out:
        fail("an nvt-berendsen run made steps in the persistent step")
    print(f"auto at 2,048 atoms {'takes it' if precision == 'mixed' else 'does not (double)'}; nvt-berendsen does not "
          f"({precision})")


def prune(mdlite, inp, d, precision):
    # an outer list pruned to the run's skin: the forces see every pair within the cutoff, so the
    # thermo is that of lists built directly up to the order of the sums. A prune that dropped a
    # pair, or an outer list kept past its skin (a small outer skin rebuilds it often), moves the
    # thermo by far more than rounding. The folded kicks raise the outer test as their own pass does.
    lj, ka = os.path.join(inp, "lj_melt.ini"), os.path.join(inp, "ka_mixture.ini")
    tol = 1e-4 if precision == "mixed" else 1e-9
    common = ["run.steps=300", "output.thermo=20"]
    runs = [("32,000 atoms (8 lanes)", lj, ["system.cells=20 20 20"], "0.3"),
            ("70,304 atoms (1 lane, warp builder)", lj, ["system.cells=26 26 26"], "0.3"),
            ("32,000 atoms, thin outer skin", lj, ["system.cells=20 20 20"], "0.05"),
            ("KA mixture, mass.B = 2", ka, ["run.ensemble=nve", "system.mass.B=2.0"], "0.3"),
            ("fixed 8-slot list", lj, ["system.cells=10 10 10", "neighbor.max_neighbors=8", "neighbor.grow=no"], "0.3")]
    for name, cfg, sets, outer in runs:
        ref, ref_out = thermo_run(mdlite, cfg, d, "direct", *sets, *common)
        counts = {}
        for fold_on in ("no", "yes"):  # sync_phases: with it, no step chained (nor folded)
            rows, out = thermo_run(mdlite, cfg, d, "pruned" + fold_on, *sets, *common,
                                   f"neighbor.outer_skin={outer}", f"output.sync_phases={fold_on}")
            m = re.search(r"Neighbor list prunes = (\d+) \(outer list skin ([0-9.]+)\)", out)
            builds = int(re.search(r"Neighbor list builds = (\d+)", out).group(1))
            if not m or int(m.group(1)) == 0 or builds == 0:
                fail(f"{name}: pruned run reports no prunes or no builds\n{out}")
            worst = max(abs(x[k] - y[k]) / max(1.0, abs(y[k])) for x, y in zip(rows, ref) for k in x)
            if len(rows) != len(ref) or worst > tol:
                fail(f"{name}: pruned lists (fold {fold_on}) move the thermo by {worst:.3g} > {tol}")
            counts[fold_on] = (rows, builds, int(m.group(1)), worst)
        same = max(abs(x[k] - y[k]) / max(1.0, abs(y[k])) for x, y in zip(counts["no"][0], counts["yes"][0]) for k in x)
        if counts["no"][1:3] != counts["yes"][1:3] or same > (1e-5 if precision == "mixed" else 1e-12):
            fail(f"{name}: the chained (double: folded) kicks change the pruned run by {same:.3g} (builds, prunes "
                 f"{counts['no'][1:3]} against {counts['yes'][1:3]})")
        direct = int(re.search(r"Neighbor list builds = (\d+)", ref_out).group(1))
        _, builds, prunes, worst = counts["yes"]
        print(f"{name}: outer skin +{outer}: {builds} builds + {prunes} prunes (direct: {direct} builds), "
              f"thermo within {worst:.2g} of direct lists, chained within {same:.2g} ({precision})")


def sort(mdlite, inp, d, precision):
    # the counting sort up to 262,144 atoms (the blocks' prefix summed in the placement up to 128
    # blocks, by its own kernel above: 143,748 atoms), CUB's radix sort above: each against the
    # CPU's thermo (an atom misplaced by a sort takes the wrong neighbors and moves the energies at
    # once), and each named by the summary
    cfg = os.path.join(inp, "lj_melt.ini")
    tol = 1e-4 if precision == "mixed" else 1e-9
    for cells, want in (("5", "counting"), ("15", "counting"), ("25", "counting"), ("33", "counting"),
                        ("41", "radix")):
        sets = (f"system.cells={cells} {cells} {cells}", "run.steps=100", "output.thermo=10")
        g, c, worst, out = against_cpu(mdlite, cfg, d, *sets)
        how = re.search(r"Cell sort = (.*)", out)
        if not how or not how.group(1).startswith(want):
            fail(f"{cells} cells: the summary names the sort {how and how.group(1)}, expected {want}")
        if worst > tol:
            fail(f"{cells} cells ({want} sort): GPU and CPU differ by {worst:.3g} > {tol}")
        print(f"{4 * int(cells) ** 3} atoms: {how.group(1)}, thermo within {worst:.2g} of the CPU's ({precision})")


def against_cpu(mdlite, cfg, d, *sets):
    """The same run on the GPU and the CPU: both thermo tables and their worst relative difference
    (against max(1, |CPU's|)); infinite when the row counts differ."""
    g, out = thermo_run(mdlite, cfg, d, "g", *sets)
    csv = os.path.join(d, "c.csv")
    run([mdlite, "run", cfg, "--quiet", "--set", f"output.thermo_file={csv}", *sum([["--set", s] for s in sets], [])])
    c = read_thermo(csv)
    worst = max(abs(x[k] - y[k]) / max(1.0, abs(y[k])) for x, y in zip(g, c) for k in x)
    return g, c, worst if len(g) == len(c) else float("inf"), out


def thermo_run(mdlite, cfg, d, name, *sets):
    csv = os.path.join(d, name + ".csv")
    args = [mdlite, "run", cfg, "--backend", "gpu", "--set", f"output.thermo_file={csv}", *list_sets()]
    for s in sets:
        args += ["--set", s]
    out = run(args).stdout
    return read_thermo(csv), out


def read_xyz(path):
    """Positions, images (dump_fields = position image), species names and box edges per frame of
    mdlite's extended XYZ."""
    import numpy as np
    frames, images, lengths, names = [], [], [], None
    with open(path) as f:
        lines = f.read().splitlines()
    k = 0
    while k < len(lines):
        n = int(lines[k])
        lat = [float(x) for x in re.search(r'Lattice="([^"]*)"', lines[k + 1]).group(1).split()]
        rows = [line.split() for line in lines[k + 2:k + 2 + n]]
        names = [r[0] for r in rows]
        frames.append([[float(x) for x in r[1:4]] for r in rows])
        images.append([[int(x) for x in r[4:7]] for r in rows])
        lengths.append([lat[0], lat[4], lat[8]])
        k += 2 + n
    return np.array(frames), np.array(images), np.array(lengths), names


def analysis(mdlite, inp, d, precision):
    import numpy as np
    from rdfmsd import msd_reference, rdf_mismatch, rdf_reference, read_analysis_csv
    cfg = os.path.join(inp, "lj_melt.ini")
    binary = ["system.cells=8 8 8", "system.temperature=1.5", "system.species=A B", "system.composition=0.75 0.25",
              "system.mass.B=2.0", "run.steps=200", f"output.trajectory={d}/t.xyz", "output.dump_every=20",
              "output.dump_fields=position image", "analysis.rdf_every=20", "analysis.rdf_bins=90",
              "analysis.msd_every=20"]
    thermo_run(mdlite, cfg, d, "a", *binary, f"analysis.rdf_file={d}/rdf.csv", f"analysis.msd_file={d}/msd.csv")
    pos, img, lengths, names = read_xyz(os.path.join(d, "t.xyz"))
    types = np.array([0 if x == "A" else 1 for x in names])
    want, slack, pairs = rdf_reference(pos, types, lengths, 90, 2.5, 1e-8)  # the file's 10 digits
    _, rows = read_analysis_csv(os.path.join(d, "rdf.csv"))
    nbad, worst = rdf_mismatch(rows[:, 2:].T, want, slack)
    _, msd = read_analysis_csv(os.path.join(d, "msd.csv"))
    ref = msd_reference(pos + img * lengths[:, None, :], types)
    err = np.max(np.abs(msd[:, 2:] - ref)) / np.max(ref)
    if nbad or err > 1e-6 or msd.shape[0] != len(pos):
        fail(f"GPU g(r): {nbad} bins differ from the frames' (worst {worst:.3g}); MSD {err:.3g} of the largest")
    # several time origins (3, 2 samples apart): numpy's mean over them
    thermo_run(mdlite, cfg, d, "o", *binary, "analysis.msd_origins=3", "analysis.msd_origin_every=40",
               f"analysis.rdf_file={d}/rdf_o.csv", f"analysis.msd_file={d}/msd_o.csv")
    _, msd3 = read_analysis_csv(os.path.join(d, "msd_o.csv"))
    ref3 = msd_reference(pos + img * lengths[:, None, :], types, 3, 2)
    err3 = np.max(np.abs(msd3[:, 2:] - ref3)) / np.max(ref3)
    if err3 > 1e-6:
        fail(f"GPU MSD with 3 origins: {err3:.3g} of the largest from numpy's mean over them")
    # g(r) past the pair cutoff, to 6.0 (half the box is 6.7): every pair, against the frames'
    thermo_run(mdlite, cfg, d, "f", *binary, "analysis.rdf_max=6.0", f"analysis.rdf_file={d}/rdf_f.csv",
               f"analysis.msd_file={d}/msd_f.csv")
    fwant, fslack, _ = rdf_reference(pos, types, lengths, 90, 6.0, 1e-8)
    _, frows = read_analysis_csv(os.path.join(d, "rdf_f.csv"))
    fbad, fworst = rdf_mismatch(frows[:, 2:].T, fwant, fslack)
    if fbad:
        fail(f"GPU g(r) to 6.0: {fbad} bins differ from the frames' (worst {fworst:.3g})")
    print(f"{precision}: 2,048 atoms, {len(pos)} samples: g(r) of {len(pairs)} pairs = the frames' within {worst:.2g} "
          f"(to 6.0, past the cutoff, {fworst:.2g}); MSD within {err:.2g} of the largest, with 3 origins {err3:.2g}")
    # a 32,000-atom lattice at step 0 (both backends sample the same state): the warp builder's list
    big = ["system.cells=20 20 20", "run.steps=0", "analysis.rdf_every=10", "analysis.rdf_bins=97"]
    for backend in ("gpu", "cpu"):
        run([mdlite, "run", cfg, "--quiet", "--backend", backend, "--set", f"output.thermo_file={d}/{backend}.csv",
             "--set", f"analysis.rdf_file={d}/{backend}_rdf.csv", *sum((["--set", x] for x in big), [])])
    g = read_analysis_csv(os.path.join(d, "gpu_rdf.csv"))[1][:, 2:]
    c = read_analysis_csv(os.path.join(d, "cpu_rdf.csv"))[1][:, 2:]
    if np.max(np.abs(g - c)) > 1e-12:
        fail(f"32,000 atoms: GPU g(r) differs from the CPU's by {np.max(np.abs(g - c)):.3g}")
    # past the pair cutoff, to 6.0: every pair, on both backends
    for backend in ("gpu", "cpu"):
        run([mdlite, "run", cfg, "--quiet", "--backend", backend, "--set", f"output.thermo_file={d}/{backend}.csv",
             "--set", f"analysis.rdf_file={d}/{backend}_far.csv", "--set", "analysis.rdf_max=6.0",
             *sum((["--set", x] for x in big), [])])
    g = read_analysis_csv(os.path.join(d, "gpu_far.csv"))[1]
    c = read_analysis_csv(os.path.join(d, "cpu_far.csv"))[1]
    if np.max(np.abs(g[:, 2:] - c[:, 2:])) > 1e-12 or not np.any(g[g[:, 1] > 2.5, 2:] > 1):
        fail(f"32,000 atoms: GPU g(r) to 6.0 differs from the CPU's by {np.max(np.abs(g[:, 2:] - c[:, 2:])):.3g}")
    # stages on the device: chains, a barostat, then a fixed box again, against the CPU
    staged = write(os.path.join(d, "staged.ini"), re.sub(r"^steps", "; steps", open(cfg).read(), flags=re.M) + """
[stage:nvt]
steps = 60
ensemble = nvt-nose-hoover
target_temperature = 1.44
tau = 0.5

[stage:npt]
steps = 60
ensemble = npt-nose-hoover
target_temperature = 1.44
tau = 0.5
target_pressure = 3.0
pressure_tau = 2.0

[stage:squeeze]
steps = 40
target_pressure = 4.0

[stage:nve]
steps = 60
ensemble = nve
msd_every = 10
""")
    gr, cr, worst, _ = against_cpu(mdlite, staged, d, "system.cells=8 8 8", "output.thermo=5")
    tol = 1e-4 if precision == "mixed" else 1e-9
    if worst > tol or gr[-1]["step"] != 220 or abs(gr[-1]["volume"] - gr[32]["volume"]) > 1e-12 * gr[-1]["volume"]:
        fail(f"stages nvt -> npt -> npt -> nve on the GPU against the CPU: {worst:.3g} (tolerance {tol}); last step "
             f"{gr[-1]['step']}; volume after npt {gr[32]['volume']}, at the end {gr[-1]['volume']}")
    # stopped in the carried npt stage (step 140) and restarted with the whole config on the GPU
    whole = {r["step"]: r for r in gr}
    part = ["system.cells=8 8 8", "output.thermo=5", f"output.trajectory={d}/part.h5md", "stage:squeeze.steps=20",
            "stage:nve.steps=0"]
    thermo_run(mdlite, staged, d, "part", *part)
    run([mdlite, "run", staged, "--backend", "gpu", "--restart", f"{d}/part.h5md", *list_sets(), "--set",
         f"output.thermo_file={d}/after.csv", "--set", "system.cells=8 8 8", "--set", "output.thermo=5", "--set",
         f"output.trajectory={d}/after.h5md"])
    rows = read_thermo(f"{d}/after.csv")
    rtol = 1e-4 if precision == "mixed" else 1e-10
    rerr = max(abs(r[k] - whole[r["step"]][k]) / max(1.0, abs(whole[r["step"]][k])) for r in rows for k in r)
    if rows[0]["step"] != 140 or rows[-1]["step"] != 220 or rerr > rtol:
        fail(f"GPU restart at step 140 of the staged run: rows {rows[0]['step']}..{rows[-1]['step']}, {rerr:.3g} "
             f"from the uninterrupted run (tolerance {rtol})")
    print(f"{precision}: restart at step 140 (in the carried npt stage) continues the GPU's staged run: {rerr:.2g}")
    # stopped at step 190, in the nve stage that samples g(r) and the MSD: the restart continues the
    # stage's sums from the checkpoint (its g(r) averages steps 160-220, the MSD's origin is 160)
    import numpy as np
    an = ["system.cells=8 8 8", "output.thermo=5", "analysis.rdf_every=10", "analysis.msd_every=10",
          "analysis.msd_origins=2", "analysis.msd_origin_every=20"]
    files = lambda tag: [f"analysis.rdf_file={d}/{tag}_rdf.csv", f"analysis.msd_file={d}/{tag}_msd.csv"]
    thermo_run(mdlite, staged, d, "w", *an, *files("w"))
    thermo_run(mdlite, staged, d, "p", *an, *files("p"), f"output.trajectory={d}/p.h5md", "stage:nve.steps=30")
    run([mdlite, "run", staged, "--backend", "gpu", "--restart", f"{d}/p.h5md", *list_sets(), "--set",
         f"output.thermo_file={d}/r.csv", "--set", f"output.trajectory={d}/r.h5md",
         *sum((["--set", x] for x in an + files("r")), [])])
    gtol, mtol = (1e-12, 1e-12) if precision == "double" else (5e-3, 1e-4)
    for kind, tol in (("rdf", gtol), ("msd", mtol)):
        w = read_analysis_csv(f"{d}/w_{kind}.csv", "nve")[1]
        r = read_analysis_csv(f"{d}/r_{kind}.csv", "nve")[1]
        err = np.max(np.abs(r - w) / np.maximum(np.abs(w), 1.0)) if r.shape == w.shape else float("inf")
        if err > tol:
            fail(f"restart at step 190 in the nve stage: its {kind} against the uninterrupted run's: {err:.3g} "
                 f"(rows {r.shape} against {w.shape}, tolerance {tol})")
    print(f"{precision}: restart at step 190 (in the sampling nve stage) continues its g(r) and MSD from the "
          f"checkpoint")
    print(f"{precision}: 32,000 atoms, GPU g(r) = CPU's within 1e-12; stages nvt -> npt -> npt (the chains and box "
          f"carried) -> nve against the CPU {worst:.2g} (volume {gr[0]['volume']:.6g} -> {gr[-1]['volume']:.6g}, "
          f"fixed in the nve stage)")


def overflow(mdlite, inp, d, precision):
    cfg = os.path.join(inp, "lj_melt.ini")
    tol = 1e-4 if precision == "mixed" else 1e-10
    for method in ("cell", "brute"):
        common = ["system.cells=10 10 10", "run.steps=200", "output.thermo=20", f"neighbor.method={method}"]
        ref, _ = thermo_run(mdlite, cfg, d, "ref", *common)
        # the perfect lattice has 78 neighbours within 2.8: a 78-slot list (80 after rounding) fits
        # the set-up's build, and the melt's builds ask for more
        cases = [("fixed 8-slot list", ["neighbor.max_neighbors=8", "neighbor.grow=no"], 8),
                 ("78-slot list, grown mid-run", ["neighbor.max_neighbors=78"], 81)]
        for name, sets, cap_min in cases:
            rows, out = thermo_run(mdlite, cfg, d, "short", *common, *sets)
            cap = int(re.search(r"neighbor list capacity (\d+)", out).group(1))
            if cap < cap_min or ("neighbor.grow=no" in sets and cap != 8):
                fail(f"{method}, {name}: capacity {cap} at the end\n{out}")
            worst = max(abs(x[k] - y[k]) / max(1.0, abs(y[k])) for x, y in zip(rows, ref) for k in x)
            if len(rows) != len(ref) or worst > tol:
                fail(f"{method}, {name}: thermo differs from a list that fits by {worst:.3g} > {tol}")
            print(f"{method}, {name}: capacity {cap} at the end, thermo within {worst:.2g} of a list that fits")


def determinism(mdlite, inp, d, precision):
    cfg = os.path.join(inp, "lj_melt.ini")
    for method in ("cell", "brute"):
        a, _ = thermo_run(mdlite, cfg, d, method + "1", "system.cells=10 10 10", f"neighbor.method={method}",
                          "run.steps=500", "output.thermo=50")
        b, _ = thermo_run(mdlite, cfg, d, method + "2", "system.cells=10 10 10", f"neighbor.method={method}",
                          "run.steps=500", "output.thermo=50")
        if a != b:
            fail(f"{method}: two identical GPU runs print different thermo\n{a}\n{b}")
        print(f"{method}: two runs identical (500 steps, 11 rows)")
    runs = [thermo_run(mdlite, cfg, d, f"atomic{k}", "system.cells=10 10 10", "neighbor.method=brute-atomic",
                       "run.steps=500", "output.thermo=50")[0] for k in range(3)]
    for step_idx in (1, 2, len(runs[0]) - 1):
        spread = max(abs(r[step_idx]["total_energy"] - runs[0][step_idx]["total_energy"]) for r in runs)
        spread_t = max(abs(r[step_idx]["temperature"] - runs[0][step_idx]["temperature"]) for r in runs)
        print(f"brute-atomic, 3 runs, step {runs[0][step_idx]['step']}: max |dE| {spread:.3g}, max |dT| {spread_t:.3g}")


def thermostats(mdlite, inp, d, precision):
    cfg = os.path.join(inp, "lj_melt.ini")
    tol = 1e-4 if precision == "mixed" else 1e-9
    for ens in (["run.ensemble=nvt-berendsen", "run.tau=0.1"], ["run.ensemble=nvt-langevin", "run.tau=0.5"],
                ["run.ensemble=nvt-rescale", "run.every=5"]):
        common = ["system.cells=8 8 8", "run.steps=50", "output.thermo=10", "run.target_temperature=0.9", *ens]
        g, c, worst, _ = against_cpu(mdlite, cfg, d, *common)
        if worst > tol:
            fail(f"{ens[0]}: GPU and CPU differ by {worst:.3g} > {tol}\nGPU {g}\nCPU {c}")
        print(f"{ens[0]}: GPU vs CPU over 50 steps: {worst:.3g}")
    # Nose-Hoover's chains on the device (steps recorded as graphs), 200 steps: double to 1e-9, mixed
    # to 1e-4; thermo every 7 steps, so that recorded and replayed kinds alternate
    tol = 1e-4 if precision == "mixed" else 1e-9
    # (8 8 8: 2,048 atoms, 8 force lanes per atom; 26 26 26: 70,304 atoms, one lane per atom)
    for ens in (["run.tau=0.5"], ["run.tau=0.1", "run.chain=1"], ["run.tau=1.0", "run.chain=5"],
                ["run.tau=0.5", "system.cells=26 26 26"]):
        common = ["system.cells=8 8 8", "run.steps=200", "output.thermo=7", "run.target_temperature=1.1",
                  "run.ensemble=nvt-nose-hoover", *ens]
        g, c, worst, _ = against_cpu(mdlite, cfg, d, *common)
        if worst > tol:
            fail(f"nvt-nose-hoover {ens}: GPU and CPU differ by {worst:.3g} > {tol}")
        print(f"nvt-nose-hoover {' '.join(ens)}: GPU vs CPU over 200 steps ({len(g)} rows, conserved included): "
              f"{worst:.3g}")
    # the chains carry over a restart from the device's checkpoint
    restart_continues(mdlite, cfg, d, tol, "run.ensemble=nvt-nose-hoover", "run.target_temperature=1.1",
                      "run.tau=0.5")


def restart_continues(mdlite, cfg, d, tol, ensemble, *sets):
    """Under `ensemble` ("run.ensemble=...", its keys in sets) on the GPU: 100 steps, then a restart from the
    device's checkpoint for 100 more, against 200 straight, to tol at step 200 (where the volume
    has moved from step 0's under a barostat)."""
    name = ensemble.split("=")[1]
    common = ["system.cells=8 8 8", "output.thermo=50", ensemble, *sets, "output.dump_every=50"]
    straight, _ = thermo_run(mdlite, cfg, d, "straight", *common, "run.steps=200", f"output.trajectory={d}/s.h5md")
    thermo_run(mdlite, cfg, d, "first", *common, "run.steps=100", f"output.trajectory={d}/p.h5md")
    again = os.path.join(d, "again.csv")
    run([mdlite, "run", cfg, "--backend", "gpu", "--quiet", "--restart", f"{d}/p.h5md", "--set",
         f"output.thermo_file={again}", *sum([["--set", s] for s in common + ["run.steps=100"]], [])])
    a, b = straight[-1], read_thermo(again)[-1]
    worst = max(abs(a[k] - b[k]) / max(1.0, abs(a[k])) for k in a)
    moved = name != "npt-nose-hoover" or a["volume"] != straight[0]["volume"]
    if a["step"] != 200 or b["step"] != 200 or worst > tol or not moved:
        fail(f"{name} on the GPU: 200 steps against 100 + restart 100 differ by {worst:.3g}\n{a}\n{b}")
    print(f"{name} on the GPU: step 200 straight against 100 + restart 100: {worst:.3g}")


def barostat(mdlite, inp, d, precision):
    """npt-nose-hoover with the box on the device: the CPU's thermo (volume and conserved included)
    over 200 steps; a box squeezed past the cell grid it started with (the host decides the grid
    again; a device that went on with the old one halts); a restart; runaway boxes stop the run."""
    cfg = os.path.join(inp, "lj_melt.ini")
    tol = 1e-4 if precision == "mixed" else 1e-9
    npt = ["run.ensemble=npt-nose-hoover", "run.target_temperature=1.2", "run.tau=0.5"]
    # 8 8 8: 2,048 atoms (staged builder, 8 force lanes); 26 26 26: 70,304 (warp builder, 1 lane)
    # and at 2,048 atoms the brute builder (its grid read on the device), rows, and steps not
    # recorded as graphs (sync_phases: the kick, the sum and the chains apart)
    for cells, pressure, ptau, *more in (("8 8 8", "2.0", "1.0"), ("8 8 8", "0.5", "0.5"), ("26 26 26", "3.0", "1.0"),
                                         ("8 8 8", "2.0", "1.0", "neighbor.method=brute"),
                                         ("8 8 8", "2.0", "1.0", "neighbor.layout=row"),
                                         ("8 8 8", "2.0", "1.0", "output.sync_phases=yes")):
        common = [f"system.cells={cells}", "run.steps=200", "output.thermo=7", *npt, f"run.target_pressure={pressure}",
                  f"run.pressure_tau={ptau}", *more]
        g, c, worst, _ = against_cpu(mdlite, cfg, d, *common)
        change = g[-1]["volume"] / g[0]["volume"] - 1
        if worst > tol or abs(change) < 1e-3:
            fail(f"npt-nose-hoover {cells} P {pressure} {more}: GPU and CPU differ by {worst:.3g} > {tol} (volume "
                 f"{change:+.3g})")
        print(f"npt-nose-hoover, {' '.join([cells + ' cells, P ' + pressure, *more])}: GPU vs CPU over 200 steps "
              f"({len(g)} rows, volume {change:+.2%}): {worst:.3g}")
    # brute-atomic (a GPU method: the CPU side runs its cell lists)
    common = ["system.cells=8 8 8", "run.steps=200", "output.thermo=7", *npt, "run.target_pressure=2.0",
              "run.pressure_tau=1.0"]
    g, _ = thermo_run(mdlite, cfg, d, "atomic", *common, "neighbor.method=brute-atomic")
    _, c, _, _ = against_cpu(mdlite, cfg, d, *common)
    worst = max(abs(x[k] - y[k]) / max(1.0, abs(y[k])) for x, y in zip(g, c) for k in x)
    if len(g) != len(c) or worst > tol:
        fail(f"npt-nose-hoover, brute-atomic: GPU and CPU differ by {worst:.3g} > {tol}")
    print(f"npt-nose-hoover, 8 8 8 cells, P 2.0 neighbor.method=brute-atomic: GPU vs CPU over 200 steps {worst:.3g}")
    # 7 7 7 (edge 11.757): 4 cells of 2.94 at the start (at least 2% wider than the list cutoff
    # 2.8); P 30 squeezes the edge under 4 x 2.8 within 20 steps, where the device's rebuilds must
    # use 3 of the 4 cells. Density 0.7153 at T 2 (edge 14.2, 4 cells): P 0.4 lets it grow past 5
    # cells 4% wider than 2.8 (14.56) by step 150, where the host decides a 5-cell grid
    for cells, extra, pressure, steps, cut, grows in (
            ("7 7 7", [], "30", 400, 4 * 2.8, False),
            ("8 8 8", ["system.density=0.7153", "system.temperature=2.0", "run.target_temperature=2.0"], "0.4", 300,
             5 * 2.8 * 1.04, True)):
        common = [f"system.cells={cells}", f"run.steps={steps}", "output.thermo=20", *npt, *extra,
                  f"run.target_pressure={pressure}", "run.pressure_tau=0.5"]
        g, c, worst, out = against_cpu(mdlite, cfg, d, *common)
        edge = [r["volume"] ** (1 / 3) for r in g]
        crossed = max(edge) > cut if grows else min(edge) < cut
        if worst > 10 * tol or not crossed:
            fail(f"box {cells} at P {pressure}: edge {edge[0]:.4g} -> {edge[-1]:.4g} (the grid's limit {cut:.4g}); "
                 f"GPU and CPU differ by {worst:.3g}\n{out}")
        print(f"npt-nose-hoover, edge {edge[0]:.4g} -> {edge[-1]:.4g} (past {cut:.4g}, where the grid changes): "
              f"GPU vs CPU over {steps} steps {worst:.3g}")
    # `mdlite compare` runs both backends under the barostat too
    out = run([mdlite, "compare", cfg, "--steps", "200", "--set", "system.cells=8 8 8",
               *sum([["--set", s] for s in npt + ["run.target_pressure=2.0", "run.pressure_tau=1.0"]], [])]).stdout
    worst = float(re.search(r"largest thermo difference: ([0-9.e+-]+)", out).group(1))
    if worst > tol:
        fail(f"compare, npt-nose-hoover: thermo difference {worst:.3g} > {tol}\n{out}")
    print(f"mdlite compare, npt-nose-hoover, 200 steps: largest thermo difference {worst:.3g}")
    # the barostat carries over a restart from the device's checkpoint
    restart_continues(mdlite, cfg, d, tol, *npt, "run.target_pressure=2.0", "run.pressure_tau=1.0")
    # each frame carries its box (extended XYZ's Lattice=, 10 digits, from the device's box at the
    # snapshot), the thermo's volume at that step
    xyz = os.path.join(d, "npt.xyz")
    rows, _ = thermo_run(mdlite, cfg, d, "frames", "system.cells=8 8 8", "run.steps=200", "output.thermo=50", *npt,
                         "run.target_pressure=2.0", "run.pressure_tau=1.0", f"output.trajectory={xyz}",
                         "output.dump_every=50")
    with open(xyz) as f:
        boxes = [[float(v) for v in re.search(r'Lattice="([^"]+)"', line)[1].split()] for line in f
                 if line.startswith("Lattice=")]
    worst = max(abs(b[0] * b[4] * b[8] / r["volume"] - 1) for b, r in zip(boxes, rows))
    if len(boxes) != 5 or len(rows) != 5 or worst > 1e-8 or rows[-1]["volume"] == rows[0]["volume"]:
        fail(f"npt-nose-hoover frames: {len(boxes)} boxes for {len(rows)} thermo rows, volumes differ by {worst:.3g}")
    print(f"npt-nose-hoover on the GPU: 5 frames, each box's volume the thermo's to {worst:.2g}")
    # the extended system's energy over 15,000 steps (4,000 atoms, shifted potential, the CPU test's
    # state point): its drift no more than 3 times NVE's on the GPU at the same timestep in double
    # precision (H100: 0.74x), 5 times in mixed, where float forces and per-atom virials feed the
    # barostat (2.8x; a wrong barostat drifts orders of magnitude more)
    long = ["system.cells=10 10 10", "potential.shift=yes", "run.steps=15000", "output.thermo=20"]
    rows, _ = thermo_run(mdlite, cfg, d, "npt_long", *long, *npt, "run.target_pressure=3.68", "run.pressure_tau=5.0")
    nve, _ = thermo_run(mdlite, cfg, d, "nve_long", *long)
    drift, floor = check_conserved("GPU npt-nose-hoover", rows, nve, 3 if precision == "double" else 5)
    print(f"npt-nose-hoover on the GPU, 4,000 atoms, 15,000 steps: conserved energy drift {drift:.3g} per atom over "
          f"steps 5,000-15,000 (NVE {floor:.3g})")
    # runaway boxes stop the run with exit 1, as on the CPU (hostile.py barostat), the thermo readable
    common = ["system.cells=6 6 6", *npt, "run.pressure_tau=0.1", "run.steps=20000"]
    for pressure, expect in (("1000", ["step 1:", "shorter than twice the list cutoff"]),
                             ("-5", ["the barostat moved the box's faces", "pairs may have been missed"])):
        csv = os.path.join(d, "runaway.csv")
        p = run([mdlite, "run", cfg, "--backend", "gpu", "--quiet", "--set", f"output.thermo_file={csv}",
                 *sum([["--set", s] for s in common + [f"run.target_pressure={pressure}"]], [])], check=False)
        if p.returncode != 1 or not all(e in p.stderr for e in expect) or not read_thermo(csv):
            fail(f"target pressure {pressure} on the GPU: exit {p.returncode}, expected 1 and {expect}\n{p.stderr}")
        print(f"target pressure {pressure} on the GPU: exit 1, {p.stderr.strip().splitlines()[-1][:160]}")


def trajectory(mdlite, inp, d, precision):
    """The GPU run's frames come back in id order, match the CPU's at step 0 and restart exactly."""
    import subprocess
    check = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "h5md_check.py")
    cfg = os.path.join(inp, "argon.ini")
    for backend in ("cpu", "gpu"):
        run([mdlite, "run", cfg, "--quiet", "--backend", backend, "--set", "run.steps=100", "--set",
             "output.dump_every=50", "--set", f"output.trajectory={d}/{backend}.xyz", "--set",
             "output.thermo_file=", "--set", "output.dump_fields=position velocity force"])
    frames = {b: open(f"{d}/{b}.xyz").read().split("\n") for b in ("cpu", "gpu")}
    n = int(frames["cpu"][0])
    worst = 0.0
    for line_c, line_g in zip(frames["cpu"][2:2 + n], frames["gpu"][2:2 + n]):
        a, b = line_c.split(), line_g.split()
        if a[0] != b[0]:
            fail(f"species differ: {a[0]} vs {b[0]} (atom order?)")
        worst = max(worst, max(abs(float(x) - float(y)) for x, y in zip(a[1:7], b[1:7])))
    if worst > 1e-9:
        fail(f"step-0 frame: positions/velocities differ by {worst:.3g} between CPU and GPU")
    h5 = f"{d}/gpu.h5md"
    run([mdlite, "run", cfg, "--quiet", "--backend", "gpu", "--set", "run.steps=100", "--set",
         "output.dump_every=50", "--set", f"output.trajectory={h5}", "--set", "output.thermo_file="])
    run([mdlite, "run", cfg, "--quiet", "--backend", "gpu", "--restart", h5, "--set", "run.steps=100", "--set",
         "output.dump_every=50", "--set", f"output.trajectory={h5}", "--set", "output.thermo_file="])
    p = subprocess.run([sys.executable, check, h5], capture_output=True, text=True)
    print(p.stdout.strip())
    if p.returncode != 0:
        fail("GPU trajectory fails h5md_check")
    print(f"GPU frames in id order (step 0 equal to the CPU's, {worst:.2g}); GPU restart appends: OK")
    unwrapped_frames(mdlite, inp, d)


def unwrapped_frames(mdlite, inp, d):
    """[output] positions = unwrapped on the GPU: each frame's positions are the wrapped run's plus
    image x edge (a liquid, 600 steps: atoms cross the faces), and no image column is written."""
    cfg = os.path.join(inp, "lj_melt.ini")
    common = ["--set", "system.cells=6 6 6", "--set", "run.steps=600", "--set", "output.dump_every=200", "--set",
              "output.thermo_file="]
    run([mdlite, "run", cfg, "--quiet", "--backend", "gpu", *common, "--set", f"output.trajectory={d}/w.xyz"])
    run([mdlite, "run", cfg, "--quiet", "--backend", "gpu", *common, "--set", f"output.trajectory={d}/u.xyz", "--set",
         "output.positions=unwrapped"])
    w, u = (open(f"{d}/{n}.xyz").read().split("\n") for n in ("w", "u"))
    n, worst, crossed = int(w[0]), 0.0, 0
    for f in range(4):
        head = w[f * (n + 2) + 1]
        edge = [float(v) for v in head.split('Lattice="')[1].split('"')[0].split()[0::4]]
        if "image" in u[f * (n + 2) + 1]:
            fail(f"unwrapped frame {f}: an image column ({u[f * (n + 2) + 1]})")
        for a, b in zip(w[f * (n + 2) + 2:(f + 1) * (n + 2)], u[f * (n + 2) + 2:(f + 1) * (n + 2)]):
            a, b = a.split(), b.split()
            img = [int(v) for v in a[-3:]]
            crossed += any(img)
            worst = max(worst, max(abs(float(a[1 + k]) + img[k] * edge[k] - float(b[1 + k])) for k in range(3)))
    if worst > 1e-6 or crossed == 0:
        fail(f"GPU unwrapped frames: {worst:.3g} from wrapped + image x edge ({crossed} atoms had crossed)")
    print(f"GPU unwrapped frames: within {worst:.2g} of wrapped + image x edge ({crossed} atom-frames across a face)")


def drift(mdlite, inp, d, precision):
    cfg = os.path.join(inp, "lj_melt.ini")
    csv = os.path.join(d, "drift.csv")
    out = run([mdlite, "run", cfg, "--quiet", "--backend", "gpu", "--set", "potential.shift=yes", "--set",
               "run.steps=100000", "--set", "output.thermo=1000", "--set", f"output.thermo_file={csv}"]).stdout
    rows = read_thermo(csv)
    e0 = rows[0]["total_energy"]
    rel = (rows[-1]["total_energy"] - e0) / abs(e0)
    worst = max(abs(r["total_energy"] - e0) for r in rows) / abs(e0)
    tol = 2e-4 if precision == "mixed" else 5e-5
    print(out)
    print(f"NVE 32,000 atoms, 100,000 steps ({precision}): final drift {rel:.3g}, max |E-E0|/|E0| {worst:.3g}")
    if worst >= tol:
        fail(f"drift {worst:.3g} >= {tol}")


PRISM_EAM = """units metal
lattice fcc 3.615
region box prism 0 5 0 5 0 5 1 -1 2
create_box 1 box
create_atoms 1 box
pair_style eam
pair_coeff 1 1 /usr/share/lammps/potentials/Cu_u3.eam
velocity all create 1200 4928459 loop all
fix 1 all nve
thermo 10
run 100
"""


def cells(mdlite, inp, d, precision):
    """Any periodic cell on the GPU against the CPU (mdlite compare: step-0 forces and 100 steps of
    thermo): boxes shorter than twice cutoff + skin (ghosts of the box's own atoms, one and two hops
    each way, some axes ghosted and others the minimum image), triclinic boxes (ghosts on every side;
    2,048 and 70,304 atoms: the staged and the warp builder), EAM in both, the thermostats and the
    barostat on a small box, g(r) and the MSD in a triclinic box, minimisation of a sheared cell;
    the brute-force lists refused on such a box."""
    import numpy as np
    from rdfmsd import read_analysis_csv
    ftol, ttol = (3e-4, 1e-4) if precision == "mixed" else (1e-11, 1e-9)
    melt, cu = os.path.join(inp, "lj_melt.ini"), os.path.join(inp, "eam_cu.ini")
    scripts = {}
    for name, text in (("tri_lj", PRISM_LJ.format(n=8, xy=1.6, xz=-0.8, yz=0.8, fix="fix 1 all nve")),
                       ("tri_big", PRISM_LJ.format(n=26, xy=5.2, xz=-2.6, yz=2.6, fix="fix 1 all nve")),
                       ("tri_nvt", PRISM_LJ.format(n=8, xy=1.6, xz=-0.8, yz=0.8, fix="fix 1 all nvt temp 1.44 1.44 0.5")),
                       ("tri_npt", PRISM_LJ.format(n=8, xy=1.6, xz=-0.8, yz=0.8,
                                                   fix="fix 1 all npt temp 1.44 1.44 0.5 iso 4.0 4.0 1.0")),
                       ("tri_eam", PRISM_EAM)):
        scripts[name] = write(os.path.join(d, "in." + name), text)
    npt = ["run.ensemble=npt-nose-hoover", "run.target_temperature=1.2", "run.tau=0.5", "run.target_pressure=2.0",
           "run.pressure_tau=1.0"]
    cases = [("LJ, 108 atoms (box 5.04, under twice 2.8: one hop)", [melt, "system.cells=3 3 3"]),
             ("LJ, 32 atoms (box 3.36: each way's ghosts selected apart)", [melt, "system.cells=2 2 2"]),
             ("LJ, 4 atoms (box 1.68: two hops each way)", [melt, "system.cells=1 1 1"]),
             ("LJ, 2 x 2 x 12 cells (x and y ghosts, z the minimum image)", [melt, "system.cells=2 2 12"]),
             ("EAM, the 4-atom Cu cell", [cu, "system.cells=1 1 1"]),
             ("EAM, 32 atoms", [cu, "system.cells=2 2 2"]),
             ("LJ, 108 atoms, Langevin", [melt, "system.cells=3 3 3", "run.ensemble=nvt-langevin",
                                           "run.target_temperature=1.0", "run.tau=0.5"]),
             ("LJ, 108 atoms, Nose-Hoover NPT (the box under twice the list cutoff moves)",
              [melt, "system.cells=3 3 3", *npt]),
             ("LJ, 2,048 atoms, prism 1.6 -0.8 0.8", [scripts["tri_lj"]]),
             ("LJ, 70,304 atoms, prism 5.2 -2.6 2.6 (warp builder)", [scripts["tri_big"]]),
             ("LJ, 2,048 atoms, prism, Nose-Hoover NVT", [scripts["tri_nvt"]]),
             ("LJ, 2,048 atoms, prism, Nose-Hoover NPT iso (the tilts scale)", [scripts["tri_npt"]]),
             ("EAM, 500 atoms, prism 1 -1 2", [scripts["tri_eam"]])]
    for what, (cfg, *sets) in cases:
        if "EAM" in what and not os.path.exists("/usr/share/lammps/potentials/Cu_u3.eam"):
            print(f"SKIP {what}: no Cu_u3.eam")
            continue
        compare_within(mdlite, what, [cfg, *sum((["--set", x] for x in sets), [])], ftol, ttol, precision)
    # g(r) (within the list and past it, every pair by the triclinic minimum image) and the MSD of a
    # sheared liquid: the GPU's sums are the CPU's
    tri = os.path.join(d, "in.tri_lj")
    an = ["analysis.rdf_every=10", "analysis.rdf_bins=50", "analysis.msd_every=10"]
    for label, extra in (("to the cutoff", []), ("to 4.5, past the list", ["analysis.rdf_max=4.5"])):
        got = {}
        for backend in ("gpu", "cpu"):
            run([mdlite, "run", tri, "--quiet", "--overwrite", "--backend", backend, "--set",
                 f"output.thermo_file={d}/a_{backend}.csv", "--set", f"analysis.rdf_file={d}/rdf_{backend}.csv",
                 "--set", f"analysis.msd_file={d}/msd_{backend}.csv", *sum((["--set", x] for x in an + extra), [])],
                cwd=d)
            got[backend] = [read_analysis_csv(os.path.join(d, f"{k}_{backend}.csv"))[1][:, 2:] for k in ("rdf", "msd")]
        wr = np.max(np.abs(got["gpu"][0] - got["cpu"][0])) / max(np.max(np.abs(got["cpu"][0])), 1e-300)
        wm = np.max(np.abs(got["gpu"][1] - got["cpu"][1])) / max(np.max(np.abs(got["cpu"][1])), 1e-300)
        if wr > ttol or wm > ttol:
            fail(f"prism, g(r) {label}: GPU vs CPU {wr:.3g}, MSD {wm:.3g} (> {ttol})")
        print(f"OK {precision}, prism, g(r) {label} and the MSD: GPU vs CPU {wr:.3g} and {wm:.3g} (< {ttol})")
    # CG on a sheared 2,048-atom liquid: the GPU's iterations and energy the CPU's
    mini = write(os.path.join(d, "in.tri_min"), PRISM_LJ.format(n=8, xy=1.6, xz=-0.8, yz=0.8, fix="").replace(
        "run 100", "minimize 1e-10 1e-10 200 2000"))
    res = {}
    for backend in ("gpu", "cpu"):
        run([mdlite, "run", mini, "--quiet", "--overwrite", "--backend", backend, "--set",
             f"output.thermo_file={d}/m_{backend}.csv"], cwd=d)
        res[backend] = read_thermo(os.path.join(d, f"m_{backend}.csv"))
    pe = [r[-1]["potential_energy"] for r in (res["gpu"], res["cpu"])]
    tol = 2e-2 if precision == "mixed" else 1e-10  # mixed: float forces steer CG to another minimum of this melt
    if abs(pe[0] - pe[1]) > tol * abs(pe[1]) or (precision == "double" and len(res["gpu"]) != len(res["cpu"])):
        fail(f"prism, CG: GPU pe {pe[0]!r} in {len(res['gpu'])} rows, CPU {pe[1]!r} in {len(res['cpu'])}")
    print(f"OK {precision}, prism, CG: pe {pe[0]:.12g} (CPU {pe[1]:.12g}), {len(res['gpu'])} / {len(res['cpu'])} rows")
    p = run([mdlite, "run", melt, "--backend", "gpu", "--set", "system.cells=3 3 3", "--set", "neighbor.method=brute",
             "--set", "output.thermo_file="], check=False, cwd=d)
    if p.returncode != 2 or "[neighbor] method" not in p.stderr:
        fail(f"GPU, brute lists on a small box: exit {p.returncode}, expected 2 naming [neighbor] method: {p.stderr}")
    print(f"GPU, brute lists on a small box: exit 2, {p.stderr.strip().splitlines()[-1][:150]}")


DIM2 = ("units lj\ndimension 2\natom_style atomic\nlattice {lat}\nregion box block 0 {nx} 0 {ny} -0.1 0.1\n"
        "create_box 1 box\ncreate_atoms 1 box\nmass 1 1.0\nvelocity all create {t} 87287 loop geom\n"
        "pair_style lj/cut 2.5\npair_coeff 1 1 1.0 1.0 2.5\nneighbor 0.3 bin\nneigh_modify delay 0 every 1 check yes\n"
        "{fix}\nfix 2 all enforce2d\nthermo 10\nrun 100\n")


def dim2(mdlite, inp, d, precision):
    """2-d systems (dimension 2: no images along z, the area as volume, 2N - 2 degrees of freedom) on
    the GPU against the CPU (mdlite compare: step-0 forces and 100 steps of thermo): sq2, hex and sq
    lattices from 9 atoms (a box under twice the cutoff: images along x and y) to 40,000, NVE and
    Nose-Hoover NVT."""
    ftol, ttol = (3e-4, 1e-4) if precision == "mixed" else (1e-11, 1e-9)
    cases = [("sq2, 800 atoms, NVE", dict(lat="sq2 0.8442", nx=20, ny=20, t=1.5, fix="fix 1 all nve")),
             ("sq2, 800 atoms, Nose-Hoover NVT", dict(lat="sq2 0.8442", nx=20, ny=20, t=1.5,
                                                       fix="fix 1 all nvt temp 1.0 1.0 0.5")),
             ("hex, 12,000 atoms, NVE", dict(lat="hex 0.7", nx=100, ny=60, t=1.0, fix="fix 1 all nve")),
             ("sq2, 40,000 atoms, NVE", dict(lat="sq2 0.8442", nx=200, ny=100, t=1.5, fix="fix 1 all nve")),
             ("sq, 9 atoms (box 3.3: images along x and y)", dict(lat="sq 0.8", nx=3, ny=3, t=1.0,
                                                                    fix="fix 1 all nve"))]
    for k, (what, kw) in enumerate(cases):
        script = write(os.path.join(d, f"in.dim2_{k}"), DIM2.format(**kw))
        if precision == "mixed" and kw["nx"] == 3:  # a 2-d box with ghosts: refused in mixed precision, by name
            p = run([mdlite, "run", script, "--backend", "gpu"], check=False, cwd=d)
            if p.returncode != 2 or "2-d box with ghosts" not in p.stderr:
                fail(f"{what}: mixed precision: expected exit 2 naming a 2-d box with ghosts, got {p.returncode}: "
                     f"{p.stderr}")
            print(f"OK mixed, {what}: refused: {p.stderr.strip().splitlines()[-1][:140]}")
            continue
        # mixed: float positions, an ulp of the box's edge times LJ's stiffness near its minimum
        # (~36 epsilon/sigma^2 measured): the 308-sigma edge of 40,000 atoms has an ulp of 3.1e-5
        # sigma (4x the 3-d cases'), its step-0 forces 1.1e-3 off (H200); the thermo stays at 2e-6
        a = math.sqrt(2 / 0.8442) if kw["lat"].startswith("sq2") else 1.0
        ulp = 2.0 ** (math.floor(math.log2(kw["nx"] * a)) - 23)
        compare_within(mdlite, what, [script], max(ftol, 60 * ulp) if precision == "mixed" else ftol, ttol, precision)


def csvr(mdlite, inp, d, precision):
    """nvt-csvr on the GPU against the CPU (mdlite compare, 100 steps): its noise from the seed and
    the step alone, drawn in every thread of the scaling pass, is the CPU's; 3-d and 2-d."""
    ftol, ttol = (3e-4, 1e-4) if precision == "mixed" else (1e-11, 1e-9)
    melt = os.path.join(inp, "lj_melt.ini")
    sets = ["run.ensemble=nvt-csvr", "run.target_temperature=1.0", "run.tau=0.25"]
    compare_within(mdlite, "LJ, 4,000 atoms, csvr", [melt, *sum((["--set", x] for x in sets), [])], ftol, ttol,
                   precision)
    script = write(os.path.join(d, "in.csvr2d"), DIM2.format(lat="sq2 0.8442", nx=20, ny=20, t=1.5,
                                                             fix="fix 1 all nve\nfix 3 all temp/csvr 1.0 1.0 0.25 77"))
    compare_within(mdlite, "2-d sq2, 800 atoms, csvr", [script], ftol, ttol, precision)


def ramps(mdlite, inp, d, precision):
    """A moving target (final_temperature: LAMMPS's Tstart Tstop) on the GPU against the CPU (mdlite
    compare, 100 steps from 1.0 to 2.0): Berendsen's and csvr's scaling pass and Langevin's force
    reading the device's step, Nose-Hoover's chain (its masses following the target) in its thread."""
    ftol, ttol = (3e-4, 1e-4) if precision == "mixed" else (1e-11, 1e-9)
    melt = os.path.join(inp, "lj_melt.ini")
    for ens in ("nvt-berendsen", "nvt-csvr", "nvt-langevin", "nvt-nose-hoover"):
        sets = [f"run.ensemble={ens}", "run.target_temperature=1.0", "run.final_temperature=2.0", "run.tau=0.25"]
        compare_within(mdlite, f"LJ, 32,000 atoms, {ens} 1.0 to 2.0", [melt, *sum((["--set", x] for x in sets), [])],
                       ftol, ttol, precision)


def stage_velocities(mdlite, inp, d, precision):
    """velocity between runs ([run] stage_velocity_edits: scale, set with sum on a group, create with
    another group's temperature) on the GPU against the CPU: 8,000 atoms, three runs of 100 steps,
    every row of thermo.csv (the edited stages' first rows again) within the precision's tolerance."""
    text = ("units lj\natom_style atomic\nlattice fcc 0.8442\nregion box block 0 20 0 20 0 5\ncreate_box 1 box\n"
            "create_atoms 1 box\nmass 1 1.0\nvelocity all create 1.0 87287\npair_style lj/cut 2.5\n"
            "pair_coeff 1 1 1.0 1.0 2.5\nregion lo block INF INF INF 5 INF INF\ngroup lo region lo\n"
            "group hi subtract all lo\ncompute tlo lo temp\nfix 1 all nve\nthermo 20\nrun 100\n"
            "velocity all scale 1.5\nvelocity lo set 0.5 NULL NULL sum yes\nrun 100\n"
            "velocity hi create 0.3 4711 temp tlo\nrun 100\n")
    script = write(os.path.join(d, "in.between"), text)
    rows = {}
    for backend in ("cpu", "gpu"):
        run([mdlite, "run", script, "--backend", backend, "--overwrite", "--quiet", "--set",
             f"output.thermo_file={backend}.csv"], cwd=d)
        rows[backend] = [[float(x) for x in r.split(",")] for r in open(os.path.join(d, f"{backend}.csv")).read().split()[1:]]
    tol = 1e-4 if precision == "mixed" else 1e-10
    steps = [r[0] for r in rows["cpu"]]
    if steps != [r[0] for r in rows["gpu"]] or steps.count(100) != 2 or steps.count(200) != 2:
        fail(f"stage velocities: CPU steps {steps}, GPU steps {[r[0] for r in rows['gpu']]} (100 and 200 twice)")
    worst = max(abs(x - y) / max(abs(x), 1.0) for a, b in zip(rows["cpu"], rows["gpu"]) for x, y in zip(a, b))
    if worst > tol:
        fail(f"stage velocities: GPU rows {worst:.3g} from the CPU's (tolerance {tol})")
    print(f"OK {precision}, stage velocity edits: {len(steps)} rows within {worst:.2g} of the CPU's")


def boundary(mdlite, inp, d, precision):
    """A box with non-periodic faces (boundary f, s, m; fix wall/reflect needs them) is refused on
    the GPU by name (exit 2), and runs on the CPU."""
    walls = "\nfix 3 all wall/reflect xlo EDGE xhi EDGE ylo EDGE yhi EDGE"  # the f faces' atoms kept in
    for faces, fix in (("p s p", ""), ("f f p", walls), ("m m p", "")):
        script = write(os.path.join(d, "in.faces"), DIM2.format(lat="sq2 0.8442", nx=10, ny=10, t=1.0,
                                                                fix="fix 1 all nve" + fix)
                       .replace("dimension 2\n", f"dimension 2\nboundary {faces}\n"))
        p = run([mdlite, "run", script, "--backend", "gpu"], check=False, cwd=d)
        if p.returncode != 2 or "[system] boundary" not in p.stderr:
            fail(f"boundary {faces}: expected exit 2 naming [system] boundary, got {p.returncode}: {p.stderr}")
        run([mdlite, "run", script, "--backend", "cpu", "--overwrite"], cwd=d)
        print(f"OK {precision}, boundary {faces}: refused on the GPU: {p.stderr.strip().splitlines()[-1][:120]}")


if __name__ == "__main__":
    mdlite, inp, case = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
    LIST = sys.argv[5] if len(sys.argv) > 5 else "auto"
    precision, _ = gpu_info(mdlite)
    d = workdir("gpu-" + case)
    if case == "neighbors":
        neighbors(mdlite, inp, d, precision, sys.argv[4] if len(sys.argv) > 4 else None)
    else:
        globals()[case](mdlite, inp, d, precision)
