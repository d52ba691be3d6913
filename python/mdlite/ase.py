"""An ASE calculator on libmdlite: energy, free_energy, energies, forces and stress of any periodic
cell ASE builds, in metal units (eV, Angstrom), its neighbor list kept between calls while the
atoms move less than half the skin."""
import numpy as np
from ase.calculators.calculator import Calculator, all_changes

from . import Simulation

_EAM = ("eam", "eam/alloy", "eam/fs")


class MdliteCalculator(Calculator):
    """MdliteCalculator(potential={...}, backend="cpu"|"gpu", threads=0, **neighbor): potential holds the
    [potential] keys as the INI spells them ("style", "file", "file.Cu", "epsilon", "sigma", "cutoff", ...),
    other keywords are [neighbor] keys (skin, check, every, delay, method). Species are the atoms'
    chemical symbols (an EAM file's elements); masses are ASE's for pair styles (an EAM style's are its
    file's)."""

    implemented_properties = ["energy", "free_energy", "energies", "forces", "stress"]

    def __init__(self, potential, backend="cpu", threads=0, **neighbor):
        super().__init__()
        self.potential = dict(potential)
        self.backend, self.threads, self.neighbor = backend, threads, dict(neighbor)
        self.sim = None
        self._symbols = None

    def _keys(self):
        keys = {"system.units": "metal", "run.backend": self.backend}
        if self.threads:
            keys["run.threads"] = self.threads
        keys.update({f"potential.{k}": v for k, v in self.potential.items()})
        keys.update({f"neighbor.{k}": v for k, v in self.neighbor.items()})
        return keys

    def _make(self, atoms):
        if not all(atoms.pbc):
            raise ValueError("MdliteCalculator: mdlite's cells are periodic along a, b and c (atoms.pbc is "
                             f"{list(atoms.pbc)})")
        symbols = atoms.get_chemical_symbols()
        species = list(dict.fromkeys(symbols))
        types = np.array([species.index(s) for s in symbols], dtype=np.intc)
        masses = None
        if self.potential.get("style") not in _EAM:
            m = atoms.get_masses()
            masses = [float(m[types == t][0]) for t in range(len(species))]
        if self.sim is not None:
            self.sim.close()
        self.sim = Simulation.from_arrays(atoms.positions, atoms.cell.array, types, species, masses,
                                          keys=self._keys())
        self._symbols = symbols

    def calculate(self, atoms=None, properties=("energy",), system_changes=all_changes):
        super().calculate(atoms, properties, system_changes)
        atoms = self.atoms
        changes = set(system_changes)
        if self.sim is None or changes & {"numbers", "pbc"} or atoms.get_chemical_symbols() != self._symbols or \
                self.sim.natoms != len(atoms):
            self._make(atoms)
        else:
            if "cell" in changes:
                self.sim.set_cell(atoms.cell.array, scale_atoms=False)
            if changes & {"positions", "cell"}:
                self.sim.positions = atoms.positions
        energy = self.sim.energy
        self.results["energy"] = self.results["free_energy"] = energy
        self.results["forces"] = self.sim.forces
        if "energies" in properties:
            self.results["energies"] = self.sim.atom_energies
        if "stress" in properties:
            w = self.sim.virial  # xx yy zz xy xz yz
            volume = abs(np.linalg.det(atoms.cell.array))
            self.results["stress"] = -np.array([w[0], w[1], w[2], w[5], w[4], w[3]]) / volume

    def __del__(self):
        if getattr(self, "sim", None) is not None:
            self.sim.close()
