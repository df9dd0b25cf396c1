#!/usr/bin/env bash
# MPI bus bandwidth between 2 ranks on this machine, for large messages,
# next to the machine's memory-copy bandwidth: how close Open MPI's
# shared-memory transport comes to memcpy.
#
#   bench/comm_vs_memcpy.sh [BUILD_DIR]      # default: build
#
# Every figure comes from hetbench-comm (nccl-tests' definitions), for
# messages of 1 MiB to 256 MiB: the busbw of each collective between 2
# ranks, and its `memcpy` op, a rank-local copy of the same bytes timed the
# same way (busbw = S / t: bytes copied per second, not counting the read
# and the write separately as STREAM's Copy does), with 1 rank (one core
# copying) and with 2 ranks copying at once (per rank: the two share the
# memory bus, as the ranks of a collective do). The last lines are each
# column's best (busbw_max).
#
# With 2 ranks, nccl-tests' busbw is algbw for allreduce and broadcast and
# algbw / 2 for allgather and reduce_scatter. Moving a byte between two
# processes through shared memory takes at least one copy (Open MPI's vader
# with CMA single copy) or two (copy in, copy out), and allreduce and
# reduce_scatter also add, so busbw stays below the memcpy figure.
#
# Needs: a build (./scripts/build: build/hetbench-comm) and Open MPI
# (./scripts/deps).
set -eu
B=${1:-build}
MPIRUN=(mpirun --allow-run-as-root --oversubscribe)
SWEEP=(--min-bytes 1M --max-bytes 256M --factor 4 --iters 10 --warmup 5)
OPS=(allreduce allgather reduce_scatter broadcast)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() {  # run NAME NP OP: the program's output in $tmp/NAME; stop on wrong results
  "${MPIRUN[@]}" -np "$2" "$B/hetbench-comm" --op "$3" "${SWEEP[@]}" >"$tmp/$1"
  grep -q '^errors: 0$' "$tmp/$1" || { echo "$3 on $2 ranks: wrong results" >&2; cat "$tmp/$1" >&2; exit 1; }
}
busbw() { awk -v s="$2" '$1 == s { print $8 }' "$tmp/$1"; }  # the busbw column of size $2

echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs, $("${MPIRUN[@]}" --version | head -1)"
run memcpy1 1 memcpy
run memcpy2 2 memcpy
for op in "${OPS[@]}"; do run "$op" 2 "$op"; done

cols=(memcpy1 memcpy2 "${OPS[@]}")
printf '%12s %12s %12s' "size (B)" "memcpy 1" "memcpy 2/rk"
printf ' %14s' "${OPS[@]}"
printf '   (busbw, GB/s)\n'
for size in $(awk '/^ +[0-9]/ { print $1 }' "$tmp/memcpy1"); do
  printf '%12s' "$size"
  for c in "${cols[@]}"; do printf ' %*s' $([ "$c" = memcpy1 ] || [ "$c" = memcpy2 ] && echo 12 || echo 14) "$(busbw "$c" "$size")"; done
  printf '\n'
done
printf '%12s' "busbw_max"
for c in "${cols[@]}"; do
  printf ' %*s' $([ "$c" = memcpy1 ] || [ "$c" = memcpy2 ] && echo 12 || echo 14) "$(sed -n 's/^busbw_max: \([^ ]*\) .*/\1/p' "$tmp/$c")"
done
printf '\n'
