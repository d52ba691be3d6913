#!/usr/bin/env python3
"""Checks that src/'s files depend downward only: every #include "..." in src/ names a file of
the same or a lower layer, the two backends include neither each other nor the I/O room, and no
two files call each other's functions in a loop (a.c calls b.c's, which calls back into a.c's,
directly or through others): every file can be read after the files it calls; and no source file
is over 600 lines (split it by what each part owns).

usage: tools/check_layers.py [SRC_DIR]   prints the violations; exit 1 if any
layers (low to high): physics/, util/ | config/, system/system, system/potential, system/eam, system/eam_files, system/computes, system/orientorder,
core/health,
parallel/ | core/backend | cpu/, gpu/, io/ | system/lattice, system/lammps_velocity, system/atom_groups, system/setup, the rest of core/ (run,
stepper, thermostat, skin_tuner) | cmd/, api/ (libmdlite) and its public header include/mdlite.h | main
"""
import os
import re
import sys

LAYERS = [("physics/", 0), ("util/", 0),
          ("config/", 1), ("system/system.", 1), ("system/potential.", 1), ("system/eam.", 1), ("system/eam_files.", 1), ("system/computes.", 1), ("system/orientorder.", 1), ("core/health.", 1), ("parallel/", 1),
          ("core/backend.", 2),
          ("cpu/", 3), ("gpu/", 3), ("io/", 3),
          ("system/lattice.", 4), ("system/lammps_velocity.", 4), ("system/atom_groups.", 4), ("system/setup.", 4), ("core/", 4),
          ("cmd/", 5), ("api/", 5), ("mdlite.h", 5), ("../include/", 5), ("main.", 6)]
ROOMS_APART = {"cpu/": ("gpu/", "io/"), "gpu/": ("cpu/", "io/"), "io/": ("cpu/", "gpu/")}


def layer(rel):
    for prefix, k in LAYERS:
        if rel.startswith(prefix):
            return k, prefix
    return None, None


def call_loops(src):
    """The loops of the graph 'file calls a function defined (not static) in another file'."""
    files = []
    for d, _, names in os.walk(src):
        files += [os.path.join(d, n) for n in names if n.endswith((".c", ".cu"))]
    text = {f: re.sub(r"/\*.*?\*/|//[^\n]*", "", open(f).read(), flags=re.S) for f in files}
    defined = {}
    for f, t in text.items():
        for m in re.finditer(r'^(?:extern "C" )?([A-Za-z_][\w \*]*?)\b([a-z][a-z0-9_]*)\s*\([^;{]*\)\s*\{', t, re.M):
            if "static" not in m.group(1).split():
                defined.setdefault(m.group(2), f)
    calls = {f: {g for name, g in defined.items() if g != f and re.search(r"\b" + name + r"\s*\(", t)}
             for f, t in text.items()}
    index, low, stack, on, loops = {}, {}, [], set(), []

    def visit(v):  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in calls[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                loops.append(sorted(os.path.relpath(c, src) for c in comp))

    for f in files:
        if f not in index:
            visit(f)
    return loops, sum(len(c) for c in calls.values())


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
    long = []
    for d, _, names in os.walk(src):
        for name in names:
            if name.endswith((".c", ".h", ".cu", ".cuh")):
                path = os.path.join(d, name)
                lines = open(path).read().count("\n")
                if lines > 600:
                    long.append(f"{os.path.relpath(path, src)} ({lines} lines)")
    for f in long:
        print("over 600 lines:", f)
    loops, calls = call_loops(src)
    for loop in loops:
        print("files calling each other in a loop:", ", ".join(loop))
    print(f"{edges} includes in {src}: {len(bad)} against the layers; {calls} calls between files: {len(loops)} loops")
    sys.exit(1 if bad or loops or long else 0)


if __name__ == "__main__":
    main()
