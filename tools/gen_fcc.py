#!/usr/bin/env python3
"""An fcc lattice at in.lj's density (0.8442), each atom moved by up to 0.05 at random (seeded), in a
periodic box, as xyz for `mdlite neighbors` (the GPU benchmarks' builder input); prints the box length.

usage: tools/gen_fcc.py CELLS OUT.xyz   (4 * CELLS^3 atoms)
"""
import random
import sys

cells, out = int(sys.argv[1]), sys.argv[2]
a = (4 / 0.8442) ** (1 / 3)
L = a * cells
rng = random.Random(1)
basis = [(0, 0, 0), (.5, .5, 0), (.5, 0, .5), (0, .5, .5)]
with open(out, "w") as f:
    f.write(f"{4 * cells ** 3}\nfcc, box {L!r}\n")
    for k in range(cells):
        for j in range(cells):
            for i in range(cells):
                for b in basis:
                    p = [((c + bc) * a + 0.1 * (rng.random() - 0.5)) % L for c, bc in zip((i, j, k), b)]
                    f.write(f"A {p[0]:.9f} {p[1]:.9f} {p[2]:.9f}\n")
print(L)
