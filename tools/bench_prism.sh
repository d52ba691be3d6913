#!/usr/bin/env bash
# in.lj's liquid in a sheared box against the same liquid in an orthogonal one: LAMMPS's bench/in.lj
# (fcc 0.8442, cutoff 2.5, neigh_modify delay 0 every 20 check no, NVE) in `region box prism 0 N 0 N
# 0 N N/5 -N/10 N/10` and in `region box block 0 N 0 N 0 N`, alternated, REPEATS runs of each;
# prints each run's atom-steps/s (mdlite's summary), the medians and their ratio (prism / block).
# Usage: tools/bench_prism.sh MDLITE [BACKEND (gpu)] [N (40)] [STEPS (1000)] [REPEATS (5)] [--set ...]
set -euo pipefail
bin=$(realpath "$1") backend=${2:-gpu} n=${3:-40} steps=${4:-1000} repeats=${5:-5}
shift $(($# < 5 ? $# : 5))
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for shape in prism block; do
  region="region box block 0 $n 0 $n 0 $n"
  [ $shape = prism ] && region="region box prism 0 $n 0 $n 0 $n $(awk -v n="$n" 'BEGIN {print n / 5, -n / 10, n / 10}')"
  cat > "$dir/in.$shape" <<SCRIPT
units lj
atom_style atomic
lattice fcc 0.8442
$region
create_box 1 box
create_atoms 1 box
mass 1 1.0
velocity all create 1.44 87287 loop geom
pair_style lj/cut 2.5
pair_coeff 1 1 1.0 1.0
neighbor 0.3 bin
neigh_modify delay 0 every 20 check no
fix 1 all nve
thermo 100
run $steps
SCRIPT
done
run_one() { # SHAPE
  (cd "$dir" && "$bin" run "in.$1" --backend "$backend" --quiet --overwrite --set output.thermo_file= "${@:2}") |
    sed -n 's/^Performance: \([^ ]*\).*/\1/p'
}
median() { tr ' ' '\n' | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
rp="" rb=""
for ((k = 0; k < repeats; k++)); do
  rp+=" $(run_one prism "$@")"
  rb+=" $(run_one block "$@")"
done
mp=$(echo $rp | median) mb=$(echo $rb | median)
echo "runs ($backend, $((4 * n * n * n)) atoms, $steps steps): prism$rp; block$rb"
printf "prism %.4g block %.4g prism/block %.4f\n" "$mp" "$mb" "$(awk -v x="$mb" -v y="$mp" 'BEGIN {print y / x}')"
