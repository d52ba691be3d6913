#!/usr/bin/env bash
# Builds mdlite's libFuzzer harnesses (tests/fuzz/) with clang, ASan and UBSan, and runs each for
# SECONDS. Prints one line per harness: executions, crashes. Exit 1 on a crash (the input is kept
# under OUT/crashes-NAME/), 77 when clang with libFuzzer is not installed.
# usage: tools/fuzz.sh OUT SECONDS [config|readers|checkpoint|checkpoint_fields|eam ...]
# (checkpoint: files made from the bytes; checkpoint_fields: a real checkpoint, tests/fuzz/checkpoint.h5md,
# whose fields the bytes remove, retype, reshape or fill with NaN, infinities, huge or arbitrary values;
# eam: an EAM potential file of the style the first byte picks)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: tools/fuzz.sh OUT SECONDS [harness ...]}
seconds=${2:?usage: tools/fuzz.sh OUT SECONDS [harness ...]}
shift 2
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(config readers checkpoint checkpoint_fields eam)
cc=$(command -v clang || command -v clang-14 || true)
if [ -z "$cc" ] || ! echo 'int LLVMFuzzerTestOneInput(const char*d,long n){return 0;}' |
     "$cc" -x c - -fsanitize=fuzzer -o /dev/null 2>/dev/null; then
  echo "fuzz: no clang with libFuzzer (Debian: clang); skipped"
  exit 77
fi
mkdir -p "$out"
hdf5_inc=$(pkg-config --cflags hdf5 2>/dev/null || echo -I/usr/include/hdf5/serial)
hdf5_lib=$(pkg-config --libs hdf5 2>/dev/null || echo -lhdf5_serial)
flags=(-std=c11 -g -O1 -fsanitize=fuzzer,address,undefined,float-cast-overflow -fno-sanitize-recover=undefined,float-cast-overflow -Isrc $hdf5_inc
       -DMDLITE_VERSION='"fuzz"' -DCHECKPOINT_TEMPLATE="\"$PWD/tests/fuzz/checkpoint.h5md\"")
core=(src/util/util.c src/util/strbuf.c src/config/ini.c src/config/lammps_script.c src/config/lammps_script_state.c src/config/stage_keys.c src/config/lammps_vars.c src/config/lammps_walls.c src/config/lammps_group_fixes.c src/config/lammps_dump_commands.c src/config/lammps_expr.c src/config/lammps_ini.c src/config/lammps_commands.c src/config/lammps_box_commands.c src/config/lammps_group_commands.c src/config/lammps_run_commands.c src/config/lammps_thermostats.c src/core/health.c src/parallel/comm.c src/physics/units.c src/config/config.c src/config/config_schema.c src/config/config_system.c src/config/config_fire.c src/config/config_groups.c src/config/config_computes.c src/config/config_entries.c src/config/config_load.c src/config/config_text.c src/physics/pair_styles.c src/physics/crystal.c src/system/system.c src/system/eam.c src/system/eam_files.c
      src/io/readers.c src/io/text_lines.c src/io/data_file.c src/io/checkpoint.c src/io/h5md_series.c src/io/outfile.c)
status=0
for h in "${harnesses[@]}"; do
  "$cc" "${flags[@]}" tests/fuzz/fuzz_$h.c "${core[@]}" $hdf5_lib -lm -o "$out/fuzz_$h" || exit 1
  corpus="$out/corpus-$h"
  mkdir -p "$corpus" "$out/crashes-$h"
  cp -n tests/fuzz/seeds/$h/* "$corpus"/ 2>/dev/null
  log="$out/fuzz_$h.log"
  # a hang is an input past 60 s (one takes well under a second); libFuzzer's slow-unit reports (past
  # 10 s, a machine's load can do that: ctest -j2 beside other work) are not failures and not kept
  "$out/fuzz_$h" "$corpus" -max_total_time="$seconds" -max_len=8192 -timeout=60 -report_slow_units=100000 \
    -rss_limit_mb=2048 -close_fd_mask=2 -artifact_prefix="$out/crashes-$h/" >"$log" 2>&1
  rc=$?
  runs=$(grep -o 'Done [0-9]* runs' "$log" | tail -1 | awk '{print $2}')
  crashes=$(find "$out/crashes-$h" -type f | wc -l)
  echo "fuzz $h: ${runs:-0} executions in $seconds s, $crashes crash(es), $(ls "$corpus" | wc -l) corpus inputs"
  if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then
    tail -30 "$log"
    status=1
  fi
done
exit $status
