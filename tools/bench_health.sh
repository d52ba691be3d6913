#!/usr/bin/env bash
# Cost of a change on the step loop: two mdlite binaries (before, after) run alternately on the
# LAMMPS bench/in.lj system, 1,000 steps (200 on the CPU), with a displacement check every step;
# prints each size's median atom-steps/s of both and the ratio after/before.
# usage: tools/bench_health.sh BEFORE AFTER cpu|gpu [SIZES (cells)] [REPEATS]
# BENCH_SETS="section.key=value ..." adds --set options (e.g. a Langevin thermostat).
set -euo pipefail
cd "$(dirname "$0")/.."
before=$1 after=$2 backend=$3
sizes=${4:-"20 40 80"}
repeats=${5:-7}
steps=1000
[ "$backend" = cpu ] && steps=200
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
extra=()
for s in ${BENCH_SETS:-}; do extra+=(--set "$s"); done
perf() {
  "$1" run input/lj_melt.ini --backend "$backend" --quiet --set "system.cells=$2 $2 $2" --set run.steps=$steps \
    --set output.thermo=100 --set output.thermo_file= "${extra[@]}" | sed -n 's/^Performance: \([^ ]*\).*/\1/p'
}
printf "%10s %14s %14s %8s\n" atoms before after ratio
for c in $sizes; do
  : >/tmp/bench_b.$$; : >/tmp/bench_a.$$
  perf "$before" "$c" >/dev/null # warm-up
  for ((k = 0; k < repeats; k++)); do
    perf "$before" "$c" >>/tmp/bench_b.$$
    perf "$after" "$c" >>/tmp/bench_a.$$
  done
  b=$(median </tmp/bench_b.$$) a=$(median </tmp/bench_a.$$)
  printf "%10d %14.4g %14.4g %8.4f\n" $((4 * c * c * c)) "$b" "$a" "$(awk -v a="$a" -v b="$b" 'BEGIN {print a / b}')"
done
rm -f /tmp/bench_b.$$ /tmp/bench_a.$$
