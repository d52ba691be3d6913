#!/usr/bin/env bash
# Decomposed runs on the CPU backend: LAMMPS bench/in.lj physics, each RANKSxTHREADS layout run
# REPEATS times (median atom-steps/s), with the Comm phase's share and the atoms per rank.
# usage: tools/bench_mpi.sh MDLITE CELLS STEPS REPEATS "1x16 2x8 4x4 16x1 ..." [mpirun options...]
set -euo pipefail
cd "$(dirname "$0")/.."
mdlite=$1 cells=$2 steps=$3 repeats=$4 layouts=$5
shift 5
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
printf "%8s %10s %14s %8s %s\n" layout atoms atom-steps/s comm% "atoms per rank"
for layout in $layouts; do
  ranks=${layout%x*} threads=${layout#*x}
  : >/tmp/bench_mpi.$$
  for ((k = 0; k < repeats; k++)); do
    mpirun --oversubscribe --bind-to none -np "$ranks" "$@" "$mdlite" run input/lj_melt.ini --backend cpu \
      --set "system.cells=$cells $cells $cells" --set run.steps="$steps" --set run.threads="$threads" \
      --set output.thermo=100 --set output.thermo_file= >/tmp/bench_mpi_out.$$
    perf=$(sed -n 's/^Performance: \([^ ]*\).*/\1/p' /tmp/bench_mpi_out.$$)
    comm=$(awk -F'|' '/^Comm /{print $3}' /tmp/bench_mpi_out.$$)
    echo "$perf ${comm:-0}" >>/tmp/bench_mpi.$$
  done
  p=$(awk '{print $1}' /tmp/bench_mpi.$$ | median) c=$(awk '{print $2}' /tmp/bench_mpi.$$ | median)
  per=$(sed -n 's/^Atoms per rank = \([^;]*\);.*/\1/p' /tmp/bench_mpi_out.$$)
  printf "%8s %10d %14.4g %8.2f %s\n" "$layout" $((4 * cells * cells * cells)) "$p" "$c" "${per:-all}"
done
rm -f /tmp/bench_mpi.$$ /tmp/bench_mpi_out.$$
