#!/usr/bin/env python3
"""Stages: one config run as several stages in order ([stage:NAME] sections).

usage: stages.py MDLITE INPUT_DIR CASE
cases: workflow  input/lj_liquid_workflow.ini in one command: steps, rows and frames go on across its
                 three stages; the density the barostat reaches; MDAnalysis reads the frames' spacing
                 and the recipe's unwrapped positions give mdlite's MSD (needs h5py, MDAnalysis)
       restart   a restart from the middle of a stage (Nose-Hoover NVT, NVE, NPT) continues the
                 uninterrupted run's thermo to 1e-13
       handover  Langevin to NVE: the first NVE step's energy change is no larger than NVE's own
       signal    SIGTERM in the second stage: exit 143, the analysis of both stages (the second's
                 samples so far) in the CSV files
       bad       stage keys a run cannot use: exit 2 naming file, line and key
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import fail, read_thermo, run, terminate_at_row, workdir, write  # noqa: E402

BASE = """[system]
lattice = fcc
density = 0.8
cells = 5 5 5
temperature = 1.4
species = A B
composition = 0.8 0.2

[potential]
shift = yes

[output]
thermo = 1
trajectory = {traj}
dump_every = 20
flush_every = 1
"""


def mdrun(mdlite, cfg, d, *args, check=True):
    return run([mdlite, "run", cfg, "--quiet", *args], check=check, cwd=d)


def workflow(mdlite, inp, d):
    import warnings
    warnings.filterwarnings("ignore")
    import h5py
    import numpy as np
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
    import mdlite_analysis as ma
    from rdfmsd import msd_reference, read_analysis_csv
    p = run([mdlite, "run", os.path.join(inp, "lj_liquid_workflow.ini")], cwd=d)
    for k, stage in enumerate(("equilibrate", "settle", "produce")):
        if f"stage {stage} ({k + 1} of 3)" not in p.stdout:
            fail(f"no banner for stage {stage}:\n{p.stdout}")
    rows = read_thermo(os.path.join(d, "thermo.csv"))
    steps = [r["step"] for r in rows]
    if steps != list(range(0, 22001, 500)):
        fail(f"thermo rows at {steps}, expected every 500 steps from 0 to 22000 once each")
    with h5py.File(os.path.join(d, "traj.h5md"), "r") as f:
        fsteps = list(f["particles/trajectory/position/step"][()])
        effective = f["parameters/effective_config"][()].decode()
    if fsteps != list(range(0, 22001, 500)) or "[stage:produce]" not in effective:
        fail(f"frames at {fsteps}; effective config records the stages: {'[stage:produce]' in effective}")
    density = 4000 / rows[steps.index(12000)]["volume"]
    if abs(density - 0.82) > 0.01:
        fail(f"density {density:.4f} after the NPT stage, NIST's 0.82")
    u = ma.mdanalysis_universe(os.path.join(d, "traj.h5md"))
    if abs(u.trajectory.dt - 2.5) > 1e-12:
        fail(f"MDAnalysis frame spacing {u.trajectory.dt}, expected 2.5")
    frames = u.trajectory.timeseries(order="fac")[fsteps.index(12000):]
    recipe = msd_reference(frames, np.zeros(4000, dtype=int))[:, 0]
    _, msd = read_analysis_csv(os.path.join(d, "msd.csv"), "produce")
    mine = np.array([row[2] for row in msd if int(row[0]) % 500 == 0])
    err = np.max(np.abs(mine - recipe)) / recipe[-1]
    if len(mine) != len(recipe) or err > 1e-6:
        fail(f"mdlite's MSD ({len(mine)} rows) against the recipe's ({len(recipe)}): {err:.3g} of the last")
    _, rdf = read_analysis_csv(os.path.join(d, "rdf.csv"), "produce")
    peak = rdf[np.argmax(rdf[:, 2])]
    if not (1.0 < peak[1] < 1.2 and 2.0 < peak[2] < 3.5 and peak[0] == 101):
        fail(f"g(r)'s first peak {peak[2]:.3f} at r {peak[1]:.3f} over {peak[0]:.0f} samples")
    print(f"3 stages in one command: rows and frames every 500 steps 0-22000; density {density:.4f} after NPT "
          f"(NIST 0.82); MDAnalysis dt {u.trajectory.dt}; mdlite's MSD = the recipe's within {err:.2g} of its last "
          f"({recipe[-1]:.4g}); g(r) peak {peak[2]:.3f} at {peak[1]:.3f}")


STAGED = """
[stage:nvt]
steps = 50
ensemble = nvt-nose-hoover
target_temperature = 1.4
tau = 0.5

[stage:nve]
steps = 50
ensemble = nve

[stage:npt]
steps = 50
ensemble = npt-nose-hoover
target_temperature = 1.4
tau = 0.5
target_pressure = 3.0
pressure_tau = 5.0
"""


def analysis_rows(path):
    """Each stage's rows of an analysis CSV (stage, then the numbers), by stage."""
    with open(path) as f:
        rows = [line.strip().split(",") for line in f if not line.startswith(("#", "stage"))]
    out = {}
    for r in rows:
        out.setdefault(r[0], []).append([float(x) for x in r[1:]])
    return out


def restart(mdlite, inp, d):
    for backend in ("cpu",):
        cfg = write(os.path.join(d, "staged.ini"), BASE.format(traj="traj.h5md") + STAGED +
                    "\n[analysis]\nrdf_every = 10\nmsd_every = 10\n")
        os.makedirs(os.path.join(d, "whole"))
        mdrun(mdlite, cfg, os.path.join(d, "whole"))
        whole = {r["step"]: r for r in read_thermo(os.path.join(d, "whole", "thermo.csv"))}
        worst = {}
        # stopped in the NVT stage (60), the NVE stage (140) and the NPT stage (250), then restarted
        # with the whole config: the checkpoint says where the stages began
        for stop, sets in ((30, ["stage:nvt.steps=30", "stage:nve.steps=0", "stage:npt.steps=0"]),
                           (70, ["stage:nve.steps=20", "stage:npt.steps=0"]), (125, ["stage:npt.steps=25"])):
            part = os.path.join(d, f"part{stop}")
            os.makedirs(part)
            mdrun(mdlite, cfg, part, *sum((["--set", s] for s in sets), []))
            mdrun(mdlite, cfg, part, "--restart", "traj.h5md", "--set", "output.thermo_file=after.csv",
                  "--set", "output.trajectory=after.h5md")
            after = read_thermo(os.path.join(part, "after.csv"))
            # the stage the restart is in goes on with the checkpoint's sums: its g(r) and MSD are
            # the uninterrupted run's
            for name in ("rdf.csv", "msd.csv"):
                got, want = analysis_rows(os.path.join(part, name)), analysis_rows(os.path.join(d, "whole", name))
                for stage, rows in got.items():
                    if stage not in want or len(rows) != len(want[stage]) or max(
                            abs(a - b) / max(1.0, abs(b)) for r, w in zip(rows, want[stage]) for a, b in zip(r, w)) > 1e-12:
                        fail(f"restart at {stop}: {name} of stage {stage} differs from the uninterrupted run's")
            if [r["step"] for r in after] != list(range(stop, 151)):
                fail(f"restart at {stop}: rows {after[0]['step']}..{after[-1]['step']}, expected {stop}..150")
            err = 0.0
            for r in after:
                w = whole[r["step"]]
                for k in ("temperature", "potential_energy", "pressure", "volume", "conserved"):
                    e = abs(r[k] - w[k]) / max(abs(w[k]), 1.0)
                    if e > err:
                        err, where = e, f"{k} at step {r['step']}"
            if stop == 125:  # appending to the file it continues, which holds the stages' results already
                mdrun(mdlite, cfg, part, "--restart", "traj.h5md", "--set", "output.thermo_file=append.csv")
                if read_thermo(os.path.join(part, "append.csv"))[-1]["step"] != 150:
                    fail("restart at 125 appending to its own file: did not reach step 150")
            worst[stop] = err
            if err > 1e-13:
                fail(f"restart at step {stop}: thermo differs from the uninterrupted run by {err:.3g} ({where}; 1e-13)")
        print(f"{backend}: restarts from steps 30 (nvt), 70 (nve), 125 (npt) continue the staged run, g(r) and MSD "
              "of each stage to 1e-12: thermo's worst "
              + ", ".join(f"{s}: {e:.2g}" for s, e in worst.items()))


def handover(mdlite, inp, d):
    cfg = write(os.path.join(d, "handover.ini"), BASE.format(traj="") + """
[run]
timestep = 0.002

[stage:warm]
steps = 300
ensemble = nvt-langevin
target_temperature = 1.4
tau = 0.2

[stage:produce]
steps = 300
ensemble = nve
""")
    mdrun(mdlite, cfg, d)
    rows = {r["step"]: r for r in read_thermo(os.path.join(d, "thermo.csv"))}
    e = {s: r["total_energy"] for s, r in rows.items()}
    jump = abs(e[301] - e[300])
    nve = max(abs(e[s + 1] - e[s]) for s in range(301, 600))
    langevin = max(abs(e[s + 1] - e[s]) for s in range(0, 299))
    if jump > nve:
        fail(f"Langevin to NVE: the first NVE step changes the energy by {jump:.3g}, NVE's steps by up to {nve:.3g}")
    print(f"Langevin to NVE at step 300: energy change {jump:.3g} at the hand-over; NVE's steps up to {nve:.3g} "
          f"(Langevin's {langevin:.3g})")


def signal(mdlite, inp, d):
    import subprocess
    cfg = write(os.path.join(d, "long.ini"), BASE.format(traj="") + """
[analysis]
rdf_every = 20
msd_every = 20

[stage:one]
steps = 100
ensemble = nvt-langevin
target_temperature = 1.4
tau = 0.5

[stage:two]
steps = 10000000
ensemble = nve
""")
    p = subprocess.Popen([mdlite, "run", cfg, "--quiet"], cwd=d, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)
    err = terminate_at_row(p, os.path.join(d, "thermo.csv"), 300)[1]
    with open(os.path.join(d, "rdf.csv")) as f:
        stages = {line.split(",")[0] for line in f if not line.startswith(("#", "stage"))}
    with open(os.path.join(d, "msd.csv")) as f:
        two = [line for line in f if line.startswith("two,")]
    if p.returncode != 143 or stages != {"one", "two"} or len(two) < 10:
        fail(f"SIGTERM in stage two: exit {p.returncode}, g(r) of stages {stages}, {len(two)} MSD rows of stage two:\n{err}")
    print(f"SIGTERM in stage two: exit 143; g(r) of both stages and {len(two)} MSD rows of the second written")


def bad(mdlite, inp, d):
    cases = {
        "unknown stage key": ("[stage:a]\nsteps = 10\nlattice = fcc\n", "[stage:a] lattice"),
        "steps in [run]": ("[run]\nsteps = 10\n[stage:a]\nsteps = 10\n", "[run] steps"),
        "stage without steps": ("[stage:a]\nensemble = nve\n", "[stage:a] steps"),
        "bad stage name": ("[stage:a b]\nsteps = 10\n", "stage:a b"),
        "stage ensemble key missing": ("[stage:a]\nsteps = 10\nensemble = nvt-langevin\n", "target_temperature"),
        "rdf_max past half the box": ("[analysis]\nrdf_every = 10\nrdf_max = 3.5\n[stage:a]\nsteps = 10\n", "rdf_max"),
        "rdf_file is thermo_file": ("[analysis]\nrdf_every = 10\nrdf_file = thermo.csv\n[stage:a]\nsteps = 10\n",
                                    "[analysis] rdf_file"),
        "rdf_bins 0 in a stage": ("[stage:a]\nsteps = 10\nrdf_every = 5\nrdf_bins = 0\n", "rdf_bins"),
        "pressure keys kept into nvt": ("[stage:a]\nsteps = 10\nensemble = npt-nose-hoover\ntarget_temperature = 1"
                                        "\ntau = 1\ntarget_pressure = 1\npressure_tau = 5\n[stage:b]\nsteps = 10\n"
                                        "target_pressure = 2\nensemble = nvt-nose-hoover\n", "target_pressure"),
    }
    for name, (extra, word) in cases.items():
        cfg = write(os.path.join(d, "bad.ini"),
                    "[system]\nlattice = fcc\ndensity = 0.8\ncells = 4 4 4\ntemperature = 1.0\n" + extra)
        p = mdrun(mdlite, cfg, d, check=False)
        where = "thermo.csv" if "thermo_file" in name else "bad.ini"  # a clash names both outputs' keys
        if p.returncode != 2 or word not in p.stderr or where not in p.stderr:
            fail(f"{name}: exit {p.returncode}, expected 2 naming the file and {word!r}:\n{p.stderr}")
    print(f"{len(cases)} kinds of bad stage input: exit 2 naming file, line and key")


if __name__ == "__main__":
    mdlite, inp, case = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
    globals()[case](mdlite, inp, workdir("stages-" + case))
