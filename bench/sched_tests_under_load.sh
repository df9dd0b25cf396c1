#!/usr/bin/env bash
# The scheduler unit tests on a loaded machine (issue 20): runs the unit
# tests of the batch schedulers, the local scheduler, the Kubernetes
# backend and the executor's loop 10 times in a row while `stress -c 4`
# keeps four processes spinning on the CPUs, and says how many runs passed.
# Every backend's test reads a FakeClock (util/clock.h), so none of them
# should depend on how fast the machine is.
#
# Needs: a build (./scripts/build) and Debian's stress (./scripts/deps --bench).
# Usage: bench/sched_tests_under_load.sh [RUNS]   (default 10)
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-10}"
command -v stress >/dev/null || { echo "needs stress: ./scripts/deps --bench" >&2; exit 2; }
for t in hb_sched_test hb_k8s_test hb_run_test; do
  [ -x "build/$t" ] || { echo "needs build/$t: ./scripts/build" >&2; exit 2; }
done
# The scheduler tests proper (the local scheduler's start real processes).
filter='*Scheduler*:*Slurm*:*Pbs*:*Sge*:*Lsf*:*Oar*:*Flux*:*Batch*:*K8s*:ExecutorLoop.*'
stress -c 4 >/dev/null 2>&1 &
stress_pid=$!
trap 'kill $stress_pid 2>/dev/null; wait $stress_pid 2>/dev/null || true' EXIT
sleep 1
passed=0
start=$(date +%s.%N)
for i in $(seq 1 "$runs"); do
  ok=1
  for t in hb_sched_test hb_k8s_test hb_run_test; do
    if ! "build/$t" --gtest_filter="$filter" >"/tmp/hb_load_$t.log" 2>&1; then
      ok=0
      echo "run $i: $t failed:"; grep -E '^\[  FAILED  \]' "/tmp/hb_load_$t.log" | head -5
    fi
  done
  passed=$((passed + ok))
done
end=$(date +%s.%N)
rm -f /tmp/hb_load_hb_*.log
tests=$(build/hb_sched_test --gtest_filter="$filter" --gtest_list_tests | grep -c '^  ' || true)
tests=$((tests + $(build/hb_k8s_test --gtest_filter="$filter" --gtest_list_tests | grep -c '^  ' || true)))
tests=$((tests + $(build/hb_run_test --gtest_filter="$filter" --gtest_list_tests | grep -c '^  ' || true)))
printf 'under stress -c 4 on %s CPUs: %d of %d runs passed (%d tests each), %.1f s in all\n' \
  "$(nproc)" "$passed" "$runs" "$tests" "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')"
[ "$passed" = "$runs" ]
