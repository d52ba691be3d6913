"""Helpers for mdlite's end-to-end tests (standard library only)."""
import atexit
import contextlib
import csv
import os
import shutil
import stat
import subprocess
import sys
import tempfile

SKIP = 77  # CTest's SKIP_RETURN_CODE for these tests

_workdirs = []  # this test's working directories (workdir)
_failed = False  # set by fail(), a failed run() and an uncaught exception: the directories are kept


def _note_failure():
    global _failed
    _failed = True


def _failure_hook(kind, value, tb):
    _note_failure()
    sys.__excepthook__(kind, value, tb)


def _remove_workdirs():
    """At exit: a test that passed or skipped leaves no working directory behind; a failed one keeps
    them for a look and names them."""
    def writable_again(func, path, _):  # a test's unwritable folder: made writable, then removed
        try:
            os.chmod(os.path.dirname(path), stat.S_IRWXU)
            if os.path.isdir(path) and not os.path.islink(path):
                os.chmod(path, stat.S_IRWXU)
            func(path)
        except OSError as e:
            sys.stderr.write(f"left behind: {path}: {e.strerror}\n")

    for d in _workdirs:
        if _failed:
            sys.stderr.write(f"kept for a look: {d}\n")
        else:
            shutil.rmtree(d, onerror=writable_again)


def run(cmd, check=True, **kw):
    """Runs cmd, returns CompletedProcess with text output; fails loudly when check and rc != 0."""
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if check and p.returncode != 0:
        sys.stderr.write(f"command failed ({p.returncode}): {' '.join(cmd)}\n{p.stdout}\n{p.stderr}\n")
        _note_failure()
        sys.exit(1)
    return p


@contextlib.contextmanager
def own_mpi_tmpdir(env=None):
    """env (default: this process's) with Open MPI's temporary folder (orte_tmpdir_base) one of its own,
    removed after. lmp is an MPI program and mpirun an MPI launcher: each makes /tmp/ompi.HOST.UID
    (Open MPI 4.1) and removes it at exit once empty, so one that ends while another starts takes
    the folder from under it (mkdir of its subfolder: ENOENT; "Error in file
    ../../../orte/util/session_dir.c at line 107", exit 1). Tests that run beside each other
    (ctest -j) hit that now and then: 2 of 2,000 lmp runs beside a ctest -j2."""
    with tempfile.TemporaryDirectory(prefix="mdlite-ompi-") as tmp:
        yield dict(os.environ if env is None else env, OMPI_MCA_orte_tmpdir_base=tmp)


def run_lmp(cmd, check=True, env=None, **kw):
    """run() for a command line of lmp's (or mpirun's), in an MPI folder of its own (own_mpi_tmpdir)."""
    with own_mpi_tmpdir(env) as e:
        return run(cmd, check=check, env=e, **kw)


def read_thermo(path, per_atom=None):
    """thermo.csv as a list of dicts of floats (step as int), its energies under their plain names
    (potential_energy_per_atom read as potential_energy); per_atom True or False: fails unless the
    file's energies are per atom, or totals."""
    with open(path) as f:
        rows = list(csv.DictReader(f))
        names = rows[0].keys() if rows else []
    if per_atom is not None and any(k.endswith("_per_atom") for k in names) != per_atom:
        fail(f"{path}: its energies are {'totals' if per_atom else 'per atom'}: {list(names)}")
    return [{k.replace("_per_atom", ""): (int(v) if k == "step" else float(v)) for k, v in r.items()} for r in rows]


def fcc_config(cells):
    """The [system] section of an fcc lattice at LAMMPS in.lj's density, T = 1 (5 lines)."""
    return f"[system]\nlattice = fcc\ndensity = 0.8442\ncells = {cells}\ntemperature = 1.0\n"


def workdir(name):
    """A new working directory for this test, removed at exit unless the test failed."""
    d = tempfile.mkdtemp(prefix=f"mdlite-{name}-")
    if not _workdirs:
        atexit.register(_remove_workdirs)
        sys.excepthook = _failure_hook
    _workdirs.append(d)
    return d


def write(path, text):
    """Writes text (str) or bytes (bytes, as they are) to path."""
    with open(path, "wb" if isinstance(text, bytes) else "w") as f:
        f.write(text)
    return path


def terminate_at_row(p, thermo_csv, step, timeout=120):
    """SIGTERM to the run p once its thermo file has a row at `step` or past it (or it ended)."""
    import signal
    import time
    t0, reached = time.time(), False
    while not reached and time.time() - t0 < timeout and p.poll() is None:
        try:
            with open(thermo_csv) as f:
                reached = int(f.read().split()[-1].split(",")[0]) >= step
        except (OSError, ValueError, IndexError):
            pass
        time.sleep(0.02)
    p.send_signal(signal.SIGTERM)
    return p.communicate(timeout=timeout)


def fail(msg):
    sys.stderr.write("FAIL: " + msg + "\n")
    _note_failure()
    sys.exit(1)


# LAMMPS's bench/in.lj liquid in a prism of n lattice cells (tilts xy xz yz), a fix, 100 steps
PRISM_LJ = """units lj
lattice fcc 0.8442
region box prism 0 {n} 0 {n} 0 {n} {xy} {xz} {yz}
create_box 1 box
create_atoms 1 box
mass 1 1.0
velocity all create 1.44 87287 loop geom
pair_style lj/cut 2.5
pair_coeff 1 1 1.0 1.0
neighbor 0.3 bin
neigh_modify delay 0 every 1 check yes
{fix}
thermo 10
run 100
"""
