#!/usr/bin/env python3
"""Hostile input, one case a class of fault: whatever a user hands mdlite, it never crashes, never
runs silently wrong and never loses a file; bad input exits 2 naming its source, a run that cannot
go on exits 1 with its files readable. (The plain exit-2 cases of each class are in bad_input.py.)

usage: hostile.py CASE MDLITE [MDLITE_ASAN]   (a python3 with h5py)
cases: cells, full_disk, signals, neighbors_output, outputs, restart_ensemble, barostat, special_outputs,
       unchecked_input, messages, leaks, signal_on_frame.
Every case runs under each binary given; a sanitizer build must print no report.
"""
import fcntl
import glob
import os
import shutil
import signal
import subprocess
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(__file__))
from common import SKIP, fail, read_thermo, workdir, write  # noqa: E402

warnings.filterwarnings("ignore")
import h5py  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
MELT = os.path.join(HERE, "..", "..", "input", "lj_melt.ini")
# a file HDF5 could not close keeps its memory to the end: not mdlite's leak (hdf5_unclosed.supp)
UNCLOSED = dict(os.environ, LSAN_OPTIONS=f"suppressions={HERE}/hdf5_unclosed.supp:print_suppressions=0")


def mdlite(binary, d, *args, code=0, expect=(), env=None):
    """Runs mdlite in d; checks the exit status, the message and that no sanitizer spoke."""
    p = subprocess.run([binary, *args], capture_output=True, text=True, cwd=d, timeout=600, env=env)
    if p.returncode != code:
        fail(f"{os.path.basename(binary)} {' '.join(args)}: exit {p.returncode}, expected {code}\n{p.stderr}")
    for e in expect:
        if e not in p.stderr:
            fail(f"{' '.join(args)}: message lacks {e!r}:\n{p.stderr}")
    no_sanitizer_report(p.stderr, args)
    return p


def no_sanitizer_report(err, what):
    for bad in ("AddressSanitizer", "runtime error", "LeakSanitizer", "HDF5-DIAG"):
        if bad in err:
            fail(f"{what}: {bad} in the output:\n{err}")


def frames(path):
    with h5py.File(path, "r") as f:
        return len(f["particles/trajectory/position/step"])


# ---- 1. cell grids of huge boxes: the product of the per-axis counts must never wrap ----------

def cells(binary, d):
    # 2^22 cells of width 1 per axis: the product is 2^66, which wrapped to 0 cells
    write(f"{d}/two.xy", "0 0\n1 0\n")
    for box, cut in (("4194304", "1"), ("1e300", "1e-300"), ("2000000", "0.01")):
        p = mdlite(binary, d, "neighbors", "two.xy", "--cutoff", cut, "--box", box, box, box)
        rows = p.stdout.split()
        if rows != ["0", "0"]:
            fail(f"neighbors in a {box} box, cutoff {cut}: rows {rows}, expected two empty rows")
    write(f"{d}/huge.xyz", '2\nLattice="4194304 0 0 0 4194304 0 0 0 4194304" Properties=species:S:1:pos:R:3\n'
                           "A 1 1 1\nA 1.9 1 1\n")
    write(f"{d}/huge.ini", "[system]\ninput = huge.xyz\ntemperature = 1\n[potential]\ncutoff = 0.7\n"
                           "[run]\nsteps = 20\n[output]\nthermo = 10\nthermo_file = huge.csv\n")
    mdlite(binary, d, "run", "huge.ini", "--quiet")
    rows = read_thermo(f"{d}/huge.csv")
    if len(rows) != 3 or rows[-1]["step"] != 20:
        fail(f"the huge box ran {len(rows)} thermo rows")
    print(f"{os.path.basename(binary)}: boxes of 4194304 (cutoff 1), 1e300 (1e-300) and 2e6 (0.01): neighbors and "
          f"run exit 0 with the right (empty) lists")


# ---- 2. a full disk under an open H5MD file ----------------------------------------------------

def full_disk(binary, d):
    mnt = os.path.join(d, "small")
    os.makedirs(mnt)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mnt], capture_output=True).returncode:
        print("SKIP: cannot mount a small tmpfs here (needs root)")
        sys.exit(SKIP)
    try:
        # the thermo file shares the full file system, and HDF5 holds unflushed frames at the close
        for extra in (["output.flush_every=1000", "output.dump_every=5"],
                      ["output.flush_every=1000", "output.dump_every=5", "output.async=no"],
                      ["output.flush_every=1000", "output.dump_every=50", "output.thermo=1"]):
            for f in glob.glob(f"{mnt}/*"):
                os.remove(f)
            sets = ["system.cells=6 6 6", "run.steps=20000", f"output.trajectory={mnt}/t.h5md",
                    f"output.thermo_file={mnt}/thermo.csv", *extra]
            p = mdlite(binary, d, "run", MELT, "--quiet", *sum((["--set", s] for s in sets), []), code=1,
                       expect=[mnt], env=UNCLOSED)
            n = frames(f"{mnt}/t.h5md")
            print(f"{os.path.basename(binary)}: full disk ({' '.join(extra)}): exit 1, "
                  f"'{p.stderr.strip().splitlines()[-1]}'; the trajectory opens with {n} frames")
        # extended XYZ: the file ends at its last whole frame, which ASE reads
        for f in glob.glob(f"{mnt}/*"):
            os.remove(f)
        sets = ["system.cells=6 6 6", "run.steps=20000", f"output.trajectory={mnt}/t.xyz", "output.dump_every=5",
                f"output.thermo_file={d}/thermo.csv", "output.dump_fields=position velocity force"]
        p = mdlite(binary, d, "run", MELT, "--quiet", "--overwrite", *sum((["--set", s] for s in sets), []),
                   code=1, expect=[f"{mnt}/t.xyz", "the file ends at its last whole frame"])
        import ase.io
        atoms = ase.io.read(f"{mnt}/t.xyz", index=":")
        if not atoms or any(len(a) != 864 for a in atoms):
            fail(f"full disk, extended XYZ: ASE read {len(atoms)} frames of {[len(a) for a in atoms][:3]} atoms")
        print(f"{os.path.basename(binary)}: full disk, extended XYZ: exit 1; ASE reads all {len(atoms)} frames, "
              f"the last one whole")
    finally:
        subprocess.run(["umount", mnt])


# ---- 3. signals at any moment, output files being created included ------------------------------

def signals(binary, d):
    seen = set()
    for delay in (0.0, 0.01, 0.03, 0.06, 0.1, 0.15, 0.25, 0.4, 0.7):
        traj, thermo = f"{d}/s.h5md", f"{d}/s.csv"
        for f in (traj, thermo):
            if os.path.exists(f):
                os.remove(f)
        p = subprocess.Popen([binary, "run", MELT, "--quiet", "--set", "system.cells=24 24 24", "--set",
                              "run.steps=1000000", "--set", f"output.trajectory={traj}", "--set",
                              f"output.thermo_file={thermo}"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, cwd=d)
        time.sleep(delay)
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=300)
        no_sanitizer_report(err, f"SIGTERM after {delay} s")
        files = os.path.exists(traj) or os.path.exists(thermo)
        # before its handlers are in (the program still loading) the signal's default ends it: no file yet
        if p.returncode != 143 and not (p.returncode == -signal.SIGTERM and not files):
            fail(f"SIGTERM after {delay} s: exit {p.returncode}, expected 143\n{err}")
        if files:  # the run said so, and closed them
            if "terminated (SIGTERM)" not in err:
                fail(f"SIGTERM after {delay} s: output files exist but no message:\n{err}")
            try:
                n = frames(traj)
            except (OSError, KeyError) as e:
                fail(f"SIGTERM after {delay} s: the trajectory does not open: {e}\n{err}")
            if n < 1:
                fail(f"SIGTERM after {delay} s: the trajectory holds no frame")
            seen.add("files, " + ("after the set-up" if " at step " in err else "?"))
        else:
            seen.add("no file" + (", with a message" if "during the set-up" in err else ""))
    print(f"{os.path.basename(binary)}: SIGTERM at 9 moments from 0 to 0.7 s: exit 143, every file there opens "
          f"({'; '.join(sorted(seen))})")


# ---- 4. neighbors --output keeps run's promise -----------------------------------------------------

def neighbors_output(binary, d):
    write(f"{d}/pts.xy", "0 0\n1 0\n5 5\n")
    write(f"{d}/nb.txt", "precious\n")
    mdlite(binary, d, "neighbors", "pts.xy", "--cutoff", "1.5", "--output", "nb.txt",
           expect=["nb.txt exists: kept as #nb.txt.1#"])
    if open(f"{d}/#nb.txt.1#").read() != "precious\n":
        fail("neighbors --output: the existing file was not kept as #nb.txt.1#")
    if open(f"{d}/nb.txt").read().split("\n")[:3] != ["1 1", "1 0", "0"]:
        fail(f"neighbors --output wrote {open(f'{d}/nb.txt').read()!r}")
    mdlite(binary, d, "neighbors", "pts.xy", "--cutoff", "1.5", "--output", "nb.txt", "--overwrite")
    if os.path.exists(f"{d}/#nb.txt.2#") or not open(f"{d}/nb.txt").read().startswith("1 1"):
        fail("neighbors --output --overwrite: made a backup or did not write")
    print(f"{os.path.basename(binary)}: neighbors --output: an existing file kept as #nb.txt.1#; --overwrite replaces")


# ---- 7. output clashes blame the right thing and leave nothing behind -------------------------------

def outputs(binary, d):
    base = ["run", MELT, "--quiet", "--set", "system.cells=4 4 4", "--set", "run.steps=10"]
    # two outputs that are one file through a link to a file still to be made
    os.symlink("a.csv", f"{d}/link.h5md")
    mdlite(binary, d, *base, "--set", "output.trajectory=link.h5md", "--set", "output.thermo_file=a.csv", code=2,
           expect=["[output] trajectory link.h5md is also the [output] thermo_file (a.csv)"])
    if os.path.exists(f"{d}/a.csv"):
        fail("outputs through a link: a file was left behind")
    # every backup name taken
    write(f"{d}/t.csv", "precious\n")
    for k in range(1, 100):
        write(f"{d}/#t.csv.{k}#", f"{k}\n")
    p = mdlite(binary, d, *base, "--set", "output.thermo_file=t.csv", code=2,
               expect=["t.csv", "[output] thermo_file", "99 backup names"])
    if "ioctl" in p.stderr or open(f"{d}/t.csv").read() != "precious\n":
        fail(f"all backups taken: {p.stderr}")
    # a claim refused (the thermo file is locked by another process) leaves no empty trajectory
    write(f"{d}/busy.csv", "in use\n")
    with open(f"{d}/busy.csv") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        mdlite(binary, d, *base, "--set", "output.thermo_file=busy.csv", "--set", "output.trajectory=new.h5md",
               code=2, expect=["busy.csv", "in use by another process"])
    if os.path.exists(f"{d}/new.h5md"):
        fail("a refused claim left an empty trajectory behind")
    print(f"{os.path.basename(binary)}: outputs through a link, 99 backups taken, a busy file: exit 2 naming the "
          f"real cause, nothing left behind")


# ---- 10. a restart that changes the ensemble recomputes the forces ---------------------------------

def restart_ensemble(binary, d):
    common = ["--set", "system.cells=6 6 6", "--quiet"]
    mdlite(binary, d, "run", MELT, *common, "--set", "run.ensemble=nvt-langevin", "--set", "run.target_temperature=1.5",
           "--set", "run.tau=0.5", "--set", "run.steps=200", "--set", "output.trajectory=lang.h5md", "--set",
           "output.dump_every=100", "--set", "output.thermo_file=lang.csv")
    mdlite(binary, d, "run", MELT, *common, "--restart", "lang.h5md", "--set", "run.ensemble=nve", "--set",
           "run.steps=40", "--set", "output.thermo=1", "--set", "output.thermo_file=nve.csv",
           expect=["lang.h5md: its forces were computed from", "recomputed at step 200"])
    e = [r["total_energy"] for r in read_thermo(f"{d}/nve.csv")]
    jump, steps = abs(e[1] - e[0]), [abs(b - a) for a, b in zip(e[1:], e[2:])]
    if jump > 3 * max(steps):
        fail(f"Langevin -> NVE: the energy per atom jumps by {jump:.3g} at the hand-over; NVE's step-to-step changes "
             f"are at most {max(steps):.3g}")
    # the same Langevin continued: the checkpoint's forces (with their noise) are the run's own
    p = mdlite(binary, d, "run", MELT, *common, "--restart", "lang.h5md", "--set", "run.ensemble=nvt-langevin",
               "--set", "run.target_temperature=1.5", "--set", "run.tau=0.5", "--set", "run.steps=5",
               "--set", "output.thermo_file=lang2.csv")
    if "recomputed" in p.stderr:
        fail(f"Langevin -> the same Langevin: forces recomputed:\n{p.stderr}")
    print(f"{os.path.basename(binary)}: Langevin -> NVE: hand-over change {jump:.2e} per atom, NVE's steps at most "
          f"{max(steps):.2e}; the same Langevin keeps the checkpoint's forces")


# ---- 11. a barostat that runs away stops the run, naming the step, its files readable ----------

def barostat(binary, d):
    common = ["--quiet", "--overwrite", "--set", "system.cells=6 6 6", "--set", "run.ensemble=npt-nose-hoover",
              "--set", "run.target_temperature=1.2", "--set", "run.tau=0.5", "--set", "run.pressure_tau=0.1",
              "--set", "run.steps=20000", "--set", "output.dump_every=10", "--set", "output.trajectory=npt.h5md"]
    for pressure, expect in (("1000", ["step 1:", "the barostat took the box to"]),
                             ("-5", ["the barostat moved the box's faces", "pairs may have been missed"])):
        mdlite(binary, d, "run", MELT, *common, "--set", f"run.target_pressure={pressure}", code=1, expect=expect)
        n = frames(f"{d}/npt.h5md")
        if n < 1:
            fail(f"target pressure {pressure}: the trajectory has no frame")
        print(f"{os.path.basename(binary)}: target pressure {pressure}, pressure_tau 0.1: exit 1 ({expect[1]}); "
              f"the trajectory opens with {n} frames")


# ---- 12. outputs that are not regular files: refused before the run, nothing touched -------------

def special_outputs(binary, d):
    os.mkfifo(os.path.join(d, "pipe"))
    os.makedirs(os.path.join(d, "adir.h5md"))
    write(f"{d}/thermo.csv", "the user's file\n")
    for key, path, kind in (("output.thermo_file", "pipe", "FIFO"), ("analysis.rdf_file", "pipe", "FIFO"),
                            ("output.trajectory", "adir.h5md", "a directory"),
                            ("analysis.msd_file", "nodir/msd.csv", "cannot create the file in nodir")):
        extra = ["--set", "analysis.rdf_every=10"] if "rdf" in key else ["--set", "analysis.msd_every=10"]
        mdlite(binary, d, "run", MELT, "--quiet", "--set", "system.cells=4 4 4", "--set", "run.steps=20",
               "--set", f"{key}={path}", *extra, code=2, expect=[path, kind])
        if open(f"{d}/thermo.csv").read() != "the user's file\n" or glob.glob(f"{d}/#*"):
            fail(f"{key} = {path}: the run was refused but the user's thermo.csv was moved or changed")
    mdlite(binary, d, "run", MELT, "--quiet", "--set", "system.cells=4 4 4", "--set", "run.steps=20",
           "--set", "output.thermo_file=/dev/null")
    print(f"{os.path.basename(binary)}: a FIFO, a directory and a missing folder as outputs: exit 2 naming the "
          f"file, thermo.csv untouched; /dev/null runs")


# ---- 13. input that was silently ignored or unchecked ------------------------------------------------

def unchecked_input(binary, d):
    base = ["run", MELT, "--quiet", "--set", "system.cells=4 4 4", "--set", "run.steps=20"]
    mdlite(binary, d, *base, "--set", "run.steps=5\n[run]\nsteps=7", code=2, expect=["--set", "control character"])
    head = "[system]\nlattice = fcc\ndensity = 0.8\ncells = 4 4 4\ntemperature = 1\n[run]\ntimestep = 0.005\n"
    for name, text, line in (("empty", "[stage:a]\nsteps = 10\n[stage:b]\n[stage:c]\nsteps = 5\n", 10),
                             ("blank", "[stage:a]\nsteps = 10\n[stage:b]\nsteps =\n", 10),
                             ("last", "[stage:a]\nsteps = 10\n[stage:b]\n", 10)):
        write(f"{d}/{name}.ini", head + text)
        mdlite(binary, d, "run", f"{name}.ini", "--quiet", code=2, expect=[f"{name}.ini:{line}: [stage:b]", "no keys"])
    p = mdlite(binary, d, *base, "--set", "neighbor.layout=row", "--set", "neighbor.max_neighbors=80",
               "--set", "output.thermo_file=")
    for key in ("[neighbor] layout", "[neighbor] max_neighbors"):
        if f"{key}: not used by this run" not in p.stderr:
            fail(f"{key} on the CPU: no warning\n{p.stderr}")
    # a table sized by the run's length is refused before any file exists
    mdlite(binary, d, *base, "--set", "run.steps=2000000000", "--set", "analysis.msd_every=1",
           "--set", "output.thermo_file=big.csv", code=2, expect=["[analysis] msd_every", "MSD rows"])
    if os.path.exists(f"{d}/big.csv"):
        fail("the MSD table was refused after the thermo file was made")
    # physical keys within a range that keeps the run finite
    for key, value in (("run.tau", "1e200"), ("run.timestep", "1e-31"), ("potential.epsilon", "1e31"),
                       ("system.mass", "1e-40"), ("potential.pair.A.A", "1 1e300"), ("run.target_pressure", "-1e40")):
        mdlite(binary, d, *base, "--set", "run.ensemble=npt-nose-hoover", "--set", "run.target_temperature=1",
               "--set", "run.tau=0.5", "--set", "run.pressure_tau=5", "--set", "run.target_pressure=1",
               "--set", f"{key}={value}", code=2, expect=[f"[{key.split('.')[0]}] {key.split('.', 1)[1]}", value])
    print(f"{os.path.basename(binary)}: --set with a newline, empty stages, GPU list keys on the CPU, a 2e9-row "
          f"MSD table and out-of-range physical keys: refused or named")


# ---- 14. messages name what is wrong -----------------------------------------------------------------

def messages(binary, d):
    base = ["run", MELT, "--quiet", "--set", "system.cells=4 4 4", "--set", "run.steps=20"]
    mdlite(binary, d, *base, "--set", "run.ensemble=nvt-nose-hoover", "--set", "run.target_temperature=0",
           "--set", "run.tau=0.5", code=2, expect=["[run] target_temperature", "above 0"])
    mdlite(binary, d, *base, "--set", "run.ensemble=nvt-langevin", "--set", "run.target_temperature=1",
           "--set", "run.tau=0.001", code=2, expect=["[run] tau", "shorter than the timestep"])
    write(f"{d}/st.ini", "[system]\nlattice = fcc\ndensity = 0.8\ncells = 4 4 4\ntemperature = 1\n"
                         "[stage:a]\nsteps = 10\n[stage:b]\nsteps = 10\nensemble = nvt-berendsen\ntau = 1\n")
    mdlite(binary, d, "run", "st.ini", "--quiet", code=2, expect=["st.ini:9: [stage:b] target_temperature: missing"])
    # NPT checked every 10 steps: the message says what the limit is and that a shorter check fixes it
    mdlite(binary, d, *base, "--set", "system.cells=6 6 6", "--set", "run.steps=20000", "--set", "neighbor.check=10",
           "--set", "run.ensemble=npt-nose-hoover", "--set", "run.target_temperature=1.2", "--set", "run.tau=0.5",
           "--set", "run.pressure_tau=0.1", "--set", "run.target_pressure=-5", code=1,
           expect=["since the neighbor list was built at step", "check the list more often ([neighbor] check"])
    print(f"{os.path.basename(binary)}: Nose-Hoover at T 0, tau under the timestep, a stage's missing key and an NPT "
          f"check too long: messages name the key, the stage's line and the limit")


# ---- 15. a run that stops on an error frees what it made (LeakSanitizer in the ASan build) -----------

def leaks(binary, d):
    for extra in (["analysis.msd_every=5"], ["analysis.msd_every=5", "analysis.rdf_every=5"]):
        sets = ["system.cells=4 4 4", "run.steps=2000", "run.timestep=0.05", "output.trajectory=t.h5md", *extra]
        mdlite(binary, d, "run", MELT, "--quiet", "--overwrite", *sum((["--set", s] for s in sets), []), code=1,
               expect=["step"], env=UNCLOSED)
    print(f"{os.path.basename(binary)}: runs with analysis that blow up: exit 1, nothing leaked")


def leaks_valgrind(binary, d):
    """The same failure path under valgrind (a build without AVX-512: mdlite-portable): no block lost."""
    valgrind = shutil.which("valgrind")
    if not valgrind:
        print("SKIP: no valgrind")
        sys.exit(SKIP)
    sets = ["system.cells=4 4 4", "run.steps=2000", "run.timestep=0.05", "output.trajectory=t.h5md",
            "analysis.msd_every=5", "analysis.rdf_every=5", "run.threads=1"]
    args = [valgrind, "--leak-check=full", "--errors-for-leak-kinds=definite,indirect", "--error-exitcode=99",
            binary, "run", MELT, "--quiet", "--overwrite", *sum((["--set", s] for s in sets), [])]
    p = subprocess.run(args, capture_output=True, text=True, cwd=d, timeout=900)
    lost = [line for line in p.stderr.splitlines() if "definitely lost" in line or "indirectly lost" in line]
    if p.returncode != 1 or "step" not in p.stderr:
        fail(f"under valgrind, a run with analysis that blows up: exit {p.returncode}, expected 1\n{p.stderr[-3000:]}")
    if any(" 0 bytes" not in line for line in lost):
        fail(f"under valgrind, a run with analysis that blows up leaked:\n{p.stderr[-6000:]}")
    print(f"{os.path.basename(binary)} under valgrind: a run with analysis that blows up: exit 1, "
          f"{'; '.join(x.split('==')[-1].strip() for x in lost) or 'no leak summary: nothing lost'}")


# ---- 16. a stop on a frame's step writes the checkpoint it promises ----------------------------------

def signal_on_frame(binary, d):
    sets = ["system.cells=6 6 6", "run.steps=1000000", "output.dump_every=1", "output.flush_every=100000",
            "output.trajectory=t.h5md", "output.thermo_file=t.csv"]
    p = subprocess.Popen([binary, "run", MELT, "--quiet", "--overwrite", *sum((["--set", s] for s in sets), [])],
                         cwd=d, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=300)
    no_sanitizer_report(err, "SIGTERM with a frame every step")
    if p.returncode != 143:
        fail(f"SIGTERM with a frame every step: exit {p.returncode}\n{err}")
    with h5py.File(f"{d}/t.h5md", "r") as f:
        last = int(f["particles/trajectory/position/step"][-1])
        ck = int(f["checkpoint"].attrs["step"])
    if ck != last:
        fail(f"SIGTERM with a frame every step: the checkpoint is at step {ck}, the last frame at {last}")
    mdlite(binary, d, "run", MELT, "--quiet", "--restart", "t.h5md", *sum((["--set", s] for s in sets[:-4]), []),
           "--set", "run.steps=5", "--set", "output.dump_every=1", "--set", "output.trajectory=t.h5md",
           "--set", "output.thermo_file=t.csv")
    if frames(f"{d}/t.h5md") < 6:
        fail("the restart into the stopped run's file did not append its frames")
    print(f"{os.path.basename(binary)}: SIGTERM with a frame every step: the checkpoint is the last frame's "
          f"(step {last}); the restart appends to the same file")


def main():
    case, binaries = sys.argv[1], [os.path.abspath(b) for b in sys.argv[2:]]
    for b in binaries:
        globals()[case](b, workdir(f"hostile-{case}"))


if __name__ == "__main__":
    main()
