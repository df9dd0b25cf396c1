#!/usr/bin/env bash
# Fuzzes every target in fuzz/ with libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer for a fixed time each, starting from the
# committed corpus (fuzz/corpus/TARGET/), and prints one line of figures
# per target: executions, coverage, corpus size, peak memory, crashes.
# A crash leaves its input in build-fuzz/crash-TARGET-* and fails the run.
#
#   bench/fuzz.sh                 600 s per target, two at a time
#   FUZZ_SECONDS=60 bench/fuzz.sh fuzz_scan fuzz_config
#   FUZZ_UPDATE_CORPUS=1 ...      also replace fuzz/corpus/TARGET with the
#                                 minimised corpus the run reached
#
# Needs clang (installed with scripts/deps if missing); builds in
# build-fuzz/, apart from the normal build.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${FUZZ_SECONDS:-600}
jobs=${FUZZ_JOBS:-2}
./scripts/deps clang libclang-rt-14-dev
B=build-fuzz
mkdir -p "$B"
CC=clang CXX=clang++ cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHETBENCH_FUZZ=ON \
  -DHETBENCH_BUILD_TESTS=OFF -DHETBENCH_WORKLOADS=OFF > "$B/cmake.log"
if [ $# -gt 0 ]; then targets=("$@"); else
  targets=(); for f in fuzz/fuzz_*.cc; do targets+=("$(basename "$f" .cc)"); done
fi
ninja -C "$B" -j2 "${targets[@]}" > "$B/ninja.log" || { tail -30 "$B/ninja.log"; exit 1; }

rm -f "$B"/crash-*
run_one() {
  local t=$1 work="$B/corpus/$t"
  rm -rf "$work" && mkdir -p "$work"
  "$B/$t" -max_total_time="$secs" -max_len=8192 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$B/crash-$t-" "$work" "fuzz/corpus/$t" > "$B/$t.log" 2>&1 || true
  if [ "${FUZZ_UPDATE_CORPUS:-0}" = 1 ]; then
    local merged="$B/merged/$t"
    rm -rf "$merged" && mkdir -p "$merged"
    "$B/$t" -merge=1 -max_len=8192 "$merged" "fuzz/corpus/$t" "$work" > "$B/$t.merge.log" 2>&1
    rm -rf "fuzz/corpus/$t" && cp -r "$merged" "fuzz/corpus/$t"
  fi
}

running=0
for t in "${targets[@]}"; do
  run_one "$t" &
  running=$((running + 1))
  if [ $running -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait

failed=0
printf '%-18s %10s %8s %8s %6s %8s %8s %s\n' target seconds execs exec/s cov corpus rss_mb crashes
for t in "${targets[@]}"; do
  log="$B/$t.log"
  [ -f "$log" ] || { printf '%-18s did not run\n' "$t"; failed=1; continue; }
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<< "$last")
  corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9a-zA-Z]*\).*/\1/p' <<< "$last")
  crashes=$(find "$B" -maxdepth 1 -name "crash-$t-*" | wc -l)
  [ "$crashes" = 0 ] || failed=1
  printf '%-18s %10s %8s %8s %6s %8s %8s %s\n' "$t" "$secs" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${corp:-?}" \
    "${rss:-?}" "$crashes"
done
[ $failed = 0 ] || { echo "bench/fuzz.sh: crashes found; inputs in $B/crash-*; logs in $B/*.log" >&2; exit 1; }
