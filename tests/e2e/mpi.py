#!/usr/bin/env python3
"""Decomposed runs under MPI: the same physics as one rank, whatever the rank count.

usage: mpi.py MDLITE MPIEXEC CASE
cases: thermo (1/2/3/4/8 ranks and grids, brute lists, 2 ranks x 1 thread vs 1 rank x 2 threads),
       thermostats (Langevin noise per atom id, Berendsen, skin = auto), frames (extended XYZ
       gathered in id order), restart (4 ranks -> 1 and 1 -> 4 against a straight run), refused
       (grids that do not fit: exit 2, one message naming the key), analysis (stages nvt -> npt -> nve
       with g(r) and the MSD: 2 and 4 ranks against one), stops (an unstable run: exit 1,
       one message, the frames before it complete), eam (EAM on 2, 3, 4 ranks); gpu (CTest label gpu, exit 77 without a GPU): the
       GPU backend on 2 and 4 ranks against one GPU (mixed precision: 1e-4), direct writes against
       NCCL against the staged path (where each rank has a GPU), lists too short (grown, or fixed), per-atom arrays
       with no room to spare (grown mid-run), thermostats, frames, a restart across rank counts,
       an unstable run; gpu_eam (label gpu): EAM on 2, 3 and 4 GPU ranks against one GPU, each
       transport, NPT; gpu_cells (label gpu): small and triclinic boxes on GPU ranks against one GPU;
       gpu_analysis (label gpu): stages with g(r) and the MSD on 2 and 4 GPU ranks
       against one GPU.
"""
import os
import shutil
import sys

from common import PRISM_LJ, SKIP, fail, read_thermo, run, workdir, write

TOL = 1e-10
GPU_TOL = 1e-4  # mixed precision: float pair sums in another order

CONFIG = """[system]
units = lj
lattice = fcc
density = 0.8442
cells = 10 10 10
temperature = 1.44
seed = 87287
[potential]
cutoff = 2.5
shift = no
[neighbor]
skin = 0.3
check = 1
[run]
backend = cpu
steps = 100
timestep = 0.005
threads = 1
[output]
thermo = 10
"""


def mdrun(mdlite, mpiexec, d, ranks, name, *sets, check=True):
    """One run of CONFIG on `ranks` ranks (0: no launcher), thermo into d/name.csv."""
    cmd = [mdlite, "run", f"{d}/in.ini", "--overwrite", "--set", f"output.thermo_file={d}/{name}.csv"]
    for s in sets:
        cmd += ["--set", s]
    if ranks:
        cmd = [mpiexec, "--oversubscribe", "-np", str(ranks)] + cmd
    p = run(cmd, check=check, cwd=d, timeout=300)
    return p


def worst_difference(a, b, what):
    """Largest relative difference over every column of two thermo tables (same steps)."""
    if [r["step"] for r in a] != [r["step"] for r in b]:
        fail(f"{what}: thermo steps differ: {[r['step'] for r in a]} vs {[r['step'] for r in b]}")
    return max(abs(x[k] - y[k]) / max(abs(x[k]), 1e-300) for x, y in zip(a, b) for k in x if k != "step")


def summary_value(out, prefix):
    for line in out.splitlines():
        if line.startswith(prefix):
            return line
    fail(f"no '{prefix}' line in:\n{out}")


def pair_count(line):
    return float(line.split("=")[1].split()[0])


def same_as_one_rank(mdlite, mpiexec, d, runs, *common, tol=TOL, pairs_tol=0):
    """Each (ranks, sets...) run against one rank with `common`: thermo to tol, pairs at the last
    build identical (or within pairs_tol relative: float positions part after a few hundred steps)."""
    p = mdrun(mdlite, mpiexec, d, 0, "one", *common)
    ref, pairs = read_thermo(f"{d}/one.csv"), summary_value(p.stdout, "Neighbor pairs")
    for k, (ranks, *sets) in enumerate(runs):
        p = mdrun(mdlite, mpiexec, d, ranks, f"r{k}", *common, *sets)
        w = worst_difference(ref, read_thermo(f"{d}/r{k}.csv"), f"{ranks} ranks {sets}")
        got = summary_value(p.stdout, "Neighbor pairs")
        decomposition = summary_value(p.stdout, "Decomposition") if ranks > 1 else "one brick"
        print(f"{ranks} ranks {' '.join(sets)} ({decomposition}): thermo vs one rank {w:.3g}; {got}")
        if w > tol or abs(pair_count(got) - pair_count(pairs)) > pairs_tol * pair_count(pairs):
            fail(f"{ranks} ranks {sets}: thermo differs by {w:.3g} (tolerance {tol}) or pairs '{got}' != '{pairs}'")


def thermo(mdlite, mpiexec, d):
    # auto picks slabs or 1 2 4 here; 2 2 2 and 1 2 2 keep ghosts of ghosts (edges, corners) tested
    same_as_one_rank(mdlite, mpiexec, d, [(1,), (2,), (3,), (4,), (8,), (2, "run.processors=2 1 1"),
                                          (4, "run.processors=1 4 1"), (4, "run.processors=1 2 2"),
                                          (8, "run.processors=2 2 2"), (2, "neighbor.method=brute")])
    # 2 ranks of 1 thread against 1 rank of 2 threads
    mdrun(mdlite, mpiexec, d, 0, "threads2", "run.threads=2")
    mdrun(mdlite, mpiexec, d, 2, "ranks2", "run.threads=1")
    w = worst_difference(read_thermo(f"{d}/threads2.csv"), read_thermo(f"{d}/ranks2.csv"), "threads vs ranks")
    print(f"1 rank x 2 threads vs 2 ranks x 1 thread: {w:.3g}")
    if w > TOL:
        fail(f"1 rank x 2 threads vs 2 ranks x 1 thread differ by {w:.3g}")


EAM_CONFIG = """[system]
units = metal
lattice = fcc
lattice_constant = 3.615
cells = 8 8 8
species = Cu
temperature = 1600
[potential]
style = eam
file.Cu = /usr/share/lammps/potentials/Cu_u3.eam
[neighbor]
skin = 1.0
[run]
steps = 100
timestep = 0.005
threads = 1
[output]
thermo = 10
"""


def eam(mdlite, mpiexec, d):
    """EAM (Cu_u3.eam, 2,048 atoms at 1600 K) on 2, 3 and 4 ranks against one: the ghosts' embedding
    slopes travel after the densities."""
    if not os.path.exists("/usr/share/lammps/potentials/Cu_u3.eam"):
        print("SKIP: no Cu_u3.eam (Debian's lammps-data: tools/setup.sh)")
        sys.exit(SKIP)
    write(f"{d}/in.ini", EAM_CONFIG)
    same_as_one_rank(mdlite, mpiexec, d, [(2,), (3,), (4,), (4, "run.processors=1 2 2")])


def gpu_eam(mdlite, mpiexec, d):
    """EAM on GPU ranks against one GPU: the ghosts' F'(rho) sent after the density pass (NCCL, with
    or without the direct writes of positions, or staged through MPI); ghosts of ghosts (1 2 2);
    Nose-Hoover NPT (the bricks follow the box). 6,912 atoms at 1600 K."""
    gpu_info(mdlite)
    if not os.path.exists("/usr/share/lammps/potentials/Cu_u3.eam"):
        print("SKIP: no Cu_u3.eam (Debian's lammps-data: tools/setup.sh)")
        sys.exit(SKIP)
    write(f"{d}/in.ini", EAM_CONFIG)
    g = ["run.backend=gpu", "system.cells=12 12 12"]
    same_as_one_rank(mdlite, mpiexec, d, [(2,), (3,), (4, "run.processors=1 2 2"), (2, "run.gpu_comm=nccl"),
                                          (2, "run.gpu_comm=mpi")], *g, tol=GPU_TOL)
    same_as_one_rank(mdlite, mpiexec, d, [(2,)], *g, "run.ensemble=npt-nose-hoover", "run.target_temperature=1600",
                     "run.tau=0.1", "run.target_pressure=5000", "run.pressure_tau=0.5", tol=GPU_TOL, pairs_tol=1e-4)


def minimize(mdlite, mpiexec, d):
    """LAMMPS's minimize on CPU ranks (cg and fire; a vacancy in fcc Cu under EAM): on 2 and 4 ranks
    the iterations and force evaluations of one, and its final energy to 1e-13."""
    if not os.path.exists("/usr/share/lammps/potentials/Cu_u3.eam"):
        print("SKIP: no Cu_u3.eam (Debian's lammps-data: tools/setup.sh)")
        sys.exit(SKIP)
    from lammps_script import SCRIPTS, lattice_data, min_stats
    shutil.copy("/usr/share/lammps/potentials/Cu_u3.eam", d)
    lattice_data(f"{d}/vacancy.data", 3.615, 4, 42, 0.05, None, 0, 11)
    cg = open(os.path.join(SCRIPTS, "in.vacancy")).read()
    # FIRE, its script showing the energy (FIRE's velocities in thermo: lammps_families fire)
    fire = cg.replace("min_modify  dmax 0.1 line quadratic", "min_style   fire").replace("thermo_style custom step pe press",
                                                                                    "thermo_style custom step pe")
    for style, text in (("cg", cg), ("fire", fire)):
        write(f"{d}/in.{style}", text)
        got = {}
        for ranks in (0, 2, 4):
            cmd = [mdlite, "run", f"{d}/in.{style}", "--overwrite", "--set", "run.threads=1"]
            got[ranks] = min_stats(run(([mpiexec, "--oversubscribe", "-np", str(ranks)] if ranks else []) + cmd,
                                       cwd=d, timeout=300).stdout)
        for ranks in (2, 4):
            rel = abs(got[ranks][2] - got[0][2]) / abs(got[0][2])
            if got[ranks][:2] != got[0][:2] or got[ranks][3] != got[0][3] or rel > 1e-13:
                fail(f"minimize ({style}) on {ranks} ranks: {got[ranks]}, one rank {got[0]}")
        print(f"minimize ({style}): 2 and 4 ranks make one rank's {got[0][0]} iterations and {got[0][1]} evaluations, "
              f"final energies within {max(abs(got[k][2] - got[0][2]) / abs(got[0][2]) for k in (2, 4)):.2g}")


def boundary(mdlite, mpiexec, d):
    """Non-periodic faces on CPU ranks: a shrink-wrapped y (every rank's atoms set the box) and fixed
    x faces with reflecting walls, decomposed along the periodic axes alone, as one rank runs them."""
    same_as_one_rank(mdlite, mpiexec, d, [(2,), (4,), (4, "run.processors=2 1 2")], "system.boundary=p s p",
                     "run.steps=200")
    same_as_one_rank(mdlite, mpiexec, d, [(2,), (4, "run.processors=1 2 2")], "system.boundary=f p p",
                     "run.wall_reflect=xlo EDGE xhi EDGE", "system.temperature=3.0", "run.steps=200")
    p = mdrun(mdlite, mpiexec, d, 2, "across", "system.boundary=p s p", "run.processors=1 2 1", check=False)
    if p.returncode != 2 or "periodic" not in p.stderr:
        fail(f"bricks across a shrink-wrapped axis: expected exit 2 naming it, got {p.returncode}: {p.stderr}")
    said = [line for line in p.stderr.splitlines() if "error:" in line]
    print(f"bricks across a shrink-wrapped axis: refused: {said[0][:140] if said else p.stderr[:140]}")


def groups(mdlite, mpiexec, d):
    """Groups on CPU ranks: walls held by setforce (the upper one pressed by aveforce, its mean over
    every rank), addforce, Berendsen and thermo's temperature on the flow between them, a velocity
    ramp, as one rank runs them."""
    same_as_one_rank(mdlite, mpiexec, d, [(2,), (4,), (4, "run.processors=1 2 2")],
                     "system.groups=low block -1e20 1e20 -1e20 1.5 -1e20 1e20, top block -1e20 1e20 15 1e20 -1e20 1e20, "
                     "mid subtract all low top, odd id 1:900 2001:2500 3999, oddmid intersect odd mid",
                     "system.velocity_edits=ramp mid vx 0 0.5 y 1.5 15, set low 0 0 0, set top 0 0 0",
                     "run.force_fixes=setforce low 0 0 0, setforce top 0 NULL 0, aveforce top NULL -0.2 NULL, "
                     "addforce oddmid 0.05 0 0", "run.ensemble=nvt-berendsen", "run.target_temperature=1.44",
                     "run.tau=0.5", "run.thermostat_group=mid", "output.thermo_group=mid", "run.steps=200")


SQUEEZE = ("system.cells=9 9 9", "run.ensemble=npt-nose-hoover", "run.target_temperature=1.2", "run.tau=0.5",
           "run.target_pressure=20", "run.pressure_tau=0.5")


def squeezed_bricks(mdlite, mpiexec, d, *sets):
    """A barostat that squeezes 5 bricks along z under the list cutoff: the ranks pass their ghosts
    on in several hops and the run goes on as one rank's (CPU to 1e-10 over 800 steps; GPU to
    GPU_TOL over 300: the bricks are under the cutoff from step 25 on, and mixed precision parts the
    two runs smoothly, 2e-6 by step 300 and 3.4e-4 by 800 on an H200, where a missed ghost would
    jump at once)."""
    what = "GPU" if "run.backend=gpu" in sets else "CPU"
    same_as_one_rank(mdlite, mpiexec, d, [(5, "run.processors=1 1 5")], *sets, *SQUEEZE,
                     "run.steps=300" if what == "GPU" else "run.steps=800", tol=GPU_TOL if what == "GPU" else TOL,
                     pairs_tol=1e-4 if what == "GPU" else 0)
    lz = read_thermo(f"{d}/r0.csv")[-1]["volume"] ** (1 / 3)
    if not lz / 5 < 2.8:
        fail(f"{what}, 5 bricks squeezed: the bricks ended {lz / 5:.4g} long, not under the list cutoff 2.8")
    print(f"{what}, 5 ranks: bricks squeezed to {lz / 5:.4g} (list cutoff 2.8), the run as one rank's")




def gpu_cells(mdlite, mpiexec, d):
    """Small and triclinic boxes on GPU ranks against one GPU: 108 atoms (box 5.04) in bricks of 2.52,
    under the ghost cutoff (two hops), and a sheared 2,048-atom liquid (bricks and ghost slabs in
    fractional coordinates)."""
    gpu_info(mdlite)
    g = ["run.backend=gpu"]
    same_as_one_rank(mdlite, mpiexec, d, [(2, "run.processors=2 1 1"), (4, "run.processors=2 2 1"), (3,)], *g,
                     "system.cells=3 3 3", "run.steps=200", tol=GPU_TOL)
    tri = os.path.join(d, "prism")
    os.makedirs(tri, exist_ok=True)
    write(f"{tri}/in.ini", PRISM_LJ.format(n=8, xy=1.6, xz=-0.8, yz=0.8, fix="fix 1 all nve"))
    same_as_one_rank(mdlite, mpiexec, tri, [(2,), (4, "run.processors=1 2 2"), (3, "run.processors=3 1 1")], *g,
                     tol=GPU_TOL, pairs_tol=1e-5)


def thermostats(mdlite, mpiexec, d):
    for ens in (["run.ensemble=nvt-langevin", "run.target_temperature=1.0", "run.tau=0.5"],
                ["run.ensemble=nvt-berendsen", "run.target_temperature=1.0", "run.tau=0.2"],
                ["run.ensemble=nvt-rescale", "run.target_temperature=1.0", "run.every=10"],
                ["run.ensemble=nvt-nose-hoover", "run.target_temperature=1.0", "run.tau=0.5"]):
        same_as_one_rank(mdlite, mpiexec, d, [(2,), (4,)], *ens)
    # the barostat: bricks and ghosts' shifts follow the box (it shrinks by 7% in volume here)
    same_as_one_rank(mdlite, mpiexec, d, [(2,), (4,), (4, "run.processors=1 2 2"), (8, "run.processors=2 2 2")],
                     "run.ensemble=npt-nose-hoover", "run.target_temperature=1.2", "run.tau=0.5",
                     "run.target_pressure=2.0", "run.pressure_tau=1.0", "run.steps=200")
    squeezed_bricks(mdlite, mpiexec, d)
    # skin = auto: every rank must choose the same skin (the slowest rank's times), else their
    # rebuild decisions part and the run hangs (the timeout) or fails
    p = mdrun(mdlite, mpiexec, d, 4, "auto", "neighbor.skin=auto", "run.steps=120")
    line = summary_value(p.stdout, "skin auto")
    print(f"skin = auto on 4 ranks: {line}")


def staged_sets(steps):
    """--set values for three stages of `steps` steps each: nvt-nose-hoover, npt-nose-hoover (the box
    shrinks), nve."""
    return ["run.steps=", f"stage:a.steps={steps}", "stage:a.ensemble=nvt-nose-hoover",
            "stage:a.target_temperature=1.2", "stage:a.tau=0.5", f"stage:b.steps={steps}",
            "stage:b.ensemble=npt-nose-hoover", "stage:b.target_temperature=1.2", "stage:b.tau=0.5",
            "stage:b.target_pressure=2.0", "stage:b.pressure_tau=1.0", f"stage:c.steps={steps}", "stage:c.ensemble=nve"]


def analysis_on_ranks(mdlite, mpiexec, d, tag, sets):
    """The staged run with g(r) and the MSD on 2 and 4 ranks against one (no mpirun), files named
    by tag: {ranks: (thermo difference, largest g(r) difference, largest MSD difference relative to
    its largest value)}; a g(r) table of another shape fails."""
    from rdfmsd import read_analysis_csv  # numpy: skipped where there is none
    out = {}
    for ranks in (0, 2, 4):
        mdrun(mdlite, mpiexec, d, ranks, f"{tag}{ranks}", *sets, f"analysis.rdf_file={d}/{tag}rdf{ranks}.csv",
              f"analysis.msd_file={d}/{tag}msd{ranks}.csv")
        out[ranks] = (read_thermo(f"{d}/{tag}{ranks}.csv"), read_analysis_csv(f"{d}/{tag}rdf{ranks}.csv")[1],
                      read_analysis_csv(f"{d}/{tag}msd{ranks}.csv")[1])
    one, diffs = out[0], {}
    for ranks in (2, 4):
        if out[ranks][1].shape != one[1].shape:
            fail(f"{ranks} ranks: g(r) table {out[ranks][1].shape} against one rank's {one[1].shape}")
        diffs[ranks] = (worst_difference(out[ranks][0], one[0], f"{ranks} ranks"), abs(out[ranks][1] - one[1]).max(),
                        (abs(out[ranks][2] - one[2]) / abs(one[2]).max()).max())
    return diffs


def analysis(mdlite, mpiexec, d):
    from rdfmsd import read_analysis_csv  # numpy: skipped where there is none
    sets = staged_sets(50) + ["analysis.rdf_every=10", "analysis.msd_every=10"]
    for ranks, (t, g, m) in analysis_on_ranks(mdlite, mpiexec, d, "r", sets).items():
        if t > TOL or g > 1e-9 or m > 1e-9:
            fail(f"stages with analysis, {ranks} ranks against one: thermo {t:.3g}, g(r) {g:.3g}, MSD {m:.3g}")
        print(f"stages nvt -> npt -> nve with g(r) and MSD, {ranks} ranks against one: thermo {t:.2g}, "
              f"g(r) {g:.2g}, MSD {m:.2g}")
    # stopped in stage c on 2 ranks (step 125), continued on 4: stage c's g(r) and MSD go on from the
    # checkpoint's sums and origin, as one rank's uninterrupted
    mdrun(mdlite, mpiexec, d, 2, "part", *sets, "stage:c.steps=25", f"output.trajectory={d}/part.h5md",
          f"analysis.rdf_file={d}/prdf.csv", f"analysis.msd_file={d}/pmsd.csv")
    run([mpiexec, "--oversubscribe", "-np", "4", mdlite, "run", f"{d}/in.ini", "--overwrite", "--restart",
         f"{d}/part.h5md", *sum((["--set", x] for x in sets + [f"output.thermo_file={d}/after.csv",
                                 f"output.trajectory={d}/after.h5md", f"analysis.rdf_file={d}/ardf.csv",
                                 f"analysis.msd_file={d}/amsd.csv"]), [])], cwd=d, timeout=300)
    g = abs(read_analysis_csv(f"{d}/ardf.csv", "c")[1] - read_analysis_csv(f"{d}/rrdf0.csv", "c")[1]).max()
    m = abs(read_analysis_csv(f"{d}/amsd.csv", "c")[1] - read_analysis_csv(f"{d}/rmsd0.csv", "c")[1]).max()
    if g > 1e-9 or m > 1e-9:
        fail(f"restart of stage c (2 ranks, then 4) against one rank's uninterrupted: g(r) {g:.3g}, MSD {m:.3g}")
    print(f"stage c stopped at step 125 on 2 ranks, continued on 4: g(r) {g:.2g}, MSD {m:.2g} from one rank's")


def gpu_analysis(mdlite, mpiexec, d):
    """Stages with g(r) and the MSD on 2 and 4 GPU ranks against one GPU."""
    import re
    from rdfmsd import read_analysis_csv
    info = gpu_info(mdlite)
    double = re.search(r"GPU precision: (\w+)", info).group(1) == "double"
    sets = ["run.backend=gpu", "system.cells=12 12 12", *staged_sets(60), "analysis.rdf_every=10",
            "analysis.msd_every=10"]
    # double: the same pairs in the same bins; mixed: float positions part by ~1e-6 over 180 steps,
    # so a pair near a bin's edge may change bins (a bin of ~1,000 pairs moves by ~1e-3)
    ttol, gtol, mtol = (1e-9, 1e-12, 1e-10) if double else (GPU_TOL, 5e-3, 1e-4)
    for ranks, (t, g, m) in analysis_on_ranks(mdlite, mpiexec, d, "g", sets).items():
        if t > ttol or g > gtol or m > mtol:
            fail(f"GPU stages with analysis, {ranks} ranks against one: thermo {t:.3g}, g(r) {g:.3g}, MSD {m:.3g}")
        print(f"GPU ({'double' if double else 'mixed'}) stages nvt -> npt -> nve with g(r) and MSD, {ranks} ranks "
              f"against one GPU: thermo {t:.2g}, g(r) {g:.2g}, MSD {m:.2g}")
    # stopped in stage c on 2 GPU ranks, continued on one GPU: stage c's sums go on from the checkpoint
    mdrun(mdlite, mpiexec, d, 2, "gpart", *sets, "stage:c.steps=25", f"output.trajectory={d}/gpart.h5md",
          f"analysis.rdf_file={d}/gprdf.csv", f"analysis.msd_file={d}/gpmsd.csv")
    run([mdlite, "run", f"{d}/in.ini", "--overwrite", "--restart", f"{d}/gpart.h5md",
         *sum((["--set", x] for x in sets + [f"output.thermo_file={d}/gafter.csv", f"output.trajectory={d}/ga.h5md",
                                            f"analysis.rdf_file={d}/gardf.csv", f"analysis.msd_file={d}/gamsd.csv"]),
              [])], cwd=d, timeout=300)
    g = abs(read_analysis_csv(f"{d}/gardf.csv", "c")[1] - read_analysis_csv(f"{d}/grdf0.csv", "c")[1]).max()
    m = abs(read_analysis_csv(f"{d}/gamsd.csv", "c")[1] - read_analysis_csv(f"{d}/gmsd0.csv", "c")[1]).max()
    if g > gtol or m > mtol * 100:
        fail(f"GPU: stage c stopped on 2 ranks, continued on one: g(r) {g:.3g}, MSD {m:.3g} from one GPU's")
    print(f"GPU: stage c stopped at step 145 on 2 ranks, continued on one GPU: g(r) {g:.2g}, MSD {m:.2g} from the "
          f"uninterrupted one")


def read_xyz(path):
    """Extended XYZ frames: a list of {id: (x, y, z)} (ids from the file's order: frames are in id order)."""
    frames, lines, k = [], open(path).read().splitlines(), 0
    while k < len(lines):
        n = int(lines[k])
        frames.append([tuple(map(float, l.split()[1:4])) for l in lines[k + 2:k + 2 + n]])
        k += n + 2
    return frames


def frames(mdlite, mpiexec, d):
    for ranks in (0, 2, 4):
        mdrun(mdlite, mpiexec, d, ranks, f"f{ranks}", f"output.trajectory={d}/f{ranks}.xyz", "output.dump_every=25")
    one = read_xyz(f"{d}/f0.xyz")
    for ranks in (2, 4):
        other = read_xyz(f"{d}/f{ranks}.xyz")
        if len(other) != len(one) or len(one) != 5 or any(len(a) != 4000 for a in other):
            fail(f"{ranks} ranks: {len(other)} frames of {[len(a) for a in other]} atoms; one rank: {len(one)}")
        w = max(abs(u - v) / max(abs(u), 1.0) for a, b in zip(one, other) for p, q in zip(a, b) for u, v in zip(p, q))
        print(f"{ranks} ranks: 5 frames of 4000 atoms in id order, positions vs one rank {w:.3g}")
        if w > TOL:
            fail(f"{ranks} ranks: frames differ from one rank's by {w:.3g}")


def restart(mdlite, mpiexec, d):
    base = ["output.dump_every=50", "run.ensemble=nvt-langevin", "run.target_temperature=1.0", "run.tau=0.5"]
    mdrun(mdlite, mpiexec, d, 0, "straight", *base, f"output.trajectory={d}/straight.h5md")
    ref = read_thermo(f"{d}/straight.csv")[-1]
    for first, second in ((4, 0), (0, 4), (2, 3)):
        split_run(mdlite, mpiexec, d, base, first, second, ref, TOL)


def split_run(mdlite, mpiexec, d, base, first, second, ref, tol):
    """50 steps on `first` ranks, a restart from their file for 50 more on `second`: the last thermo
    row against ref (a straight run's) to tol."""
    mdrun(mdlite, mpiexec, d, first, "half", *base, "run.steps=50", f"output.trajectory={d}/half.h5md")
    cmd = [mdlite, "run", f"{d}/in.ini", "--overwrite", "--restart", f"{d}/half.h5md", "--set",
           f"output.thermo_file={d}/cont.csv", "--set", f"output.trajectory={d}/cont.h5md", "--set", "run.steps=50"]
    for s in base:
        cmd += ["--set", s]
    if second:
        cmd = [mpiexec, "--oversubscribe", "-np", str(second)] + cmd
    run(cmd, cwd=d, timeout=300)
    got = read_thermo(f"{d}/cont.csv")[-1]
    w = max(abs(ref[k] - got[k]) / max(abs(ref[k]), 1e-300) for k in ref if k != "step")
    what = "GPU" if "run.backend=gpu" in base else "CPU"
    print(f"{what}: 50 steps on {first or 1} rank(s), then 50 on {second or 1}: step {got['step']} "
          f"vs straight {w:.3g}")
    if got["step"] != 100 or w > tol:
        fail(f"restart {first} -> {second} ranks: step {got['step']}, differs by {w:.3g}")


def refused(mdlite, mpiexec, d):
    # bricks shorter than the list cutoff pass their ghosts on hop by hop on CPU ranks: as one rank
    same_as_one_rank(mdlite, mpiexec, d, [(8, "run.processors=8 1 1")])
    same_as_one_rank(mdlite, mpiexec, d, [(3, "run.processors=1 1 3")], "system.cells=10 10 5")
    same_as_one_rank(mdlite, mpiexec, d, [(3,)], "system.cells=4 4 4")
    for ranks, sets, words in ((2, ["run.processors=3 1 1"], "3 x 1 x 1 bricks for 2 ranks"),):
        p = mdrun(mdlite, mpiexec, d, ranks, "bad", *sets, check=False)
        errors = [l for l in p.stderr.splitlines() if "error" in l]
        if p.returncode != 2 or len(errors) != 1 or "[run] processors" not in errors[0] or words not in errors[0]:
            fail(f"{ranks} ranks {sets}: exit {p.returncode} (expected 2), messages {errors}")
        print(f"{ranks} ranks {' '.join(sets)}: exit 2, {errors[0]}")
    p = run([mpiexec, "--oversubscribe", "-np", "2", mdlite, "compare", f"{d}/in.ini"], check=False, cwd=d, timeout=120)
    errors = [l for l in p.stderr.splitlines() if "error" in l]
    if p.returncode != 2 or len(errors) != 1 or "one process" not in errors[0]:
        fail(f"compare on 2 ranks: exit {p.returncode} (expected 2), messages {errors}")
    print(f"compare on 2 ranks: exit 2, {errors[0]}")


def stops(mdlite, mpiexec, d):
    """An unstable run on 2 ranks: exit 1 on every rank, one message (the step and the atom), the frames
    written before it complete."""
    p = mdrun(mdlite, mpiexec, d, 2, "unstable", "run.timestep=0.05", f"output.trajectory={d}/u.xyz",
              "output.dump_every=1", check=False)
    errors = [l for l in p.stderr.splitlines() if "error" in l]
    got = read_xyz(f"{d}/u.xyz")
    if p.returncode != 1 or len(errors) != 1 or "step 2: atom" not in errors[0] or len(got) != 2 or \
            any(len(f) != 4000 for f in got):
        fail(f"unstable run on 2 ranks: exit {p.returncode}, messages {errors}, frames {[len(f) for f in got]}")
    print(f"unstable run on 2 ranks: exit 1, {errors[0][:80]}...; frames of steps 0 and 1 complete")


def nccl_same_as_staged(mdlite, mpiexec, d, g):
    """Where 2 ranks each have a GPU: through NCCL (the skin decision taken on the device, a step
    queued before it made again after each rebuild), with each step's ghosts written straight into
    the other GPU (the decision a vote) or sent through NCCL (the decision an all-reduce), the thermo
    equals the staged path's (the host decides before each step) in every printed digit, with the
    same builds; Langevin, 300 steps."""
    sets = [*g, "system.cells=20 20 20", "run.steps=300", "output.thermo=10", "run.ensemble=nvt-langevin",
            "run.target_temperature=1.0", "run.tau=0.5"]
    p = mdrun(mdlite, mpiexec, d, 2, "direct", *sets)
    dec = summary_value(p.stdout, "Decomposition")
    if "NCCL" not in dec:
        print(f"NCCL vs staged: not checked here, the 2 ranks share a GPU ({dec})")
        return
    if "direct writes" not in dec:
        fail(f"2 ranks with a GPU each on one node: no direct writes ({dec})")
    q = mdrun(mdlite, mpiexec, d, 2, "nccl", *sets, "run.gpu_comm=nccl")
    r = mdrun(mdlite, mpiexec, d, 2, "staged", *sets, "run.gpu_comm=mpi")
    a, b, c = (open(f"{d}/{n}.csv").read() for n in ("direct", "nccl", "staged"))
    builds = [summary_value(x.stdout, "Neighbor list builds") for x in (p, q, r)]
    print(f"direct writes vs NCCL vs staged, 2 ranks, 32,000 atoms, 300 steps: thermo "
          f"{'identical' if a == b == c else 'DIFFERENT'}; {' / '.join(builds)}")
    if not a == b == c or len(set(builds)) != 1 or a.count("\n") != 32 or "direct writes" in \
            summary_value(q.stdout, "Decomposition"):
        fail(f"direct vs NCCL vs staged: thermo {'equal' if a == b == c else 'differs'}, {builds}")
    bad = mdrun(mdlite, mpiexec, d, 2, "bad", *g, "run.gpu_comm=bogus", check=False)
    print(f"run.gpu_comm=bogus: exit {bad.returncode}")
    if bad.returncode != 2 or "[run] gpu_comm" not in bad.stderr:
        fail(f"a gpu_comm that is none of its values: exit {bad.returncode}: {bad.stderr[-300:]}")


def lists_too_short(mdlite, mpiexec, d, g):
    """Lists shorter than the rows on 2 and 4 ranks never give a wrong step: a 78-slot list grows
    mid-run (through NCCL the ranks agree on the longest row at the next check), a fixed 8-slot
    list has every row covered by the force kernel; thermo against one GPU with a list that fits."""
    common = [*g, "run.steps=200", "output.thermo=20"]
    mdrun(mdlite, mpiexec, d, 0, "fits", *common)
    ref = read_thermo(f"{d}/fits.csv")
    for ranks, slots, grow, cap_ok in ((2, 78, "yes", lambda c: c >= 81), (4, 78, "yes", lambda c: c >= 81),
                                       (2, 8, "no", lambda c: c == 8)):
        p = mdrun(mdlite, mpiexec, d, ranks, "short", *common, f"neighbor.max_neighbors={slots}", f"neighbor.grow={grow}")
        cap = int(summary_value(p.stdout, "Device memory").split("capacity")[1].split()[0])
        w = worst_difference(ref, read_thermo(f"{d}/short.csv"), f"{ranks} ranks, {slots} slots")
        print(f"GPU, {ranks} ranks, a {slots}-slot list{' (fixed)' if grow == 'no' else ''}: capacity {cap} at the end, "
              f"thermo vs one GPU {w:.3g}")
        if not cap_ok(cap) or w > GPU_TOL:
            fail(f"GPU, {ranks} ranks, {slots}-slot list: capacity {cap}, thermo differs by {w:.3g}")


def arrays_grown(mdlite, mpiexec, d, g):
    """Per-atom arrays with no room to spare ([run] gpu_arrays = tight: cut to the owned atoms as each
    rebuild starts, grown to exactly what arrives): they grow at every build (the ghosts at least),
    and the run equals one GPU's; 2 ranks, 32,000 atoms, 300 steps."""
    common = [*g, "system.cells=20 20 20", "run.steps=300", "output.thermo=50"]
    mdrun(mdlite, mpiexec, d, 0, "roomy", *common)
    p = mdrun(mdlite, mpiexec, d, 2, "tight", *common, "run.gpu_arrays=tight")
    grown = int(summary_value(p.stdout, "Atom arrays grown").split("=")[1].split()[0])
    builds = int(summary_value(p.stdout, "Neighbor list builds").split("=")[1])
    w = worst_difference(read_thermo(f"{d}/roomy.csv"), read_thermo(f"{d}/tight.csv"), "tight arrays")
    print(f"GPU, 2 ranks, arrays cut to the atom: grown {grown} times on rank 0 in {builds} builds + the set-up's, "
          f"thermo vs one GPU {w:.3g}")
    if builds < 10 or grown < builds + 1 or w > GPU_TOL:
        fail(f"GPU, tight arrays: grown {grown} times in {builds} builds + 1, thermo differs by {w:.3g}")


def timeline(mdlite, mpiexec, d, g):
    """[output] rebuild_timeline = 3 (NCCL): each of 2 ranks prints its third rebuild's stages, in order,
    ending with the list built and the step made again, then the next refresh's (the positions
    sent, ending unpacked), device times never decreasing in each; the run's thermo is the same as
    without it. A value that is not a rebuild number is refused (exit 2)."""
    p = mdrun(mdlite, mpiexec, d, 2, "plain", *g)
    if "NCCL" not in summary_value(p.stdout, "Decomposition"):
        print("timeline: not checked here, the 2 ranks share a GPU")
        return
    q = mdrun(mdlite, mpiexec, d, 2, "timed", *g, "output.rebuild_timeline=3")
    bad = mdrun(mdlite, mpiexec, d, 2, "bad", *g, "output.rebuild_timeline=-1", check=False)
    for rank in (0, 1):
        tag = f"  [rank {rank}] "
        tables = [[]]
        for l in q.stderr.splitlines():
            if l.startswith(tag) and "stage ended" in l:
                tables.append([])
            elif l.startswith(tag):
                tables[-1].append(l[len(tag):].rsplit(None, 3))
        tables = tables[1:]
        stages = [[r[0].strip() for r in t] for t in tables]
        device = [[float(r[1]) for r in t] for t in tables]
        if f"timeline, rank {rank}, rebuild 3" not in q.stderr or len(tables) != 2 \
                or "list built" not in stages[0] or stages[0][-1] != "step made again" \
                or stages[1][-1] != "ghosts refreshed" or any(t != sorted(t) for t in device):
            fail(f"timeline, rank {rank}: stages {stages}, device times {device}")
    same = open(f"{d}/plain.csv").read() == open(f"{d}/timed.csv").read()
    print(f"GPU timeline, 2 ranks: {len(stages[0])} stages on each, last {device[0][-1]:.0f} us after the "
          f"decision; the refresh {len(stages[1])} stages, {device[1][-1]:.0f} us; "
          f"thermo {'identical' if same else 'DIFFERENT'}; rebuild_timeline = -1: exit {bad.returncode}")
    if not same or bad.returncode != 2 or "[output] rebuild_timeline" not in bad.stderr:
        fail(f"timeline: thermo same {same}, bad value exit {bad.returncode}: {bad.stderr[-300:]}")


def gpu_info(mdlite):
    """`mdlite info`'s text; exits 77 (skipped) where it lists no GPU."""
    info = run([mdlite, "info"], check=False).stdout
    if "GPU 0:" not in info:
        print("SKIP: no GPU found (mdlite info):\n" + info)
        sys.exit(SKIP)
    return info


def gpu(mdlite, mpiexec, d):
    """The GPU backend decomposed: ranks share the GPUs there are (NCCL where each has its own)."""
    gpu_info(mdlite)
    g = ["run.backend=gpu"]
    same_as_one_rank(mdlite, mpiexec, d, [(2,), (4,), (4, "run.processors=1 2 2"), (2, "run.processors=2 1 1"),
                                          (3,)], *g, tol=GPU_TOL)
    # bricks 5.04 thick, under two ghost layers (2 x 2.8): some candidates are ghosts on both faces,
    # so each face's ghosts are selected in a pass of their own (elsewhere one pass makes both)
    same_as_one_rank(mdlite, mpiexec, d, [(3, "run.processors=1 1 3")], *g, "system.cells=9 9 9", tol=GPU_TOL)
    nccl_same_as_staged(mdlite, mpiexec, d, g)
    timeline(mdlite, mpiexec, d, g)
    lists_too_short(mdlite, mpiexec, d, g)
    arrays_grown(mdlite, mpiexec, d, g)
    # 32,000 atoms: the warp builder, longer runs, more migration; by step 300 float positions have
    # parted (pairs within 3e-5: 1,198,928 to 1,198,941 seen; a row of cells missed costs thousands)
    same_as_one_rank(mdlite, mpiexec, d, [(2,), (4,), (4, "run.processors=1 2 2")], *g, "system.cells=20 20 20",
                     "run.steps=300", "output.thermo=50", tol=GPU_TOL, pairs_tol=3e-5)
    # 157,216 atoms, ~78,600 a rank: each rank's lists from the warp builder, its ghost cells scanned
    # beside the brick's own (a row of ghost cells missed costs thousands of pairs)
    same_as_one_rank(mdlite, mpiexec, d, [(2,), (2, "run.processors=2 1 1"), (2, "run.processors=1 2 1")], *g,
                     "system.cells=34 34 34",
                     tol=GPU_TOL, pairs_tol=1e-5)
    for ens in (["run.ensemble=nvt-langevin", "run.target_temperature=1.0", "run.tau=0.5"],
                ["run.ensemble=nvt-berendsen", "run.target_temperature=1.0", "run.tau=0.2"],
                ["run.ensemble=nvt-rescale", "run.target_temperature=1.0", "run.every=10"],
                ["run.ensemble=nvt-nose-hoover", "run.target_temperature=1.0", "run.tau=0.5"]):
        same_as_one_rank(mdlite, mpiexec, d, [(2,)], *g, *ens, tol=GPU_TOL)
    mdrun(mdlite, mpiexec, d, 0, "f1", *g, f"output.trajectory={d}/f1.xyz", "output.dump_every=25")
    mdrun(mdlite, mpiexec, d, 4, "f4", *g, f"output.trajectory={d}/f4.xyz", "output.dump_every=25")
    one, other = read_xyz(f"{d}/f1.xyz"), read_xyz(f"{d}/f4.xyz")
    if len(other) != 5 or len(one) != 5 or any(len(a) != 4000 for a in other):
        fail(f"GPU, 4 ranks: {len(other)} frames of {[len(a) for a in other]} atoms; one GPU: {len(one)}")
    w = max(abs(u - v) / max(abs(u), 1.0) for a, b in zip(one, other) for p, q in zip(a, b) for u, v in zip(p, q))
    print(f"GPU, 4 ranks: 5 frames of 4000 atoms in id order, positions vs one GPU {w:.3g}")
    if w > GPU_TOL:
        fail(f"GPU, 4 ranks: frames differ from one GPU's by {w:.3g}")
    base = g + ["output.dump_every=50", "run.ensemble=nvt-langevin", "run.target_temperature=1.0", "run.tau=0.5"]
    mdrun(mdlite, mpiexec, d, 0, "straight", *base, f"output.trajectory={d}/straight.h5md")
    ref = read_thermo(f"{d}/straight.csv")[-1]
    split_run(mdlite, mpiexec, d, base, 4, 0, ref, GPU_TOL)
    p = mdrun(mdlite, mpiexec, d, 2, "unstable", *g, "run.timestep=0.05", check=False)
    errors = [l for l in p.stderr.splitlines() if "error" in l]
    if p.returncode != 1 or len(errors) != 1 or "atom" not in errors[0]:
        fail(f"GPU, unstable run on 2 ranks: exit {p.returncode}, messages {errors}")
    print(f"GPU, unstable run on 2 ranks: exit 1, {errors[0][:90]}")
    p = mdrun(mdlite, mpiexec, d, 2, "brute", *g, "neighbor.method=brute", check=False)
    errors = [l for l in p.stderr.splitlines() if "error" in l]
    if p.returncode != 2 or len(errors) != 1 or "[neighbor] method" not in errors[0]:
        fail(f"GPU, brute lists on 2 ranks: exit {p.returncode} (expected 2), messages {errors}")
    print(f"GPU, brute lists on 2 ranks: exit 2, {errors[0]}")
    # stages on GPU ranks: nvt -> npt (the box followed by each rank) -> nve, against one GPU
    same_as_one_rank(mdlite, mpiexec, d, [(2,)], *g, *staged_sets(60), tol=GPU_TOL, pairs_tol=1e-5)
    # the barostat on GPU ranks: the box moved on each rank's device, read back at each step's start,
    # the bricks and ghosts' shifts following it (the volume shrinks by 7% here)
    same_as_one_rank(mdlite, mpiexec, d, [(2,), (4, "run.processors=1 2 2")], *g, "run.ensemble=npt-nose-hoover",
                     "run.target_temperature=1.2", "run.tau=0.5", "run.target_pressure=2.0", "run.pressure_tau=1.0",
                     "run.steps=200", tol=GPU_TOL, pairs_tol=1e-5)
    squeezed_bricks(mdlite, mpiexec, d, *g)


def main():
    mdlite, mpiexec, case = sys.argv[1:4]
    d = workdir(f"mpi-{case}")
    write(f"{d}/in.ini", CONFIG)
    # Open MPI's temporary folder in a folder of this test's own (common.own_mpi_tmpdir says why)
    os.environ.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                      OMPI_MCA_orte_tmpdir_base=workdir("mpi-tmp"))
    {"thermo": thermo, "thermostats": thermostats, "frames": frames, "restart": restart, "refused": refused,
     "stops": stops, "gpu": gpu, "analysis": analysis, "gpu_analysis": gpu_analysis, "eam": eam,
     "gpu_eam": gpu_eam, "minimize": minimize, "gpu_cells": gpu_cells, "boundary": boundary, "groups": groups}[case](
        mdlite, mpiexec, d)
    print(f"mpi {case}: ok")


if __name__ == "__main__":
    main()
