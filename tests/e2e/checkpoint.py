#!/usr/bin/env python3
"""A restart's checkpoint is validated field by field: each field of a real checkpoint (a staged NPT
then NVE run with g(r) and MSD, stopped in its second stage) is tampered with in turn (wrong type,
wrong shape, NaN, huge, negative, removed) and the restart must exit 2 naming the field, never
crash (the ASan + UBSan build prints no report), never run on silently.

usage: checkpoint.py CASE MDLITE [MDLITE_ASAN]   (a python3 with h5py and numpy)
cases: fields (every field tampered), restarts (what a restart must refuse or say: chains and stages),
       continued (a staged run stopped inside its Langevin stage, or at a stage's last step, and
       continued with --restart: thermo.csv, rdf.csv, msd.csv, the H5MD file's analysis/ and the
       last state are those of the run never stopped, bit for bit).
"""
import os
import shutil
import subprocess
import sys
import warnings

sys.path.insert(0, os.path.dirname(__file__))
from common import fail, workdir, write  # noqa: E402

warnings.filterwarnings("ignore")
import h5py  # noqa: E402
import numpy as np  # noqa: E402

CONFIG = """[system]
lattice = fcc
density = 0.8442
cells = 4 4 4
temperature = 1.2
[potential]
cutoff = 2.5
[analysis]
rdf_bins = 20
[stage:squeeze]
steps = 20
ensemble = npt-nose-hoover
target_temperature = 1.2
tau = 0.5
target_pressure = 1.0
pressure_tau = 5.0
rdf_every = 5
msd_every = 5
[stage:produce]
steps = 40
ensemble = nvt-nose-hoover
target_temperature = 1.2
tau = 0.5
[output]
thermo = 10
thermo_file = thermo.csv
trajectory = traj.h5md
dump_every = 10
flush_every = 1
"""
SANITIZER = ("AddressSanitizer", "runtime error", "LeakSanitizer")


def mdlite(binary, d, *args):
    p = subprocess.run([binary, *args], capture_output=True, text=True, cwd=d, timeout=300)
    for bad in SANITIZER:
        if bad in p.stderr:
            fail(f"{' '.join(args)}: {bad}:\n{p.stderr}")
    if p.returncode < 0:
        fail(f"{' '.join(args)}: killed by signal {-p.returncode}\n{p.stderr}")
    return p


def real_checkpoint(binary, d):
    """traj.h5md whose checkpoint is at step 40, in the second stage, with its analysis."""
    write(f"{d}/in.ini", CONFIG)
    p = mdlite(binary, d, "run", "in.ini", "--quiet", "--overwrite", "--set", "stage:produce.steps=20")
    if p.returncode != 0:
        fail(f"the run that makes the checkpoint: exit {p.returncode}\n{p.stderr}")
    with h5py.File(f"{d}/traj.h5md", "r") as f:
        ck = f["checkpoint"]
        have = set(ck.attrs) | {f"analysis/{k}" for k in ck["analysis"]} | {k for k in ck if k != "analysis"} | \
            {f"results/0/{k}" for k in ck["results/0"]}
        for need in ("thermostat", "stages_from", "forces", "analysis/rdf", "analysis/msd", "analysis/origin",
                     "build_position", "build_step", "results/0/g", "results/0/msd"):
            if need not in have:
                fail(f"the checkpoint lacks {need}: {sorted(have)}")
    shutil.copy(f"{d}/traj.h5md", f"{d}/good.h5md")


def restart(binary, d, path, *extra):
    return mdlite(binary, d, "run", "in.ini", "--quiet", "--overwrite", "--restart", path,
                  "--set", "output.trajectory=out.h5md", "--set", "output.thermo_file=out.csv", *extra)


# field -> whether a negative value is one no run writes (then refused)
FIELDS = {"step": True, "time": True, "box_lo": False, "box_length": True, "stages_from": True, "thermostat": False,
          "forces": None, "position": False, "velocity": False, "force": False, "image": False,
          "analysis/header": True, "analysis/rdf": True, "analysis/msd": True, "analysis/origin": False,
          "build_position": False, "build_step": True, "results/0/header": True, "results/0/r": True,
          "results/0/g": True, "results/0/msd": True, "results/0/d": False, "results/0/name": None,
          "time_origin": True, "stage_plan": None, "build_box_lo": False, "build_box_length": True}


def tampered(d, field, how):
    """good.h5md with `field` changed `how`; its path."""
    path = f"{d}/bad.h5md"
    shutil.copy(f"{d}/good.h5md", path)
    with h5py.File(path, "r+") as f:
        ck = f["checkpoint"]
        is_attr = field in ck.attrs
        old = ck.attrs[field] if is_attr else ck[field][()]
        if how == "removed":
            new = None
        elif how == "text":
            new = "1.0"
        elif how == "integers":
            new = np.asarray(old).astype(np.int64) if field not in ("forces", "results/0/name", "stage_plan") else 3
        elif how == "shape":
            new = np.full(4000, 1.0)
        else:
            new = np.array(old, dtype=np.float64, copy=True)
            value = {"NaN": np.nan, "huge": 1e300, "negative": -1.0, "infinite": np.inf}[how]
            if new.ndim == 0:
                new = np.float64(value)
            else:
                new.reshape(-1)[new.size // 2] = value
        if is_attr:
            del ck.attrs[field]
            if new is not None:
                ck.attrs[field] = new
        else:
            del ck[field]
            if new is not None:
                ck[field] = new
    return path


def with_order(d, order):
    """good.h5md with a build_order (the GPU's: each atom's place at the last build); its path."""
    path = f"{d}/bad.h5md"
    shutil.copy(f"{d}/good.h5md", path)
    with h5py.File(path, "r+") as f:
        f["checkpoint"]["build_order"] = order
    return path


def build_orders(binary, d):
    """A permutation is accepted (the CPU builds from positions alone); anything else is exit 2."""
    with h5py.File(f"{d}/good.h5md", "r") as f:
        n = f["checkpoint/position"].shape[0]
    good = np.random.default_rng(5).permutation(n).astype(np.int32)
    p = restart(binary, d, with_order(d, good))
    if p.returncode != 0:
        fail(f"checkpoint/build_order a permutation: exit {p.returncode}\n{p.stderr}")
    repeated, past, negative = good.copy(), good.copy(), good.copy()
    repeated[7] = repeated[8]
    past[3] = n
    negative[n // 2] = -1
    bad = {"a repeated place": repeated, "a place past N": past, "negative": negative,
           "floating-point": good.astype(np.float64), "N - 1 values": good[:-1], "text": "1", "N x 3": np.zeros((n, 3), np.int32)}
    for how, order in bad.items():
        p = restart(binary, d, with_order(d, order))
        if p.returncode != 2 or "bad.h5md" not in p.stderr or "build_order" not in p.stderr:
            fail(f"checkpoint/build_order {how}: exit {p.returncode}, expected 2 naming the file and field\n{p.stderr}")
    return len(bad)


def fields(binary, d):
    real_checkpoint(binary, d)
    p = restart(binary, d, "good.h5md")
    if p.returncode != 0:
        fail(f"the untouched checkpoint: exit {p.returncode}\n{p.stderr}")
    count = 0
    for field, negative_bad in FIELDS.items():
        hows = ["integers", "shape"] if field in ("forces", "results/0/name", "stage_plan") else \
            ["removed", "text", "integers", "shape", "NaN", "infinite", "huge", "negative"]
        for how in hows:
            if how == "removed" and field in ("forces", "thermostat", "stages_from", "build_position", "time_origin",
                                              "stage_plan"):
                continue  # optional: older files and the GPU's lack them (a restart then does without)
            if how == "integers" and field == "image":
                continue  # integers are its type
            if how == "huge" and field == "analysis/header":
                continue  # the header's volume sum may be large; its other values are checked below
            path = tampered(d, field, how)
            p = restart(binary, d, path)
            expect_refused = how != "negative" or negative_bad
            if expect_refused and (p.returncode != 2 or "bad.h5md" not in p.stderr):
                fail(f"checkpoint/{field} {how}: exit {p.returncode}, expected 2 naming the file\n{p.stderr}")
            if not expect_refused and p.returncode not in (0, 2):
                fail(f"checkpoint/{field} {how} (a value a run may hold): exit {p.returncode}\n{p.stderr}")
            count += 1
    count += build_orders(binary, d)
    p = restart(binary, d, tampered(d, "forces", "text"))  # other text: the forces recomputed, and said
    if p.returncode != 0 or "recomputed at step 40" not in p.stderr:
        fail(f"checkpoint/forces of other settings: exit {p.returncode}, expected 0 and a word of it\n{p.stderr}")
    print(f"{os.path.basename(binary)}: {count} tampered checkpoints ({len(FIELDS) + 1} fields: removed, text, integers, "
          f"4,000 values, NaN, infinite, huge, negative): exit 2 naming the file where the value is not one a run "
          f"writes, no crash, no sanitizer report")


def restarts(binary, d):
    real_checkpoint(binary, d)
    # another chain length than the checkpoint's: said on stderr, the chain starts at rest
    p = restart(binary, d, "good.h5md", "--set", "stage:produce.chain=5")
    if p.returncode != 0 or "chain" not in p.stderr or "at rest" not in p.stderr:
        fail(f"a restart with another chain length: exit {p.returncode}, expected 0 and a word of it\n{p.stderr}")
    print(f"{os.path.basename(binary)}: a restart with another chain length says so and starts the chain at rest")
    # a checkpoint without its lists' last build (another backend's, an older file): not bit for bit, and said
    p = restart(binary, d, tampered(d, "build_position", "removed"))
    if p.returncode != 0 or "exact to rounding, not bit for bit" not in p.stderr:
        fail(f"a restart without the checkpoint's build: exit {p.returncode}, expected 0 and a word of it\n{p.stderr}")
    p = restart(binary, d, "good.h5md")
    if "exact to rounding" in p.stderr:
        fail(f"a restart from a whole checkpoint says it is not bit for bit\n{p.stderr}")
    print(f"{os.path.basename(binary)}: a restart that cannot build its checkpoint's lists again says so")
    # a file whose last frame is not its checkpoint's: an appending restart is refused before any output
    # is touched (thermo.csv not cut)
    shutil.copy(f"{d}/good.h5md", f"{d}/traj.h5md")
    with h5py.File(f"{d}/traj.h5md", "r+") as f:  # a frame at step 50 past the checkpoint at 40
        steps = f["particles/trajectory/position/step"]
        steps.resize((len(steps) + 1,))
        steps[-1] = 50
    before = open(f"{d}/thermo.csv").read()
    p = mdlite(binary, d, "run", "in.ini", "--quiet", "--restart", "traj.h5md")
    if p.returncode != 2 or "its last frame is step 50 but its checkpoint step 40" not in p.stderr:
        fail(f"appending to a file whose last frame is past its checkpoint: exit {p.returncode}\n{p.stderr}")
    if open(f"{d}/thermo.csv").read() != before:
        fail("the refused restart changed thermo.csv")
    # another stage plan: said; the stage the restart is in changed: its analysis starts anew, said
    p = restart(binary, d, "good.h5md", "--set", "stage:produce.ensemble=nvt-langevin")
    if p.returncode != 0 or "its run's stages were" not in p.stderr or "analysis starts anew" not in p.stderr:
        fail(f"a restart whose stage became Langevin: exit {p.returncode}, expected 0 and a word of it\n{p.stderr}")
    print(f"{os.path.basename(binary)}: appending to a file past its checkpoint refused with thermo.csv untouched; "
          f"a stage that became Langevin said, its analysis started anew")
    # a barostat that runs away: its limits (10 times the volume) count from its run's start, restarted or not
    npt = ["--set", "system.cells=4 4 4", "--set", "run.ensemble=npt-nose-hoover", "--set",
           "run.target_temperature=1.5", "--set", "run.tau=0.5", "--set", "run.target_pressure=-1", "--set",
           "run.pressure_tau=2", "--set", "output.thermo_file="]
    melt = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "input", "lj_melt.ini")
    stops = []
    for args in (["--set", "run.steps=20000", "--set", "output.trajectory=whole.h5md"],
                 ["--set", "run.steps=1000", "--set", "output.trajectory=np.h5md"],
                 ["--set", "run.steps=19000", "--set", "output.trajectory=np2.h5md", "--restart", "np.h5md"]):
        p = mdlite(binary, d, "run", melt, "--quiet", "--overwrite", *npt, *args)
        if "run.steps=1000" not in args:
            if p.returncode != 1 or "10 times the start's" not in p.stderr:
                fail(f"a runaway barostat {' '.join(args)}: exit {p.returncode}\n{p.stderr}")
            stops.append(int(p.stderr.split("error: step ")[1].split(":")[0]))
    if abs(stops[0] - stops[1]) > 20:
        fail(f"a runaway barostat stops at step {stops[0]}, restarted at step 1000 at {stops[1]}")
    print(f"{os.path.basename(binary)}: a runaway barostat stops at step {stops[0]}, and at {stops[1]} when restarted "
          f"at step 1000 (its limits count from its run's start)")


STAGED = """[system]
lattice = fcc
density = 0.8442
cells = 5 5 5
temperature = 1.2
[analysis]
rdf_bins = 20
[stage:one]
steps = 20
ensemble = nvt-nose-hoover
target_temperature = 1.2
tau = 0.5
rdf_every = 5
msd_every = 5
msd_origins = 3
msd_origin_every = 10
[stage:two]
steps = 20
ensemble = nve
[stage:three]
steps = 40
ensemble = nvt-langevin
target_temperature = 1.0
tau = 0.5
[output]
thermo = 5
thermo_file = thermo.csv
trajectory = traj.h5md
dump_every = 10
flush_every = 1
"""


def outputs(d):
    """thermo.csv, rdf.csv, msd.csv as text; the H5MD file's analysis/ tables and last state."""
    got = {name: open(f"{d}/{name}").read() for name in ("thermo.csv", "rdf.csv", "msd.csv")}
    with h5py.File(f"{d}/traj.h5md", "r") as f:
        f["analysis"].visititems(lambda k, v: got.__setitem__(k, v[()]) if isinstance(v, h5py.Dataset) else None)
        for k in ("position", "velocity", "force"):
            got[k] = f["checkpoint"][k][()]
    return got


def continued(binary, d):
    write(f"{d}/in.ini", STAGED)
    if mdlite(binary, d, "run", "in.ini", "--quiet").returncode != 0:
        fail("the staged run")
    whole = outputs(d)
    for stop, sets in (("inside the Langevin stage, at step 50", ["stage:three.steps=10"]),
                       ("at the first stage's last step, 20", ["stage:two.steps=0", "stage:three.steps=0"])):
        for f in ("thermo.csv", "rdf.csv", "msd.csv", "traj.h5md"):
            os.remove(f"{d}/{f}")
        p = mdlite(binary, d, "run", "in.ini", "--quiet", *sum((["--set", s] for s in sets), []))
        p2 = mdlite(binary, d, "run", "in.ini", "--quiet", "--overwrite", "--restart", "traj.h5md")
        if p.returncode or p2.returncode:
            fail(f"stopped {stop}: exit {p.returncode}, then {p2.returncode}\n{p.stderr}{p2.stderr}")
        if "recomputed" in p2.stderr:
            fail(f"stopped {stop}: the restart recomputed the checkpoint's forces\n{p2.stderr}")
        got = outputs(d)
        if sorted(got) != sorted(whole):
            fail(f"stopped {stop}: the continued run's outputs {sorted(got)} are not {sorted(whole)}")
        for k, v in whole.items():
            same = v == got[k] if isinstance(v, str) else np.array_equal(v, got[k])
            if not same:
                fail(f"stopped {stop} and continued: {k} differs from the run never stopped")
        print(f"{os.path.basename(binary)}: a staged run stopped {stop} and continued: thermo.csv, rdf.csv, msd.csv, "
              f"{sum(1 for k in whole if '/' in k)} analysis tables and the last state bit for bit the run never "
              f"stopped's")


def main():
    case, binaries = sys.argv[1], [os.path.abspath(b) for b in sys.argv[2:]]
    for b in binaries:
        globals()[case](b, workdir(f"checkpoint-{case}"))


if __name__ == "__main__":
    main()
