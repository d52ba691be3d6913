#!/usr/bin/env bash
# Output overlap on the GPU: 2,048,000 atoms, 2,000 steps, positions to H5MD every 100 steps, with
# no output, asynchronous output and synchronous output (frames only: output.checkpoint = no), and
# asynchronous output with the restart checkpoint (the default); then 256,000 atoms dumping every
# 10 steps. Runs alternate between variants; prints every run (whole-command wall time, loop
# time, the run's phases from --profile) and then the medians with the ratio to "none". Writes
# --profile timelines of the 2M runs into OUTDIR.
# Usage: tools/bench_async.sh [MDLITE] [OUTDIR] [REPEATS]   (BACKEND=cpu for a smoke test)
set -euo pipefail
cd "$(dirname "$0")/.."
mdlite=${1:-build/mdlite}
out=${2:-.}
reps=${3:-5}
tmp=$(mktemp -d)
rows=$tmp/rows.tsv

one() { # size cells dump_every variant [profile.csv]
  local size=$1 cells=$2 every=$3 variant=$4 prof=${5:-$tmp/p.csv}
  local sets=(--set "system.cells=$cells $cells $cells" --set run.steps=2000 --set output.thermo=100
              --set output.thermo_file= --set output.dump_fields=position --set "output.dump_every=$every")
  case $variant in
    none) ;;
    async) sets+=(--set output.async=yes --set output.checkpoint=no --set "output.trajectory=$tmp/t.h5md") ;;
    sync) sets+=(--set output.async=no --set output.checkpoint=no --set "output.trajectory=$tmp/t.h5md") ;;
    async+checkpoint) sets+=(--set output.async=yes --set "output.trajectory=$tmp/t.h5md") ;;
  esac
  local t0 t1 res
  t0=$(date +%s.%N)
  res=$("$mdlite" run input/lj_melt.ini --backend "${BACKEND:-gpu}" --quiet "${sets[@]}" --profile "$prof")
  t1=$(date +%s.%N)
  python3 - "$size" "$variant" "$t0" "$t1" "$prof" "$res" >>"$rows" <<'PY'
import csv, re, sys
size, variant, t0, t1, prof, res = sys.argv[1:]
wall = float(t1) - float(t0)
loop = float(re.search(r"^Loop time of (\S+)", res, re.M).group(1))
ph = {r["what"]: float(r["end_s"]) - float(r["start_s"]) for r in csv.DictReader(open(prof)) if r["lane"] == "run"}
ph["outside"] = wall - sum(ph.values())  # process start and exit
print("\t".join([size, variant, f"{wall:.4f}", f"{loop:.4f}"] + [f"{k}={v:.4f}" for k, v in ph.items()]))
PY
  tail -n 1 "$rows" | awk -F'\t' '{printf "%-5s %-17s wall %7.3f s  loop %7.3f s |", $1, $2, $3, $4;
                                   for (i = 5; i <= NF; i++) printf " %s", $i; printf "\n"}'
  rm -f "$tmp/t.h5md"
}

for rep in $(seq "$reps"); do
  for v in none async sync async+checkpoint; do one 2M 80 100 "$v" "$out/timeline_2M_$v.csv"; done
done
for rep in $(seq "$reps"); do
  for v in none async sync async+checkpoint; do one 256k 40 10 "$v"; done
done

echo
echo "medians of $reps runs (ratio: to 'none' of the same size; paired: run k minus run k of 'none')"
python3 - "$rows" <<'PY'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
table = {}
for r in rows:
    ph = dict(kv.split("=") for kv in r[4:])
    table.setdefault((r[0], r[1]), []).append((float(r[2]), float(r[3]), {k: float(v) for k, v in ph.items()}))
for size in dict.fromkeys(r[0] for r in rows):
    base = table[(size, "none")]
    base_wall = statistics.median(w for w, _, _ in base)
    base_loop = statistics.median(l for _, l, _ in base)
    for (sz, variant), runs in table.items():
        if sz != size:
            continue
        wall = statistics.median(w for w, _, _ in runs)
        loop = statistics.median(l for _, l, _ in runs)
        paired = [a[0] - b[0] for a, b in zip(runs, base)]
        phases = {k: statistics.median(p[k] for _, _, p in runs) for k in runs[0][2]}
        print(f"{size:5} {variant:17} wall {wall:7.3f} s ({wall / base_wall:.3f}x)  loop {loop:7.3f} s "
              f"({loop / base_loop:.3f}x)  paired wall {1e3 * statistics.median(paired):+.0f} ms median, "
              f"{1e3 * statistics.mean(paired):+.0f} ms mean | " + " ".join(f"{k} {v:.3f}" for k, v in phases.items()))
PY
rm -rf "$tmp"
