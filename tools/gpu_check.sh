#!/usr/bin/env bash
# The whole GPU check in one device call: info, the gpu-labelled tests for the mixed and double
# builds, compute-sanitizer on small cases. Run from the repo root on the GPU machine after
# `source .gpu/env.sh`; expects .gpu/bin/mdlite, .gpu/bin/mdlite-double and .gpu/ref/ (copies of
# ../shared/reference made by tools/gpu_bundle.sh). Usage: tools/gpu_check.sh [CASES...]
set -uo pipefail
cd "$(dirname "$0")/.."
m=.gpu/bin/mdlite
md=.gpu/bin/mdlite-double
cases=${*:-"compare neighbors determinism thermostats trajectory drift"}
fails=0
"$m" info
echo "=== cuRAND on the device vs the host replica"
.gpu/bin/test_rng_gpu || fails=$((fails + 1))
echo "=== both backends through the table"
.gpu/bin/test_backends --jobs 1 || fails=$((fails + 1))
for c in $cases; do
  echo "=== mixed: $c"
  python3 tests/e2e/gpu.py "$m" input "$c" .gpu/ref || fails=$((fails + 1))
done
for c in identical throttled timeline; do
  echo "=== mixed: output $c"
  python3 tests/e2e/output.py "$m" input "$c" gpu || fails=$((fails + 1))
done
for c in compare thermostats drift; do
  echo "=== double: $c"
  python3 tests/e2e/gpu.py "$md" input "$c" .gpu/ref || fails=$((fails + 1))
done
if command -v compute-sanitizer >/dev/null; then
  tmp=$(mktemp -d)
  for tool in memcheck racecheck synccheck; do
    for method in cell brute brute-atomic; do
      echo "=== compute-sanitizer $tool, run, $method"
      compute-sanitizer --tool $tool --error-exitcode 9 "$m" run input/lj_melt.ini --backend gpu --quiet \
        --set system.cells="5 5 5" --set run.steps=30 --set "neighbor.method=$method" \
        --set run.ensemble=nvt-langevin --set run.target_temperature=1 --set run.tau=1 \
        --set output.thermo_file= --set neighbor.max_neighbors=8 2>&1 | grep -E "ERROR SUMMARY|error" || true
      [ "${PIPESTATUS[0]}" -eq 0 ] || fails=$((fails + 1))
    done
    echo "=== compute-sanitizer $tool, asynchronous output"
    compute-sanitizer --tool $tool --error-exitcode 9 "$m" run input/lj_melt.ini --backend gpu --quiet \
      --set system.cells="5 5 5" --set run.steps=40 --set output.dump_every=2 --set output.buffers=2 \
      --set "output.dump_fields=position velocity force image" --set output.thermo_file= \
      --set "output.trajectory=$tmp/async.h5md" 2>&1 | grep -E "ERROR SUMMARY|error" || true
    [ "${PIPESTATUS[0]}" -eq 0 ] || fails=$((fails + 1))
    echo "=== compute-sanitizer $tool, neighbors demo, row layout"
    head -n 3000 examples/xy.txt > "$tmp/small.xy"
    compute-sanitizer --tool $tool --error-exitcode 9 "$m" neighbors "$tmp/small.xy" --cutoff 1.9 --backend gpu \
      --method brute-atomic --layout row --output "$tmp/nb.txt" 2>&1 | grep -E "ERROR SUMMARY|error" || true
    [ "${PIPESTATUS[0]}" -eq 0 ] || fails=$((fails + 1))
  done
fi
echo "gpu_check: $fails failed"
[ "$fails" -eq 0 ]
