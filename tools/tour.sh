#!/usr/bin/env bash
# The figures of docs/TOUR.md: each technique on and off, one mdlite command each, LAMMPS's in.lj
# physics (fcc 0.8442, cutoff 2.5, skin 0.3, NVE), median of REPEATS runs. Run on the GPU machine
# after `source .gpu/env.sh`.
# usage: tools/tour.sh [MDLITE] [MDLITE_DOUBLE] [REPEATS]
set -euo pipefail
cd "$(dirname "$0")/.."
m=${1:-.gpu/bin/mdlite}
md=${2:-.gpu/bin/mdlite-double}
repeats=${3:-3}
tmp=$(mktemp -d)
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
# run NAME BINARY CELLS [--set k=v ...]: median atom-steps/s of 1,000 steps (loop time, mdlite's summary)
run() {
  local name=$1 bin=$2 cells=$3
  shift 3
  for ((k = 0; k < repeats; k++)); do
    "$bin" run input/lj_melt.ini --backend gpu --quiet --set "system.cells=$cells $cells $cells" \
      --set run.steps=1000 --set output.thermo=100 --set output.thermo_file= --overwrite "$@" >"$tmp/out"
    sed -n 's/^Performance: \([^ ]*\).*/\1/p' "$tmp/out"
  done | median | xargs printf "%-58s %12.4g atom-steps/s\n" "$name"
}
"$m" info | grep -E "^GPU|precision"

echo "== neighbor builders, 256,000 atoms (perturbed fcc), median of 5 builds =="
L=$(python3 tools/gen_fcc.py 40 "$tmp/fcc256k.xyz")
for method in brute-atomic brute cell; do
  for layout in transposed row; do
    "$m" neighbors "$tmp/fcc256k.xyz" --cutoff 2.8 --box "$L" "$L" "$L" --backend gpu --method $method \
      --layout $layout --repeat 5 --output "$tmp/nb.txt" --overwrite | sed 's/^neighbors: //'
  done
done
"$m" neighbors "$tmp/fcc256k.xyz" --cutoff 2.8 --box "$L" "$L" "$L" --backend cpu --repeat 5 \
  --output "$tmp/nb.txt" --overwrite | sed 's/^neighbors: //'

echo "== whole runs, 1,000 steps, median of $repeats =="
run "256,000 atoms, transposed list (default)" "$m" 40
run "256,000 atoms, row list ([neighbor] layout = row)" "$m" 40 --set neighbor.layout=row
run "256,000 atoms, phases synchronised (sync_phases = yes)" "$m" 40 --set output.sync_phases=yes
run "256,000 atoms, thermo every step (a reduction a step)" "$m" 40 --set output.thermo=1
for every in 100 10; do
  run "256,000 atoms, frames every $every steps, writer thread" "$m" 40 --set output.dump_every=$every \
    --set "output.trajectory=$tmp/a.h5md"
  run "256,000 atoms, frames every $every steps, no thread (async = no)" "$m" 40 --set output.dump_every=$every \
    --set "output.trajectory=$tmp/s.h5md" --set output.async=no
done
run "32,000 atoms, lists built directly (default)" "$m" 20
run "32,000 atoms, pruned from an outer list (outer_skin = 0.8)" "$m" 20 --set neighbor.outer_skin=0.8
run "2,048,000 atoms, mixed precision" "$m" 80
run "2,048,000 atoms, double precision" "$md" 80
run "8,388,608 atoms, mixed precision" "$m" 128

echo "== phases at 256,000 atoms, synchronised (s per 1,000 steps) =="
"$m" run input/lj_melt.ini --backend gpu --quiet --set "system.cells=40 40 40" --set run.steps=1000 \
  --set output.thermo=100 --set output.thermo_file= --set output.sync_phases=yes | grep -E "^(Neighbor|Force|Integrate|Thermo) "
rm -rf "$tmp"
