#!/usr/bin/env python3
"""Observing a run never changes it: the thermo interval, trajectory frames, [analysis] sampling and
--profile leave every bit of the state at step 1,000 as it is (positions, velocities and forces of
the checkpoint compared bit for bit). 4,000 atoms of LAMMPS's in.lj (on the GPU 275,684 as well:
CUB's sort and the warp builder). And a run stopped at step 500 and continued with --restart is,
at step 1,000, the run never stopped, bit for bit (NVE, Langevin, Nose-Hoover NVT and NPT, a check
every 5 steps; one GPU: all but NPT).

usage: observe.py CASE MDLITE [MPIEXEC]   (a python3 with h5py and numpy)
cases: cpu (1 and 2 threads), mpi (2 CPU ranks), gpu (the GPU backend; 77 without a GPU),
       restart_cpu (1 and 2 threads), restart_mpi (2 CPU ranks), restart_gpu (77 without a GPU),
       eam_cpu, eam_gpu (both for EAM, input/eam_cu.ini at 4,000 atoms; the GPU's without NPT).
"""
import os
import subprocess
import sys
import warnings

sys.path.insert(0, os.path.dirname(__file__))
from common import SKIP, fail, workdir  # noqa: E402

warnings.filterwarnings("ignore")
import h5py  # noqa: E402
import numpy as np  # noqa: E402

MELT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "input", "lj_melt.ini")
STEPS = 1000
# each way of looking at the run, against the run that writes one frame, at its last step
LOOKS = {
    "thermo every 7": ["output.thermo=7"],
    "frames every 50": ["output.dump_every=50"],
    "g(r) and MSD every 10": ["analysis.rdf_every=10", "analysis.msd_every=10", "analysis.rdf_bins=50"],
    "a profile": ["@profile"],
}


def state_at_end(cmd, d, name, sets, steps=STEPS, restart=None):
    """Runs the config with `sets` (from a restart file, `steps` more); the checkpoint's position,
    velocity and force at its last step."""
    args = [*cmd, "run", MELT, "--quiet", "--overwrite", "--set", "system.cells=10 10 10",
            "--set", f"run.steps={steps}", "--set", "output.thermo=500", "--set", f"output.dump_every={steps}",
            "--set", f"output.trajectory={name}.h5md", "--set", f"output.thermo_file={name}.csv",
            "--set", f"analysis.rdf_file={name}.rdf.csv", "--set", f"analysis.msd_file={name}.msd.csv"]
    for s in sets:
        args += ["--profile", f"{name}.json"] if s == "@profile" else ["--set", s]
    if restart:
        args += ["--restart", restart]
    p = subprocess.run(args, capture_output=True, text=True, cwd=d, timeout=900)
    if p.returncode != 0:
        fail(f"{' '.join(args)}: exit {p.returncode}\n{p.stderr}")
    with h5py.File(os.path.join(d, f"{name}.h5md"), "r") as f:
        ck = f["checkpoint"]
        if int(ck.attrs["step"]) != STEPS and not (restart is None and steps != STEPS):
            fail(f"{name}: checkpoint at step {ck.attrs['step']}, expected {STEPS}")
        return {k: ck[k][()] for k in ("position", "velocity", "force")}


def compare(cmd, d, label, extra=()):
    base = state_at_end(cmd, d, "plain", extra)
    for look, sets in LOOKS.items():
        name = "".join(c if c.isalnum() else "_" for c in look)
        got = state_at_end(cmd, d, name, [*extra, *sets])
        for k, v in got.items():
            if not np.array_equal(v, base[k]):
                fail(f"{label}: {look} changed the {k}s at step {STEPS}: "
                     f"max |difference| {np.abs(v - base[k]).max():.3g}")
        print(f"{label}: {look}: positions, velocities and forces at step {STEPS} bit for bit those of the plain run")


RESTARTS = {"NVE": [], "Langevin": ["run.ensemble=nvt-langevin", "run.target_temperature=1.0", "run.tau=0.5"],
            "Nose-Hoover": ["run.ensemble=nvt-nose-hoover", "run.target_temperature=1.0", "run.tau=0.5"],
            "Nose-Hoover NPT": ["run.ensemble=npt-nose-hoover", "run.target_temperature=1.0", "run.tau=0.5",
                                "run.target_pressure=1.0", "run.pressure_tau=5"],
            "Nose-Hoover NPT, chains of 16 (the longest state)": [
                "run.ensemble=npt-nose-hoover", "run.target_temperature=1.0", "run.tau=0.5", "run.target_pressure=1.0",
                "run.pressure_tau=5", "run.chain=16", "run.pressure_chain=16"],
            "a check every 5 steps": ["neighbor.check=5"]}


def restart(cmd, d, label, extra=(), skip=()):
    for name, sets in RESTARTS.items():
        if name in skip:
            print(f"{label}, {name}: not bit for bit here (docs/ARCHITECTURE.md), not tested")
            continue
        base = state_at_end(cmd, d, "whole", [*extra, *sets])
        state_at_end(cmd, d, "first", [*extra, *sets], steps=STEPS // 2)
        got = state_at_end(cmd, d, "second", [*extra, *sets], steps=STEPS // 2, restart="first.h5md")
        for k, v in got.items():
            if not np.array_equal(v, base[k]):
                fail(f"{label}, {name}: stopped at step {STEPS // 2} and restarted, the {k}s at step {STEPS} differ "
                     f"from the run never stopped: max |difference| {np.abs(v - base[k]).max():.3g}")
        print(f"{label}, {name}: stopped at step {STEPS // 2} and restarted: the state at step {STEPS} bit for bit "
              f"the run never stopped's")


# above 262,144 atoms the GPU sorts its atoms with CUB's radix sort and builds with the warp builder
# (docs/ARCHITECTURE.md): its restart remakes the checkpoint's last build from those
BIG = ["system.cells=41 41 41"]

EAM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "input", "eam_cu.ini")


def eam(cmd, d, label, extra):
    """The same for EAM (input/eam_cu.ini at 4,000 atoms, 2 fs steps; no NPT restart on the GPU)."""
    global MELT
    if not os.path.exists("/usr/share/lammps/potentials/Cu_u3.eam"):
        print("SKIP: no Cu_u3.eam (Debian's lammps-data: tools/setup.sh)")
        sys.exit(SKIP)
    MELT = EAM
    for name in list(RESTARTS):
        RESTARTS[name] = [s.replace("target_temperature=1.0", "target_temperature=1200").replace(
            "target_pressure=1.0", "target_pressure=1000") for s in RESTARTS[name]]
    compare(cmd, d, f"{label}, EAM", [*extra, "run.timestep=0.002"])
    restart(cmd, d, f"{label}, EAM", [*extra, "run.timestep=0.002"],
            skip=[k for k in RESTARTS if "NPT" in k and "gpu" in " ".join(extra)])


def main():
    case, mdlite = sys.argv[1], os.path.abspath(sys.argv[2])  # the runs' folder is another
    d = workdir(f"observe-{case}")
    if case == "cpu":
        for threads in (1, 2):
            compare([mdlite], d, f"CPU, {threads} thread{'s' if threads > 1 else ''}", [f"run.threads={threads}"])
    elif case == "mpi":
        os.environ.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        compare([sys.argv[3], "--oversubscribe", "-np", "2", mdlite], d, "2 CPU ranks", ["run.threads=1"])
    elif case == "gpu":
        info = subprocess.run([mdlite, "info"], capture_output=True, text=True).stdout
        if "GPU 0:" not in info:
            print("SKIP: no GPU found (mdlite info)")
            sys.exit(SKIP)
        compare([mdlite], d, "GPU", ["run.backend=gpu"])
        compare([mdlite], d, "GPU, 275,684 atoms", ["run.backend=gpu", *BIG])
    elif case == "restart_gpu":
        info = subprocess.run([mdlite, "info"], capture_output=True, text=True).stdout
        if "GPU 0:" not in info:
            print("SKIP: no GPU found (mdlite info)")
            sys.exit(SKIP)
        restart([mdlite], d, "GPU", ["run.backend=gpu"], skip=[k for k in RESTARTS if "NPT" in k])
        restart([mdlite], d, "GPU, 275,684 atoms", ["run.backend=gpu", *BIG],
                skip=[k for k in RESTARTS if "NPT" in k or "16" in k])
    elif case in ("eam_cpu", "eam_gpu"):
        gpu = case == "eam_gpu"
        if gpu and "GPU 0:" not in subprocess.run([mdlite, "info"], capture_output=True, text=True).stdout:
            print("SKIP: no GPU found (mdlite info)")
            sys.exit(SKIP)
        eam([mdlite], d, "GPU" if gpu else "CPU, 1 thread", ["run.backend=gpu"] if gpu else ["run.threads=1"])
    elif case == "restart_cpu":
        for threads in (1, 2):
            restart([mdlite], d, f"CPU, {threads} thread{'s' if threads > 1 else ''}", [f"run.threads={threads}"])
    elif case == "restart_mpi":
        os.environ.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        restart([sys.argv[3], "--oversubscribe", "-np", "2", mdlite], d, "2 CPU ranks", ["run.threads=1"])
    else:
        fail(f"unknown case {case}")


if __name__ == "__main__":
    main()
