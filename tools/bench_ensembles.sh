#!/usr/bin/env bash
# The thermostat's cost on the GPU: in.lj (fcc 0.8442, cutoff 2.5, skin 0.3, dt 0.005, thermo every
# 100, 1,000 steps) under NVE and under nvt-nose-hoover (target 1.44, tau 0.5), alternated, REPEATS
# times each; the median atom-steps/s of each and their ratio. Usage:
# tools/bench_ensembles.sh [MDLITE] [CELLS] [REPEATS]   (CELLS 80: 2,048,000 atoms)
set -euo pipefail
cd "$(dirname "$0")/.."
mdlite=${1:-build/mdlite}
c=${2:-80}
repeats=${3:-5}
"$mdlite" info | grep -E "^GPU|precision"
declare -A runs
for ((k = 0; k < repeats; k++)); do
  for ens in nve nvt-nose-hoover; do
    out=$("$mdlite" run input/lj_melt.ini --backend gpu --quiet --set "system.cells=$c $c $c" --set run.steps=1000 \
          --set output.thermo=100 --set output.thermo_file= --set run.ensemble=$ens --set run.target_temperature=1.44 \
          --set run.tau=0.5 2>/dev/null)
    runs[$ens]+="$(sed -n 's/^Performance: \([^ ]*\).*/\1/p' <<<"$out") "
  done
done
median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
nve=$(median "${runs[nve]}")
nh=$(median "${runs[nvt-nose-hoover]}")
echo "atoms $((4 * c * c * c)): NVE ${runs[nve]}-> median $nve"
echo "atoms $((4 * c * c * c)): nvt-nose-hoover ${runs[nvt-nose-hoover]}-> median $nh"
awk -v a="$nh" -v b="$nve" 'BEGIN {printf "nvt-nose-hoover / NVE = %.4f\n", a / b}'
