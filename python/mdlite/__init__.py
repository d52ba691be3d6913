"""mdlite from Python: a Simulation made from a config or from arrays, moved, evaluated, stepped and
minimised through libmdlite (numpy arrays in and out, in the caller's frame)."""
import ctypes

import numpy as np

from . import _lib
from ._lib import library

__all__ = ["Simulation", "MdliteError", "InputError", "RunError", "StateError", "version", "has_gpu", "library"]


class MdliteError(RuntimeError):
    """A call that did not succeed: `status` is libmdlite's, the message its own."""

    def __init__(self, message, status):
        super().__init__(message)
        self.status = status


class RunError(MdliteError):
    """The run went wrong (a position not finite, an atom lost, no memory, no GPU)."""


class InputError(MdliteError, ValueError):
    """Bad input: a key, a value, an array, a file."""


class StateError(MdliteError):
    """Not now: nothing loaded, or a closed simulation."""


_ERRORS = {_lib.ERUN: RunError, _lib.EINPUT: InputError, _lib.ESTATE: StateError}


def version():
    return library().mdlite_version().decode()


def has_gpu():
    return bool(library().mdlite_has_gpu())


def _keys(mapping):
    """{"section.key": value} as two C string arrays (booleans as yes/no, numbers as Python writes them)."""
    keys, values = [], []
    for k, v in mapping.items():
        keys.append(k)
        values.append("yes" if v is True else "no" if v is False else
                      " ".join(str(x) for x in v) if isinstance(v, (list, tuple)) else str(v))
    return _lib.strings(keys), _lib.strings(values), len(keys)


def _f64(a, shape, what):
    """a as a C-contiguous float64 array of `shape` (no copy where it is one already)."""
    arr = np.ascontiguousarray(a, dtype=np.float64)
    if arr.shape != shape:
        raise InputError(f"{what}: shape {arr.shape}, expected {shape}", _lib.EINPUT)
    return arr


class Simulation:
    """One libmdlite handle. Make it with Simulation(config) / Simulation.from_text(text) /
    Simulation.from_arrays(...); use it as a context manager or call close()."""

    def __init__(self, config=None, *, sets=None, variables=None, echo=False, _text=None, _name=None):
        self._lib = library()
        self._h = self._lib.mdlite_new()
        if not self._h:
            raise MemoryError("mdlite_new: out of memory")
        if echo:
            self._check(self._lib.mdlite_set_echo(self._h, 1))
        if config is None and _text is None:
            return
        sets = [f"{k}={v}" for k, v in (sets or {}).items()] if isinstance(sets, dict) else list(sets or [])
        names = list((variables or {}).keys())
        vals = [[str(x) for x in (v if isinstance(v, (list, tuple)) else [v])] for v in (variables or {}).values()]
        sarr, skeep = _lib.strings(sets)
        narr, nkeep = _lib.strings(names)
        varr, vkeep = _lib.strings([x for v in vals for x in v])
        counts = (ctypes.c_int * max(len(vals), 1))(*[len(v) for v in vals])
        opt = _lib.LoadOptions(len(sets), sarr, len(names), narr, counts, varr, None, 0)
        if _text is not None:
            rc = self._lib.mdlite_load_text(self._h, _text.encode(), (_name or "text").encode(), ctypes.byref(opt))
        else:
            rc = self._lib.mdlite_load_file(self._h, str(config).encode(), ctypes.byref(opt))
        self._check(rc, close=True)

    @classmethod
    def from_text(cls, text, name="text", sets=None, echo=False):
        """From an INI (or LAMMPS script) text; relative paths in it are the working folder's."""
        return cls(sets=sets, echo=echo, _text=text, _name=name)

    @classmethod
    def from_arrays(cls, positions, cell, types=None, species=("A",), masses=None, velocities=None, keys=None,
                    echo=False):
        """Given atoms: positions (N x 3) and cell (3 x 3, rows a b c; any orientation) in one frame, types (N
        species indices, default all 0), species names, masses per species (None: the config's or the EAM
        file's), velocities (N x 3, None: at rest); keys {"section.key": value} as docs/CONFIG.md spells them."""
        sim = cls(echo=echo)
        pos = np.ascontiguousarray(positions, dtype=np.float64)
        n = pos.shape[0] if pos.ndim == 2 else 0
        pos = _f64(pos, (n, 3), "positions")
        c = _f64(cell, (3, 3), "cell")
        t = np.ascontiguousarray(np.zeros(n) if types is None else types, dtype=np.intc)
        if t.shape != (n,):
            sim.close()
            raise InputError(f"types: shape {t.shape}, expected ({n},)", _lib.EINPUT)
        sp, sp_keep = _lib.strings(list(species))
        m = None if masses is None else _f64(masses, (len(species),), "masses")
        v = None if velocities is None else _f64(velocities, (n, 3), "velocities")
        ptr = lambda a: None if a is None else a.ctypes.data_as(_lib._dbl)
        atoms = _lib.Atoms(n, len(species), sp, ptr(m), t.ctypes.data_as(_lib._int), ptr(pos), ptr(c), ptr(v))
        (karr, kk), (varr, vk), nk = _keys(keys or {})
        sim._check(sim._lib.mdlite_load_atoms(sim._h, ctypes.byref(atoms), nk, karr, varr), close=True)
        return sim

    # -- the handle --
    def _check(self, rc, close=False):
        if rc == _lib.OK:
            return
        msg = self._lib.mdlite_message(self._h).decode().strip() or f"status {rc}"
        if close:
            self.close()
        raise _ERRORS.get(rc, MdliteError)(msg, rc)

    @property
    def message(self):
        """What the last call said (warnings and notes too)."""
        return self._lib.mdlite_message(self._h).decode()

    def close(self):
        if getattr(self, "_h", None):
            self._lib.mdlite_free(self._h)
        self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    # -- the state --
    @property
    def natoms(self):
        n = ctypes.c_size_t()
        self._check(self._lib.mdlite_natoms(self._h, ctypes.byref(n)))
        return n.value

    @property
    def nspecies(self):
        n = ctypes.c_int()
        self._check(self._lib.mdlite_nspecies(self._h, ctypes.byref(n)))
        return n.value

    def _get(self, fn, shape, dtype=np.float64):
        out = np.empty(shape, dtype=dtype)
        self._check(fn(self._h, out.ctypes.data_as(_lib._dbl if dtype == np.float64 else _lib._int)))
        return out

    def _set(self, fn, value, what):
        arr = _f64(value, (self.natoms, 3), what)
        self._check(fn(self._h, arr.ctypes.data_as(_lib._dbl)))

    @property
    def positions(self):
        """Unwrapped positions, N x 3 (where they were set, plus the motion since)."""
        return self._get(self._lib.mdlite_get_positions, (self.natoms, 3))

    @positions.setter
    def positions(self, value):
        self._set(self._lib.mdlite_set_positions, value, "positions")

    @property
    def velocities(self):
        return self._get(self._lib.mdlite_get_velocities, (self.natoms, 3))

    @velocities.setter
    def velocities(self, value):
        self._set(self._lib.mdlite_set_velocities, value, "velocities")

    @property
    def cell(self):
        """The edge vectors a, b, c as rows (3 x 3)."""
        return self._get(self._lib.mdlite_get_cell, (3, 3))

    @cell.setter
    def cell(self, value):
        self.set_cell(value, scale_atoms=False)

    def set_cell(self, cell, scale_atoms=False):
        c = _f64(cell, (3, 3), "cell")
        self._check(self._lib.mdlite_set_cell(self._h, c.ctypes.data_as(_lib._dbl), int(bool(scale_atoms))))

    @property
    def types(self):
        return self._get(self._lib.mdlite_get_types, (self.natoms,), np.intc)

    @types.setter
    def types(self, value):
        t = np.ascontiguousarray(value, dtype=np.intc)
        if t.shape != (self.natoms,):
            raise InputError(f"types: shape {t.shape}, expected ({self.natoms},)", _lib.EINPUT)
        self._check(self._lib.mdlite_set_types(self._h, t.ctypes.data_as(_lib._int)))

    @property
    def step_count(self):
        s = ctypes.c_long()
        self._check(self._lib.mdlite_get_step(self._h, ctypes.byref(s)))
        return s.value

    # -- what the positions give --
    @property
    def energy(self):
        """The potential energy (total, the config's energy units)."""
        e = ctypes.c_double()
        self._check(self._lib.mdlite_energy(self._h, ctypes.byref(e)))
        return e.value

    @property
    def forces(self):
        return self._get(self._lib.mdlite_forces, (self.natoms, 3))

    @property
    def virial(self):
        """W_ab = sum r_a f_b as xx yy zz xy xz yz (energy units); the stress is -W / volume."""
        return self._get(self._lib.mdlite_virial, (6,))

    @property
    def atom_energies(self):
        return self._get(self._lib.mdlite_atom_energies, (self.natoms,))

    @property
    def thermo(self):
        """The thermo observables now: step, time, temperature, kinetic, potential, total, pressure, volume."""
        row = _lib.Thermo()
        self._check(self._lib.mdlite_get_thermo(self._h, ctypes.byref(row)))
        return {k: getattr(row, k) for k, _ in _lib.Thermo._fields_}

    # -- what moves it --
    def step(self, n=1):
        """n steps of the configured ensemble (no file written)."""
        self._check(self._lib.mdlite_step(self._h, int(n)))

    def minimize(self, etol=0.0, ftol=1e-8, maxiter=10000, maxeval=100000, style="cg"):
        """LAMMPS's minimize etol ftol maxiter maxeval (min_style cg or fire), the cell fixed."""
        self._check(self._lib.mdlite_minimize(self._h, style.encode(), float(etol), float(ftol), int(maxiter),
                                              int(maxeval)))

    def run(self, restart=None, quiet=True, overwrite=False):
        """The configured run with all its outputs, as `mdlite run` (a config's simulation); returns its status."""
        opt = _lib.RunOptions(restart.encode() if restart else None, None, int(quiet), int(overwrite))
        rc = self._lib.mdlite_run(self._h, ctypes.byref(opt))
        if rc not in (0,) and rc < 128:
            self._check(rc)
        return rc

    def write_data(self, path):
        self._check(self._lib.mdlite_write_data(self._h, str(path).encode()))
