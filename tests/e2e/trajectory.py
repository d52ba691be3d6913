#!/usr/bin/env python3
"""Trajectory tests: H5MD read by MDAnalysis equals extended XYZ read by ASE, the H5MD checker,
exact restart, SIGTERM/SIGKILL, unwritable paths and a full disk.

usage: trajectory.py MDLITE INPUT_DIR CASE   (run with a python3 that has h5py, MDAnalysis, ASE)
cases: formats, npt_box, provenance, msd_recipe, unwrapped, analysis, checker, plots, restart, signals,
       unwritable, full_disk
"""
import os
import signal
import subprocess
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(__file__))
from common import SKIP, fail, read_thermo, run, workdir  # noqa: E402

warnings.filterwarnings("ignore")
import h5py  # noqa: E402
import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.join(HERE, "..", "..", "tools", "h5md_check.py")
EV_TO_KJMOL = 96.48533212331002


def mdrun(mdlite, cfg, d, *sets, check=True):
    args = [mdlite, "run", cfg, "--quiet", "--set", f"output.thermo_file={os.path.join(d, 'thermo.csv')}"]
    for s in sets:
        args += ["--set", s]
    return run(args, check=check, cwd=d)


def h5check(path, expect_ok=True):
    p = subprocess.run([sys.executable, CHECK, path], capture_output=True, text=True)
    if expect_ok and p.returncode != 0:
        fail(f"h5md_check failed on {path}:\n{p.stdout}{p.stderr}")
    return p


def formats(mdlite, inp, d):
    import ase.io
    import MDAnalysis as mda
    cfg = os.path.join(inp, "argon.ini")
    common = ["run.steps=200", "output.dump_every=50", "output.dump_fields=position velocity force"]
    mdrun(mdlite, cfg, d, *common, f"output.trajectory={d}/traj.h5md")
    mdrun(mdlite, cfg, d, *common, f"output.trajectory={d}/traj.xyz")
    h5check(f"{d}/traj.h5md")
    u = mda.Universe(f"{d}/traj.h5md")  # default arguments: units converted by MDAnalysis
    frames = ase.io.read(f"{d}/traj.xyz", index=":")
    if len(u.trajectory) != 5 or len(frames) != 5:
        fail(f"expected 5 frames, MDAnalysis {len(u.trajectory)}, ASE {len(frames)}")
    worst = [0.0, 0.0, 0.0]
    for ts, a in zip(u.trajectory, frames):
        L = a.cell.lengths()
        if not np.allclose(ts.dimensions[:3], L, rtol=1e-7) or not np.allclose(ts.dimensions[3:], 90):
            fail(f"frame {ts.frame}: box {ts.dimensions} vs ASE {a.cell.cellpar()}")
        if abs(ts.time - a.info["Time"]) > 1e-9:
            fail(f"frame {ts.frame}: time {ts.time} vs {a.info['Time']}")
        pairs = [(ts.positions, a.positions), (ts.velocities, a.arrays["velo"]),
                 (ts.forces / EV_TO_KJMOL, a.get_forces())]
        for k, (x, y) in enumerate(pairs):
            scale = np.abs(y).max()
            err = np.abs(x - y).max() / scale
            worst[k] = max(worst[k], err)
            if err > 2e-7:  # float32 storage: ~6e-8 relative
                fail(f"frame {ts.frame}: {['positions', 'velocities', 'forces'][k]} differ by {err:.3g} of max")
    print(f"MDAnalysis (H5MD) vs ASE (extended XYZ), 5 frames x 4000 atoms: positions {worst[0]:.2g}, "
          f"velocities {worst[1]:.2g}, forces {worst[2]:.2g} (relative to the largest value); boxes and times equal")


def npt_box(mdlite, inp, d):
    """Under npt-nose-hoover the box moves: every frame carries its own, as MDAnalysis (H5MD
    box/edges, a time series) and ASE (extended XYZ Lattice=) read them, equal to each other and to
    the thermo's volume at that step."""
    import ase.io
    import MDAnalysis as mda
    cfg = os.path.join(inp, "argon.ini")
    common = ["run.steps=400", "output.dump_every=100", "output.thermo=100", "run.ensemble=npt-nose-hoover",
              "run.target_temperature=80", "run.tau=0.5", "run.target_pressure=2000", "run.pressure_tau=1.0"]
    mdrun(mdlite, cfg, d, *common, f"output.trajectory={d}/npt.h5md")
    mdrun(mdlite, cfg, d, *common, f"output.trajectory={d}/npt.xyz")
    h5check(f"{d}/npt.h5md")
    volumes = [r["volume"] for r in read_thermo(f"{d}/thermo.csv")]
    u = mda.Universe(f"{d}/npt.h5md")
    frames = ase.io.read(f"{d}/npt.xyz", index=":")
    boxes = []
    for ts, a, v in zip(u.trajectory, frames, volumes):
        L = a.cell.lengths()
        if not np.allclose(ts.dimensions[:3], L, rtol=2e-7):  # MDAnalysis keeps float32 dimensions
            fail(f"frame {ts.frame}: MDAnalysis box {ts.dimensions[:3]}, ASE {L}")
        if abs(np.prod(L) - v) > 1e-8 * v:
            fail(f"frame {ts.frame}: box volume {np.prod(L)!r}, thermo {v!r}")
        boxes.append(L[0])
    if len(boxes) != 5 or len(set(round(b, 9) for b in boxes)) != 5:
        fail(f"expected 5 frames with 5 different boxes, got {boxes}")
    print(f"npt-nose-hoover, 5 frames: MDAnalysis and ASE read the same per-frame box, equal to the thermo volume "
          f"(edges {boxes[0]:.6g} to {boxes[-1]:.6g})")


def msd_recipe(mdlite, inp, d):
    """The recipe of tools/mdlite_analysis.py (docs/FORMATS.md): MDAnalysis's EinsteinMSD and ASE give
    the MSD of the positions unwrapped by the stored images; MDAnalysis read plainly (wrapped
    positions) does not, but has the file's frame spacing (observables/dt) without a warning."""
    import MDAnalysis as mda
    from MDAnalysis.analysis.msd import EinsteinMSD
    sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
    import mdlite_analysis as ma
    cfg = os.path.join(inp, "lj_melt.ini")  # a liquid: atoms cross the faces
    common = ["system.cells=6 6 6", "run.steps=2100", "output.dump_every=150"]  # frames 0.75 apart (not 1)
    mdrun(mdlite, cfg, d, *common, f"output.trajectory={d}/msd.h5md")
    mdrun(mdlite, cfg, d, *common, f"output.trajectory={d}/msd.xyz")
    images, edges, times = ma.h5md_images_and_edges(f"{d}/msd.h5md")
    with h5py.File(f"{d}/msd.h5md", "r") as f:
        wrapped = f["particles/trajectory/position/value"][()].astype(np.float64)
    ref = ma.msd_all_origins(wrapped + images * edges[:, None, :])
    u = ma.mdanalysis_universe(f"{d}/msd.h5md")
    got = EinsteinMSD(u, select="all", msd_type="xyz", fft=False).run().results.timeseries
    if abs(u.trajectory.dt - (times[1] - times[0])) > 1e-12:
        fail(f"MDAnalysis frame spacing {u.trajectory.dt}, the file's {times[1] - times[0]}")
    mda_err = np.max(np.abs(got - ref)) / ref[-1]
    ase_err = np.max(np.abs(ma.msd_all_origins(ma.ase_unwrapped(f"{d}/msd.xyz")) - ref)) / ref[-1]
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        plain_u = mda.Universe(f"{d}/msd.h5md", convert_units=False, n_atoms=images.shape[1])
        plain_dt = plain_u.trajectory.dt
    no_dt = [str(w.message) for w in said if "dt" in str(w.message)]
    if abs(plain_dt - (times[1] - times[0])) > 1e-12 or no_dt:
        fail(f"plain MDAnalysis frame spacing {plain_dt} (the file's {times[1] - times[0]}); warnings {no_dt}")
    plain = EinsteinMSD(plain_u, select="all", msd_type="xyz", fft=False).run()
    trap = plain.results.timeseries[-1] / ref[-1]
    if mda_err > 1e-6 or ase_err > 1e-6 or trap < 2:
        fail(f"MSD: MDAnalysis recipe {mda_err:.3g}, ASE recipe {ase_err:.3g} from the unwrapped positions' "
             f"(1e-6 of the last lag's); plain MDAnalysis {trap:.3g} times it")
    print(f"MSD over {len(ref)} frames of 864 liquid atoms (last lag {ref[-1]:.6g}): MDAnalysis recipe within "
          f"{mda_err:.2g}, ASE recipe within {ase_err:.2g} of it (of the last lag's); dt {u.trajectory.dt} read, "
          f"{plain_dt} by plain MDAnalysis; plain MDAnalysis (wrapped positions) {trap:.3g} times it")


def unwrapped(mdlite, inp, d):
    """[output] positions = unwrapped: the frames' positions are the wrapped run's plus image x edge
    (float32 rounding), without an image dataset or column; plain MDAnalysis EinsteinMSD on the H5MD
    file and ASE on the extended XYZ give the MSD of the unwrapped positions (no recipe needed),
    and MDAnalysis reads the frame spacing. An image field beside them is refused (exit 2), and a
    stage writing frames at another spacing is warned about."""
    import MDAnalysis as mda
    import ase.io
    from MDAnalysis.analysis.msd import EinsteinMSD
    sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
    import mdlite_analysis as ma
    cfg = os.path.join(inp, "lj_melt.ini")  # a liquid: atoms cross the faces
    common = ["system.cells=6 6 6", "run.steps=2100", "output.dump_every=150"]
    # with the MSD over every sample as an origin (msd_origins: 15 samples, 15 origins): MDAnalysis's
    # EinsteinMSD averages over every origin too
    mdrun(mdlite, cfg, d, *common, f"output.trajectory={d}/w.h5md", "analysis.msd_every=150",
          "analysis.msd_origins=15", f"analysis.msd_file={d}/w_msd.csv")
    for name in ("u.h5md", "u.xyz"):
        mdrun(mdlite, cfg, d, *common, f"output.trajectory={d}/{name}", "output.positions=unwrapped")
    images, edges, times = ma.h5md_images_and_edges(f"{d}/w.h5md")
    with h5py.File(f"{d}/w.h5md", "r") as f:
        ref_pos = f["particles/trajectory/position/value"][()].astype(np.float64) + images * edges[:, None, :]
    with h5py.File(f"{d}/u.h5md", "r") as f:
        t = f["particles/trajectory"]
        got_pos, has_image = t["position/value"][()].astype(np.float64), "image" in t
    pos_err = np.max(np.abs(got_pos - ref_pos))
    ref = ma.msd_all_origins(ref_pos)
    u = mda.Universe(f"{d}/u.h5md", convert_units=False, n_atoms=ref_pos.shape[1])
    got = EinsteinMSD(u, select="all", msd_type="xyz", fft=False).run().results.timeseries
    mda_err = np.max(np.abs(got - ref)) / ref[-1]
    from rdfmsd import read_analysis_csv
    origins_msd = read_analysis_csv(f"{d}/w_msd.csv")[1][:, 2]
    origins_err = np.max(np.abs(origins_msd - got)) / got[-1] if len(origins_msd) == len(got) else float("inf")
    if origins_err > 1e-5:
        fail(f"msd_origins = 15 (every sample): {origins_err:.3g} from MDAnalysis EinsteinMSD over every origin "
             f"({len(origins_msd)} rows, {len(got)} lags)")
    frames = ase.io.read(f"{d}/u.xyz", index=":")
    ase_err = np.max(np.abs(ma.msd_all_origins(np.array([a.get_positions() for a in frames])) - ref)) / ref[-1]
    xyz_image = "image" in open(f"{d}/u.xyz").readline() + open(f"{d}/u.xyz").readlines()[1]
    if pos_err > 2e-5 or has_image or xyz_image or mda_err > 1e-5 or ase_err > 1e-5 or \
            abs(u.trajectory.dt - (times[1] - times[0])) > 1e-12:
        fail(f"unwrapped: positions {pos_err:.3g} from wrapped + image x edge, image dataset {has_image}, XYZ image "
             f"column {xyz_image}; plain MDAnalysis MSD {mda_err:.3g}, ASE {ase_err:.3g} of the last lag; dt "
             f"{u.trajectory.dt}")
    bad = mdrun(mdlite, cfg, d, *common, f"output.trajectory={d}/x.h5md", "output.positions=unwrapped",
                "output.dump_fields=position image", check=False)
    if bad.returncode != 2 or "[output] dump_fields" not in bad.stderr or "positions" not in bad.stderr:
        fail(f"image with unwrapped positions: exit {bad.returncode}, expected 2 naming the keys: {bad.stderr}")
    wf = os.path.join(inp, "lj_liquid_workflow.ini")
    short = [f"stage:{s}.steps=20" for s in ("equilibrate", "settle", "produce")] + [
        f"output.trajectory={d}/s.h5md", f"analysis.rdf_file={d}/rdf.csv", f"analysis.msd_file={d}/msd.csv"]
    same = mdrun(mdlite, wf, d, *short).stderr
    other = mdrun(mdlite, wf, d, *short, "stage:produce.dump_every=10").stderr
    if "MDAnalysis" in same or "[stage:produce] dump_every = 10" not in other:
        fail(f"a stage's frame spacing: warned without a change ({same!r}) or not with one ({other!r})")
    print(f"unwrapped positions: within {pos_err:.2g} of wrapped + image x edge, no image stored; plain MDAnalysis "
          f"EinsteinMSD within {mda_err:.2g}, ASE within {ase_err:.2g} of the last lag ({ref[-1]:.5g}); image "
          f"beside them: exit 2; a stage's other frame spacing: warned; msd_origins over every sample = EinsteinMSD "
          f"within {origins_err:.2g}")


def analysis(mdlite, inp, d):
    """[analysis] on the CPU: mdlite's g(r) equals MDAnalysis InterRDF on the same frames, and numpy's
    histogram of them, to 1e-6 (a bin may differ by the pairs within 2e-5 of its edges, which the
    frames' float32 positions may put in the bin beside); its MSD equals the MSD of the
    stored positions unwrapped by their images, and the recipe's unwrapped MDAnalysis positions, to
    1e-6 of the last value; one species and a binary mixture."""
    from MDAnalysis.analysis.rdf import InterRDF
    sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
    import mdlite_analysis as ma
    from rdfmsd import msd_reference, rdf_mismatch, rdf_reference, read_analysis_csv
    cfg = os.path.join(inp, "lj_melt.ini")
    cases = {"one": [], "binary": ["system.species=A B", "system.composition=0.7 0.3", "system.mass.B=2.0"]}
    for name, extra in cases.items():
        traj = f"{d}/{name}.h5md"
        mdrun(mdlite, cfg, d, "system.cells=5 5 5", "system.temperature=1.5", "run.steps=300", "output.dump_every=20",
              f"output.trajectory={traj}", "analysis.rdf_every=20", "analysis.rdf_bins=80", "analysis.msd_every=20",
              f"analysis.rdf_file={d}/{name}_rdf.csv", f"analysis.msd_file={d}/{name}_msd.csv", *extra)
        with h5py.File(traj, "r") as f:
            t = f["particles/trajectory"]
            pos, img = t["position/value"][()], t["image/value"][()]
            lengths = np.array([np.diag(e) for e in t["box/edges/value"][()]])
            types = t["species"][()]
        hdr, rows = read_analysis_csv(f"{d}/{name}_rdf.csv")
        got = rows[:, 2:].T  # [pair][bin]
        # the frames hold float32 positions (as MDAnalysis reads them): a pair within 2e-5 of an edge
        # may sit in the bin beside the one mdlite's double positions put it in
        want, slack, pairs = rdf_reference(pos, types, lengths, 80, 2.5, 2e-5)
        nbad, worst = rdf_mismatch(got, want, slack)
        if nbad:
            fail(f"{name}: g(r) differs from the stored frames' histogram in {nbad} bins past the edge pairs "
                 f"(worst {worst:.3g})")
        u = ma.mdanalysis_universe(traj)
        moved = 0
        for q, (a, b) in enumerate(pairs):
            g1, g2 = u.atoms[types == a], u.atoms[types == b]
            mda = InterRDF(g1, g2, nbins=80, range=(0, 2.5), exclusion_block=(1, 1) if a == b else None).run()
            nbad, worst = rdf_mismatch(got[q], mda.results.rdf, slack[q])
            moved += int(np.sum(np.abs(got[q] - mda.results.rdf) > 1e-6 * np.maximum(mda.results.rdf, 1)))
            if nbad:
                fail(f"{name}: g {hdr[3 + q]} differs from InterRDF in {nbad} bins past the edge pairs (worst {worst:.3g})")
            if not np.any(mda.results.rdf > 1.5):
                fail(f"{name}: InterRDF's {hdr[3 + q]} has no first peak: {mda.results.rdf}")
        _, msd = read_analysis_csv(f"{d}/{name}_msd.csv")
        ref = msd_reference(pos + img * lengths[:, None, :], types)
        recipe = msd_reference(u.trajectory.timeseries(order="fac"), types)  # ma's unwrap applied per frame
        err = np.max(np.abs(msd[:, 2:] - ref)) / np.max(ref)
        err_recipe = np.max(np.abs(msd[:, 2:] - recipe)) / np.max(ref)
        if msd.shape[0] != len(pos) or err > 1e-6 or err_recipe > 1e-6:
            fail(f"{name}: MSD rows {msd.shape[0]} (frames {len(pos)}); against the unwrapped positions {err:.3g}, "
                 f"the recipe's {err_recipe:.3g} (1e-6 of the largest)")
        ase_note = ""
        if name == "one":  # the same run with extended XYZ frames: ASE's unwrapped positions give mdlite's MSD
            mdrun(mdlite, cfg, d, "system.cells=5 5 5", "system.temperature=1.5", "run.steps=300",
                  "output.dump_every=20", f"output.trajectory={d}/one.xyz", "analysis.msd_every=20",
                  f"analysis.msd_file={d}/one_xyz_msd.csv")
            _, msd_xyz = read_analysis_csv(f"{d}/one_xyz_msd.csv")
            ase = msd_reference(np.array(ma.ase_unwrapped(f"{d}/one.xyz")), types)
            err_ase = np.max(np.abs(msd_xyz[:, 2:] - ase)) / np.max(ase)
            if err_ase > 1e-6:
                fail(f"one: mdlite's MSD against ASE's unwrapped extended XYZ frames: {err_ase:.3g} of the largest")
            ase_note = f", ASE's {err_ase:.2g}"
        # g(r) past the pair cutoff, to 4.0 (half the box is 4.2): every pair, against numpy's
        mdrun(mdlite, cfg, d, "system.cells=5 5 5", "system.temperature=1.5", "run.steps=300", "output.dump_every=20",
              f"output.trajectory={d}/{name}_far.h5md", "analysis.rdf_every=20", "analysis.rdf_bins=80",
              "analysis.rdf_max=4.0", f"analysis.rdf_file={d}/{name}_far.csv", *extra)
        far_want, far_slack, _ = rdf_reference(pos, types, lengths, 80, 4.0, 2e-5)
        _, far_rows = read_analysis_csv(f"{d}/{name}_far.csv")
        nfar, far_worst = rdf_mismatch(far_rows[:, 2:].T, far_want, far_slack)
        if nfar or far_rows[-1, 1] < 3.9 or not np.any(far_rows[far_rows[:, 1] > 2.5, 2:] > 0.5):
            fail(f"{name}: g(r) to 4.0 differs from the frames' in {nfar} bins (worst {far_worst:.3g})")
        for q, (a, b) in enumerate(pairs):  # and MDAnalysis's InterRDF over the same range
            g1, g2 = u.atoms[types == a], u.atoms[types == b]
            mda = InterRDF(g1, g2, nbins=80, range=(0, 4.0), exclusion_block=(1, 1) if a == b else None).run()
            nbad, worst_far_mda = rdf_mismatch(far_rows[:, 2 + q], mda.results.rdf, far_slack[q])
            if nbad:
                fail(f"{name}: g(r) to 4.0 differs from InterRDF in {nbad} bins past the edge pairs")
        if name == "one":  # past half the box, or with a barostat: refused before the run
            for bad, why in ((["analysis.rdf_max=4.3"], "half the distance between the box's closest faces"),
                             (["analysis.rdf_max=3.0", "run.ensemble=npt-nose-hoover", "run.target_temperature=1.5",
                               "run.tau=0.5", "run.target_pressure=1.0", "run.pressure_tau=5.0"], "fixed box")):
                p = mdrun(mdlite, cfg, d, "system.cells=5 5 5", "system.temperature=1.5", "analysis.rdf_every=20",
                          *bad, check=False)
                if p.returncode != 2 or why not in p.stderr or "rdf_max" not in p.stderr:
                    fail(f"rdf_max {bad}: exit {p.returncode}, expected 2 naming '{why}': {p.stderr}")
        # several time origins: 3, 40 steps (2 samples) apart
        mdrun(mdlite, cfg, d, "system.cells=5 5 5", "system.temperature=1.5", "run.steps=300", "output.dump_every=20",
              f"output.trajectory={d}/{name}_origins.h5md", "analysis.msd_every=20", "analysis.msd_origins=3",
              "analysis.msd_origin_every=40",
              f"analysis.msd_file={d}/{name}_origins.csv", *extra)
        _, msd3 = read_analysis_csv(f"{d}/{name}_origins.csv")
        ref3 = msd_reference(pos + img * lengths[:, None, :], types, 3, 2)
        err3 = np.max(np.abs(msd3[:, 2:] - ref3)) / np.max(ref3)
        off = np.max(np.abs(msd3[:, 2:] - ref)) / np.max(ref)  # the test of the test: one origin is another MSD
        if err3 > 1e-6 or off < 1e-3:
            fail(f"{name}: msd_origins = 3: {err3:.3g} from the mean over origins at frames 0, 2, 4 ({off:.3g} from "
                 f"one origin's)")
        print(f"{name} ({len(types)} atoms, {len(pos)} frames, {len(pairs)} species pairs x 80 bins): g(r) = InterRDF "
              f"to 1e-6 in every bin but {moved}, where float32 positions move pairs within 2e-5 of an edge; MSD "
              f"within {err:.2g} (the recipe's MDAnalysis {err_recipe:.2g}{ase_note}) of the largest; with 3 "
              f"origins within {err3:.2g} of numpy's mean over them ({off:.2g} from one origin's); g(r) to 4.0 (past "
              f"the cutoff) = the frames' within {far_worst:.2g}")


def provenance(mdlite, inp, d):
    """The H5MD file records the configuration in effect (every --set applied; it runs again to the
    same thermo), the command line and the file a restart continued from."""
    cfg = os.path.join(inp, "lj_melt.ini")
    sets = ["system.cells=4 4 4", "run.steps=40", "run.ensemble=nvt-berendsen", "run.target_temperature=1.1",
            "run.tau=0.2", "output.dump_every=20"]
    mdrun(mdlite, cfg, d, *sets, f"output.trajectory={d}/first.h5md")
    first = read_thermo(f"{d}/thermo.csv")
    mdlite_args = [mdlite, "run", cfg, "--quiet", "--restart", f"{d}/first.h5md", "--set",
                   f"output.thermo_file={d}/again.csv", "--set", f"output.trajectory={d}/second.h5md"]
    run(mdlite_args + sum([["--set", s] for s in sets], []))
    with h5py.File(f"{d}/first.h5md", "r") as f:
        effective = f["parameters/effective_config"][()].decode()
        command = f["parameters/command_line"][()].decode()
        source = f["parameters/restart_from"][()].decode()
    with h5py.File(f"{d}/second.h5md", "r") as f:
        source2 = f["parameters/restart_from"][()].decode()
        command2 = f["parameters/command_line"][()].decode()
    for want in ("ensemble = nvt-berendsen ; --set", "cells = 4 4 4 ; --set", "[potential]"):
        if want not in effective:
            fail(f"effective_config lacks {want!r}:\n{effective}")
    if "--set run.tau=0.2" not in command or source != "" or source2 != f"{d}/first.h5md" or "--restart" not in command2:
        fail(f"command lines {command!r} / {command2!r}, restart sources {source!r} / {source2!r}")
    # a restart that appends to its own file records itself under parameters/continued/1, 2, ...
    for k in (1, 2):
        run([mdlite, "run", cfg, "--quiet", "--restart", f"{d}/first.h5md", "--set", "output.thermo_file=",
             "--set", f"output.trajectory={d}/first.h5md", *sum([["--set", s] for s in sets], [])])
    with h5py.File(f"{d}/first.h5md", "r") as f:
        cont = f["parameters/continued"]
        got = [(cont[k]["restart_from"][()].decode(), "--restart" in cont[k]["command_line"][()].decode())
               for k in ("1", "2")]
        if len(cont) != 2 or got != [(f"{d}/first.h5md", True)] * 2:
            fail(f"appended restarts recorded as {list(cont)}: {got}")
    h5check(f"{d}/first.h5md")
    with open(f"{d}/effective.ini", "w") as f:
        f.write(effective.replace(f"thermo_file = {d}/thermo.csv", f"thermo_file = {d}/replay.csv"))
    run([mdlite, "run", f"{d}/effective.ini", "--quiet", "--set", f"output.thermo_file={d}/replay.csv", "--set",
         "output.trajectory="])
    if read_thermo(f"{d}/replay.csv") != first:
        fail("the effective configuration, run again, does not give the same thermo")
    print(f"H5MD parameters: effective_config ({len(effective.splitlines())} lines, --set marked) runs again to the "
          f"same thermo; command_line and restart_from recorded, and each appending restart's under continued/K")


def checker(mdlite, inp, d):
    cfg = os.path.join(inp, "lj_melt.ini")
    mdrun(mdlite, cfg, d, "system.cells=4 4 4", "run.steps=40", "output.dump_every=10",
          "output.dump_fields=position velocity force image", f"output.trajectory={d}/good.h5md")
    h5check(f"{d}/good.h5md")
    breakers = {
        "version": lambda f: f["h5md"].attrs.modify("version", np.array([1, 0], dtype=np.int32)),
        "monotone steps": lambda f: f["particles/trajectory/position/step"].__setitem__(2, 0),
        "unlinked edges step": lambda f: (f["particles/trajectory/box/edges"].__delitem__("step"),
                                          f["particles/trajectory/box/edges"].create_dataset(
                                              "step", data=f["particles/trajectory/position/step"][()])),
        "value shape": lambda f: (f["particles/trajectory/velocity"].__delitem__("value"),
                                  f["particles/trajectory/velocity"].create_dataset("value", data=np.zeros((5, 7, 3)))),
        "missing box": lambda f: f["particles/trajectory"].__delitem__("box"),
        "observable length": lambda f: f["observables/pressure"].__delitem__("value"),
    }
    import shutil
    for name, breaker in breakers.items():
        path = f"{d}/broken.h5md"
        shutil.copy(f"{d}/good.h5md", path)
        with h5py.File(path, "r+") as f:
            breaker(f)
        p = h5check(path, expect_ok=False)
        if p.returncode == 0:
            fail(f"h5md_check accepted a file with a broken {name}")
        print(f"broken {name}: rejected: {p.stdout.strip().splitlines()[-1].strip()}")
    # units in metal: a wrong unit is caught
    mdrun(mdlite, os.path.join(inp, "argon.ini"), d, "run.steps=10", "output.dump_every=5",
          f"output.trajectory={d}/metal.h5md")
    h5check(f"{d}/metal.h5md")
    with h5py.File(f"{d}/metal.h5md", "r+") as f:
        f["particles/trajectory/position/value"].attrs["unit"] = "nm"
    if h5check(f"{d}/metal.h5md", expect_ok=False).returncode == 0:
        fail("h5md_check accepted a wrong position unit")
    print("metal units checked; a wrong unit is rejected")


def plots(mdlite, inp, d):
    plot = os.path.join(HERE, "..", "..", "tools", "plot_thermo.py")
    mdrun(mdlite, os.path.join(inp, "argon.ini"), d, "run.steps=100", "output.dump_every=20",
          f"output.trajectory={d}/a.h5md")
    for src in (f"{d}/thermo.csv", f"{d}/a.h5md"):
        png = src + ".png"
        run([sys.executable, plot, src, "-o", png])
        with open(png, "rb") as f:
            head = f.read(8)
        if head != b"\x89PNG\r\n\x1a\n" or os.path.getsize(png) < 10000:
            fail(f"{png} is not a plot")
    plot = os.path.join(HERE, "..", "..", "tools", "plot_analysis.py")
    mdrun(mdlite, os.path.join(inp, "ka_mixture.ini"), d, "run.steps=100", "analysis.rdf_every=20",
          "analysis.msd_every=10", f"analysis.rdf_file={d}/rdf.csv", f"analysis.msd_file={d}/msd.csv")
    run([sys.executable, plot, f"{d}/rdf.csv", f"{d}/msd.csv", "-o", f"{d}/ka"])
    for png in (f"{d}/ka.rdf.png", f"{d}/ka.msd.png"):
        with open(png, "rb") as f:
            if f.read(8) != b"\x89PNG\r\n\x1a\n" or os.path.getsize(png) < 10000:
                fail(f"{png} is not a plot")
    print("plot_thermo.py: PNGs from thermo.csv and from H5MD observables; plot_analysis.py: g(r) and MSD")


def restart(mdlite, inp, d):
    cfg = os.path.join(inp, "lj_melt.ini")
    for ens in (["run.ensemble=nve"], ["run.ensemble=nvt-langevin", "run.target_temperature=1.0", "run.tau=0.5"],
                ["run.ensemble=nvt-berendsen", "run.target_temperature=1.0", "run.tau=0.2"],
                ["run.ensemble=nvt-nose-hoover", "run.target_temperature=1.0", "run.tau=0.5"],
                ["run.ensemble=nvt-nose-hoover", "run.target_temperature=1.3", "run.tau=0.2", "run.chain=1"],
                ["run.ensemble=npt-nose-hoover", "run.target_temperature=1.2", "run.tau=0.5", "run.target_pressure=1.0",
                 "run.pressure_tau=1.0"],
                ["run.ensemble=npt-nose-hoover", "run.target_temperature=1.0", "run.tau=0.2", "run.target_pressure=-0.5",
                 "run.pressure_tau=0.5", "run.chain=2", "run.pressure_chain=1"]):
        base = ["system.cells=6 6 6", "output.thermo=10", "output.dump_every=50", *ens]
        mdrun(mdlite, cfg, d, *base, "run.steps=200", f"output.trajectory={d}/full.h5md")
        full = read_thermo(f"{d}/thermo.csv")
        mdrun(mdlite, cfg, d, *base, "run.steps=100", f"output.trajectory={d}/part.h5md")
        args = [mdlite, "run", cfg, "--quiet", "--restart", f"{d}/part.h5md", "--set",
                f"output.thermo_file={d}/thermo2.csv", "--set", f"output.trajectory={d}/part.h5md"]
        for s in base + ["run.steps=100"]:
            args += ["--set", s]
        run(args)
        cont = read_thermo(f"{d}/thermo2.csv")
        a, b = full[-1], cont[-1]
        if a["step"] != 200 or b["step"] != 200:
            fail(f"last thermo steps {a['step']} and {b['step']}, expected 200")
        worst = max(abs(a[k] - b[k]) / max(abs(a[k]), 1e-300) for k in a if k != "step")
        if worst > 1e-12:
            fail(f"{ens[0]}: 200 steps vs 100 + restart 100 differ by {worst:.3g} at step 200:\n{a}\n{b}")
        h5check(f"{d}/part.h5md")
        with h5py.File(f"{d}/part.h5md", "r") as f:
            steps = list(f["particles/trajectory/position/step"][()])
            dts = list(f["observables/dt/value"][()])
        if steps != [0, 50, 100, 150, 200] or any(abs(t - 50 * 0.005) > 1e-15 for t in dts) or len(dts) != 5:
            fail(f"appended trajectory has steps {steps}, observables/dt {dts}")
        print(f"{ens[0]}: step 200 of 200 straight vs 100 + restart 100: largest relative difference {worst:.3g}; "
              f"appended file steps {steps}")
    older_file(mdlite, cfg, d)
    no_checkpoint(mdlite, cfg, d)


def older_file(mdlite, cfg, d):
    """A restart appends to a file written before observables/dt, which stays without it."""
    base = ["system.cells=6 6 6", "output.thermo=10", "output.dump_every=50", f"output.trajectory={d}/old.h5md"]
    mdrun(mdlite, cfg, d, *base, "run.steps=100")
    with h5py.File(f"{d}/old.h5md", "a") as f:
        del f["observables/dt"]
    args = [mdlite, "run", cfg, "--quiet", "--restart", f"{d}/old.h5md", "--set", f"output.thermo_file={d}/t3.csv"]
    for s in base + ["run.steps=100"]:
        args += ["--set", s]
    run(args)
    h5check(f"{d}/old.h5md")
    with h5py.File(f"{d}/old.h5md", "r") as f:
        frames = [len(f[f"observables/{k}/value"]) for k in f["observables"]]
        has_dt = "dt" in f["observables"]
    if has_dt or frames != [5] * len(frames):
        fail(f"a file without observables/dt, appended to: dt {'written' if has_dt else 'absent'}, frames {frames}")
    print(f"a file without observables/dt, appended to: still without it, {len(frames)} observables of 5 frames")


def no_checkpoint(mdlite, cfg, d):
    """output.checkpoint = no: frames and flushes without /checkpoint; --restart refuses the file."""
    path = f"{d}/frames.h5md"
    mdrun(mdlite, cfg, d, "system.cells=6 6 6", "run.steps=100", "output.dump_every=10", "output.flush_every=3",
          "output.checkpoint=no", f"output.trajectory={path}")
    h5check(path)
    with h5py.File(path, "r") as f:
        steps = list(f["particles/trajectory/position/step"][()])
        has = "checkpoint" in f
    if has or steps != list(range(0, 101, 10)):
        fail(f"checkpoint = no: /checkpoint present: {has}; steps {steps}")
    p = run([mdlite, "run", cfg, "--quiet", "--restart", path], check=False, cwd=d)
    if p.returncode != 2 or path not in p.stderr or "checkpoint = no" not in p.stderr:
        fail(f"--restart from a file without checkpoint: exit {p.returncode}, expected 2 naming the file:\n{p.stderr}")
    print(f"checkpoint = no: 11 frames, no /checkpoint, passes h5md_check; --restart exits 2: {p.stderr.strip()}")


def start(mdlite, cfg, d, *sets):
    args = [mdlite, "run", cfg, "--quiet", "--set", f"output.thermo_file={d}/thermo.csv"]
    for s in sets:
        args += ["--set", s]
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for_step(p, thermo, step, timeout=120):
    """Waits until the running mdlite's thermo file reaches `step` (so a loaded machine still gets
    the frames the test needs before the signal), then a little longer for the writer thread."""
    t0 = time.time()
    while time.time() - t0 < timeout and p.poll() is None:
        try:
            rows = open(thermo).read().split()
            if len(rows) > 1 and int(rows[-1].split(",")[0]) >= step:
                time.sleep(0.3)
                return
        except (OSError, ValueError, IndexError):
            pass
        time.sleep(0.05)
    fail(f"mdlite did not reach step {step} in {timeout} s (exit {p.poll()})")


def signals(mdlite, inp, d):
    cfg = os.path.join(inp, "lj_melt.ini")
    long_run = ["system.cells=8 8 8", "run.steps=10000000", "output.thermo=20", "output.dump_every=20"]
    thermo = os.path.join(d, "thermo.csv")
    # a frame every step and a writer that lags behind: the signal lands on a step whose frame is
    # queued but not yet written, which must not be written twice
    for name, extra in (("term", []), ("term-lagging", ["output.dump_every=1", "output.throttle_ms=3"])):
        if os.path.exists(thermo):
            os.remove(thermo)
        p = start(mdlite, cfg, d, *long_run, *extra, f"output.trajectory={d}/{name}.h5md")
        wait_for_step(p, thermo, 1000 if not extra else 100)
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=60)
        if p.returncode != 143:
            fail(f"SIGTERM ({name}): exit {p.returncode}, expected 143\n{err}")
        h5check(f"{d}/{name}.h5md")
        with h5py.File(f"{d}/{name}.h5md", "r") as f:
            steps = f["particles/trajectory/position/step"][()]
        stopped = int(err.split(" at step ")[1].split(":")[0])
        if steps[-1] != stopped:
            fail(f"SIGTERM ({name}) at step {stopped}, but the last frame is step {steps[-1]}")
        print(f"SIGTERM ({name}): exit 143, closed file with {len(steps)} frames, last frame = step {stopped}")

    for flush in (1, 5):
        path = f"{d}/kill{flush}.h5md"
        os.remove(thermo)
        p = start(mdlite, cfg, d, *long_run, f"output.trajectory={path}", f"output.flush_every={flush}")
        wait_for_step(p, thermo, 20 * (4 * flush + 1))
        p.kill()
        p.communicate(timeout=60)
        try:
            with h5py.File(path, "r") as f:
                steps = f["particles/trajectory/position/step"][()]
                pos = f["particles/trajectory/position/value"][-1]
        except OSError as e:
            fail(f"SIGKILL (flush_every={flush}): the file does not open: {e}")
        if len(steps) < 2 or not np.all(np.isfinite(pos)):
            fail(f"SIGKILL (flush_every={flush}): {len(steps)} frames")
        if len(steps) % flush != 0:
            fail(f"SIGKILL (flush_every={flush}): {len(steps)} frames, not the count at a flush")
        h5check(path)
        print(f"SIGKILL, flush_every={flush}: file opens, {len(steps)} frames (steps {steps[0]}..{steps[-1]}), "
              f"passes h5md_check")


def unwritable(mdlite, inp, d):
    cfg = os.path.join(inp, "lj_melt.ini")
    for path in ("/nonexistent-dir/traj.h5md", "/nonexistent-dir/traj.xyz"):
        p = mdrun(mdlite, cfg, d, "system.cells=4 4 4", f"output.trajectory={path}", check=False)
        if p.returncode != 2 or path not in p.stderr:
            fail(f"unwritable {path}: exit {p.returncode}, message:\n{p.stderr}")
        print(f"{path}: exit 2: {p.stderr.strip()}")


def full_disk(mdlite, inp, d):
    mnt = os.path.join(d, "small")
    os.makedirs(mnt)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mnt], capture_output=True).returncode != 0:
        print("SKIP: cannot mount a small tmpfs here (needs root)")
        sys.exit(SKIP)
    try:
        cfg = os.path.join(inp, "lj_melt.ini")
        for name in ("traj.h5md", "traj.xyz"):
            path = os.path.join(mnt, name)
            p = mdrun(mdlite, cfg, d, "system.cells=6 6 6", "run.steps=2000", "output.dump_every=10",
                      f"output.trajectory={path}", check=False)
            if p.returncode != 1 or path not in p.stderr:
                fail(f"full disk ({name}): exit {p.returncode}, expected 1 with a message naming the file:\n{p.stderr}")
            if name.endswith(".h5md"):
                with h5py.File(path, "r") as f:
                    n = len(f["particles/trajectory/position/step"])
                print(f"full disk, {name}: exit 1 ({p.stderr.strip().splitlines()[0]}); file opens with {n} frames")
            else:
                print(f"full disk, {name}: exit 1 ({p.stderr.strip().splitlines()[0]})")
            os.remove(path)
    finally:
        subprocess.run(["umount", mnt])


if __name__ == "__main__":
    mdlite, inp, case = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
    globals()[case](mdlite, inp, workdir("traj-" + case))
