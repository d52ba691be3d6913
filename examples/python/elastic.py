#!/usr/bin/python3
"""Cu_u3's C11, C12 and C44 by central finite strains of the cubic cell (fcc: no internal relaxation),
from MdliteCalculator's stress and from ASE's LAMMPSlib (LAMMPS)."""
import numpy as np
from ase.build import bulk
from ase.units import GPa, bar

from mdlite.ase import MdliteCalculator

POT = "/usr/share/lammps/potentials/Cu_u3.eam"
A, H = 3.615, 1e-4
# LAMMPSlib's stress passes through LAMMPS's bar (nktv2p 1.6021765e6) and ASE's: a ratio 1 + 7.5e-8 of constants
LAMMPS_STRESS = 1.0 / (1.6021765e6 * bar)


def stress(make_calc, strain, scale=1.0):
    atoms = bulk("Cu", "fcc", a=A, cubic=True)
    atoms.set_cell(atoms.cell.array @ (np.eye(3) + strain), scale_atoms=True)
    atoms.calc = make_calc()
    return atoms.get_stress(voigt=False) * scale


def constants(make_calc, scale=1.0):
    e = np.zeros((3, 3))
    e[0, 0] = H
    d = (stress(make_calc, e, scale) - stress(make_calc, -e, scale)) / (2 * H)
    g = np.zeros((3, 3))
    g[1, 2] = g[2, 1] = H / 2  # engineering shear strain gamma_yz = H
    s = (stress(make_calc, g, scale) - stress(make_calc, -g, scale)) / (2 * H)
    return np.array([d[0, 0], d[1, 1], s[1, 2]]) / GPa


def mdlite_value():
    return constants(lambda: MdliteCalculator(potential={"style": "eam", "file.Cu": POT}))


def lammps_value():
    from ase.calculators.lammpslib import LAMMPSlib
    return constants(lambda: LAMMPSlib(lmpcmds=["pair_style eam", f"pair_coeff 1 1 {POT}"], atom_types={"Cu": 1},
                                       log_file=None, keep_alive=True), LAMMPS_STRESS)


if __name__ == "__main__":
    m, ref = mdlite_value(), lammps_value()
    for name, x, y in zip(("C11", "C12", "C44"), m, ref):
        print(f"Cu_u3 {name}: mdlite {x:.8f} GPa, LAMMPS {y:.8f} GPa, difference {abs(x - y):.1e} GPa")
