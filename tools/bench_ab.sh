#!/usr/bin/env bash
# Two mdlite binaries on the GPU, alternated: LAMMPS bench/in.lj (input/lj_melt.ini, or CONFIG), NVE,
# 1,000 steps, thermo every 100, REPEATS runs of each at each size, atom-steps/s from the summary;
# prints each run, then the medians and their ratio (B / A). Usage:
# tools/bench_ab.sh A B [SIZES (cells per edge, "20 40 80")] [REPEATS (3)] [CONFIG] [--set ...]
set -euo pipefail
cd "$(dirname "$0")/.."
a=$1 b=$2
sizes=${3:-"20 40 80"} repeats=${4:-3} cfg=${5:-input/lj_melt.ini}
shift $(($# < 5 ? $# : 5))
run_one() { # BINARY CELLS [--set ...]
  local bin=$1 c=$2
  shift 2
  "$bin" run "$cfg" --backend gpu --quiet --set "system.cells=$c $c $c" --set run.steps=1000 \
    --set output.thermo=100 --set output.thermo_file= --set output.trajectory= "$@" |
    sed -n 's/^Performance: \([^ ]*\).*/\1/p'
}
median() { tr ' ' '\n' | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
printf "%10s %12s %12s %8s\n" atoms A B B/A
for c in $sizes; do
  ra="" rb=""
  for ((k = 0; k < repeats; k++)); do
    ra+=" $(run_one "$a" "$c" "$@")"
    rb+=" $(run_one "$b" "$c" "$@")"
  done
  ma=$(echo $ra | median) mb=$(echo $rb | median)
  echo "runs at $((4 * c * c * c)) atoms: A$ra; B$rb"
  printf "%10d %12.4g %12.4g %8.4f\n" $((4 * c * c * c)) "$ma" "$mb" "$(awk -v x="$ma" -v y="$mb" 'BEGIN {print y / x}')"
done
