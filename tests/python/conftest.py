"""The Python tests' set-up: the repository's package first on the path, the LAMMPS potentials' folder."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
POTENTIALS = "/usr/share/lammps/potentials/"
