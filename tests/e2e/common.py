"""Helpers for mdlite's end-to-end tests (standard library only)."""
import csv
import subprocess
import sys
import tempfile

SKIP = 77  # CTest's SKIP_RETURN_CODE for these tests


def run(cmd, check=True, **kw):
    """Runs cmd, returns CompletedProcess with text output; fails loudly when check and rc != 0."""
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if check and p.returncode != 0:
        sys.stderr.write(f"command failed ({p.returncode}): {' '.join(cmd)}\n{p.stdout}\n{p.stderr}\n")
        sys.exit(1)
    return p


def read_thermo(path):
    """thermo.csv as a list of dicts of floats (step as int)."""
    with open(path) as f:
        rows = list(csv.DictReader(f))
    return [{k: (int(v) if k == "step" else float(v)) for k, v in r.items()} for r in rows]


def fcc_config(cells):
    """The [system] section of an fcc lattice at LAMMPS in.lj's density, T = 1 (5 lines)."""
    return f"[system]\nlattice = fcc\ndensity = 0.8442\ncells = {cells}\ntemperature = 1.0\n"


def workdir(name):
    d = tempfile.mkdtemp(prefix=f"mdlite-{name}-")
    return d


def write(path, text):
    """Writes text (str) or bytes (bytes, as they are) to path."""
    with open(path, "wb" if isinstance(text, bytes) else "w") as f:
        f.write(text)
    return path


def fail(msg):
    sys.stderr.write("FAIL: " + msg + "\n")
    sys.exit(1)
