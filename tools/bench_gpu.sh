#!/usr/bin/env bash
# GPU benchmark: LAMMPS bench/in.lj physics (fcc 0.8442, cutoff 2.5, skin 0.3, NVE, dt 0.005,
# thermo every 100) at 32,000 / 256,000 / 2,048,000 / 8,388,608 atoms, 1,000 steps, atom-steps/s
# from mdlite's own summary; each neighbor builder's time at 256k and on the 2-d demo set; force
# kernel time with the transposed and the row layout. Usage: tools/bench_gpu.sh [MDLITE] [SIZES]
set -euo pipefail
cd "$(dirname "$0")/.."
mdlite=${1:-build/mdlite}
sizes=${2:-"20 40 80 128"}
tmp=$(mktemp -d)
"$mdlite" info | grep -E "^GPU|precision"

echo
echo "== MD steps (1,000 steps after set-up; Performance from mdlite's summary) =="
printf "%10s %14s %12s %10s %8s\n" atoms atom-steps/s loop_s builds B/atom
for c in $sizes; do
  out=$("$mdlite" run input/lj_melt.ini --backend gpu --quiet --set "system.cells=$c $c $c" \
        --set run.steps=1000 --set output.thermo=100 --set output.thermo_file=)
  printf "%10d %14s %12s %10s %8s\n" $((4 * c * c * c)) \
    "$(sed -n 's/^Performance: \([^ ]*\).*/\1/p' <<<"$out")" \
    "$(sed -n 's/^Loop time of \([^ ]*\).*/\1/p' <<<"$out")" \
    "$(sed -n 's/^Neighbor list builds = //p' <<<"$out")" \
    "$(sed -n 's/.*(\([0-9]*\) bytes\/atom).*/\1/p' <<<"$out")"
done

echo
echo "== phases at 256,000 atoms, synchronised per phase ([output] sync_phases = yes), 500 steps =="
for layout in transposed row; do
  echo "-- layout $layout"
  "$mdlite" run input/lj_melt.ini --backend gpu --quiet --set "system.cells=40 40 40" \
    --set output.sync_phases=yes --set run.steps=500 --set output.thermo=100 --set output.thermo_file= --set "neighbor.layout=$layout" |
    grep -E "^(Neighbor|Force|Integrate|Thermo|Loop)"
done

echo
echo "== neighbor builders (median of 5 builds, CUDA events) =="
L=$(python3 tools/gen_fcc.py 40 "$tmp/fcc256k.xyz")
for m in cell brute brute-atomic; do
  for layout in transposed row; do
    echo "256k fcc  $("$mdlite" neighbors "$tmp/fcc256k.xyz" --cutoff 2.8 --box "$L" "$L" "$L" --backend gpu \
      --method $m --layout $layout --repeat 5 --output "$tmp/nb.txt" --overwrite)"
  done
done
echo "256k fcc  $("$mdlite" neighbors "$tmp/fcc256k.xyz" --cutoff 2.8 --box "$L" "$L" "$L" --backend cpu \
      --method cell --repeat 5 --output "$tmp/nb.txt" --overwrite)"
for m in cell brute brute-atomic; do
  echo "2-d sheet $("$mdlite" neighbors examples/xy.txt --cutoff 1.9 --backend gpu --method $m --repeat 5 \
      --output "$tmp/nb.txt" --overwrite)"
done
echo "2-d sheet $("$mdlite" neighbors examples/xy.txt --cutoff 1.9 --backend cpu --method cell --repeat 5 \
      --output "$tmp/nb.txt" --overwrite)"
rm -rf "$tmp"
