#!/usr/bin/env bash
# Binding must not slow listing (issue 13): `hetbench list` of 10,000 cases
# (one test, parameters a: 100 values x b: 100 values, on the embedded
# generic system), once with plain fields and once with a 3-level
# expression in 5 fields (num_tasks, num_cpus_per_task, executable_opts,
# env_vars, job_options). Prints the wall time and peak memory of each of
# ROUNDS runs (default 5). Targets: plain < 0.5 s, expressions < 1 s.
#   bench/list_bench.sh [BUILD_DIR]
#
# Needs: a build (./scripts/build: build/hetbench); nothing else.
set -euo pipefail
build="${1:-build}"
hb="$(cd "$build" && pwd)/hetbench"
rounds="${ROUNDS:-5}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
values="$(seq -s, 1 100)"
cat >"$dir/plain.yaml" <<YAML
name: plain
executable: ./a.out
executable_opts: ['-n', '4']
parameters: {a: [$values], b: [$values]}
sanity: [{pattern: done}]
YAML
cat >"$dir/expr.yaml" <<YAML
name: expr
executable: ./a.out
parameters: {a: [$values], b: [$values]}
num_tasks: '{max(1, min(a * 2, b // 3 + 1))}'
num_cpus_per_task: '{max(1, (a + b) // (1 + a % 7))}'
executable_opts: ['--n={ceil((a * b) / max(1, a // 3))}']
env_vars: {OMP_NUM_THREADS: '{min(8, max(1, b // (1 + a % 4)))}'}
job_options: ['--comment={(a * 10 + b) if a > b else (b * 10 + a)}']
sanity: [{pattern: done}]
YAML
for kind in plain expr; do
  n=$("$hb" list -c "$dir/$kind.yaml" | tail -1)
  echo "$kind: $n"
  for r in $(seq "$rounds"); do
    /usr/bin/time -f "$kind round $r: %e s, %M KiB peak" "$hb" list -c "$dir/$kind.yaml" >/dev/null
  done
done
