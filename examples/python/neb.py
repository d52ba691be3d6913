#!/usr/bin/python3
"""Cu_u3's vacancy migration barrier by ASE's climbing-image NEB (5 images, FIRE), the same path through
MdliteCalculator and through ASE's LAMMPSlib (LAMMPS)."""
import numpy as np
from ase.build import bulk
from ase.neb import NEB
from ase.optimize import BFGS, FIRE

from mdlite.ase import MdliteCalculator

POT = "/usr/share/lammps/potentials/Cu_u3.eam"


def barrier(make_calc):
    perfect = bulk("Cu", "fcc", a=3.615, cubic=True) * (3, 3, 3)
    hop = int(np.argsort(np.linalg.norm(perfect.positions - perfect.positions[0], axis=1))[1])  # a nearest neighbor
    initial = perfect.copy()
    del initial[0]
    final = initial.copy()
    final.positions[hop - 1] = perfect.positions[0]
    for end in (initial, final):
        end.calc = make_calc()
        BFGS(end, logfile=None).run(fmax=1e-4)
    images = [initial] + [initial.copy() for _ in range(5)] + [final]
    for image in images[1:-1]:
        image.calc = make_calc()
    neb = NEB(images, climb=True)
    neb.interpolate()
    FIRE(neb, logfile=None).run(fmax=1e-3, steps=2000)
    energies = [image.get_potential_energy() for image in images]
    return max(energies) - energies[0]


def mdlite_value():
    return barrier(lambda: MdliteCalculator(potential={"style": "eam", "file.Cu": POT}))


def lammps_value():
    from ase.calculators.lammpslib import LAMMPSlib
    return barrier(lambda: LAMMPSlib(lmpcmds=["pair_style eam", f"pair_coeff 1 1 {POT}"], atom_types={"Cu": 1},
                                     log_file=None, keep_alive=True))


if __name__ == "__main__":
    m, ref = mdlite_value(), lammps_value()
    print(f"Cu_u3 vacancy migration barrier (NEB, 107 atoms): mdlite {m:.8f} eV, LAMMPS {ref:.8f} eV, "
          f"difference {abs(m - ref):.1e} eV")
