#!/usr/bin/env bash
# Output cost: 256,000 atoms (LJ melt), CPU backend, 500 steps, positions dumped to H5MD every 100
# steps against the same run without a trajectory; alternating, median of N (default 3) loop times.
# Usage: tools/bench_output.sh [N] [MDLITE] [extra --set arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-3}
mdlite=${2:-build/mdlite}
shift $(( $# > 2 ? 2 : $# ))
tmp=$(mktemp -d)
loop() { sed -n 's/^Loop time of \([^ ]*\).*/\1/p'; }
with=() without=()
for _ in $(seq "$n"); do
  without+=("$("$mdlite" run input/lj_melt.ini --quiet --set "system.cells=40 40 40" --set run.steps=500 \
    --set output.thermo=100 --set output.thermo_file= "$@" | loop)")
  with+=("$("$mdlite" run input/lj_melt.ini --quiet --set "system.cells=40 40 40" --set run.steps=500 \
    --set output.thermo=100 --set output.thermo_file= --set output.trajectory="$tmp/traj.h5md" \
    --set output.dump_every=100 --set output.dump_fields=position "$@" | loop)")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
a=$(median "${without[@]}") b=$(median "${with[@]}")
echo "256,000 atoms, 500 steps: without trajectory ${a} s, with positions every 100 steps ${b} s (median of $n)"
python3 -c "print(f'output overhead: {100 * ($b - $a) / $a:.2f}% (target <= 5%)')"
ls -l "$tmp/traj.h5md" | awk '{print "file size:", $5, "bytes"}'
rm -rf "$tmp"
