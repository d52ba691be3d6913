#!/usr/bin/env python3
"""Asynchronous output: frames written by the writer thread equal those of the synchronous path
bit for bit; a slow writer with a tiny ring slows the run but loses and reorders nothing; the
--profile timeline and its plot.

usage: output.py MDLITE INPUT_DIR CASE [BACKEND]   (python3 with h5py)
cases: identical, throttled, timeline
"""
import os
import subprocess
import sys
import warnings

sys.path.insert(0, os.path.dirname(__file__))
from common import fail, run, workdir  # noqa: E402

warnings.filterwarnings("ignore")
import h5py  # noqa: E402
import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def mdrun(mdlite, cfg, d, backend, *sets):
    args = [mdlite, "run", cfg, "--quiet", "--backend", backend, "--set", "output.thermo_file="]
    for s in sets:
        args += ["--set", s]
    return run(args, cwd=d)


def datasets(path):
    out = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset) and not name.startswith("parameters") and "author" not in name:
                out[name] = obj[()]
        f.visititems(visit)
        out["steps"] = f["particles/trajectory/position/step"][()]  # hard links are visited once
    return out


def loop_time(stdout):
    return float(stdout.split("Loop time of ")[1].split()[0])


def identical(mdlite, inp, d, backend):
    cfg = os.path.join(inp, "lj_melt.ini")
    common = ["system.cells=6 6 6", "run.steps=300", "output.dump_every=20",
              "output.dump_fields=position velocity force image", "output.flush_every=3", "run.threads=1"]
    mdrun(mdlite, cfg, d, backend, *common, "output.async=yes", f"output.trajectory={d}/async.h5md")
    mdrun(mdlite, cfg, d, backend, *common, "output.async=no", f"output.trajectory={d}/sync.h5md")
    a, b = datasets(f"{d}/async.h5md"), datasets(f"{d}/sync.h5md")
    if a.keys() != b.keys():
        fail(f"different datasets: {sorted(a.keys() ^ b.keys())}")
    for k in a:
        if a[k].shape != b[k].shape or not np.array_equal(a[k], b[k]):
            fail(f"{backend}: {k} differs between asynchronous and synchronous output")
    mdrun(mdlite, cfg, d, backend, *common, "output.async=yes", f"output.trajectory={d}/async.xyz")
    mdrun(mdlite, cfg, d, backend, *common, "output.async=no", f"output.trajectory={d}/sync.xyz")
    if open(f"{d}/async.xyz", "rb").read() != open(f"{d}/sync.xyz", "rb").read():
        fail(f"{backend}: extended XYZ differs between asynchronous and synchronous output")
    n = a["steps"].shape[0]
    print(f"{backend}: {len(a)} datasets ({n} frames) bit-identical, async vs sync, H5MD and extended XYZ")


def throttled(mdlite, inp, d, backend):
    cfg = os.path.join(inp, "lj_melt.ini")
    common = ["system.cells=5 5 5", "run.steps=400", "output.dump_every=5", "output.dump_fields=position",
              "run.threads=1"]
    fast = mdrun(mdlite, cfg, d, backend, *common, f"output.trajectory={d}/fast.h5md").stdout
    slow = mdrun(mdlite, cfg, d, backend, *common, "output.buffers=1", "output.throttle_ms=20",
                 f"output.trajectory={d}/slow.h5md").stdout
    a, b = datasets(f"{d}/fast.h5md"), datasets(f"{d}/slow.h5md")
    steps = list(b["steps"])
    if steps != list(range(0, 401, 5)):
        fail(f"throttled writer: frames {steps[:5]}... ({len(steps)}), expected every 5th step 0..400 in order")
    for k in a:
        if not np.array_equal(a[k], b[k]):
            fail(f"throttled writer: {k} differs from the unthrottled run")
    ta, tb = loop_time(fast), loop_time(slow)
    if tb < 81 * 0.020 * 0.9:
        fail(f"81 frames at >= 20 ms each should take >= 1.5 s, the run took {tb:.3g} s: did it wait?")
    print(f"{backend}: ring of 1, writer slowed to 20 ms/frame: 81 frames, in order, identical; "
          f"loop {ta:.3g} s -> {tb:.3g} s")


def timeline(mdlite, inp, d, backend):
    cfg = os.path.join(inp, "lj_melt.ini")
    csv_path = f"{d}/timeline.csv"
    run([mdlite, "run", cfg, "--quiet", "--backend", backend, "--profile", csv_path, "--set", "output.thermo_file=",
         "--set", "system.cells=6 6 6", "--set", "run.steps=200", "--set", "output.dump_every=10", "--set",
         f"output.trajectory={d}/t.h5md"], cwd=d)
    lanes, phases, compute = {}, {}, []
    with open(csv_path) as f:
        header = f.readline().strip()
        for line in f:
            lane, step, start, end, what = line.strip().split(",")
            lanes[lane] = lanes.get(lane, 0) + 1
            if lane == "run":
                phases[what] = (float(start), float(end))
            elif lane == "compute":
                compute.append((float(start), float(end)))
    if header != "lane,step,start_s,end_s,what" or lanes.get("compute") != 200 or lanes.get("write") != 21 \
            or lanes.get("copy") != 21:
        fail(f"timeline: header {header!r}, rows per lane {lanes}")
    want = ["set-up", "backend create", "open output", "writer start", "loop", "writer drain", "close files",
            "backend destroy"]
    if list(phases) != want or any(phases[a][1] > phases[b][0] for a, b in zip(want, want[1:])):
        fail(f"timeline: run phases {phases}, want {want} in order without overlap")
    lo, hi = phases["loop"]
    if not all(lo <= s <= e <= hi for s, e in compute):
        fail(f"timeline: compute intervals outside the loop phase {lo}..{hi}")
    p = run([sys.executable, os.path.join(HERE, "..", "..", "tools", "plot_timeline.py"), csv_path])
    if not os.path.getsize(f"{d}/timeline.png") > 10000:
        fail("timeline.png is empty")
    print(f"{backend}: timeline rows {lanes}; {p.stdout.strip()}")


if __name__ == "__main__":
    mdlite, inp, case = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
    backend = sys.argv[4] if len(sys.argv) > 4 else "cpu"
    if backend == "gpu" and "GPU 0:" not in subprocess.run([mdlite, "info"], capture_output=True, text=True).stdout:
        print("SKIP: no GPU")
        sys.exit(77)
    globals()[case](mdlite, inp, workdir(f"out-{case}-{backend}"), backend)
