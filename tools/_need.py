"""Shared by the tools: re-run the calling script with a python3 that has the modules it needs.

The python3 first on PATH may be a bare interpreter (pyenv) while Debian's packages
(python3-h5py, python3-matplotlib, ...) live in /usr/bin/python3.
"""
import importlib.util
import os
import subprocess
import sys


def modules(*names, hint):
    if all(importlib.util.find_spec(n) for n in names):
        return
    probe = "import " + ", ".join(names)
    for cand in ("/usr/bin/python3", "/usr/local/bin/python3"):
        if os.path.exists(cand) and os.path.realpath(cand) != os.path.realpath(sys.executable) and \
                subprocess.run([cand, "-c", probe], capture_output=True).returncode == 0:
            os.execv(cand, [cand] + sys.argv)
    sys.exit(f"{os.path.basename(sys.argv[0])} needs {', '.join(names)} (Debian: apt-get install {hint})")
