#!/usr/bin/env bash
# The thermostat's and barostat's cost on the GPU: in.lj (fcc 0.8442, cutoff 2.5, skin 0.3, dt 0.005,
# thermo every 100, 1,000 steps) under NVE, nvt-nose-hoover (target 1.44, tau 0.5) and npt-nose-hoover
# (tau 0.5, pressure_tau 5), alternated, REPEATS times each; the median atom-steps/s of each and their
# ratios to NVE's. START:
#   lattice       in.lj as it is: the lattice at T 1.44, which melts and cools to ~0.7 under NVE while
#                 the thermostat heats it back to 1.44 (more list builds), NPT's target pressure 5
#   equilibrated  every run continues one state, 2,000 steps of nvt-nose-hoover at 1.44 from the
#                 lattice, NPT's target pressure that state's: the ensembles' own cost at equal physics
# Usage: tools/bench_ensembles.sh [MDLITE] [CELLS] [REPEATS] [START]   (CELLS 80: 2,048,000 atoms)
set -euo pipefail
cd "$(dirname "$0")/.."
mdlite=${1:-build/mdlite}
c=${2:-80}
repeats=${3:-5}
start=${4:-lattice}
"$mdlite" info | grep -E "^GPU|precision"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
common=(run input/lj_melt.ini --backend gpu --quiet --set "system.cells=$c $c $c" --set output.thermo=100)
nvt=(--set run.target_temperature=1.44 --set run.tau=0.5)
pressure=5
from=()
if [ "$start" = equilibrated ]; then
  "$mdlite" "${common[@]}" --set run.steps=2000 --set run.ensemble=nvt-nose-hoover "${nvt[@]}" \
    --set output.thermo_file="$tmp/eq.csv" --set output.trajectory="$tmp/eq.h5md" --set output.dump_every=2000 \
    >/dev/null
  pressure=$(tail -n 1 "$tmp/eq.csv" | cut -d, -f7)
  from=(--restart "$tmp/eq.h5md")
  echo "start: 2,000 steps of nvt-nose-hoover, T $(tail -n 1 "$tmp/eq.csv" | cut -d, -f3), pressure $pressure"
fi
declare -A runs
for ((k = 0; k < repeats; k++)); do
  for ens in nve nvt-nose-hoover npt-nose-hoover; do
    keys=()
    [ $ens = nve ] || keys=("${nvt[@]}")
    [ $ens != npt-nose-hoover ] || keys+=(--set run.target_pressure="$pressure" --set run.pressure_tau=5)
    out=$("$mdlite" "${common[@]}" "${from[@]}" --set run.steps=1000 --set output.thermo_file= \
          --set output.trajectory= --set run.ensemble=$ens "${keys[@]}" 2>/dev/null)
    runs[$ens]+="$(sed -n 's/^Performance: \([^ ]*\).*/\1/p' <<<"$out") "
    echo "$ens: $(grep -E "^Neighbor list builds" <<<"$out")" >>"$tmp/builds"
  done
done
median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
nve=$(median "${runs[nve]}")
echo "atoms $((4 * c * c * c)), start $start: NVE ${runs[nve]}-> median $nve"
for ens in nvt-nose-hoover npt-nose-hoover; do
  m=$(median "${runs[$ens]}")
  echo "atoms $((4 * c * c * c)), start $start: $ens ${runs[$ens]}-> median $m"
  awk -v a="$m" -v b="$nve" -v e="$ens" 'BEGIN {printf "%s / NVE = %.4f\n", e, a / b}'
done
sort "$tmp/builds" | uniq -c
