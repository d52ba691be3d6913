#!/usr/bin/env python3
"""CLI basics and a short run of every shipped config.

usage: cli.py MDLITE INPUT_DIR
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import fail, read_thermo, run, workdir  # noqa: E402

HEADER = ("step,time,temperature,potential_energy_per_atom,kinetic_energy_per_atom,total_energy_per_atom,pressure,"
          "volume,conserved_per_atom")


def performance_line(cfg, out):
    """Performance: atom-steps/s = atoms x timesteps/s, and tau/day (lj) or ns/day (metal) = timesteps/s x
    dt x a day; Species: each species' count, adding up to the atoms."""
    atoms = int(re.search(r"mdlite: (\d+) atoms", out).group(1))
    m = re.search(r"Performance: (\S+) atom-steps/s, (\S+) timesteps/s, (\S+) (tau|ns)/day", out)
    counts = re.search(r"Species = (.*?); ensemble = ", out)
    if not m or not counts:
        fail(f"{cfg}: the summary lacks the performance figures or the species:\n{out}")
    rate, steps, per_day, unit = float(m.group(1)), float(m.group(2)), float(m.group(3)), m.group(4)
    dt = float(re.search(r"^timestep *= *(\S+)", open(cfg).read(), re.M).group(1))
    want = steps * dt * (86.4 if unit == "ns" else 86400)
    if abs(rate - atoms * steps) > 1e-4 * rate or abs(per_day - want) > 1e-4 * want:
        fail(f"{cfg}: {m.group(0)} does not add up ({atoms} atoms, dt {dt})")
    if sum(int(c.split()[-1]) for c in counts.group(1).split(", ")) != atoms:
        fail(f"{cfg}: species counts '{counts.group(1)}' do not add up to {atoms}")


def main():
    mdlite, inp = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if "mdlite run CONFIG" not in run([mdlite, "--help"]).stdout:
        fail("--help does not show the usage")
    if not run([mdlite, "--version"]).stdout.startswith("mdlite "):
        fail("--version")
    info = run([mdlite, "info"]).stdout
    for word in ("precision", "OpenMP threads", "backends"):
        if word not in info:
            fail(f"info lacks '{word}':\n{info}")
    d = workdir("cli")
    configs = sorted(glob.glob(os.path.join(inp, "*.ini")))
    if len(configs) < 3:
        fail(f"expected at least 3 configs in {inp}")
    for cfg in configs:
        with open(cfg) as f:
            if not f.readline().startswith(";"):
                fail(f"{cfg} does not open with a comment saying what it is")
        csv = os.path.join(d, os.path.basename(cfg) + ".csv")
        with open(cfg) as f:
            stages = re.findall(r"^\[(stage:[^\]]+)\]", f.read(), re.M)
        # 20 steps in all: a staged config's steps shared out among its stages, its files in d
        steps = [f"{s}.steps={20 // len(stages) + (k < 20 % len(stages))}" for k, s in enumerate(stages)]
        sets = sum((["--set", x] for x in steps or ["run.steps=20"]), [])
        out = run([mdlite, "run", cfg, *sets, "--set", f"output.thermo_file={csv}"], cwd=d).stdout
        with open(csv) as f:
            if f.readline().strip() != HEADER:
                fail(f"{csv}: header is not exactly {HEADER}")
        rows = read_thermo(csv)
        if rows[-1]["step"] != 20 or "Performance:" not in out or "Dangerous builds" not in out:
            fail(f"{cfg}: incomplete run or summary:\n{out}")
        for phase in ("Neighbor", "Force", "Integrate", "Thermo", "Output", "Other"):
            if phase not in out:
                fail(f"{cfg}: summary lacks the {phase} phase")
        if "CPU use = " not in out:
            fail(f"{cfg}: summary lacks the CPU-use line")
        performance_line(cfg, out)
    note = ""
    if "backends: cpu gpu" in info and "GPUs: none found" in info:
        # a GPU build on a machine without a GPU: the error alone, no banner, no table, no file
        p = run([mdlite, "run", configs[0], "--backend", "gpu", "--set", f"output.thermo_file={d}/gpu.csv"],
                check=False)
        if p.returncode != 1 or p.stdout or "no CUDA device found" not in p.stderr or os.path.exists(f"{d}/gpu.csv"):
            fail(f"--backend gpu without a GPU: exit {p.returncode}, stdout {p.stdout!r}, stderr {p.stderr!r}")
        note = "; --backend gpu without a GPU prints only the error"
    print(f"--help, --version, info; {len(configs)} shipped configs run with a full summary{note}")


if __name__ == "__main__":
    main()
