#!/usr/bin/env python3
"""Writes examples/xy.txt: a 2-D honeycomb sheet (bond 1.42 A) in a ~243 A square, for `mdlite neighbors`.

Rectangular cells of a x a*sqrt(3) (a = sqrt(3) * bond) hold 4 atoms each; 99 x 57 cells give
22,572 atoms. With a cutoff of 1.9 A every atom has 1 to 3 neighbours (open boundaries).
Usage: tools/gen_xy.py [OUTPUT]   (default examples/xy.txt)
"""
import math
import sys

BOND = 1.42
NX, NY = 99, 57


def honeycomb(nx, ny, bond):
    a = math.sqrt(3.0) * bond
    b = 3.0 * bond  # the rectangle's height, a * sqrt(3)
    basis = [(0.0, 0.0), (0.5 * a, 0.5 * bond), (0.5 * a, 1.5 * bond), (0.0, 2.0 * bond)]
    for j in range(ny):
        for i in range(nx):
            for bx, by in basis:
                yield i * a + bx, j * b + by


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "examples/xy.txt"
    with open(out, "w") as f:
        for x, y in honeycomb(NX, NY, BOND):
            f.write(f"{x:.10f} {y:.10f}\n")


if __name__ == "__main__":
    main()
