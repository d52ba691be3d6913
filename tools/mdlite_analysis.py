#!/usr/bin/env python3
"""Reading mdlite's trajectories right in MDAnalysis (2.4, Debian's) and ASE: the frame spacing and
unwrapped positions, so that an MSD is the atoms' real one (docs/FORMATS.md, "Analysis tools").

mdlite writes positions wrapped into the box and the image counters beside them (`image`, in the
default dump_fields). MDAnalysis 2.4 reads H5MD positions but not the images; its frame spacing
it reads from observables/dt (files written before mdlite wrote it: "Reader has no dt
information", 1 ps taken; mdanalysis_universe passes the file's spacing either way); ASE reads
the images of extended XYZ as the array "image". Unwrapped position = wrapped + image x box edge.

As a module (a python3 with h5py, MDAnalysis, ASE):
    u = mdanalysis_universe("traj.h5md")            # dt from the file, unwrapped positions
    msd = EinsteinMSD(u, select="all", msd_type="xyz", fft=False).run().results.timeseries
    frames = ase_unwrapped("traj.xyz")              # list of (N, 3) arrays
    atoms = ase_data("final.data")                  # a data file, its elements from its Masses comments
As a script: `mdlite_analysis.py TRAJ.h5md|TRAJ.xyz` prints the MSD per lag (all time origins).
"""
import sys
import warnings

import numpy as np


def h5md_images_and_edges(path):
    """Per frame: the image counters (frames, N, 3; zeros where the file holds unwrapped positions,
    parameters/positions) and the box edges (frames, 3) of an mdlite H5MD file."""
    import h5py
    with h5py.File(path, "r") as f:
        traj = f["particles/trajectory"]
        if "parameters/positions" in f and f["parameters/positions"][()].decode() == "unwrapped":
            n = traj["position/value"].shape
            edges = np.array([np.diag(e) for e in traj["box/edges/value"][()]])
            return np.zeros(n, dtype=np.int32), edges, traj["position/time"][()]
        if "image" not in traj:
            raise SystemExit(f"{path}: no image counters (dump_fields lacks image): positions cannot be unwrapped")
        images = traj["image/value"][()]
        edges = np.array([np.diag(e) for e in traj["box/edges/value"][()]])
        times = traj["position/time"][()]
    return images, edges, times


def mdanalysis_universe(path):
    """An MDAnalysis Universe of an mdlite H5MD file with the file's frame spacing and positions unwrapped
    by the stored images (a transformation applied to every frame read)."""
    import MDAnalysis as mda
    images, edges, times = h5md_images_and_edges(path)
    dt = float(times[1] - times[0]) if len(times) > 1 else 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        n = images.shape[1]  # given, so that the reader's atom count does not see dt
        try:
            u = mda.Universe(path, dt=dt, n_atoms=n)
        except ValueError:  # lj units: no unit attributes for MDAnalysis to convert
            u = mda.Universe(path, dt=dt, n_atoms=n, convert_units=False)

    def unwrap(ts):
        ts.positions += (images[ts.frame] * edges[ts.frame]).astype(ts.positions.dtype)
        return ts

    u.trajectory.add_transformations(unwrap)
    return u


def ase_data(path, units="metal"):
    """A LAMMPS data file (atom_style atomic) as ASE Atoms with the elements its Masses comments name
    ("1 63.546 # Cu", as mdlite writes them): ASE 3.22's lammps-data reader alone makes type k the
    element of atomic number k."""
    import ase.data
    import ase.io
    z_of_type, section = {}, None
    for line in open(path):
        words, comment = line.split("#")[0].split(), line.split("#")[1].split() if "#" in line else []
        if len(words) == 1 and words[0] in ("Masses", "Atoms", "Velocities"):
            section = words[0]
        elif section == "Masses" and len(words) == 2:
            symbol = comment[0] if comment else ""
            z_of_type[int(words[0])] = ase.data.atomic_numbers.get(symbol, int(words[0]))
    return ase.io.read(path, format="lammps-data", style="atomic", Z_of_type=z_of_type or None, units=units)


def ase_unwrapped(path):
    """The unwrapped positions of each frame of an mdlite extended XYZ file, read by ASE (frames of
    unwrapped positions, mdlite_positions=unwrapped, as they are)."""
    import ase.io
    frames = ase.io.read(path, index=":")
    if frames[0].info.get("mdlite_positions") == "unwrapped":
        return [a.positions for a in frames]
    if "image" not in frames[0].arrays:
        raise SystemExit(f"{path}: no image column (dump_fields lacks image): positions cannot be unwrapped")
    return [a.positions + a.arrays["image"] @ np.array(a.cell) for a in frames]


def msd_all_origins(positions):
    """MSD per lag (lag 0 first) over all atoms and all time origins, as MDAnalysis's EinsteinMSD
    (fft=False) averages it; positions: (frames, N, 3)."""
    p = np.asarray(positions, dtype=np.float64)
    out = [0.0]
    for lag in range(1, len(p)):
        d = p[lag:] - p[:-lag]
        out.append(float(np.mean(np.sum(d * d, axis=2))))
    return np.array(out)


def main():
    path = sys.argv[1]
    if path.endswith(".xyz"):
        msd = msd_all_origins(ase_unwrapped(path))
    else:
        u = mdanalysis_universe(path)
        msd = msd_all_origins([u.atoms.positions.copy() for _ in u.trajectory])
    for lag, m in enumerate(msd):
        print(lag, repr(m))


if __name__ == "__main__":
    main()
