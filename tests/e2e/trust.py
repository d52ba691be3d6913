#!/usr/bin/env python3
"""Trust tests: runs that go wrong stop with exit 1 and readable files; outputs never destroy data;
restart files are validated; every file opens in MDAnalysis and ASE by the README's commands.

usage: trust.py CASE MDLITE [MDLITE_ASAN]   (a python3 with h5py, MDAnalysis and ASE)
MDLITE_TEST_BACKEND=gpu runs every case on the GPU backend.
cases: unhealthy, outputs, restart, tools. Every case runs under each binary given (tools: the first).
"""
import glob
import os
import re
import subprocess
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(__file__))
from common import fail, fcc_config, read_thermo, run, workdir, write  # noqa: E402

warnings.filterwarnings("ignore")
import h5py  # noqa: E402
import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
INPUT = os.path.join(HERE, "..", "..", "input")
CHECK = os.path.join(HERE, "..", "..", "tools", "h5md_check.py")
SMALL = fcc_config("5 5 5") + """[run]
steps = 60
[output]
thermo = 10
thermo_file = thermo.csv
trajectory = t.h5md
dump_every = 10
flush_every = 1
"""


def mdlite_run(binary, d, *args, code=0, expect=()):
    """Runs `mdlite run ...` in d; checks the exit status, the message and that no sanitizer spoke."""
    backend = os.environ.get("MDLITE_TEST_BACKEND")  # gpu: the same cases on the GPU machine
    p = run([binary, "run", *args] + (["--backend", backend] if backend else []), check=False, cwd=d)
    if p.returncode != code:
        fail(f"{' '.join(args)}: exit {p.returncode}, expected {code}\n{p.stderr}")
    for e in expect:
        if e not in p.stderr:
            fail(f"{' '.join(args)}: message lacks {e!r}:\n{p.stderr}")
    for bad in ("AddressSanitizer", "runtime error", "LeakSanitizer"):
        if bad in p.stderr:
            fail(f"{' '.join(args)}: sanitizer report:\n{p.stderr}")
    return p


def h5ok(path):
    p = subprocess.run([sys.executable, CHECK, path, "--quiet"], capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"h5md_check on {path}:\n{p.stdout}{p.stderr}")


def frames_finite(path):
    """Frames in an H5MD file, after checking that every stored number is finite."""
    with h5py.File(path, "r") as f:
        t = f["particles/trajectory"]
        for name in ("position", "velocity", "force"):
            if name in t and not np.all(np.isfinite(t[name]["value"][()])):
                fail(f"{path}: non-finite {name} stored")
        if "checkpoint" in f and not np.all(np.isfinite(f["checkpoint/position"][()])):
            fail(f"{path}: non-finite checkpoint")
        return len(t["position/step"])


# ---- runs that go wrong ----------------------------------------------------------------------

def unhealthy(binary, d):
    write(f"{d}/small.ini", SMALL)
    atoms = "\n".join(f"Ar {x} {y} {z}" for x, y, z in [(1, 1, 1), (1, 1, 1), (7, 1, 7), (1, 7, 4), (4, 4, 9)])
    write(f"{d}/overlap.xyz", f'5\nLattice="12 0 0 0 12 0 0 0 12" Properties=species:S:1:pos:R:3\n{atoms}\n')
    write(f"{d}/overlap.ini", "[system]\ninput = overlap.xyz\ntemperature = 1\n[output]\nthermo_file = o.csv\n"
                              "trajectory = o.h5md\n")
    cases = [  # (name, extra args, what the message must name)
        ("timestep far too large", ["--set", "run.timestep=0.5"], ["step 1: atom", "more than the skin"]),
        ("absurd epsilon", ["--set", "potential.epsilon=1e30"], ["step 1: atom", "moved"]),
        ("absurd temperature", ["--set", "system.temperature=1e30"], ["step 1: atom", "moved"]),
        ("absurd mass", ["--set", "system.mass=1e-30"], ["step 1: atom"]),
        ("blows up later", ["--set", "run.timestep=0.04"], ["more than the skin"]),
        ("skin passed between checks", ["--set", "neighbor.check=40"], ["step 40: atom", "[neighbor] check"]),
    ]
    for name, extra, expect in cases:
        for f in glob.glob(f"{d}/t.h5md") + glob.glob(f"{d}/#*"):
            os.remove(f)
        p = mdlite_run(binary, d, "small.ini", "--quiet", *extra, code=1, expect=expect)
        m = re.search(r"step (\d+): atom (\d+)", p.stderr)
        if not m or (name == "blows up later" and int(m.group(1)) < 2):
            fail(f"{name}: the message names no later step and atom:\n{p.stderr}")
        h5ok(f"{d}/t.h5md")
        n = frames_finite(f"{d}/t.h5md")
        rows = read_thermo(f"{d}/thermo.csv")
        if not all(np.isfinite(r["potential_energy"]) for r in rows):
            fail(f"{name}: a non-finite thermo row was written")
        print(f"{name}: exit 1 at {m.group(0)}, {n} good frame(s) kept, {len(rows)} thermo row(s)")
    mdlite_run(binary, d, "overlap.ini", "--quiet", code=1, expect=["step 0", "potential energy is not finite",
                                                                      "atom 0: the force is"])
    h5ok(f"{d}/o.h5md")
    frames_finite(f"{d}/o.h5md")
    print("two atoms on one spot: exit 1 at step 0, atom 0")


# ---- outputs never destroy data ------------------------------------------------------------

def outputs(binary, d):
    write(f"{d}/small.ini", SMALL)
    mdlite_run(binary, d, "small.ini", "--quiet")
    first = open(f"{d}/t.h5md", "rb").read()
    mdlite_run(binary, d, "small.ini", "--quiet", expect=["t.h5md exists: kept as #t.h5md.1#"])
    if open(f"{d}/#t.h5md.1#", "rb").read() != first:
        fail("the backup differs from the file it replaced")
    mdlite_run(binary, d, "small.ini", "--quiet", "--overwrite")
    if glob.glob(f"{d}/#t.h5md.2#"):
        fail("--overwrite made a backup")
    for args, expect in [
        (["--set", "output.thermo_file=small.ini"], ["thermo_file", "config file"]),
        (["--set", "output.trajectory=./small.ini.xyz", "--set", "output.thermo_file=small.ini.xyz"],
         ["two outputs cannot share a file"]),
        (["--set", "output.thermo_file=./t.h5md"], ["[output] trajectory", "[output] thermo_file"]),
        (["--restart", "t.h5md", "--set", "output.thermo_file=t.h5md", "--set", "output.trajectory="],
         ["thermo_file", "--restart file"]),
        (["--profile", "small.ini"], ["--profile file", "config file"]),
        (["--profile", "/nonexistent-dir/p.csv"], ["/nonexistent-dir/p.csv", "cannot create"]),
    ]:
        before = {f: open(f"{d}/{f}", "rb").read() for f in ("small.ini", "t.h5md")}
        mdlite_run(binary, d, "small.ini", "--quiet", *args, code=2, expect=expect)
        if any(open(f"{d}/{f}", "rb").read() != b for f, b in before.items()):
            fail(f"{args}: a file changed although the run was refused")
    # a file another process holds open (HDF5's shared lock, as MDAnalysis or h5py hold it)
    holder = subprocess.Popen([sys.executable, "-c", "import h5py, sys; f = h5py.File(sys.argv[1], 'r'); "
                               "print('open', flush=True); sys.stdin.read()", f"{d}/t.h5md"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    holder.stdout.readline()
    before = open(f"{d}/t.h5md", "rb").read()
    mdlite_run(binary, d, "small.ini", "--quiet", code=2, expect=["in use by another process"])
    holder.communicate("")
    if open(f"{d}/t.h5md", "rb").read() != before:
        fail("a refused run changed a file another process had open")
    # a second run on the trajectory a first run is still writing: refused, the first finishes intact
    first_run = subprocess.Popen([binary, "run", "small.ini", "--quiet", "--overwrite", "--set", "run.steps=400000",
                                  "--set", "output.dump_every=100000", "--set", "output.thermo_file=first.csv"]
                                 + (["--backend", os.environ["MDLITE_TEST_BACKEND"]]
                                    if os.environ.get("MDLITE_TEST_BACKEND") else []),
                                 cwd=d, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while not os.path.exists(f"{d}/first.csv") or len(open(f"{d}/first.csv").read().splitlines()) < 3:
        if first_run.poll() is not None or time.time() > deadline:
            first_run.kill()
            fail(f"the first run ended early or never wrote its thermo rows: {first_run.stderr.read()}")
        time.sleep(0.05)
    mdlite_run(binary, d, "small.ini", "--quiet", code=2, expect=["t.h5md", "in use by another process"])
    first_run.send_signal(subprocess.signal.SIGTERM)
    if first_run.wait() != 143:
        fail(f"the first run: exit {first_run.returncode}, expected 143 after SIGTERM")
    h5ok(f"{d}/t.h5md")
    # an appending restart (named differently: ./t.h5md) appends frames and thermo rows
    mdlite_run(binary, d, "small.ini", "--quiet", "--overwrite", "--set", "run.steps=40")
    rows0 = read_thermo(f"{d}/thermo.csv")
    mdlite_run(binary, d, "small.ini", "--quiet", "--restart", "./t.h5md", "--set", "run.steps=20")
    rows = read_thermo(f"{d}/thermo.csv")
    steps = [r["step"] for r in rows]
    if steps != list(range(0, 61, 10)) or rows[:4] != rows0[:4]:
        fail(f"appending restart: thermo steps {steps}, expected 0..60 with the first rows kept")
    with h5py.File(f"{d}/t.h5md", "r") as f:
        got = list(f["particles/trajectory/position/step"][()])
    if got != list(range(0, 61, 10)):
        fail(f"appending restart: frames at steps {got}")
    print("backups, --overwrite, 6 refused clashes, a file held open, a file another run writes, "
          "appending restart: as documented")


# ---- restart files are validated ------------------------------------------------------------

def restart(binary, d):
    write(f"{d}/small.ini", SMALL)
    mdlite_run(binary, d, "small.ini", "--quiet")

    def broken(name, edit):
        path = f"{d}/{name}.h5md"
        with open(f"{d}/t.h5md", "rb") as src, open(path, "wb") as dst:
            dst.write(src.read())
        with h5py.File(path, "r+") as f:
            edit(f)
        return path

    def set_nan(f):
        p = f["checkpoint/position"]
        v = p[()]
        v[7, 1] = np.nan
        p[...] = v

    cases = [
        ("nan", set_nan, ["checkpoint/position of atom 7 is nan"]),
        ("negstep", lambda f: f["checkpoint"].attrs.modify("step", -5.0), ["checkpoint/step value 0: '-5' must be >= 0"]),
        ("halfstep", lambda f: f["checkpoint"].attrs.modify("step", 2.5), ["checkpoint/step value 0: '2.5' must be a whole number"]),
        ("infstep", lambda f: f["checkpoint"].attrs.modify("step", np.inf), ["checkpoint/step value 0: 'inf' must be <= "]),
        ("zero", lambda f: f["checkpoint"].attrs.modify("box_length", np.zeros(3)), ["never written"]),
        ("badbox", lambda f: f["checkpoint"].attrs.modify("box_length", np.array([1.0, -2, 3])), ["checkpoint/box_length value 1: '-2' must be >= 0"]),
        ("far", lambda f: f["checkpoint/position"].__setitem__((3, 0), 1e9), ["atom 3", "far outside"]),
        ("units", lambda f: (f["parameters"].__delitem__("units"),
                             f["parameters"].create_dataset("units", data="metal", dtype=h5py.string_dtype())),
         ["written in metal units", "configuration has lj"]),
        ("nogroup", lambda f: f.__delitem__("checkpoint"), ["no checkpoint group"]),
        ("count", lambda f: (f["checkpoint"].__delitem__("velocity"),
                             f["checkpoint"].create_dataset("velocity", data=np.zeros((7, 3)))), ["holds 7 atoms"]),
    ]
    for name, edit, expect in cases:
        path = broken(name, edit)
        mdlite_run(binary, d, "small.ini", "--quiet", "--restart", path, "--set", "output.trajectory=",
                   code=2, expect=[path, "--restart"] + expect)
    mdlite_run(binary, d, "small.ini", "--quiet", "--restart", "/dev/zero", "--set", "output.trajectory=", code=2,
               expect=["/dev/zero", "not a regular file"])
    print(f"{len(cases) + 1} broken restart files refused with exit 2, naming the file")


# ---- files every tool opens: the README's commands -------------------------------------------

def tools(binary, d):
    import ase.io
    import MDAnalysis as mda
    runs = [("lj1", "lj_melt.ini", ["system.cells=4 4 4"]), ("lj2", "ka_mixture.ini", ["system.cells=4 4 4"]),
            ("metal", "argon.ini", ["system.cells=5 5 5"])]
    for name, ini, sets in runs:
        for suffix in ("h5md", "xyz"):
            args = [os.path.join(INPUT, ini), "--quiet", "--set", "run.steps=20", "--set", "output.dump_every=10",
                    "--set", "output.dump_fields=position velocity force", "--set", f"output.trajectory={name}.{suffix}",
                    "--set", f"output.thermo_file={name}.csv"]
            for s in sets:
                args += ["--set", s]
            mdlite_run(binary, d, *args, "--overwrite")
        h5 = f"{d}/{name}.h5md"
        h5ok(h5)
        with h5py.File(h5, "r") as f:
            lj = f["parameters/units"][()].decode() == "lj"
            pos = f["particles/trajectory/position/value"][()]
            vel = f["particles/trajectory/velocity/value"][()]
            names = [s.decode() if isinstance(s, bytes) else s for s in f["particles/trajectory/species"].attrs["names"]]
            species = [names[k] for k in f["particles/trajectory/species"][()]]
        # MDAnalysis, as the README shows it (Debian's 2.4.2)
        if lj:
            u = mda.Universe(h5, convert_units=False, n_atoms=pos.shape[1])
        else:
            u = mda.Universe(h5)
        if len(u.trajectory) != 3 or not np.allclose(u.trajectory[2].positions, pos[2], atol=1e-5):
            fail(f"{name}: MDAnalysis read {len(u.trajectory)} frames or other positions")
        # ASE, default arguments
        frames = ase.io.read(f"{d}/{name}.xyz", index=":")
        a = frames[2]
        told = list(a.arrays["type"]) if "type" in a.arrays else a.get_chemical_symbols()
        if told != species:
            fail(f"{name}: ASE species {sorted(set(told))}, H5MD {sorted(set(species))}")
        factor = 1.0 if lj else 1000 * __import__("ase.units", fromlist=["fs"]).fs
        if not np.allclose(a.get_velocities() * factor, vel[2], rtol=1e-5, atol=1e-6):
            fail(f"{name}: ASE get_velocities() differs from the run's velocities")
        if not np.allclose(a.positions, pos[2], atol=1e-5):
            fail(f"{name}: ASE positions differ")
        print(f"{name}: MDAnalysis {len(u.trajectory)} frames, ASE {len(frames)} frames, "
              f"species {sorted(set(told))}, velocities equal")


def main():
    case, binaries = sys.argv[1], [os.path.abspath(b) for b in sys.argv[2:]]
    if case == "tools":
        binaries = binaries[:1]
    for b in binaries:
        globals()[case](b, workdir(case))


if __name__ == "__main__":
    main()
