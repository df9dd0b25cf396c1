#!/usr/bin/env bash
# Benchmarks of hetbench itself (issue: core performance targets).
#   1. `hetbench list` over 10,000 generated cases (100 files x 100 values):
#      wall time and peak memory.
#   2. `hetbench run` of 500 trivial cases (echo "value: 1.5", one sanity
#      pattern, one performance variable), local scheduler, max_jobs 4.
#   3. CPU used by hetbench while it waits on one long-running job.
# Usage: bench/run_benchmarks.sh [path/to/hetbench]   (default build/hetbench)
# Prints one line per measurement; copy them into bench/RESULTS.md.
#
# Needs: a build (./scripts/build: build/hetbench); nothing else.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
hb="$(realpath "${1:-$here/../build/hetbench}")"
reps="${REPS:-5}"
work="$(mktemp -d /tmp/hb_bench_XXXXXX)"
# Runs store their sessions (as by default) in a throw-away store.
export HETBENCH_STORE="$work/results.db"
trap 'rm -rf "$work"' EXIT

# ---- 1. list 10,000 cases
mkdir -p "$work/list"
for f in $(seq -w 1 100); do
  {
    echo "name: gen_$f"
    echo "descr: generated test $f"
    echo "tags: [bench, gen]"
    echo "executable: echo"
    echo "executable_opts: ['value: {v}']"
    echo "parameters:"
    echo "  v: [$(seq -s, 1 100)]"
    echo "sanity:"
    echo "  - {pattern: 'value: (\\S+)'}"
    echo "performance:"
    echo "  value: {pattern: 'value: (\\S+)', group: 1, unit: s}"
    echo "reference:"
    echo "  '*': {value: [1.5, -0.5, 0.5, s]}"
  } > "$work/list/gen_$f.yaml"
done
n=$("$hb" list -c "$work/list" | grep -c '^- ')
echo "list: $n cases"
for i in $(seq 1 "$reps"); do
  /usr/bin/time -f "list_10k wall_s=%e max_rss_kib=%M" "$hb" list -c "$work/list" >/dev/null
done 2>&1

# ---- 2. run 500 trivial cases, max_jobs 4
mkdir -p "$work/run"
cat > "$work/run/site.yaml" <<'YAML'
systems:
  - name: bench
    hostnames: ['.*']
    partitions:
      - name: local
        scheduler: local
        launcher: local
        environs: [builtin]
        max_jobs: 4
environments:
  - name: builtin
    cc: gcc
YAML
cat > "$work/run/trivial.yaml" <<YAML
name: trivial
executable: echo
executable_opts: ['"value: 1.5"']
parameters:
  i: [$(seq -s, 1 500)]
sanity:
  - {pattern: 'value: '}
performance:
  value: {pattern: 'value: (\S+)', group: 1, unit: s}
YAML
for i in $(seq 1 "$reps"); do
  rm -rf "$work/run/out"
  (cd "$work/run" && /usr/bin/time -f "run_500 wall_s=%e cpu_user_s=%U cpu_sys_s=%S max_rss_kib=%M" \
      "$hb" run -C site.yaml -c trivial.yaml --prefix out >/dev/null) 2>&1 | tail -1
  grep -q '"passed": 500' "$work"/run/out/reports/run-*.json || { echo "run_500: not all 500 passed" >&2; exit 1; }
done

# ---- 3. CPU while waiting on a long job (sleep 20)
cat > "$work/run/long.yaml" <<'YAML'
name: long
executable: sleep
executable_opts: ['20']
sanity: [{exit_code: 0}]
YAML
(cd "$work/run" && /usr/bin/time -f "wait_20s wall_s=%e cpu_user_s=%U cpu_sys_s=%S" \
    "$hb" run -C site.yaml -c long.yaml --prefix out2 >/dev/null) 2>&1 | tail -1 |
  awk '{print; split($2,w,"="); split($3,u,"="); split($4,s,"="); printf "wait_20s cpu_percent=%.3f\n", 100*(u[2]+s[2])/w[2]}'
