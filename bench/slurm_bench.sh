#!/usr/bin/env bash
# hetbench on a real Slurm cluster (scripts/slurm-up): N trivial cases with
# max_jobs 50, for N = 200 and N = 20. Reports the total wall time, how many
# scheduler commands hetbench ran (counted by wrappers in front of sbatch,
# squeue, sacct, scontrol and scancel), and how long after each job's end
# hetbench noticed it: each job writes a nanosecond timestamp as its last
# act, and the run report records when hetbench saw the job end.
# Usage: bench/slurm_bench.sh [--accounting] [path/to/hetbench]
#
# Needs: root, a build (./scripts/build) and the project's Slurm cluster,
# which the script starts with scripts/slurm-up (packages from
# ./scripts/deps); python3.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
accounting=""
if [ "${1:-}" = "--accounting" ]; then accounting="--accounting"; shift; fi
hb="$(realpath "${1:-$here/../build/hetbench}")"
"$here/../scripts/slurm-up" $accounting >/dev/null
sched=$([ -n "$accounting" ] && echo slurm || echo squeue)
work="$(mktemp -d /tmp/hb_slurm_bench_XXXXXX)"
# Runs store their sessions (as by default) in a throw-away store.
export HETBENCH_STORE="$work/results.db"
trap 'rm -rf "$work"' EXIT

mkdir "$work/shim"
for c in sbatch squeue sacct scontrol scancel; do
  real="$(command -v "$c")"
  printf '#!/bin/sh\necho %s >> %s/calls\nexec %s "$@"\n' "$c" "$work" "$real" > "$work/shim/$c"
  chmod +x "$work/shim/$c"
done
. "$here/slurm_bench_lib.sh"
slurm_bench_site "$work" "$sched"

for n in 200 20; do
  slurm_bench_test "$work" "$n"
  rm -f "$work/calls"
  rm -rf "$work/out"
  start=$(date +%s.%N)
  (cd "$work" && PATH="$work/shim:$PATH" "$hb" run -C site.yaml -c t.yaml --prefix out >/dev/null) || {
    echo "run of $n cases failed" >&2; exit 1; }
  end=$(date +%s.%N)
  /usr/bin/python3 - "$work" "$n" "$start" "$end" "$sched" <<'PY'
import collections, glob, json, statistics, sys
work, n, start, end, sched = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
rep = json.load(open(glob.glob(work + "/out/reports/run-*.json")[0]))
delays = []
for c in rep["cases"]:
    assert c["result"] == "pass", c
    last = float(open(c["outputdir"] + "/last_act").read())
    delays.append(c["job"]["noticed_time"] - last)
calls = collections.Counter(l.strip() for l in open(work + "/calls"))
delays.sort()
print(f"slurm_{sched} cases={n} wall_s={end-start:.2f} "
      + " ".join(f"{k}={calls.get(k, 0)}" for k in ["sbatch", "squeue", "sacct", "scontrol", "scancel"])
      + f" notice_median_s={statistics.median(delays):.3f} notice_p90_s={delays[int(0.9*len(delays))-1]:.3f}"
      + f" notice_max_s={delays[-1]:.3f}")
PY
done
