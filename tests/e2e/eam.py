#!/usr/bin/env python3
"""EAM input that cannot run is refused before the run: damaged potential files (exit 2 naming the
file and line and what is wrong, before any allocation a wild count could make) and keys that do
not fit the style (exit 2 naming the key); under valgrind (valgrind MDLITE-PORTABLE), the reader on
damaged files and short runs of every style on one and two threads with no error and no block lost.
Files from Debian's lammps-data (tools/setup.sh).

usage: eam.py CASE MDLITE...   cases: files, keys, valgrind
"""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import SKIP, fail, workdir, write  # noqa: E402

POT = "/usr/share/lammps/potentials"
SANITIZER = ("AddressSanitizer", "runtime error", "LeakSanitizer")


def config(d, potential, units="metal", extra=""):
    return (f"; EAM input check\n[system]\nunits = {units}\nlattice = fcc\nlattice_constant = 3.615\ncells = 3 3 3\n"
            f"species = Cu\ntemperature = 300\n{extra}[potential]\n{potential}\n[run]\nsteps = 2\n[output]\n"
            f"thermo_file = {d}/t.csv\n")


def expect_refused(binary, d, name, ini, want, argv=()):
    write(f"{d}/in.ini", ini)
    p = subprocess.run([binary, "run", f"{d}/in.ini", "--quiet", *argv], capture_output=True, text=True, cwd=d,
                       timeout=120)
    for bad in SANITIZER:
        if bad in p.stderr:
            fail(f"{name}: sanitizer report\n{p.stderr}")
    if p.returncode != 2 or any(w not in p.stderr for w in want):
        fail(f"{name}: exit {p.returncode}, expected 2 and {want}\n{p.stderr}")


def damaged(text):
    """Cu_u3.eam damaged in each way a file can be: (name, text, what the message names)."""
    lines = text.split("\n")
    grid = lines[2].split()  # nrho drho nr dr cut

    def with_grid(k, v):
        g = list(grid)
        g[k] = v
        return "\n".join(lines[:2] + ["  " + "  ".join(g)] + lines[3:])

    def with_line(n, line):
        return "\n".join(lines[:n - 1] + [line] + lines[n:])

    return [("truncated", "\n".join(lines[:150]) + "\n", [":151:", "the file ends where Z(r) should be"]),
            ("non-numeric", with_line(10, lines[9].replace(lines[9].split()[2], "1.0x", 1)),
             [":10:", "'1.0x' is not a finite number"]),
            ("NaN", with_line(10, lines[9].replace(lines[9].split()[2], "nan", 1)), [":10:", "not a finite number"]),
            ("inf", with_line(12, lines[11].replace(lines[11].split()[0], "-inf", 1)), [":12:", "not a finite number"]),
            ("zero drho", with_grid(1, "0"), [":3:", "drho and dr must be positive"]),
            ("negative dr", with_grid(3, "-0.01"), [":3:", "drho and dr must be positive"]),
            ("100 GB nr", with_grid(2, "12500000000"), [":3:", "nr = 12500000000: not a count"]),
            ("nrho under the numbers present", with_grid(0, "499"), [":103:", "more numbers on the line"]),
            ("cutoff past the tables", with_grid(4, "99"), [":3:", "within the r table"]),
            ("numbers past the tables", text + "1.0 2.0\n", ["numbers past the last table"]),
            ("no grid line", "\n".join(lines[:2]) + "\n", [":3:", "the grid line"])]


def files(binary, d):
    src = f"{POT}/Cu_u3.eam"
    if not os.path.exists(src):
        print(f"SKIP: no {src} (Debian's lammps-data: tools/setup.sh)")
        sys.exit(SKIP)
    text = open(src).read()
    for name, bad, want in damaged(text):
        write(f"{d}/Cu.eam", bad)
        expect_refused(binary, d, name, config(d, f"style = eam\nfile.Cu = {d}/Cu.eam"), [f"{d}/Cu.eam", *want])
    expect_refused(binary, d, "missing file", config(d, f"style = eam\nfile.Cu = {d}/none.eam"), [f"{d}/none.eam"])
    expect_refused(binary, d, "a directory", config(d, f"style = eam\nfile.Cu = {d}"), [d, "directory"])
    expect_refused(binary, d, "a device", config(d, "style = eam\nfile.Cu = /dev/zero"), ["/dev/zero", "not a regular file"])
    write(f"{d}/empty.eam", "")
    expect_refused(binary, d, "an empty file", config(d, f"style = eam\nfile.Cu = {d}/empty.eam"),
                   [f"{d}/empty.eam:1:", "the file ends where the comment line should be"])
    expect_refused(binary, d, "funcfl file as setfl", config(d, f"style = eam/alloy\nfile = {src}"),
                   [src, "a DYNAMO funcfl file", "pair_style eam reads it"])
    expect_refused(binary, d, "no such element", config(d, f"style = eam/alloy\nfile = {POT}/CuNi.eam.alloy\n"
                                                           "element.Cu = Al"), ["no element Al in the file"])
    print(f"{os.path.basename(binary)}: {len(damaged(text)) + 6} damaged or mismatched potential files: exit 2 "
          f"naming the file and line")


def keys(binary, d):
    src = f"{POT}/Cu_u3.eam"
    if not os.path.exists(src):
        print(f"SKIP: no {src} (Debian's lammps-data: tools/setup.sh)")
        sys.exit(SKIP)
    eam = f"style = eam\nfile.Cu = {src}"
    cases = [("lj units", config(d, eam, units="lj"), ["[potential] style", "metal units"]),
             ("a cutoff", config(d, eam + "\ncutoff = 5"), ["[potential] cutoff", "the file gives it"]),
             ("a mass", config(d, eam, extra="mass = 63.5\n"), ["[system] mass", "takes the masses from its file"]),
             ("a species' mass", config(d, eam, extra="mass.Cu = 63.5\n"), ["mass.Cu", "takes the masses"]),
             ("no file for a species", config(d, "style = eam"), ["[potential] file.Cu: missing"]),
             ("element.X with eam", config(d, eam + "\nelement.Cu = Cu"), ["element.Cu", "not a key of style eam"]),
             ("no file for eam/alloy", config(d, "style = eam/alloy"), ["[potential] file: missing"]),
             ("a pair line", config(d, eam + "\npair.Cu.Cu = 1 1"), ["pair.Cu.Cu", "no pair lines"]),
             ("an LJ key", config(d, eam + "\nepsilon = 1"), ["[potential] epsilon", "a key of style lj"]),
             ("EAM's keys with lj", config(d, f"style = lj\nepsilon = 1\nsigma = 2.3\ncutoff = 5\nfile = {src}"),
              ["file", "keys of the EAM styles"]),
             ("a tail correction with eam", config(d, eam + "\ntail = yes"), ["[potential] tail", "no tail correction"]),
             ("a tail correction with morse", config(d, "style = morse\nd0 = 0.3429\nalpha = 1.3588\nr0 = 2.866\n"
                                                     "cutoff = 5\ntail = yes"),
              ["[potential] tail", "style morse has no tail correction"])]
    for name, ini, want in cases:
        expect_refused(binary, d, name, ini, want)
    print(f"{os.path.basename(binary)}: {len(cases)} EAM configurations that cannot run: exit 2 naming the key")


def valgrind(binary, d):
    """memcheck on the reader (a truncated and a non-numeric file: exit 2) and on 20-step runs of eam
    (two funcfl files), eam/alloy and eam/fs (two species each) with 1 and 2 threads, energies every
    5 steps: no error, nothing definitely or indirectly lost. Run on the build without AVX-512."""
    vg = shutil.which("valgrind")
    if not vg or not all(os.path.exists(f"{POT}/{f}") for f in ("Cu_u3.eam", "Ni_u3.eam", "CuNi.eam.alloy",
                                                                "CuZr_mm.eam.fs")):
        print("SKIP: no valgrind or no potential files (tools/setup.sh)")
        sys.exit(SKIP)
    text = open(f"{POT}/Cu_u3.eam").read()
    runs = [("eam, two funcfl files", f"style = eam\nfile.Cu = {POT}/Cu_u3.eam\nfile.Ni = {POT}/Ni_u3.eam", "Ni"),
            ("eam/alloy", f"style = eam/alloy\nfile = {POT}/CuNi.eam.alloy", "Ni"),
            ("eam/fs", f"style = eam/fs\nfile = {POT}/CuZr_mm.eam.fs", "Zr")]
    checks = []
    for name, bad, _ in [c for c in damaged(text) if c[0] in ("truncated", "non-numeric")]:
        write(f"{d}/Cu.eam", bad)
        checks.append((f"reader, {name} file", config(d, f"style = eam\nfile.Cu = {d}/Cu.eam"), [], 2))
    for name, pot, other in runs:
        for threads in (1, 2):  # 500 atoms, half of them the other species, 20 steps
            ini = config(d, pot, extra="composition = 0.5 0.5\nseed = 7\n").replace(
                "species = Cu", f"species = Cu {other}").replace("cells = 3 3 3", "cells = 5 5 5").replace(
                "steps = 2", "steps = 20").replace("[output]", f"threads = {threads}\n[output]\nthermo = 5").replace(
                "[run]", "[neighbor]\nskin = 1.0\n[run]")
            checks.append((f"{name}, {threads} thread(s)", ini, [], 0))
    for name, ini, argv, want in checks:
        write(f"{d}/in.ini", ini)
        p = subprocess.run([vg, "--error-exitcode=99", "--leak-check=full", "--errors-for-leak-kinds=definite,indirect",
                            binary, "run", f"{d}/in.ini", "--quiet", "--overwrite", *argv], capture_output=True,
                           text=True, cwd=d, timeout=900, env=dict(os.environ, OMP_WAIT_POLICY="passive"))
        errors = [line for line in p.stderr.splitlines() if "ERROR SUMMARY" in line]
        if p.returncode != want or not errors or " 0 errors" not in errors[-1]:
            fail(f"valgrind, {name}: exit {p.returncode} (expected {want}), {errors}\n{p.stderr[-3000:]}")
        print(f"valgrind, {name}: exit {p.returncode}, {errors[-1].split('==')[-1].strip()}")


def main():
    case, binaries = sys.argv[1], [os.path.abspath(b) for b in sys.argv[2:]]
    for b in binaries:
        globals()[case](b, workdir(f"eam-{case}"))


if __name__ == "__main__":
    main()
