#!/usr/bin/env bash
# Output overlap on the GPU: 2,048,000 atoms, 2,000 steps, positions to H5MD every 100 steps, with
# asynchronous output, synchronous output and no output; then 256,000 atoms dumping every 10 steps
# (both variants). Whole-command wall time and loop time, and a --profile timeline of the 2M
# asynchronous run. Usage: tools/bench_async.sh [MDLITE] [OUTDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
mdlite=${1:-build/mdlite}
out=${2:-.}
tmp=$(mktemp -d)
one() { # label cells steps dump_every variant [extra...]
  local label=$1 cells=$2 steps=$3 every=$4 variant=$5; shift 5
  local sets=(--set "system.cells=$cells $cells $cells" --set "run.steps=$steps" --set output.thermo=100
              --set output.thermo_file= --set output.dump_fields=position --set "output.dump_every=$every")
  case $variant in
    none) ;;
    async) sets+=(--set output.async=yes --set "output.trajectory=$tmp/t.h5md") ;;
    sync) sets+=(--set output.async=no --set "output.trajectory=$tmp/t.h5md") ;;
  esac
  local t0 t1 res
  t0=$(date +%s.%N)
  res=$("$mdlite" run input/lj_melt.ini --backend gpu --quiet "${sets[@]}" "$@")
  t1=$(date +%s.%N)
  printf "%-28s %-6s wall %8.3f s  loop %8.3f s  output %8.3f s\n" "$label" "$variant" \
    "$(python3 -c "print($t1 - $t0)")" "$(sed -n 's/^Loop time of \([^ ]*\).*/\1/p' <<<"$res")" \
    "$(sed -n 's/^Output *| *\([^ ]*\).*/\1/p' <<<"$res")"
  rm -f "$tmp/t.h5md"
}
for rep in 1 2; do
  for v in none async sync; do one "2,048,000 atoms, every 100" 80 2000 100 $v; done
done
for rep in 1 2; do
  for v in none async sync; do one "256,000 atoms, every 10" 40 2000 10 $v; done
done
one "2,048,000 atoms, every 100" 80 2000 100 async --profile "$out/timeline_2M_async.csv"
one "2,048,000 atoms, every 100" 80 2000 100 sync --profile "$out/timeline_2M_sync.csv"
rm -rf "$tmp"
