#!/usr/bin/env bash
# The controller's side of hetbench's polling (issue 19, item 2), on the
# project's real single-node Slurm (scripts/slurm-up; as root).
#
# Runs 200 trivial cases (max_jobs 50) twice: on an empty controller, then
# with 5,000 held jobs of another user in it (user hbforeign, made here if
# missing; `sbatch --uid=hbforeign --hold`; cancelled at the end). For each
# run it records:
#  - RPCs per poll cycle from sdiag (counters reset before the run): the job
#    query messages REQUEST_JOB_INFO (squeue; Slurm 22.05's squeue loads
#    every job and filters them itself unless given one id),
#    REQUEST_JOB_INFO_SINGLE (scontrol show job ID, squeue -j ID) and
#    REQUEST_JOB_USER_INFO, with their total server time; a poll cycle is
#    one squeue (squeue mode) or one sacct (slurm mode) per 500 jobs;
#  - bytes hetbench read per poll (the query commands' stdout, counted by
#    wrappers in front of them);
#  - hetbench's CPU (user+system) and peak memory (/usr/bin/time), and
#    slurmctld's CPU over the run (/proc/PID/stat);
#  - the median notice delay (a job's last act to hetbench seeing it end).
# Usage: bench/slurm_sdiag_bench.sh [--accounting] [path/to/hetbench]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
accounting=""
if [ "${1:-}" = "--accounting" ]; then accounting="--accounting"; shift; fi
hb="$(realpath "${1:-$here/../build/hetbench}")"
foreign_jobs="${HB_FOREIGN_JOBS:-5000}"
cases="${HB_CASES:-200}"
"$here/../scripts/slurm-up" $accounting >/dev/null
sched=$([ -n "$accounting" ] && echo slurm || echo squeue)
work="$(mktemp -d /tmp/hb_sdiag_bench_XXXXXX)"
export HETBENCH_STORE="$work/results.db"
cleanup() {
  scancel -u hbforeign 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
id hbforeign >/dev/null 2>&1 || useradd -M -r -s /usr/sbin/nologin hbforeign

mkdir "$work/shim"
for c in sbatch squeue sacct scontrol scancel; do
  real="$(command -v "$c")"
  cat > "$work/shim/$c" <<SH
#!/bin/bash
echo $c >> "$work/calls"
"$real" "\$@" > "$work/out.\$\$"
rc=\$?
echo "$c \$(stat -c %s "$work/out.\$\$")" >> "$work/bytes"
cat "$work/out.\$\$"
rm -f "$work/out.\$\$"
exit \$rc
SH
  chmod +x "$work/shim/$c"
done
. "$here/slurm_bench_lib.sh"
slurm_bench_site "$work" "$sched"
slurm_bench_test "$work" "$cases"

ctld_cpu() {  # slurmctld's user+system CPU in clock ticks
  local pid
  pid=$(pgrep -x slurmctld | head -1)
  awk '{print $14 + $15}' "/proc/$pid/stat"
}

run() {
  local label=$1
  rm -f "$work/calls" "$work/bytes"
  rm -rf "$work/out"
  sdiag --reset >/dev/null
  local c0 start end
  c0=$(ctld_cpu)
  start=$(date +%s.%N)
  (cd "$work" && PATH="$work/shim:$PATH" /usr/bin/time -f "%U %S %M" -o "$work/time" \
     "$hb" run -C site.yaml -c t.yaml --prefix out >/dev/null) || { echo "run failed ($label)" >&2; exit 1; }
  end=$(date +%s.%N)
  local c1
  c1=$(ctld_cpu)
  sdiag > "$work/sdiag"
  /usr/bin/python3 - "$work" "$label" "$sched" "$start" "$end" "$c0" "$c1" "$(getconf CLK_TCK)" \
      "$(squeue -h -u hbforeign -t PD | wc -l)" <<'PY'
import collections, glob, json, re, statistics, sys
work, label, sched, start, end, c0, c1, tck, foreign = sys.argv[1:]
rep = json.load(open(glob.glob(work + "/out/reports/run-*.json")[0]))
delays = []
for c in rep["cases"]:
    assert c["result"] == "pass", c
    delays.append(c["job"]["noticed_time"] - float(open(c["outputdir"] + "/last_act").read()))
calls = collections.Counter(l.strip() for l in open(work + "/calls"))
nbytes = collections.Counter()
for l in open(work + "/bytes"):
    name, n = l.split()
    nbytes[name] += int(n)
query_cmds = ["squeue", "sacct", "scontrol"]
cycles = calls.get("sacct" if sched == "slurm" else "squeue", 0)
rpc = {}
for m in re.finditer(r"^\s+(REQUEST_\w+)\s+\(\s*\d+\) count:(\d+)\s+ave_time:(\d+)\s+total_time:(\d+)",
                     open(work + "/sdiag").read(), re.M):
    rpc[m.group(1)] = (int(m.group(2)), int(m.group(4)))
kinds = ["REQUEST_JOB_INFO", "REQUEST_JOB_INFO_SINGLE", "REQUEST_JOB_USER_INFO"]
q_count = sum(rpc.get(k, (0, 0))[0] for k in kinds)
q_time_us = sum(rpc.get(k, (0, 0))[1] for k in kinds)
u, s, rss_kb = open(work + "/time").read().split()[-3:]
print(f"slurm_{sched} {label}: foreign_pending={foreign} cases={len(delays)} wall_s={float(end)-float(start):.2f} "
      f"poll_cycles={cycles} "
      + " ".join(f"{k}={calls.get(k, 0)}" for k in ["sbatch"] + query_cmds)
      + f" query_rpcs={q_count} query_rpcs_per_cycle={q_count / max(cycles, 1):.2f} "
      + " ".join(f"{k.replace('REQUEST_', '').lower()}={rpc.get(k, (0, 0))[0]}" for k in kinds)
      + f" query_rpc_server_ms={q_time_us / 1000:.1f} query_rpc_server_ms_per_cycle={q_time_us / 1000 / max(cycles, 1):.2f}"
      + f" bytes_read_per_cycle={sum(nbytes[k] for k in query_cmds) / max(cycles, 1):.0f}"
      + f" hetbench_cpu_s={float(u) + float(s):.2f} hetbench_maxrss_mib={int(rss_kb) / 1024:.1f}"
      + f" slurmctld_cpu_s={(int(c1) - int(c0)) / int(tck):.2f}"
      + f" notice_median_s={statistics.median(delays):.3f}")
PY
}

run empty
echo "submitting $foreign_jobs held jobs as hbforeign..." >&2
seq "$foreign_jobs" | xargs -P 4 -n 50 sh -c 'for i; do sbatch -Q --uid=hbforeign --hold -p debug -o /dev/null --wrap=true; done' _ >/dev/null
n=$(squeue -h -u hbforeign -t PD | wc -l)
[ "$n" -ge "$foreign_jobs" ] || { echo "only $n foreign jobs are pending" >&2; exit 1; }
run "foreign"
