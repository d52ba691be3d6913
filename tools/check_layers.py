#!/usr/bin/env python3
"""Checks that src/'s headers depend downward only: every #include "..." in src/ names a file of
the same or a lower layer, and the two backends include neither each other nor the I/O room.

usage: tools/check_layers.py [SRC_DIR]   prints the include graph's violations; exit 1 if any
layers (low to high): physics/ and util | ini, config, system, potential, health | backend |
cpu/, gpu/, io/ | lattice, setup, thermostat, stepper, skin_tuner, run | cmd/ | main
"""
import os
import re
import sys

LAYERS = [("physics/", 0), ("util.", 0), ("ini.", 1), ("config.", 1), ("config_schema.", 1), ("system.", 1), ("potential.", 1), ("health.", 1), ("comm.", 1), ("domain.", 1),
          ("backend.", 2), ("cpu/", 3), ("gpu/", 3), ("io/", 3), ("lattice.", 4), ("setup.", 4),
          ("thermostat.", 4), ("stepper.", 4), ("skin_tuner.", 4), ("run.", 4), ("cmd/", 5), ("main.", 6)]
ROOMS_APART = {"cpu/": ("gpu/", "io/"), "gpu/": ("cpu/", "io/"), "io/": ("cpu/", "gpu/")}


def layer(rel):
    for prefix, k in LAYERS:
        if rel.startswith(prefix):
            return k, prefix
    return None, None


def main():
    src = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "src"))
    bad, edges = [], 0
    for d, _, names in os.walk(src):
        for name in names:
            if not name.endswith((".c", ".h", ".cu", ".cuh")):
                continue
            path = os.path.join(d, name)
            rel = os.path.relpath(path, src)
            k, room = layer(rel)
            for inc in re.findall(r'#include "([^"]+)"', open(path).read()):
                target = os.path.relpath(os.path.normpath(os.path.join(d, inc)), src)
                if not os.path.exists(os.path.join(src, target)):
                    target = os.path.normpath(inc)
                tk, troom = layer(target)
                if k is None or tk is None:
                    bad.append(f"{rel} -> {target}: file in no layer")
                    continue
                edges += 1
                if tk > k and not target.startswith(os.path.dirname(rel) + "/") or (
                        troom in ROOMS_APART.get(room, ()) and troom != room):
                    bad.append(f"{rel} (layer {k}) -> {target} (layer {tk})")
    for b in bad:
        print("upward or sideways:", b)
    print(f"{edges} includes in {src}: {len(bad)} against the layers")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
