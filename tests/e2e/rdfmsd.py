"""References for mdlite's on-the-fly analysis (numpy): g(r) of stored frames as MDAnalysis InterRDF
normalises it, in double precision, with the pairs that lie so close to a bin edge that rounding of
the positions may move them (a reader with float32 positions, or a text file's digits); the MSD of
unwrapped positions from one origin; mdlite's rdf.csv and msd.csv read back."""
import csv

import numpy as np


def read_analysis_csv(path, stage=None):
    """(header, rows as float arrays but the stage column) of rdf.csv or msd.csv; one stage's rows."""
    with open(path) as f:
        rows = list(csv.reader(line for line in f if not line.startswith("#")))
    header = rows[0]
    body = [r for r in rows[1:] if stage is None or r[0] == stage]
    return header, np.array([[float(x) for x in r[1:]] for r in body])


def rdf_reference(frames, types, lengths, nbins, rmax, eps):
    """g(r) of each species pair a <= b (InterRDF: pairs of one species counted both ways over
    N_a (N_a - 1), of two species once over N_a N_b, the frames' mean volume) and, per pair and
    bin, how much g may move when pairs within eps of an edge change bins.
    frames: (F, N, 3) positions; types: (N,) species; lengths: (F, 3) box edges."""
    edges = np.linspace(0, rmax, nbins + 1)
    ntypes = int(types.max()) + 1
    pairs = [(a, b) for a in range(ntypes) for b in range(a, ntypes)]
    counts = np.zeros((len(pairs), nbins))
    near = np.zeros((len(pairs), nbins))
    for x, L in zip(frames, lengths):
        x = np.asarray(x, dtype=np.float64)
        for q, (a, b) in enumerate(pairs):
            xa, xb = x[types == a], x[types == b]
            d = xa[:, None, :] - xb[None, :, :]
            d -= L * np.rint(d / L)
            r = np.sqrt(np.sum(d * d, axis=2))
            if a == b:
                r = r[~np.eye(len(xa), dtype=bool)]
            r = r[r <= rmax].ravel()
            counts[q] += np.histogram(r, bins=nbins, range=(0, rmax))[0]
            k = np.rint(r / (rmax / nbins)).astype(int)  # the nearest edge
            close = np.abs(r - edges[np.clip(k, 0, nbins)]) < eps
            for kk in k[close]:  # both bins beside that edge may gain or lose the pair
                near[q, max(kk - 1, 0)] += 1
                near[q, min(kk, nbins - 1)] += 1
    volume = np.mean(np.prod(lengths, axis=1))
    shells = 4.0 / 3.0 * np.pi * np.diff(edges ** 3)
    n = np.bincount(types, minlength=ntypes).astype(float)
    norm = np.array([len(frames) * shells * (n[a] * (n[a] - 1) if a == b else n[a] * n[b]) / volume
                     for a, b in pairs])
    return counts / norm, near / norm, pairs


def rdf_mismatch(got, want, slack, rel=1e-6):
    """Bins where |got - want| exceeds rel (of max(want, 1)) plus what the edge pairs allow."""
    bad = np.abs(got - want) > rel * np.maximum(np.abs(want), 1.0) + slack
    return int(np.sum(bad)), float(np.max(np.abs(got - want)))


def msd_reference(unwrapped, types, origins=1, every=1):
    """MSD of each species: (F, ntypes), lag by lag, the mean over origins at frames 0, every, ...,
    (origins - 1) every of those that reached the lag. unwrapped: (F, N, 3) in id order."""
    p = np.asarray(unwrapped, dtype=np.float64)
    nt, out = int(types.max()) + 1, np.zeros((len(p), int(types.max()) + 1))
    for lag in range(len(p)):
        starts = [k * every for k in range(origins) if k * every + lag < len(p)]
        d2 = np.mean([np.sum((p[o + lag] - p[o]) ** 2, axis=1) for o in starts], axis=0)
        out[lag] = [d2[types == t].mean() for t in range(nt)]
    return out
