#!/usr/bin/env bash
# The whole GPU check in one device call: info, the gpu-labelled tests for the mixed and double
# builds, compute-sanitizer on small cases. Run from the repo root on the GPU machine after
# `source .gpu/env.sh`; expects .gpu/bin/mdlite, .gpu/bin/mdlite-double and .gpu/ref/ (copies of
# ../shared/reference made by tools/gpu_bundle.sh). Usage: tools/gpu_check.sh [tests|sanitizers] [CASES...]
# (tests: the tests alone, sanitizers: compute-sanitizer alone but EAM's, eam-sanitizers: EAM's alone;
# each fits one 10-minute device call)
set -uo pipefail
cd "$(dirname "$0")/.."
m=.gpu/bin/mdlite
md=.gpu/bin/mdlite-double
part=all
case "${1:-}" in tests|sanitizers|eam-sanitizers) part=$1; shift ;; esac
cases=${*:-"compare morse eam scripts minimize neighbors determinism thermostats barostat trajectory drift overflow analysis cells dim2 csvr ramps stage_velocities boundary persistent eam_ensembles"}
fails=0
if [ -d .gpu/potentials ] && [ ! -d /usr/share/lammps/potentials ]; then # the EAM cases' files (gpu_bundle.sh)
  mkdir -p /usr/share/lammps/potentials
  for f in .gpu/potentials/*.gz; do gunzip -c "$f" > "/usr/share/lammps/potentials/$(basename "$f" .gz)"; done
fi
"$m" info
if [ "$part" = all ] || [ "$part" = tests ]; then
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
# double precision packs its rows: below 65,536 atoms relative to each row's atom (the staged builder)
for c in compare morse eam scripts minimize thermostats barostat drift overflow neighbors analysis dim2 csvr ramps stage_velocities boundary persistent eam_ensembles; do
  echo "=== double: $c"
  python3 tests/e2e/gpu.py "$md" input "$c" .gpu/ref || fails=$((fails + 1))
done
# the builders, force lanes and sorts are chosen by size (docs/ARCHITECTURE.md): gpu.py's cases run
# each at the sizes where it is chosen. Packed lists are double precision's; mixed packs when asked
for c in compare neighbors overflow; do
  echo "=== mixed, packed lists ([neighbor] list = packed): $c"
  python3 tests/e2e/gpu.py "$m" input "$c" .gpu/ref packed || fails=$((fails + 1))
done
for bin in "$m" "$md"; do
  echo "=== $(basename "$bin"): observing a run never changes it (the state at step 1,000 bit for bit)"
  python3 tests/e2e/observe.py gpu "$bin" || fails=$((fails + 1))
  echo "=== $(basename "$bin"): a run stopped and restarted is the run never stopped (bit for bit at step 1,000)"
  python3 tests/e2e/observe.py restart_gpu "$bin" || fails=$((fails + 1))
  echo "=== $(basename "$bin"): EAM: observing never changes it, a restart is the run never stopped"
  python3 tests/e2e/observe.py eam_gpu "$bin" || fails=$((fails + 1))
  echo "=== $(basename "$bin"): packed against plain lists"
  python3 tests/e2e/gpu.py "$bin" input packed || fails=$((fails + 1))
  echo "=== $(basename "$bin"): kicks chained (double: folded into the force pass) against apart"
  python3 tests/e2e/gpu.py "$bin" input fold || fails=$((fails + 1))
  echo "=== $(basename "$bin"): lists pruned from an outer list against direct ones"
  python3 tests/e2e/gpu.py "$bin" input prune || fails=$((fails + 1))
  echo "=== $(basename "$bin"): the counting sort by cell against CUB's radix sort"
  python3 tests/e2e/gpu.py "$bin" input sort || fails=$((fails + 1))
done
fi
# sanitize NAME [@section.key=value ...] TOOL ARGS...: one compute-sanitizer run of ARGS with those
# keys set (--set, after ARGS); counts a failure of the tool or of mdlite.
sanitize() {
  local name=$1 out rc sets=()
  shift
  while [[ "$1" == @* ]]; do sets+=(--set "${1#@}"); shift; done
  echo "=== compute-sanitizer $name"
  out=$(compute-sanitizer --error-exitcode 9 --tool "$@" "${sets[@]}" 2>&1)
  rc=$?
  echo "$out" | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|rror" | head -5
  [ "$rc" -eq 0 ] || { echo "exit $rc"; fails=$((fails + 1)); }
}
if { [ "$part" = all ] || [ "$part" = sanitizers ]; } && command -v compute-sanitizer >/dev/null; then
  tmp=$(mktemp -d)
  head -n 3000 examples/xy.txt > "$tmp/small.xy"
  run=("$m" run input/lj_melt.ini --backend gpu --quiet --set system.cells="5 5 5" --set output.thermo_file=)
  # memcheck and synccheck follow the whole run, the step graphs included. racecheck cannot: it
  # invalidates a stream capture that records kernels with shared memory (the cell builder, the
  # sort, the reductions) and the driver then fails ending it; it checks those kernels where they
  # run outside graphs: the set-up's build and reduction, and `mdlite neighbors`.
  for tool in memcheck synccheck; do
    for method in cell brute brute-atomic; do
      sanitize "$tool, run, $method" $tool "${run[@]}" --set run.steps=30 --set "neighbor.method=$method" \
        --set run.ensemble=nvt-langevin --set run.target_temperature=1 --set run.tau=1 --set neighbor.max_neighbors=8
    done
    for list in "no 8" "yes 78"; do
      set -- $list
      sanitize "$tool, short list (grow = $1, max_neighbors $2)" $tool "${run[@]}" --set run.steps=60 \
        --set neighbor.grow=$1 --set neighbor.max_neighbors=$2
    done
    sanitize "$tool, asynchronous output" $tool "${run[@]}" --set run.steps=40 --set output.dump_every=2 \
      --set output.buffers=2 --set "output.dump_fields=position velocity force image" \
      --set "output.trajectory=$tmp/async-$tool.h5md"
    # Nose-Hoover's chains on the device: recorded steps, thermo rows with the chains' energy, a frame
    sanitize "$tool, nvt-nose-hoover" $tool "${run[@]}" --set run.steps=40 --set output.thermo=3 \
      --set run.ensemble=nvt-nose-hoover --set run.target_temperature=1 --set run.tau=0.5 \
      --set output.dump_every=20 --set "output.trajectory=$tmp/nh-$tool.h5md"
    # the barostat: the box in device memory, moved by the chains' kernel, the drift between remaps
    sanitize "$tool, npt-nose-hoover" $tool "${run[@]}" --set run.steps=40 --set output.thermo=3 \
      --set run.ensemble=npt-nose-hoover --set run.target_temperature=1 --set run.tau=0.5 \
      --set run.target_pressure=2 --set run.pressure_tau=0.5 --set output.dump_every=20 \
      --set "output.trajectory=$tmp/npt-$tool.h5md"
    # stages (chains, a barostat, then a fixed box) with the RDF and MSD sampled, every row past a
    # fixed 8-slot list (the RDF's scan of every atom); and 70,304 atoms (the warp builder's list)
    stages=(--set run.steps= --set stage:a.steps=20 --set stage:a.ensemble=nvt-nose-hoover
            --set stage:a.target_temperature=1 --set stage:a.tau=0.5 --set stage:b.steps=20
            --set stage:b.ensemble=npt-nose-hoover --set stage:b.target_temperature=1 --set stage:b.tau=0.5
            --set stage:b.target_pressure=2 --set stage:b.pressure_tau=0.5 --set stage:c.steps=20
            --set stage:c.ensemble=nve --set analysis.rdf_every=5 --set analysis.msd_every=5
            --set analysis.rdf_file=$tmp/rdf.csv --set analysis.msd_file=$tmp/msd.csv)
    sanitize "$tool, stages and analysis, fixed 8-slot list" $tool "${run[@]}" "${stages[@]}" \
      --set neighbor.max_neighbors=8 --set neighbor.grow=no
    sanitize "$tool, double, stages and analysis (relative rows)" $tool "$md" "${run[@]:1}" "${stages[@]}"
    # 70,304 atoms: the warp builder, as chosen by size; with a fixed 8-slot list, every row overflows
    big=("$m" run input/lj_melt.ini --backend gpu --quiet --set system.cells="26 26 26" --set output.thermo_file=)
    sanitize "$tool, run, 70,304 atoms (warp builder)" $tool "${big[@]}" --set run.steps=20
    sanitize "$tool, 70,304 atoms, analysis" $tool "${big[@]}" --set run.steps=20 --set analysis.rdf_every=5 \
      --set analysis.msd_every=5 --set analysis.rdf_file=$tmp/rdf.csv --set analysis.msd_file=$tmp/msd.csv
    # Nose-Hoover with one lane per atom (the chained sum of the kicked velocities over 70,304 atoms)
    sanitize "$tool, 70,304 atoms, nvt-nose-hoover" $tool "${big[@]}" --set run.steps=20 --set output.thermo=7 \
      --set run.ensemble=nvt-nose-hoover --set run.target_temperature=1 --set run.tau=0.5
    # squeezed by 4% in edge within 50 steps: the rebuilds use fewer cells than the host's grid has
    sanitize "$tool, 70,304 atoms, npt-nose-hoover squeezed (fewer cells)" $tool "${big[@]}" --set run.steps=50 \
      --set output.thermo=7 --set run.ensemble=npt-nose-hoover --set run.target_temperature=1 --set run.tau=0.5 \
      --set run.target_pressure=30 --set run.pressure_tau=1.0
    # 13,500 atoms: the counting sort over 14 blocks (500 atoms: one)
    sanitize "$tool, run, 13,500 atoms (counting sort)" $tool "$m" run input/lj_melt.ini --backend gpu --quiet \
      --set system.cells="15 15 15" --set output.thermo_file= --set run.steps=40
    # 143,748 atoms: the counting sort over 141 blocks, their prefix by its own kernel
    sanitize "$tool, run, 143,748 atoms (counting sort, prefix kernel)" $tool "$m" run input/lj_melt.ini --backend gpu \
      --quiet --set system.cells="33 33 33" --set output.thermo_file= --set run.steps=20
    sanitize "$tool, 70,304 atoms, fixed 8-slot list" $tool "${big[@]}" --set run.steps=20 \
      --set neighbor.max_neighbors=8 --set neighbor.grow=no
    # mixed packed lists (asked for): through the warp's tables (70,304 atoms) and relative (500)
    sanitize "$tool, 70,304 atoms, packed list" $tool "${big[@]}" --set run.steps=20 --set neighbor.list=packed
    sanitize "$tool, 500 atoms, packed list" $tool "${run[@]}" --set run.steps=60 --set neighbor.list=packed
    # the kicks folded into the force pass (double): one, 8 and 4 force lanes per atom
    sanitize "$tool, double, 19,652 atoms (4 lanes, kicks folded)" $tool "$md" run input/lj_melt.ini --backend gpu \
      --quiet --set system.cells="17 17 17" --set output.thermo_file= --set run.steps=30
    sanitize "$tool, double, 70,304 atoms" $tool "$md" "${big[@]:1}" --set run.steps=20
    # double's rows relative to each row's atom (staged builder), and with every row past a fixed list
    sanitize "$tool, double, 500 atoms" $tool "$md" "${run[@]:1}" --set run.steps=60
    sanitize "$tool, double, 500 atoms, fixed 8-slot list" $tool "$md" "${run[@]:1}" --set run.steps=30 \
      --set neighbor.max_neighbors=8 --set neighbor.grow=no
  done
  # pruned lists ([neighbor] outer_skin): 8 lanes per row (500 atoms), one lane per row with the warp's
  # ring in shared memory, rows past the capacity, packed rows. synccheck reports divergent
  # barriers in CUB's sort kernels when a sort follows an instrumented prune, even with only the
  # prune kernels instrumented, and none with CUB's kernels instrumented alone (docs/PERFORMANCE.md).
  # So it checks the prune kernels in runs that prune but do not sort again (3 prunes, 0 builds),
  # and the longer runs with the prune kernels left out.
  sanitize "synccheck, 500 atoms, pruned, 30 steps" @neighbor.outer_skin=0.8 synccheck "${run[@]}" --set run.steps=30
  sanitize "synccheck, 70,304 atoms, pruned, 20 steps" @neighbor.outer_skin=0.8 synccheck "${big[@]}" --set run.steps=20
  sanitize "synccheck, double, 70,304 atoms, pruned (packed), 20 steps" @neighbor.outer_skin=0.8 synccheck "$md" \
    "${big[@]:1}" --set run.steps=20
  sanitize "synccheck but the prune kernels, 500 atoms, pruned" @neighbor.outer_skin=0.8 synccheck \
    --kernel-name-exclude kns=prune_ "${run[@]}" --set run.steps=60
  sanitize "synccheck but the prune kernels, 70,304 atoms, pruned" @neighbor.outer_skin=0.3 synccheck \
    --kernel-name-exclude kns=prune_ "${big[@]}" --set run.steps=40
  sanitize "memcheck, 500 atoms, pruned" @neighbor.outer_skin=0.8 memcheck "${run[@]}" --set run.steps=60
  sanitize "memcheck, 70,304 atoms, pruned" @neighbor.outer_skin=0.3 memcheck "${big[@]}" --set run.steps=40
  sanitize "memcheck, 70,304 atoms, pruned, fixed 8-slot list" @neighbor.outer_skin=0.3 memcheck "${big[@]}" \
    --set run.steps=20 --set neighbor.max_neighbors=8 --set neighbor.grow=no
  sanitize "memcheck, double, 70,304 atoms, pruned (packed)" @neighbor.outer_skin=0.3 memcheck "$md" "${big[@]:1}" \
    --set run.steps=40
  sanitize "racecheck, set-up, 70,304 atoms, pruned" @neighbor.outer_skin=0.3 racecheck "${big[@]}" --set run.steps=0
  sanitize "racecheck, set-up, double, 70,304 atoms, pruned (packed)" @neighbor.outer_skin=0.3 racecheck "$md" \
    "${big[@]:1}" --set run.steps=0
  sanitize "racecheck, set-up, 13,500 atoms (counting sort)" racecheck "$m" run input/lj_melt.ini --backend gpu \
    --quiet --set system.cells="15 15 15" --set output.thermo_file= --set run.steps=0
  sanitize "racecheck, set-up, 143,748 atoms (counting sort, prefix kernel)" racecheck "$m" run input/lj_melt.ini \
    --backend gpu --quiet --set system.cells="33 33 33" --set output.thermo_file= --set run.steps=0
  # the analysis's kernels run between steps, outside the graphs: its first samples are the set-up's
  an=(--set run.steps=0 --set analysis.rdf_every=5 --set analysis.msd_every=5 --set analysis.rdf_file=$tmp/rdf.csv
      --set analysis.msd_file=$tmp/msd.csv)
  sanitize "racecheck, set-up with g(r) and MSD, 500 atoms, fixed 8-slot list" racecheck "${run[@]}" "${an[@]}" \
    --set neighbor.max_neighbors=8 --set neighbor.grow=no
  sanitize "racecheck, set-up with g(r) and MSD, 70,304 atoms" racecheck "${big[@]}" "${an[@]}"
  sanitize "racecheck, set-up with g(r) and MSD, double, 500 atoms (relative rows)" racecheck "$md" "${run[@]:1}" \
    "${an[@]}"
  for method in cell brute brute-atomic; do
    sanitize "racecheck, set-up, $method" racecheck "${run[@]}" --set run.steps=0 --set "neighbor.method=$method"
    for layout in transposed row; do
      sanitize "racecheck, neighbors, $method, $layout" racecheck "$m" neighbors "$tmp/small.xy" --cutoff 1.9 \
        --backend gpu --method $method --layout $layout --output "$tmp/nb.txt" --overwrite
    done
  done
  # 70,000 random atoms: the warp builder, its lists packed (double) and plain
  python3 -c "
import random; r = random.Random(3); n = 70000
print(n); print('random')
for _ in range(n): print('A', *(round(34 * r.random(), 6) for _ in range(3)))" > "$tmp/big.xyz"
  for layout in transposed row; do
    for bin in "$m" "$md"; do
      sanitize "racecheck, neighbors, $(basename "$bin"), 70,000 atoms (warp builder), $layout" racecheck "$bin" \
        neighbors "$tmp/big.xyz" --cutoff 2.8 --box 34 34 34 --backend gpu --method cell --layout $layout \
        --output "$tmp/nb.txt" --overwrite
    done
    sanitize "racecheck, neighbors, double, staged builder, $layout" racecheck "$md" neighbors "$tmp/small.xy" \
      --cutoff 1.9 --backend gpu --method cell --layout $layout --output "$tmp/nb.txt" --overwrite
  done
fi
if [ "$part" != tests ] && command -v compute-sanitizer >/dev/null; then
  # EAM (no shared memory in its kernels; graphed steps): 8 lanes per atom (4,000 atoms), 4 (37,044,
  # mixed), one (70,304; double: the kicks folded into the force pass), every row past a fixed
  # 8-slot list, two species (eam/alloy Cu-Ni), energies and virials each 7 steps
  eam=("$m" run input/eam_cu.ini --backend gpu --quiet --set output.thermo_file= --set output.thermo=7)
  for tool in memcheck synccheck initcheck; do
    sanitize "$tool, EAM, 4,000 atoms" $tool "${eam[@]}" --set system.cells="10 10 10" --set run.steps=30
    sanitize "$tool, EAM, double, 4,000 atoms, fixed 8-slot list" $tool "$md" "${eam[@]:1}" \
      --set system.cells="10 10 10" --set run.steps=15 --set neighbor.max_neighbors=8 --set neighbor.grow=no
    sanitize "$tool, EAM, 37,044 atoms" $tool "${eam[@]}" --set system.cells="21 21 21" --set run.steps=10
    sanitize "$tool, EAM, double, 70,304 atoms" $tool "$md" "${eam[@]:1}" --set system.cells="26 26 26" \
      --set run.steps=10
    sanitize "$tool, EAM, eam/alloy Cu-Ni" $tool "$m" run input/eam_cuni.ini --backend gpu --quiet \
      --set output.thermo_file= --set system.cells="10 10 10" --set run.steps=20 --set output.thermo=7
  done
  sanitize "racecheck, EAM set-up" racecheck "${eam[@]}" --set system.cells="10 10 10" --set run.steps=0
fi
echo "gpu_check: $fails failed"
[ "$fails" -eq 0 ]
