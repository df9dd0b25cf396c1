#!/usr/bin/env bash
# The cost of hetbench-train's timing breakdown and MLPerf logging as a
# share of step time (issue 5 target: under 2 %), from direct measurements
# rather than the difference of two noisy runs (bench/breakdown_cost.sh
# does that one, and on this VM its noise is larger than the effect).
#
# 1. build/breakdown_overhead times the breakdown's own work: the extra
#    clock calls per step (the exact PhaseClock sequence of a step, on
#    minus off) and one :::MLLOG line written to a file.
# 2. hetbench-train runs each model (tiny and small presets, synthetic data,
#    1 rank, THREADS threads, STEPS steps x EPOCHS epochs) with its MLLOG
#    lines going to a file: the step time and the number of lines.
# 3. cost per step = clock cost + lines x line cost / steps of the run;
#    printed as a share of the measured step time.
# On a CPU nothing else differs between --breakdown on and off (the device
# synchronisation is a no-op); on a GPU each mark also synchronises the
# device, which this machine cannot measure.
# Usage: bench/breakdown_overhead.sh [build folder]   (default build)
#
# Needs: a build (./scripts/build); the script builds its probe itself
# (ninja -C build breakdown_overhead).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$(realpath "${1:-$here/../build}")"
threads="${THREADS:-2}" steps="${STEPS:-10}" epochs="${EPOCHS:-2}"
ninja -C "$build" breakdown_overhead hetbench-train >/dev/null
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

"$build/breakdown_overhead" --mllog-file "$tmp/lines" | tee "$tmp/overhead"
clock_ns=$(sed -n 's/^clock_cost_per_step: \([0-9.e+-]*\) ns/\1/p' "$tmp/overhead")
line_ns=$(sed -n 's/^mllog_cost_per_line: \([0-9.e+-]*\) ns/\1/p' "$tmp/overhead")

printf '\n%-10s %-6s %12s %12s %14s %16s %10s\n' model size "step time" "MLLOG lines" "clock/step" "MLLOG/step" "cost"
for model in resnet50 deepcam cosmoflow; do
  for size in tiny small; do
    out=$(OMP_NUM_THREADS="$threads" "$build/hetbench-train" --model "$model" --size "$size" --batch-size 4 \
      --steps "$steps" --epochs "$epochs" --threads "$threads" --mllog-file "$tmp/mllog" 2>&1)
    step=$(sed -n 's/^step_time: \([0-9.e+-]*\) s.*/\1/p' <<<"$out")
    lines=$(grep -c '^:::MLLOG ' "$tmp/mllog")
    awk -v m="$model" -v z="$size" -v s="$step" -v l="$lines" -v c="$clock_ns" -v ln="$line_ns" -v n=$((steps * epochs)) 'BEGIN {
      per = l * ln / n
      printf "%-10s %-6s %10.4f s %12d %11.0f ns %13.0f ns %9.4f %%\n", m, z, s, l, c, per, (c + per) / (s * 1e9) * 100
    }'
  done
done
