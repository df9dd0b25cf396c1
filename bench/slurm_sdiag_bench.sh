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
# With HB_REFRAME=CMD (a ReFrame command, e.g. `reframe` of a pip install;
# nothing here installs it), ReFrame runs the same 200 cases after
# hetbench in each state, with the same counters.
# Usage: bench/slurm_sdiag_bench.sh [--accounting] [path/to/hetbench]
#
# Needs: root, a build (./scripts/build), the project's Slurm cluster
# (scripts/slurm-up, packages from ./scripts/deps) and python3; HB_REFRAME
# needs a ReFrame install, which the project does not ship.
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

# The same site and test for ReFrame (used with HB_REFRAME).
cat > "$work/rfm_settings.py" <<PYCFG
site_configuration = {
    'systems': [{'name': 'bench', 'hostnames': ['.*'], 'partitions': [{
        'name': 'debug', 'scheduler': '$sched', 'launcher': 'local', 'access': ['--partition=debug'],
        'environs': ['builtin'], 'max_jobs': 50}]}],
    'environments': [{'name': 'builtin', 'cc': 'gcc'}],
}
PYCFG
cat > "$work/rfm_trivial.py" <<PYTEST
import reframe as rfm
import reframe.utility.sanity as sn


@rfm.simple_test
class trivial(rfm.RunOnlyRegressionTest):
    i = parameter(range($cases))
    valid_systems = ['*']
    valid_prog_environs = ['*']
    executable = 'echo'
    executable_opts = ['"value: 1.5"']
    postrun_cmds = ['date +%s.%N > last_act']
    keep_files = ['last_act']

    @sanity_function
    def validate(self):
        return sn.assert_found(r'value: ', self.stdout)
PYTEST

ctld_cpu() {  # slurmctld's user+system CPU in clock ticks
  local pid
  pid=$(pgrep -x slurmctld | head -1)
  awk '{print $14 + $15}' "/proc/$pid/stat"
}

run() {
  local label=$1 tool=${2:-hetbench}
  rm -f "$work/calls" "$work/bytes"
  rm -rf "$work/out" "$work/rfm"
  sdiag --reset >/dev/null
  local c0 start end
  c0=$(ctld_cpu)
  start=$(date +%s.%N)
  if [ "$tool" = hetbench ]; then
    (cd "$work" && PATH="$work/shim:$PATH" /usr/bin/time -f "%U %S %M" -o "$work/time" \
       "$hb" run -C site.yaml -c t.yaml --prefix out >/dev/null) || { echo "run failed ($label)" >&2; exit 1; }
  else
    (cd "$work" && PATH="$work/shim:$PATH" /usr/bin/time -f "%U %S %M" -o "$work/time" \
       $HB_REFRAME -C rfm_settings.py -c rfm_trivial.py -r --prefix rfm --report-file rfm/report.json >/dev/null) ||
      { echo "ReFrame run failed ($label)" >&2; exit 1; }
  fi
  end=$(date +%s.%N)
  local c1
  c1=$(ctld_cpu)
  sdiag > "$work/sdiag"
  /usr/bin/python3 - "$work" "$label" "$sched" "$start" "$end" "$c0" "$c1" "$(getconf CLK_TCK)" \
      "$(squeue -h -u hbforeign -t PD | wc -l)" "$tool" <<'PY'
import collections, glob, json, re, statistics, sys
work, label, sched, start, end, c0, c1, tck, foreign, tool = sys.argv[1:]
delays = []
if tool == "hetbench":
    rep = json.load(open(glob.glob(work + "/out/reports/run-*.json")[0]))
    for c in rep["cases"]:
        assert c["result"] == "pass", c
        delays.append(c["job"]["noticed_time"] - float(open(c["outputdir"] + "/last_act").read()))
else:
    # ReFrame's report: job_completion_time_unix is when ReFrame saw the job
    # end in squeue mode; in slurm mode it is sacct's End, so no delay.
    rep = json.load(open(work + "/rfm/report.json"))
    for r in rep["runs"][0]["testcases"]:
        assert r["result"] == "pass", r.get("fail_reason")
        if sched == "squeue":
            delays.append(r["job_completion_time_unix"] - float(open(r["outputdir"] + "/last_act").read()))
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
users = dict(re.findall(r"^\s+(\S+)\s+\(\s*\d+\) count:(\d+)", open(work + "/sdiag").read().split("by user")[-1], re.M))
u, s, rss_kb = open(work + "/time").read().split()[-3:]
print(f"{tool} slurm_{sched} {label}: foreign_pending={foreign} cases={len(rep.get('cases', rep.get('runs', [{}])[0].get('testcases', [])))} wall_s={float(end)-float(start):.2f} "
      f"poll_cycles={cycles} "
      + " ".join(f"{k}={calls.get(k, 0)}" for k in ["sbatch"] + query_cmds)
      + f" query_rpcs={q_count} query_rpcs_per_cycle={q_count / max(cycles, 1):.2f} "
      + " ".join(f"{k.replace('REQUEST_', '').lower()}={rpc.get(k, (0, 0))[0]}" for k in kinds)
      + f" all_rpcs_of_this_user={users.get('root', users.get(__import__('getpass').getuser(), 0))}"
      + f" query_rpc_server_ms={q_time_us / 1000:.1f} query_rpc_server_ms_per_cycle={q_time_us / 1000 / max(cycles, 1):.2f}"
      + f" bytes_read_per_cycle={sum(nbytes[k] for k in query_cmds) / max(cycles, 1):.0f}"
      + f" hetbench_cpu_s={float(u) + float(s):.2f} hetbench_maxrss_mib={int(rss_kb) / 1024:.1f}"
      + f" slurmctld_cpu_s={(int(c1) - int(c0)) / int(tck):.2f}"
      + (f" notice_median_s={statistics.median(delays):.3f}" if delays else " notice_median_s=n/a"))
PY
}

# The "empty" run needs a controller without the foreign jobs of an earlier
# run: cancelled jobs stay in slurmctld's memory for MinJobAge (300 s).
for _ in $(seq 400); do
  [ "$(squeue -h -u hbforeign -t all 2>/dev/null | wc -l)" -eq 0 ] && break
  sleep 1
done
[ "$(squeue -h -u hbforeign -t all | wc -l)" -eq 0 ] || { echo "hbforeign's old jobs are still in the controller" >&2; exit 1; }
run empty
if [ -n "${HB_REFRAME:-}" ]; then run empty reframe; fi
echo "submitting $foreign_jobs held jobs as hbforeign..." >&2
seq "$foreign_jobs" | xargs -P 4 -n 50 sh -c 'for i; do sbatch -Q --uid=hbforeign --hold -p debug -o /dev/null --wrap=true; done' _ >/dev/null
n=$(squeue -h -u hbforeign -t PD | wc -l)
[ "$n" -ge "$foreign_jobs" ] || { echo "only $n foreign jobs are pending" >&2; exit 1; }
run "foreign"
if [ -n "${HB_REFRAME:-}" ]; then run foreign reframe; fi
