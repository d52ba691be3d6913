#!/usr/bin/env bash
# CPU benchmark: LAMMPS bench/in.lj against mdlite's input/lj_melt.ini (same physics) at 32,000 and
# 256,000 atoms, one thread, run alternately, median of N (default 5) whole-command wall times; also
# mdlite's 2-thread speed-up and peak RSS per atom; with --eam, LAMMPS's bench/in.eam (pair_style eam
# and eam/opt) against input/eam_cu.ini. Usage: tools/bench_cpu.sh [N] [--eam]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-5}
shift $(($# > 0 ? 1 : 0))
exec python3 tools/bench_cpu.py --repeat "$n" "$@"
