#!/usr/bin/env bash
# The cost of hetbench-train's per-step timing breakdown and MLPerf logging
# (issue 5 target: under 2 % of step time), measured with enough repeats to
# see through this VM's run-to-run noise (about +-4 % per run).
#
# PAIRS interleaved pairs (default 20) of the same run with the breakdown
# on (default) and off (--no-breakdown), order alternating within pairs:
# ResNet-50, batch BATCH (2), SIZE x SIZE images (32), STEPS steps (100,
# the first WARMUP=5 left out), THREADS threads (2). For each pair the
# relative difference of the mean step times, (on - off) / off; printed are
# their median, mean and a 95 % confidence interval of the mean (t
# distribution), and the sign test's count.
# Usage: bench/breakdown_cost.sh [path/to/hetbench-train]   (default build/hetbench-train)
#
# Needs: a build with the benchmark programs (./scripts/build:
# build/hetbench-train; libtorch from ./scripts/deps).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="$(realpath "${1:-$here/../build/hetbench-train}")"
pairs="${PAIRS:-20}" batch="${BATCH:-2}" size="${SIZE:-32}" steps="${STEPS:-100}" threads="${THREADS:-2}"
export OMP_NUM_THREADS="$threads"
step_time() {
  "$bin" --model resnet50 --image-size "$size" --batch-size "$batch" --steps "$steps" --threads "$threads" \
    --synthetic-batches 4 --warmup-steps 5 --eval-batches 1 "$@" 2>&1 | sed -n 's/^step_time: \([0-9.e+-]*\) s.*/\1/p'
}
diffs=()
for i in $(seq 1 "$pairs"); do
  if (( i % 2 )); then on=$(step_time); off=$(step_time --no-breakdown)
  else off=$(step_time --no-breakdown); on=$(step_time); fi
  d=$(awk -v a="$on" -v b="$off" 'BEGIN { printf "%.5f", (a - b) / b }')
  diffs+=("$d")
  printf 'pair %2d: on %s s, off %s s, difference %+.2f %%\n' "$i" "$on" "$off" "$(awk -v d="$d" 'BEGIN { print d * 100 }')"
done
printf '%s\n' "${diffs[@]}" | sort -g | awk -v n="$pairs" -v size="$size" -v batch="$batch" '
  { x[NR] = $1; s += $1; if ($1 > 0) pos++ }
  END {
    m = s / n; for (i = 1; i <= n; i++) v += (x[i] - m) ^ 2; sd = sqrt(v / (n - 1)); se = sd / sqrt(n)
    # t(0.975) for n-1 degrees of freedom (Abramowitz-Stegun approximation)
    df = n - 1; z = 1.959964; t = z + (z^3 + z) / (4 * df) + (5 * z^5 + 16 * z^3 + 3 * z) / (96 * df^2)
    med = (n % 2) ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
    printf "breakdown + MLLOG cost over %d pairs (ResNet-50 %dx%d, batch %d): median %+.2f %%, mean %+.2f %% (95 %% CI %+.2f .. %+.2f %%), slower in %d of %d pairs\n",
      n, size, size, batch, med * 100, m * 100, (m - t * se) * 100, (m + t * se) * 100, pos, n
  }'
