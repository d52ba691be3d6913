#!/usr/bin/env python3
"""The engine's choices that a user makes are config keys (never environment variables): every
value of each is accepted and acts, or is refused naming the key. The GPU's keys are checked on
the device by gpu.py and mpi.py; here, without a GPU: each value of each key is read, a CPU run
says which keys it does not use, a wrong value exits 2, sync_phases leaves the thermo unchanged.

usage: keys.py MDLITE INPUT_DIR
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import fail, read_thermo, run, workdir  # noqa: E402

KEYS = {  # key: (values that run, a value refused)
    "neighbor.outer_skin": (["0", "0.5"], "-1"),
    "neighbor.list": (["auto", "plain", "packed"], "zipped"),
    "neighbor.grow": (["yes", "no"], "maybe"),
    "run.gpu_comm": (["auto", "direct", "nccl", "mpi"], "pigeon"),
    "run.gpu_arrays": (["spare", "tight"], "loose"),
    "run.gpu_step": (["auto", "graphs", "persistent"], "fused"),
    "output.rebuild_timeline": (["0", "3"], "-1"),
    "output.sync_phases": (["no", "yes"], "sometimes"),
}
UNUSED = "not used by this run (a GPU key, and the backend is cpu)"


def main():
    mdlite, inp = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    d = workdir("keys")
    cfg = os.path.join(inp, "lj_melt.ini")
    base = ["run", cfg, "--quiet", "--set", "system.cells=5 5 5", "--set", "run.steps=40"]
    rows = {}
    for key, (good, bad) in KEYS.items():
        section, name = key.split(".")
        for v in good:
            csv = os.path.join(d, f"{name}-{v}.csv")
            p = run([mdlite, *base, "--set", f"{key}={v}", "--set", f"output.thermo_file={csv}"], check=False)
            if p.returncode != 0:
                fail(f"{key} = {v}: exit {p.returncode}\n{p.stderr}")
            default = v == good[0]
            warned = f"--set: [{section}] {name}: {UNUSED}" in p.stderr
            if key != "output.sync_phases" and warned == default:
                fail(f"{key} = {v}: the CPU run {'warns' if warned else 'does not say'} that it does not use it\n{p.stderr}")
            rows[(key, v)] = read_thermo(csv)
        p = run([mdlite, *base, "--set", f"{key}={bad}"], check=False)
        if p.returncode != 2 or f"--set: [{section}] {name}" not in p.stderr or bad not in p.stderr:
            fail(f"{key} = {bad}: exit {p.returncode}, expected 2 naming the key and the value\n{p.stderr}")
    if rows[("output.sync_phases", "yes")] != rows[("output.sync_phases", "no")]:
        fail("sync_phases = yes changes the CPU run's thermo")
    # `neighbors` says of its GPU options what `run` says of their keys: not used, and goes on
    xy = os.path.join(d, "two.xy")
    with open(xy, "w") as f:
        f.write("0 0\n1 0\n")
    for opt, v in (("--list", "packed"), ("--outer-skin", "0.4")):
        p = run([mdlite, "neighbors", xy, "--cutoff", "1.5", "--box", "5", "5", opt, v], check=False)
        if p.returncode != 0 or f"{opt}: not used by this run" not in p.stderr:
            fail(f"neighbors {opt} {v} on the CPU: exit {p.returncode}, expected 0 and a warning\n{p.stderr}")
    # a [run] key the ensemble does not use is named; one it uses is not
    for ens, unused, used in (("nve", ["target_temperature=1", "tau=0.5", "every=3", "chain=2"], []),
                              ("nvt-rescale", ["tau=0.5", "chain=2"], ["target_temperature=1", "every=3"]),
                              ("nvt-nose-hoover", ["every=3"], ["target_temperature=1", "tau=0.5", "chain=2"])):
        sets = sum([["--set", f"run.{kv}"] for kv in unused + used], [])
        p = run([mdlite, *base, "--set", f"run.ensemble={ens}", *sets, "--set", "output.thermo_file="], check=False)
        for kv in unused + used:
            key = kv.split("=")[0]
            said = f"--set: [run] {key}: not used by ensemble {ens}" in p.stderr
            if p.returncode != 0 or said != (kv in unused):
                fail(f"ensemble {ens}, run.{kv}: exit {p.returncode}, {'named' if said else 'not named'} as unused\n"
                     f"{p.stderr}")
    # where a GPU is: the barostat runs there, and an outer list (a fixed box's) is named as unused
    if "GPU 0:" in run([mdlite, "info"], check=False).stdout:
        p = run([mdlite, *base, "--backend", "gpu", "--set", "run.ensemble=npt-nose-hoover", "--set",
                 "run.target_temperature=1", "--set", "run.tau=0.5", "--set", "run.target_pressure=1", "--set",
                 "run.pressure_tau=5", "--set", "neighbor.outer_skin=0.5"], check=False)
        if p.returncode != 0 or "[neighbor] outer_skin: not used by this run" not in p.stderr:
            fail(f"NPT on the GPU backend with an outer list: exit {p.returncode}, expected 0 naming the key\n"
                 f"{p.stderr}")
    n = sum(len(g) for g, _ in KEYS.values())
    print(f"{len(KEYS)} keys: {n} values run (the GPU's named as unused on the CPU), {len(KEYS)} wrong values exit 2; "
          f"sync_phases leaves the thermo as it is")


if __name__ == "__main__":
    main()
