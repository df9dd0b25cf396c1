#!/usr/bin/env bash
# Sanity and performance checks over a large output (issue 16: streaming
# must hold memory flat). One case writes SIZE_MB MB of 100-byte lines
# (default 1000 = 1 GB) to its stdout, then "Solution Validates" and a
# figure; its checks are a pattern on the last line, a not_pattern that
# matches nothing (the whole file searched), a count over every line and a
# performance variable. Prints the sanity and performance stage times from
# the run report, and hetbench's peak RSS (GNU time, %M), over REPS runs.
#   bench/sanity_stream_bench.sh [path/to/hetbench]
#
# Needs: a build (./scripts/build: build/hetbench) and python3
# (./scripts/deps).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
hb="$(realpath "${1:-$here/../build/hetbench}")"
size_mb=${SIZE_MB:-1000}
reps=${REPS:-3}
work="$(mktemp -d /tmp/hb_sanity_bench_XXXXXX)"
export HETBENCH_STORE="$work/results.db"
trap 'rm -rf "$work"' EXIT
lines=$((size_mb * 10000))
cat > "$work/site.yaml" <<YAML
systems:
  - name: s
    hostnames: ['.*']
    partitions:
      - {name: p, scheduler: local, launcher: local, environs: [e]}
environments:
  - {name: e}
general:
  - max_output_per_case: 4GiB
YAML
cat > "$work/t.yaml" <<YAML
name: big
executable: sh
executable_opts: ['-c', "'yes step-0000000000-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx | head -n $lines; echo Solution Validates; echo Triad: 1234.5 MB/s'"]
time_limit: 600
sanity:
  - {pattern: '^Solution Validates$'}
  - {not_pattern: 'ERROR|nan'}
  - {pattern: '^step-', count: $lines}
performance:
  triad: {pattern: 'Triad:\s+(\S+)', unit: MB/s}
YAML
echo "output: $lines lines of 100 bytes + 2 ($(( lines * 100 / 1000000 )) MB); hetbench: $hb"
for i in $(seq "$reps"); do
  rm -rf "$work/out"
  (cd "$work" && /usr/bin/time -f '%M' -o rss "$hb" run -C site.yaml -c t.yaml --prefix out > run.txt 2>&1) ||
    { tail -20 "$work/run.txt"; exit 1; }
  report=$(ls "$work"/out/reports/*.json)
  /usr/bin/python3 - "$report" "$(cat "$work/rss")" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
c = r["cases"][0]
t = {x["stage"]: x["seconds"] for x in c["timings"]}
print("result %s  run %.2f s  sanity %.2f s  performance %.2f s  peak RSS %.1f MiB" % (
    c["result"], t.get("run", 0), t.get("sanity", 0), t.get("performance", 0), int(sys.argv[2]) / 1024))
PY
done
