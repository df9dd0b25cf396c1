#!/bin/bash
# Packed-format read bandwidth of hetbench-io against dd reading the same
# file, both warm (from the page cache). The issue's target: hetbench-io
# reaches >= 90% of dd.
#
#   bench/io_vs_dd.sh [BUILD_DIR]
#
# The file is one TFRecord of CosmoFlow-layout records (64^3 x 4 int16
# counts, 2 MiB each). hetbench-io reads it with --decode 0: every record is
# read and its CRCs checked, not decoded (the storage path, as DLIO
# measures it); a --decode 1 run shows the cost of decoding on top.
# Both read the file EPOCHS times per measurement (dd once per pass), and
# alternate ROUNDS times; the best of each counts. The CPU time each spends
# per GiB is shown too (on a busy machine it explains what wall-clock rates
# cannot).
#
# COLD=1 measures from storage instead: the page cache is dropped before
# every read (`echo 3 > /proc/sys/vm/drop_caches`, needs root) and each
# reads the file once.
#
# Environment: DIR (dataset folder, default /tmp/hetbench-io-dd), SAMPLES
# (records, default 512 = 1 GiB), READERS (default: the CPU count),
# ROUNDS (default 5), EPOCHS (default 3; 1 with COLD=1), COLD (default 0).
set -euo pipefail

build=${1:-build}
io="$build/hetbench-io"
dir=${DIR:-/tmp/hetbench-io-dd}
samples=${SAMPLES:-512}
readers=${READERS:-$(nproc)}
rounds=${ROUNDS:-5}
cold=${COLD:-0}
epochs=${EPOCHS:-3}
if [ "$cold" = 1 ]; then
  epochs=1
  [ -w /proc/sys/vm/drop_caches ] || { echo "io_vs_dd: COLD=1 needs root to drop caches" >&2; exit 2; }
fi
# Before each measurement: nothing (warm), or an empty page cache (cold).
prepare() { if [ "$cold" = 1 ]; then sync; echo 3 > /proc/sys/vm/drop_caches; fi; }
common=(--format tfrecord --layout cosmoflow --sample-shape 4,64,64,64 --dir "$dir" --files 1)

[ -x "$io" ] || { echo "io_vs_dd: $io not built" >&2; exit 2; }
"$io" "${common[@]}" --generate --samples "$samples" --epochs 1 --decode 0 >/dev/null
file="$dir/train-00000-of-00001.tfrecord"
bytes=$(stat -c %s "$file")
gib=$(awk -v b="$bytes" 'BEGIN { print b / 1073741824 }')
[ "$cold" = 1 ] || cat "$file" >/dev/null  # warm

best() { awk -v a="$1" -v b="$2" 'BEGIN { print (b > a) ? b : a }'; }
# Runs a command; prints "MiB/s cpu_seconds" (the MiB/s from the command's
# own output when it prints a bandwidth line, else bytes over wall time).
measure() {
  local out start end cpu0 cpu1 me=$BASHPID
  cpu0=$(awk '{ print $14 + $15 + $16 + $17 }' /proc/$me/stat)
  start=$(date +%s.%N)
  out=$("$@" 2>&1)
  end=$(date +%s.%N)
  cpu1=$(awk '{ print $14 + $15 + $16 + $17 }' /proc/$me/stat)
  local rate
  rate=$(printf '%s\n' "$out" | awk '/^bandwidth:/ { print $2 }')
  [ -n "$rate" ] || rate=$(awk -v b="$bytes" -v n="$epochs" -v s="$start" -v e="$end" \
    'BEGIN { printf "%.1f", n * b / (e - s) / 1048576 }')
  echo "$rate $(awk -v c=$((cpu1 - cpu0)) -v hz="$(getconf CLK_TCK)" 'BEGIN { print c / hz }')"
}

dd_passes() { for _ in $(seq "$epochs"); do dd if="$file" of=/dev/null bs=1M status=none; done; }
dd_best=0 raw_best=0 dec_best=0 dd_cpu=0 raw_cpu=0
for _ in $(seq "$rounds"); do
  prepare
  read -r rate cpu < <(measure dd_passes)
  dd_best=$(best "$dd_best" "$rate"); dd_cpu=$cpu
  prepare
  read -r rate cpu < <(measure "$io" "${common[@]}" --readers "$readers" --batch-size 16 --epochs $epochs --decode 0)
  raw_best=$(best "$raw_best" "$rate"); raw_cpu=$cpu
done
prepare
read -r dec_best _ < <(measure "$io" "${common[@]}" --readers "$readers" --batch-size 16 --epochs 1 --decode 1)

printf 'file: %s (%d MiB), readers: %s, %s rounds, %s cache, load average: %s\n' "$file" $((bytes / 1048576)) \
  "$readers" "$rounds" "$([ "$cold" = 1 ] && echo cold || echo warm)" "$(cut -d' ' -f1-3 /proc/loadavg)"
awk -v r="$dd_best" -v c="$dd_cpu" -v g="$gib" -v e="$epochs" \
  'BEGIN { printf "dd bs=1M:               %8.0f MiB/s  (%.2f CPU s/GiB)\n", r, c / g / e }'
awk -v r="$raw_best" -v c="$raw_cpu" -v g="$gib" -v e="$epochs" \
  'BEGIN { printf "hetbench-io --decode 0: %8.0f MiB/s  (%.2f CPU s/GiB)\n", r, c / g / e }'
awk -v r="$dec_best" 'BEGIN { printf "hetbench-io --decode 1: %8.0f MiB/s\n", r }'
awk -v io="$raw_best" -v dd="$dd_best" 'BEGIN { printf "ratio (--decode 0 / dd): %.0f %%\n", 100 * io / dd }'
