#!/usr/bin/env bash
# The on-the-fly analysis's cost on the GPU: in.lj (fcc 0.8442, cutoff 2.5, skin 0.3, dt 0.005,
# thermo every 100, 1,000 steps, NVE) without [analysis] and with g(r) (100 bins to the cutoff) and
# the MSD sampled every EVERY steps, alternated, REPEATS times each; the medians and their ratio.
# A run from a lattice samples its melt: both runs make the same steps (the samples break no
# chained step that thermo rows do not break already when EVERY is a multiple of 100).
# Usage: tools/bench_analysis.sh [MDLITE] [CELLS] [REPEATS] [EVERY]   (CELLS 80: 2,048,000 atoms)
set -euo pipefail
cd "$(dirname "$0")/.."
mdlite=${1:-build/mdlite}
c=${2:-80}
repeats=${3:-3}
every=${4:-100}
"$mdlite" info | grep -E "^GPU|precision"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
common=(run input/lj_melt.ini --backend gpu --quiet --set "system.cells=$c $c $c" --set output.thermo=100
        --set run.steps=1000 --set output.thermo_file=)
with=(--set analysis.rdf_every="$every" --set analysis.msd_every="$every" --set analysis.rdf_file="$tmp/rdf.csv"
      --set analysis.msd_file="$tmp/msd.csv")
plain="" analysed=""
for ((k = 0; k < repeats; k++)); do
  plain+="$("$mdlite" "${common[@]}" | sed -n 's/^Performance: \([^ ]*\).*/\1/p') "
  analysed+="$("$mdlite" "${common[@]}" "${with[@]}" | sed -n 's/^Performance: \([^ ]*\).*/\1/p') "
done
median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
a=$(median "$plain") b=$(median "$analysed")
echo "atoms $((4 * c * c * c)): without analysis $plain-> median $a"
echo "atoms $((4 * c * c * c)): g(r) and MSD every $every steps $analysed-> median $b"
awk -v a="$a" -v b="$b" 'BEGIN {printf "with / without = %.4f (cost %.2f%% of the step)\n", b / a, 100 * (a / b - 1)}'
