#!/usr/bin/env python3
"""mdlite and LAMMPS (the Debian `lmp`) run the same 4000-atom system from the same positions and
velocities for 100 steps (the EAM cases 200); every thermo column (step, time, temperature, energies, pressure, volume)
at every thermo step must agree to 1e-7, or --tol (the EAM cases: 1e-10), relative, with an
absolute floor of the tolerance for values near zero. Systems: LJ in lj and metal units; Morse
(LAMMPS pair_style morse) with one species, and with two whose three pairs are each listed.

Nose-Hoover NVT and NPT: lammps_nose_hoover.py.

usage: lammps_compare.py MDLITE [lj|metal|morse|morse2|eam|eam2|eam_alloy|eam_alloy_renamed|eam_fs|eam_nvt|eam_npt]
       [--threads N]
       [--backend gpu] [--tol T] [--wrong timestep|truncated|coarse|no_embedding]
--wrong runs LAMMPS slightly wrong (the test of the test): mdlite must then differ by > 100 x the tolerance.
"""
import math
import os
import random
import shutil
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import fail, read_thermo, run, run_lmp, workdir, write  # noqa: E402

TOL = 1e-7
SYSTEMS = {
    # name: (lattice constant, cells, mass, style and its keys, cutoff, skin, dt, temperature, species)
    "lj": (1.6795962, 10, 1.0, ("lj", 1.0, 1.0), 2.5, 0.3, 0.005, 1.44, "A"),
    "metal": (5.385, 10, 39.948, ("lj", 0.0104, 3.405), 8.5, 2.0, 0.005, 60.0, "Ar"),
    # Girifalco-Weizer's Cu Morse (D0 0.3429 eV, alpha 1.3588 / A, r0 2.866 A), fcc Cu at 600 K
    "morse": (3.615, 10, 63.546, ("morse", 0.3429, 1.3588, 2.866), 6.0, 1.0, 0.002, 600.0, "Cu"),
    "eam": (3.615, 10, 63.55, ("eam",), 0, 1.0, 0.005, 1600.0, "Cu"),
}
POT = "/usr/share/lammps/potentials"  # Debian's lammps-data
# EAM, fcc Cu at 1600 K (LAMMPS bench/in.eam's state, perturbed): species on every site (the second
# species on every fourth), the files' elements by name or through element.X
EAM = {"eam": ("eam", ["Cu"], None), "eam2": ("eam", ["Cu", "Ni"], None),
       "eam_alloy": ("eam/alloy", ["Cu", "Ni"], "CuNi.eam.alloy"),
       "eam_alloy_renamed": ("eam/alloy", ["A", "B"], "CuNi.eam.alloy"),
       "eam_fs": ("eam/fs", ["Cu", "Zr"], "CuZr_mm.eam.fs")}
ELEMENT = {"A": "Cu", "B": "Ni"}
# EAM under Nose-Hoover (the eam/alloy system): mdlite's keys, LAMMPS's fix
ENSEMBLE = {"eam_nvt": (["run.ensemble=nvt-nose-hoover", "run.target_temperature=1200", "run.tau=0.1", "run.chain=3"],
                        "fix 1 all nvt temp 1200 1200 0.1 tchain 3"),
            "eam_npt": (["run.ensemble=npt-nose-hoover", "run.target_temperature=1200", "run.tau=0.1", "run.chain=3",
                         "run.target_pressure=5000", "run.pressure_tau=0.5", "run.pressure_chain=3"],
                        "fix 1 all npt temp 1200 1200 0.1 iso 5000 5000 0.5 tchain 3 pchain 3")}
for _k in ENSEMBLE:
    EAM[_k] = EAM["eam_alloy"]
# LJ with LAMMPS's tail correction (pair_modify tail yes, [potential] tail = yes): NVE, and Nose-Hoover
# NPT, whose barostat sees the tail's pressure
TAIL = ("lj_tail", "lj_tail_npt")
# thermo as LAMMPS prints it: LAMMPS's column names and thermo_modify norm no (totals), argon in metal
# units under Nose-Hoover NPT (the box and density move)
COLUMNS = "step temp pe ke etotal press vol density lx ly lz enthalpy econserve"
ENSEMBLE["thermo_columns"] = (["run.ensemble=npt-nose-hoover", "run.target_temperature=60", "run.tau=0.5",
                               "run.target_pressure=500", "run.pressure_tau=2.0", f"output.thermo_columns={COLUMNS}",
                               "output.thermo_norm=no"],
                              "fix 1 all npt temp 60 60 0.5 iso 500 500 2.0")
ENSEMBLE["lj_tail_npt"] = (["run.ensemble=npt-nose-hoover", "run.target_temperature=1.44", "run.tau=0.5",
                            "run.chain=3", "run.target_pressure=5.0", "run.pressure_tau=2.0", "run.pressure_chain=3"],
                           "fix 1 all npt temp 1.44 1.44 0.5 iso 5.0 5.0 2.0 tchain 3 pchain 3")
# morse2: species A and B (B on every fourth site, mass 58.69), pairs listed as pair.X.Y
MORSE2 = {("A", "A"): (0.3429, 1.3588, 2.866, 6.0), ("B", "B"): (0.4205, 1.4199, 2.780, 5.5),
          ("A", "B"): (0.38, 1.39, 2.82, 5.8)}
UNITS = {"lj": "lj", "lj_tail": "lj", "lj_tail_npt": "lj", "thermo_columns": "metal", "metal": "metal", "morse": "metal", "morse2": "metal", **{k: "metal" for k in EAM}}
BOLTZ = {"lj": 1.0, "metal": 8.617343e-5}
MVV2E = {"lj": 1.0, "metal": 1.0364269e-4}


def base(name):
    """The SYSTEMS entry a system's lattice, mass, skin, timestep and temperature come from."""
    return ("morse" if name == "morse2" else "eam" if name in EAM else "lj" if name in TAIL
            else "metal" if name == "thermo_columns" else name)


def make_system(name):
    units = UNITS[name]
    a, n, mass, _, _, _, _, T, _ = SYSTEMS[base(name)]
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


def potential_lines(name):
    """The [potential] section and LAMMPS's pair commands; the cutoff."""
    if name in EAM:
        style, species, f = EAM[name]
        if style == "eam":
            files = {"Cu": "Cu_u3.eam", "Ni": "Ni_u3.eam"}
            ini = ["style = eam"] + [f"file.{sp} = {POT}/{files[sp]}" for sp in species]
            lmp = ["pair_style eam"] + [f"pair_coeff {k + 1} {k + 1} {POT}/{files[sp]}" for k, sp in enumerate(species)]
            return ini, lmp
        ini = [f"style = {style}", f"file = {POT}/{f}"]
        ini += [f"element.{sp} = {ELEMENT[sp]}" for sp in species if sp in ELEMENT]
        lmp = [f"pair_style {style}", f"pair_coeff * * {POT}/{f} {' '.join(ELEMENT.get(sp, sp) for sp in species)}"]
        return ini, lmp
    if name == "morse2":
        ini = ["style = morse"] + [f"pair.{a}.{b} = {p[0]!r} {p[1]!r} {p[2]!r} {p[3]!r}" for (a, b), p in MORSE2.items()]
        lmp = [f"pair_style morse {max(p[3] for p in MORSE2.values())!r}"]
        lmp += [f"pair_coeff {'AB'.index(a) + 1} {'AB'.index(b) + 1} {p[0]!r} {p[1]!r} {p[2]!r} {p[3]!r}"
                for (a, b), p in MORSE2.items()]
        return ini, lmp
    style, *keys = SYSTEMS[base(name)][3]
    rc = SYSTEMS[base(name)][4]
    names = {"lj": ("epsilon", "sigma"), "morse": ("d0", "alpha", "r0")}[style]
    ini = [f"style = {style}"] + [f"{k} = {v!r}" for k, v in zip(names, keys)] + [f"cutoff = {rc!r}"]
    lmp = [f"pair_style {'lj/cut' if style == 'lj' else 'morse'} {rc!r}",
           f"pair_coeff 1 1 {' '.join(repr(v) for v in keys)}"]
    if name in TAIL:
        ini.append("tail = yes")
        lmp.append("pair_modify tail yes")
    return ini, lmp


def steps_of(name):
    """The EAM cases run 200 steps, the pair potentials 100; thermo every 10."""
    return 200 if name in EAM or name in ENSEMBLE else 100


def write_inputs(d, name, L, pos, vel):
    units = UNITS[name]
    _, _, mass, _, _, skin, dt, _, sp = SYSTEMS[base(name)]
    kinds = ["A", "B"] if name == "morse2" else EAM[name][1] if name in EAM else [sp]
    species = [kinds[1] if len(kinds) > 1 and i % 4 == 3 else kinds[0] for i in range(len(pos))]
    masses = dict(zip(kinds, [mass, 58.69]))
    lines = [str(len(pos)),
             f'Lattice="{L!r} 0 0 0 {L!r} 0 0 0 {L!r}" Properties=species:S:1:pos:R:3:velo:R:3 pbc="T T T"']
    lines += [f"{t} {p[0]!r} {p[1]!r} {p[2]!r} {v[0]!r} {v[1]!r} {v[2]!r}" for t, p, v in zip(species, pos, vel)]
    write(os.path.join(d, "start.xyz"), "\n".join(lines) + "\n")
    ini, lmp = potential_lines(name)
    nl = "\n"
    write(os.path.join(d, "run.ini"), f"""; compared with LAMMPS by tests/e2e/lammps_compare.py
[system]
units = {units}
input = start.xyz
{"" if name in EAM else nl.join(f"mass.{t} = {m!r}" for t, m in masses.items())}
[potential]
{nl.join(ini)}
[neighbor]
skin = {skin!r}
[run]
steps = {steps_of(name)}
timestep = {dt!r}
[output]
thermo = 10
thermo_file = mdlite.csv
""")
    types = list(masses)
    data = [f"LAMMPS data written by lammps_compare.py\n\n{len(pos)} atoms\n{len(types)} atom types\n",
            f"0 {L!r} xlo xhi\n0 {L!r} ylo yhi\n0 {L!r} zlo zhi\n",
            "Masses\n\n" + "\n".join(f"{k + 1} {masses[t]!r}" for k, t in enumerate(types)) + "\n", "Atoms # atomic\n"]
    data += [f"{i + 1} {types.index(t) + 1} {p[0]!r} {p[1]!r} {p[2]!r}" for i, (t, p) in enumerate(zip(species, pos))]
    data += ["\nVelocities\n"]
    data += [f"{i + 1} {v[0]!r} {v[1]!r} {v[2]!r}" for i, v in enumerate(vel)]
    write(os.path.join(d, "start.data"), "\n".join(data) + "\n")
    write(os.path.join(d, "in.compare"), f"""units {units}
atom_style atomic
read_data start.data
{nl.join(lmp)}
neighbor {skin!r} bin
neigh_modify delay 0 every 1 check yes
{ENSEMBLE[name][1] if name in ENSEMBLE else "fix 1 all nve"}
timestep {dt!r}
{"thermo_style custom " + COLUMNS if name == "thermo_columns" else "thermo_style custom step time temp pe ke etotal press vol"}
thermo_modify norm {"no" if name == "thermo_columns" else "yes"} format float %.17g
thermo 10
run {steps_of(name)}
""")


def funcfl_changed(src, dst, how):
    """A copy of funcfl file src: its cutoff 0.05 A short ("truncated"), or every second point of
    each table on a grid twice as coarse ("coarse": another interpolation's size of error)."""
    lines = open(src).read().split("\n")
    nrho, drho, nr, dr, cut = lines[2].split()
    values = " ".join(lines[3:]).split()
    if how == "truncated":
        lines[2] = f"{nrho} {drho} {nr} {dr} {float(cut) - 0.05!r}"
        open(dst, "w").write("\n".join(lines))
        return
    nrho, nr = int(nrho), int(nr)
    f, z, rho = values[:nrho], values[nrho:nrho + nr], values[nrho + nr:nrho + 2 * nr]
    head = f"{(nrho + 1) // 2} {2 * float(drho)!r} {(nr + 1) // 2} {2 * float(dr)!r} {cut}"
    body = [" ".join(t[::2][k:k + 5]) for t in (f, z, rho) for k in range(0, len(t[::2]), 5)]
    open(dst, "w").write("\n".join(lines[:2] + [head] + body) + "\n")


def setfl_without_embedding(src, dst, element):
    """A copy of setfl file src whose element's F(rho) is zero (its embedding term missed)."""
    lines = open(src).read().split("\n")
    names = lines[3].split()[1:]
    nrho, nr = int(lines[4].split()[0]), int(lines[4].split()[2])
    tokens = [ln.split() for ln in lines[5:]]
    out, k = lines[:5], 0  # walk the element blocks: a header line, nrho values of F, nr of rho
    for name in names:
        out.append(" ".join(tokens[k]))
        k += 1
        got = 0
        while got < nrho:
            vals = tokens[k]
            out.append(" ".join("0" if name == element else v for v in vals))
            got += len(vals)
            k += 1
        got = 0
        while got < nr:
            out.append(" ".join(tokens[k]))
            got += len(tokens[k])
            k += 1
    out += [" ".join(t) for t in tokens[k:]]
    open(dst, "w").write("\n".join(out) + "\n")


# the test of the test: LAMMPS run slightly wrong, which the comparison must see (case, how)
WRONG = {"timestep": "a timestep 1% long", "truncated": "the funcfl tables cut 0.05 A early",
         "coarse": "the funcfl tables on a grid twice as coarse (another interpolation's error)",
         "no_embedding": "Ni's embedding term missed (eam/alloy)",
         "no_tail": "no tail correction (pair_modify tail no)"}


def make_wrong(d, how):
    text = open(os.path.join(d, "in.compare")).read()
    if how == "timestep":
        dt = float(text.split("timestep ")[1].split()[0])
        text = text.replace(f"timestep {dt!r}", f"timestep {1.01 * dt!r}")
    elif how == "no_tail":
        text = text.replace("pair_modify tail yes", "pair_modify tail no")
    elif how in ("truncated", "coarse"):
        funcfl_changed(f"{POT}/Cu_u3.eam", os.path.join(d, "wrong.eam"), how)
        text = text.replace(f"{POT}/Cu_u3.eam", os.path.join(d, "wrong.eam"))
    else:
        setfl_without_embedding(f"{POT}/CuNi.eam.alloy", os.path.join(d, "wrong.alloy"), "Ni")
        text = text.replace(f"{POT}/CuNi.eam.alloy", os.path.join(d, "wrong.alloy"))
    write(os.path.join(d, "in.compare"), text)


def parse_lammps_log(text, columns=8):
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


def compare_columns(log, ours, tol):
    """mdlite's CSV with [output] thermo_columns = COLUMNS against LAMMPS's log, column by column."""
    names, ref, inside = COLUMNS.split(), [], False
    for line in log.splitlines():
        f = line.split()
        if f[:2] == ["Step", "Temp"]:
            inside = True
        elif inside and f and f[0] == "Loop":
            break
        elif inside and len(f) == len(names):
            ref.append([float(x) for x in f])
    if len(ref) != 21 or len(ours) != 21 or list(ours[0]) != names:
        fail(f"thermo_columns: LAMMPS {len(ref)} rows, mdlite {len(ours)} with columns {list(ours[0]) if ours else []}")
    worst = (0.0, "")
    for r, o in zip(ref, ours):
        for k, c in enumerate(names):
            if c == "econserve":  # LAMMPS 29Sep2021's npt iso counts its barostat chain's ecouple otherwise (FORMATS.md)
                continue
            diff = abs(o[c] - r[k]) / max(abs(r[k]), 1.0)
            if diff > worst[0]:
                worst = (diff, f"step {int(r[0])} {c}: mdlite {o[c]!r} LAMMPS {r[k]!r}")
    if worst[0] > tol:
        fail(f"thermo_columns: {worst[1]} (rel diff {worst[0]:.3g} > {tol})")
    print(f"thermo_columns: 21 rows x {len(names) - 1} LAMMPS columns (norm no) agree with LAMMPS to {tol:g}; largest "
          f"relative difference {worst[0]:.3g} ({worst[1]})")


def main():
    mdlite = os.path.abspath(sys.argv[1])
    units = sys.argv[2] if len(sys.argv) > 2 else "lj"
    threads = sys.argv[sys.argv.index("--threads") + 1] if "--threads" in sys.argv else "1"
    backend = sys.argv[sys.argv.index("--backend") + 1] if "--backend" in sys.argv else "cpu"
    tol = float(sys.argv[sys.argv.index("--tol") + 1]) if "--tol" in sys.argv else TOL
    lmp = shutil.which("lmp") or shutil.which("lmp_serial")
    if not lmp:
        fail("LAMMPS (lmp) not found: install the Debian package lammps (tools/setup.sh does)")
    d = workdir(f"lammps-{units}")
    L, pos, vel = make_system(units)
    write_inputs(d, units, L, pos, vel)
    sets = sum((["--set", x] for x in ENSEMBLE.get(units, ([], ""))[0]), [])
    run([mdlite, "run", "run.ini", "--quiet", "--set", f"run.threads={threads}", "--set", f"run.backend={backend}",
         *sets], cwd=d)
    how = sys.argv[sys.argv.index("--wrong") + 1] if "--wrong" in sys.argv else None
    if how:
        make_wrong(d, how)
    env = dict(os.environ, OMP_NUM_THREADS="1")
    log = run_lmp([lmp, "-in", "in.compare", "-log", "none"], cwd=d, env=env).stdout
    if units == "thermo_columns":
        for bad, words in (("step temp cpuremain", "'cpuremain' is not a thermo keyword"), ("temp step", "the first column must be step")):
            p = run([mdlite, "run", "run.ini", "--quiet", "--set", f"output.thermo_columns={bad}"], cwd=d, check=False)
            if p.returncode != 2 or "[output] thermo_columns" not in p.stderr or words not in p.stderr:
                fail(f"thermo_columns = {bad}: exit {p.returncode}, expected 2 naming the key: {p.stderr}")
        return compare_columns(log, read_thermo(os.path.join(d, "mdlite.csv")), tol)
    ref = parse_lammps_log(log)
    ours = read_thermo(os.path.join(d, "mdlite.csv"))
    rows = steps_of(units) // 10 + 1
    if len(ref) != rows or len(ours) != rows:
        fail(f"expected {rows} thermo rows, LAMMPS {len(ref)}, mdlite {len(ours)}\n{log[-2000:]}")
    cols = ["step", "time", "temperature", "potential_energy", "kinetic_energy", "total_energy", "pressure", "volume"]
    worst = (0.0, "")
    for r, o in zip(ref, ours):
        for k, c in enumerate(cols):
            if how and c in ("step", "time"):
                continue  # the physics' columns alone
            diff = abs(o[c] - r[k]) / max(abs(r[k]), 1.0)
            if diff > worst[0]:
                worst = (diff, f"step {int(r[0])} {c}: mdlite {o[c]!r} LAMMPS {r[k]!r}")
            if diff > tol and not how:
                fail(f"step {int(r[0])} {c}: mdlite {o[c]!r}, LAMMPS {r[k]!r} (rel diff {diff:.3g} > {tol})")
    if how:  # a wrong LAMMPS must miss by orders of magnitude more than the tolerance
        if worst[0] < 100 * tol:
            fail(f"{units}, LAMMPS with {WRONG[how]}: only {worst[0]:.3g} from mdlite (tolerance {tol})")
        print(f"{units}, LAMMPS with {WRONG[how]}: {worst[0]:.3g} from mdlite ({worst[1]}), the test's tolerance {tol}")
        return
    print(f"{units} ({backend}): {rows} thermo rows x {len(cols)} columns agree with LAMMPS to {tol:g}; largest relative difference {worst[0]:.3g} "
          f"({worst[1]})")


if __name__ == "__main__":
    main()
