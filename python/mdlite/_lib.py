"""libmdlite.so through ctypes: the library found beside this package (where CMake copies it), its calls typed."""
import ctypes
import os

_dbl = ctypes.POINTER(ctypes.c_double)
_int = ctypes.POINTER(ctypes.c_int)
_str = ctypes.c_char_p
_strs = ctypes.POINTER(ctypes.c_char_p)
_sim = ctypes.c_void_p

OK, ERUN, EINPUT, ESTATE = 0, 1, 2, 3


class LoadOptions(ctypes.Structure):
    _fields_ = [("nsets", ctypes.c_int), ("sets", _strs), ("nvars", ctypes.c_int), ("var_names", _strs),
                ("var_counts", _int), ("var_values", _strs), ("command", _str), ("run_only", ctypes.c_int)]


class Atoms(ctypes.Structure):
    _fields_ = [("natoms", ctypes.c_size_t), ("nspecies", ctypes.c_int), ("species", _strs), ("masses", _dbl),
                ("types", _int), ("positions", _dbl), ("cell", _dbl), ("velocities", _dbl)]


class Thermo(ctypes.Structure):
    _fields_ = [("step", ctypes.c_long)] + [(k, ctypes.c_double) for k in
                                           ("time", "temperature", "kinetic", "potential", "total", "pressure",
                                            "volume")]


class RunOptions(ctypes.Structure):
    _fields_ = [("restart", _str), ("profile", _str), ("quiet", ctypes.c_int), ("overwrite", ctypes.c_int)]


_SIGNATURES = {
    "mdlite_new": (_sim, []),
    "mdlite_free": (None, [_sim]),
    "mdlite_message": (_str, [_sim]),
    "mdlite_set_echo": (ctypes.c_int, [_sim, ctypes.c_int]),
    "mdlite_load_file": (ctypes.c_int, [_sim, _str, ctypes.POINTER(LoadOptions)]),
    "mdlite_load_text": (ctypes.c_int, [_sim, _str, _str, ctypes.POINTER(LoadOptions)]),
    "mdlite_load_atoms": (ctypes.c_int, [_sim, ctypes.POINTER(Atoms), ctypes.c_int, _strs, _strs]),
    "mdlite_natoms": (ctypes.c_int, [_sim, ctypes.POINTER(ctypes.c_size_t)]),
    "mdlite_nspecies": (ctypes.c_int, [_sim, _int]),
    "mdlite_get_positions": (ctypes.c_int, [_sim, _dbl]),
    "mdlite_set_positions": (ctypes.c_int, [_sim, _dbl]),
    "mdlite_get_velocities": (ctypes.c_int, [_sim, _dbl]),
    "mdlite_set_velocities": (ctypes.c_int, [_sim, _dbl]),
    "mdlite_get_cell": (ctypes.c_int, [_sim, _dbl]),
    "mdlite_set_cell": (ctypes.c_int, [_sim, _dbl, ctypes.c_int]),
    "mdlite_get_types": (ctypes.c_int, [_sim, _int]),
    "mdlite_set_types": (ctypes.c_int, [_sim, _int]),
    "mdlite_get_step": (ctypes.c_int, [_sim, ctypes.POINTER(ctypes.c_long)]),
    "mdlite_energy": (ctypes.c_int, [_sim, _dbl]),
    "mdlite_forces": (ctypes.c_int, [_sim, _dbl]),
    "mdlite_virial": (ctypes.c_int, [_sim, _dbl]),
    "mdlite_atom_energies": (ctypes.c_int, [_sim, _dbl]),
    "mdlite_step": (ctypes.c_int, [_sim, ctypes.c_long]),
    "mdlite_minimize": (ctypes.c_int, [_sim, _str, ctypes.c_double, ctypes.c_double, ctypes.c_long, ctypes.c_long]),
    "mdlite_get_thermo": (ctypes.c_int, [_sim, ctypes.POINTER(Thermo)]),
    "mdlite_run": (ctypes.c_int, [_sim, ctypes.POINTER(RunOptions)]),
    "mdlite_write_data": (ctypes.c_int, [_sim, _str]),
    "mdlite_version": (_str, []),
    "mdlite_has_gpu": (ctypes.c_int, []),
}

_lib = None


def library(path=None):
    """The loaded library: `path`, else libmdlite.so beside this package (the build copies it there)."""
    global _lib
    if _lib is not None and path is None:
        return _lib
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libmdlite.so")
    where = path or here
    if not os.path.exists(where):
        raise ImportError(f"mdlite: {where} is missing: build the library first (cmake --build build, or "
                          f"tools/setup.sh), which copies libmdlite.so beside the package")
    lib = ctypes.CDLL(where)
    for name, (res, args) in _SIGNATURES.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args
    _lib = lib
    return lib


def strings(items):
    """A C array of UTF-8 strings (kept alive by the returned tuple's first item)."""
    enc = [s.encode() if isinstance(s, str) else s for s in items]
    arr = (ctypes.c_char_p * max(len(enc), 1))(*enc)
    return arr, enc
