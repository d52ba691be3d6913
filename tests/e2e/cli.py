#!/usr/bin/env python3
"""CLI basics and a short run of every shipped config.

usage: cli.py MDLITE INPUT_DIR
"""
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import fail, read_thermo, run, workdir  # noqa: E402

HEADER = "step,time,temperature,potential_energy,kinetic_energy,total_energy,pressure,volume,conserved"


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
        out = run([mdlite, "run", cfg, "--set", "run.steps=20", "--set", f"output.thermo_file={csv}"]).stdout
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
