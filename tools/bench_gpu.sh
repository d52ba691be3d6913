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
python3 - "$tmp/fcc256k.xyz" <<'PY'
import random, sys
a = (4 / 0.8442) ** (1 / 3); n = 40; L = a * n; r = random.Random(1)
basis = [(0, 0, 0), (.5, .5, 0), (.5, 0, .5), (0, .5, .5)]
with open(sys.argv[1], "w") as f:
    f.write(f"{4 * n ** 3}\nfcc 256k, box {L!r}\n")
    for k in range(n):
        for j in range(n):
            for i in range(n):
                for b in basis:
                    p = [((c + bc) * a + 0.1 * (r.random() - 0.5)) % L for c, bc in zip((i, j, k), b)]
                    f.write(f"A {p[0]:.9f} {p[1]:.9f} {p[2]:.9f}\n")
print(L)
PY
L=$(python3 -c "print((4 / 0.8442) ** (1 / 3) * 40)")
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
