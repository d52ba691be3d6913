"""mdlite.Simulation: the same run as `mdlite run`, steps that add up, moves that keep lists right, bad input
refused with the handle still usable, several handles, nothing printed."""
import csv
import os
import subprocess

import numpy as np
import pytest
from conftest import POTENTIALS as P, ROOT

import mdlite

LJ = """[system]
lattice = fcc
density = 0.8442
cells = 4 4 4
temperature = 1.44
seed = 87287
[potential]
style = lj
cutoff = 2.5
[run]
steps = 100
timestep = 0.005
ensemble = {ensemble}
{extra}
[output]
thermo = 50
thermo_file = thermo.csv
"""
ENSEMBLES = {"nve": "", "nvt-nose-hoover": "target_temperature = 1.0\ntau = 0.5",
             "nvt-langevin": "target_temperature = 1.0\ntau = 0.5", "npt-nose-hoover":
                 "target_temperature = 1.0\ntau = 0.5\ntarget_pressure = 2.0\npressure_tau = 5.0"}


def lj_text(ensemble):
    return LJ.format(ensemble=ensemble, extra=ENSEMBLES[ensemble])


@pytest.mark.parametrize("ensemble", sorted(ENSEMBLES))
def test_steps_are_the_programs_run(ensemble, tmp_path):
    """Simulation.step(100) ends where `mdlite run` does, every bit; 40 + 60 steps the same as 100."""
    cfg = tmp_path / "lj.ini"
    cfg.write_text(lj_text(ensemble))
    subprocess.run([os.path.join(ROOT, "build", "mdlite"), "run", str(cfg), "--quiet"], cwd=tmp_path, check=True)
    with open(tmp_path / "thermo.csv") as f:
        last = list(csv.DictReader(f))[-1]
    with mdlite.Simulation(cfg) as one, mdlite.Simulation(cfg) as two:
        one.step(100)
        two.step(40)
        two.step(60)
        row = one.thermo
        assert row["step"] == 100
        assert row["potential"] / one.natoms == float(last["potential_energy_per_atom"])
        assert row["pressure"] == float(last["pressure"])
        assert np.array_equal(one.positions, two.positions)
        assert np.array_equal(one.velocities, two.velocities)
        assert np.array_equal(one.cell, two.cell)


def fcc_cu(n=3, rattle=0.05, seed=1):
    a = 3.615
    base = np.array([[0, 0, 0], [0.5, 0.5, 0], [0.5, 0, 0.5], [0, 0.5, 0.5]])
    cells = np.array([[i, j, k] for i in range(n) for j in range(n) for k in range(n)])
    pos = (cells[:, None, :] + base[None]).reshape(-1, 3) * a
    pos += np.random.default_rng(seed).normal(0, rattle, pos.shape)
    return pos, np.eye(3) * a * n


EAM_KEYS = {"system.units": "metal", "potential.style": "eam", "potential.file.Cu": P + "Cu_u3.eam",
            "neighbor.skin": 1.0}


def cu(pos=None, cell=None, **kw):
    p, c = fcc_cu()
    keys = dict(EAM_KEYS, **kw)
    return mdlite.Simulation.from_arrays(p if pos is None else pos, c if cell is None else cell,
                                         species=["Cu"], keys=keys)


def test_moves_within_the_skin_keep_lists_right():
    """Moves under half the skin (list kept) and past it (rebuilt): each evaluation equals a fresh one."""
    pos, cell = fcc_cu()
    rng = np.random.default_rng(3)
    with cu() as sim:
        for k in range(8):
            pos = pos + rng.normal(0, 0.12, pos.shape)
            sim.positions = pos
            with cu(pos) as fresh:
                assert abs(sim.energy - fresh.energy) <= 1e-12 * abs(fresh.energy)
                assert np.abs(sim.forces - fresh.forces).max() <= 1e-12
            assert np.array_equal(sim.positions, pos)


def test_cell_changes_and_scaling():
    pos, cell = fcc_cu()
    with cu() as sim:
        e0 = sim.energy
        sim.set_cell(cell * 1.01, scale_atoms=True)
        assert np.allclose(sim.positions, pos * 1.01, rtol=0, atol=1e-12)
        with cu(pos * 1.01, cell * 1.01) as fresh:
            assert abs(sim.energy - fresh.energy) <= 1e-12 * abs(e0)
        sim.set_cell(cell, scale_atoms=False)
        assert np.allclose(sim.positions, pos * 1.01, rtol=0, atol=1e-12)


def test_rotated_frame_gives_rotated_forces():
    """The same crystal turned: the energy as it was, the forces turned with it."""
    pos, cell = fcc_cu()
    t = 0.7
    rot = np.array([[np.cos(t), -np.sin(t), 0], [np.sin(t), np.cos(t), 0], [0, 0, 1]]) @ \
        np.array([[1, 0, 0], [0, np.cos(0.3), -np.sin(0.3)], [0, np.sin(0.3), np.cos(0.3)]])
    with cu(pos, cell) as a, cu(pos @ rot.T, cell @ rot.T) as b:
        assert abs(a.energy - b.energy) <= 1e-12 * abs(a.energy)
        assert np.abs(a.forces @ rot.T - b.forces).max() <= 1e-12
        w = a.virial
        t0 = np.array([[w[0], w[3], w[4]], [w[3], w[1], w[5]], [w[4], w[5], w[2]]])
        w = b.virial
        t1 = np.array([[w[0], w[3], w[4]], [w[3], w[1], w[5]], [w[4], w[5], w[2]]])
        assert np.abs(rot @ t0 @ rot.T - t1).max() <= 1e-10 * np.abs(t0).max()


def test_bad_input_is_refused_and_the_handle_goes_on():
    pos, cell = fcc_cu()
    with cu() as sim:
        e0 = sim.energy
        bad = pos.copy()
        bad[5, 1] = np.nan
        with pytest.raises(mdlite.InputError, match="positions: atom 5's y is nan"):
            sim.positions = bad
        with pytest.raises(mdlite.InputError, match="shape"):
            sim.positions = pos[:-1]
        huge = pos.copy()
        huge[2, 0] = 1e31
        with pytest.raises(mdlite.InputError, match="atom 2's x is 1e\\+31 .*at most 1e30"):
            sim.positions = huge
        with pytest.raises(mdlite.InputError, match="types: atom 0's is 3"):
            sim.types = np.full(len(pos), 3)
        with pytest.raises(mdlite.InputError, match="degenerate"):
            sim.set_cell(np.zeros((3, 3)))
        assert sim.energy == e0
        assert np.array_equal(sim.positions, pos)
    with pytest.raises(mdlite.InputError, match=r"keys:3: \[potential\] epsilonn"):
        mdlite.Simulation.from_arrays(pos, cell, keys={"potential.style": "lj", "potential.epsilon": 1,
                                                       "potential.epsilonn": 1})
    with pytest.raises(mdlite.InputError, match="masses: species A's is -1"):
        mdlite.Simulation.from_arrays(pos, cell, masses=[-1.0], keys={"potential.style": "lj"})
    with pytest.raises(mdlite.InputError, match=r"(?s)keys:2: .*one-line value"):
        mdlite.Simulation.from_arrays(pos, cell, keys={"potential.style": "lj", "potential.epsilon": "1\n[run]"})
    with pytest.raises(mdlite.InputError, match=r"keys:2: \[neighbor\] skin"):
        mdlite.Simulation.from_arrays(pos, cell, keys={"potential.style": "lj", "neighbor.skin": "1e400"})
    with pytest.raises(mdlite.InputError, match="species 0's name is empty"):
        mdlite.Simulation.from_arrays(pos, cell, species=[""], keys={"potential.style": "lj"})
    with pytest.raises(mdlite.InputError, match="natoms is 0"):
        mdlite.Simulation.from_arrays(np.zeros((0, 3)), cell, keys={"potential.style": "lj"})
    with pytest.raises(mdlite.InputError, match="lattice: the atoms, their cell"):
        mdlite.Simulation.from_arrays(pos, cell, keys={"potential.style": "lj", "system.lattice": "fcc"})
    with pytest.raises(mdlite.InputError, match="no such file|cannot open|not found|No such"):
        mdlite.Simulation("/nonexistent/config.ini")
    sim = cu()
    sim.close()
    with pytest.raises(mdlite.StateError, match="NULL"):
        sim.energy


def test_two_handles_and_nothing_printed(capfd):
    pos, cell = fcc_cu()
    lj = mdlite.Simulation.from_arrays(pos, cell, species=["Cu"], masses=[63.5],
                                       keys={"system.units": "metal", "potential.style": "lj",
                                             "potential.epsilon": 0.4, "potential.sigma": 2.3,
                                             "potential.cutoff": 5.0})
    eam = cu()
    e_lj, e_eam = lj.energy, eam.energy
    lj.step(10), eam.step(10)
    assert e_lj != e_eam and np.isfinite(lj.energy) and np.isfinite(eam.energy)
    with pytest.raises(mdlite.InputError):
        eam.positions = np.full(pos.shape, np.inf)
    lj.close(), eam.close()
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_atom_energies_sum_to_the_energy():
    with cu() as sim:
        assert abs(sim.atom_energies.sum() - sim.energy) <= 1e-12 * abs(sim.energy)


def test_minimize_lowers_the_energy_to_its_tolerance():
    with cu() as sim:
        e0 = sim.energy
        sim.minimize(etol=0, ftol=1e-10, maxiter=2000)
        assert sim.energy < e0 and np.abs(sim.forces).max() < 1e-6


def test_run_writes_its_log_and_prints_nothing(tmp_path, capfd):
    """Simulation.run: the configured outputs, the log file with the run's table and summary, and nothing
    on the screen (the handle asked for no echo)."""
    cfg = tmp_path / "lj.ini"
    cfg.write_text(lj_text("nve").replace("[output]\n", "[output]\nlog_file = log.txt\n"))
    capfd.readouterr()
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        with mdlite.Simulation(cfg) as sim:
            assert sim.run(quiet=False) == 0
    finally:
        os.chdir(old)
    out, err = capfd.readouterr()
    log = (tmp_path / "log.txt").read_text()
    assert out == "" and err == ""
    assert "Loop time of" in log and "Performance:" in log, log
    rows = list(csv.DictReader(open(tmp_path / "thermo.csv")))
    assert [r["step"] for r in rows] == ["0", "50", "100"]
