"""examples/python: each example's number from mdlite equals LAMMPS's (through its own minimize, or ASE's
LAMMPSlib on the same workflow)."""
import os
import sys

import pytest
from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "examples", "python"))
pytest.importorskip("lammps")


def test_vacancy_formation_energy():
    import vacancy
    m, ref = vacancy.mdlite_value(), vacancy.lammps_value()
    assert 1.2 < m < 1.4 and abs(m - ref) <= 1e-8, (m, ref)


def test_equation_of_state():
    import eos
    (a, b), (ra, rb) = eos.mdlite_value(), eos.lammps_value()
    assert abs(a - 3.615) < 1e-3 and abs(a - ra) <= 1e-9 * ra and abs(b - rb) <= 1e-7 * rb, (a, ra, b, rb)


def test_elastic_constants():
    import elastic
    m, ref = elastic.mdlite_value(), elastic.lammps_value()
    assert 100 < m[0] < 200 and max(abs(m - ref) / ref) <= 1e-9, (m, ref)


def test_neb_vacancy_migration_barrier():
    import neb
    m, ref = neb.mdlite_value(), neb.lammps_value()
    assert 0.5 < m < 0.9 and abs(m - ref) <= 1e-7, (m, ref)
