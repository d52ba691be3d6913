#!/usr/bin/python3
"""Cu_u3's lattice constant and bulk modulus from ASE's equation of state, through MdliteCalculator and
through ASE's LAMMPSlib (LAMMPS), the same volumes."""
import numpy as np
from ase.build import bulk
from ase.eos import EquationOfState
from ase.units import GPa

from mdlite.ase import MdliteCalculator

POT = "/usr/share/lammps/potentials/Cu_u3.eam"


def fit(make_calc):
    volumes, energies = [], []
    for a in np.linspace(3.50, 3.73, 9):
        atoms = bulk("Cu", "fcc", a=a)  # the primitive cell, one atom
        atoms.calc = make_calc()
        volumes.append(atoms.get_volume())
        energies.append(atoms.get_potential_energy())
    v0, e0, b = EquationOfState(volumes, energies, eos="birchmurnaghan").fit()
    return (4 * v0) ** (1 / 3), b / GPa


def mdlite_value():
    return fit(lambda: MdliteCalculator(potential={"style": "eam", "file.Cu": POT}))


def lammps_value():
    from ase.calculators.lammpslib import LAMMPSlib
    return fit(lambda: LAMMPSlib(lmpcmds=["pair_style eam", f"pair_coeff 1 1 {POT}"], atom_types={"Cu": 1},
                                   log_file=None, keep_alive=True))


if __name__ == "__main__":
    (a, b), (ra, rb) = mdlite_value(), lammps_value()
    print(f"Cu_u3 EOS: a0 mdlite {a:.10f} A, LAMMPS {ra:.10f} A; B mdlite {b:.8f} GPa, LAMMPS {rb:.8f} GPa; "
          f"differences {abs(a - ra):.1e} A, {abs(b - rb):.1e} GPa")
