#!/usr/bin/env bash
# GPU scaling over ranks (one GPU each): LAMMPS bench/in.lj physics, mixed precision, each
# RANKS:CX,CY,CZ layout run REPEATS times (median atom-steps/s), per GPU, the Comm phase's share
# (migration, ghosts and their packing, timed on the device) and the atoms per rank. One rank runs
# without mpirun (the one-GPU path).
# usage: tools/bench_gpu_mpi.sh MDLITE STEPS REPEATS "1:80,80,80 2:80,80,160 ..." [mpirun options...]
# BENCH_SETS="section.key=value ..." adds --set options (e.g. run.gpu_comm=mpi).
set -euo pipefail
cd "$(dirname "$0")/.."
mdlite=$1 steps=$2 repeats=$3 layouts=$4
shift 4
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
tmp=$(mktemp -d)
extra=()
for s in ${BENCH_SETS:-}; do extra+=(--set "$s"); done
printf "%6s %12s %14s %14s %8s %s\n" ranks atoms atom-steps/s per-GPU comm% "decomposition; atoms per rank"
for layout in $layouts; do
  ranks=${layout%%:*} cells=${layout#*:}
  cells=${cells//,/ }
  launch=()
  [ "$ranks" -gt 1 ] && launch=(mpirun --bind-to none -x NCCL_NVLS_ENABLE -np "$ranks" "$@")
  : >"$tmp/runs"
  for ((k = 0; k < repeats; k++)); do
    "${launch[@]}" "$mdlite" run input/lj_melt.ini --backend gpu --set "system.cells=$cells" \
      --set run.steps="$steps" --set output.thermo=100 --set output.thermo_file= "${extra[@]}" >"$tmp/out"
    perf=$(sed -n 's/^Performance: \([^ ]*\).*/\1/p' "$tmp/out")
    comm=$(awk -F'|' '/^Comm /{print $3}' "$tmp/out")
    echo "$perf ${comm:-0}" >>"$tmp/runs"
  done
  p=$(awk '{print $1}' "$tmp/runs" | median) c=$(awk '{print $2}' "$tmp/runs" | median)
  atoms=$(sed -n 's/.* \([0-9]*\) atoms.*/\1/p' "$tmp/out" | head -1)
  dec=$(sed -n 's/^Decomposition = //p' "$tmp/out")
  per=$(sed -n 's/^Atoms per rank = \([^;]*\);.*/\1/p' "$tmp/out")
  pergpu=$(awk -v p="$p" -v r="$ranks" 'BEGIN {print p / r}')
  printf "%6d %12s %14.4g %14.4g %8.2f %s\n" "$ranks" "${atoms:-?}" "$p" "$pergpu" "$c" \
    "${dec:-one GPU}${per:+; $per}"
done
rm -rf "$tmp"
