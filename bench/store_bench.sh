#!/usr/bin/env bash
# Benchmark of the results store (issue 6): inserting one session of
# 10,000 cases (one performance value each, with its reference; parameters,
# tags, timings, job fields as a real run has them). Target: < 1 s.
#
# A hetbench run report with 10,000 cases is generated, then added with
# `hetbench results import`, which prints the time of the store write
# alone (one transaction); the wall time of the whole command (reading and
# parsing the 5 MB report too) is printed beside it. Each repetition adds a
# new session to a fresh store and to a store already holding the earlier
# repetitions' sessions.
# Usage: bench/store_bench.sh [path/to/hetbench]   (default build/hetbench)
#
# Needs: a build (./scripts/build: build/hetbench); SQLite comes with it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
hb="$(realpath "${1:-$here/../build/hetbench}")"
reps="${REPS:-5}"
cases="${CASES:-10000}"
work="$(mktemp -d /tmp/hb_store_bench_XXXXXX)"
trap 'rm -rf "$work"' EXIT

# report ID: a run report (run_report.h, schema_version 1) of $cases cases.
report() {
  awk -v id="$1" -v n="$cases" 'BEGIN {
    t = 1714564800
    printf "{\"schema\": \"hetbench-run-report\", \"schema_version\": 1,\n"
    printf " \"session\": {\"session_id\": \"%s\", \"version\": \"0.1.0\", \"hostname\": \"bench\", \"user\": \"bench\", ", id
    printf "\"argv\": [\"hetbench\", \"run\", \"-c\", \"gen/\"], \"system\": \"bench\", \"prefix\": \"/tmp\", "
    printf "\"config_files\": [\"site.yaml\"], \"start_time\": %d, \"end_time\": %d, \"exit_code\": 0},\n", t, t + 600
    printf " \"cases\": [\n"
    for (i = 0; i < n; i++) {
      f = int(i / 100); v = i % 100; s = t + i * 0.05
      printf "  {\"id\": \"gen_%03d%%v=%d@bench:local+builtin\", \"name\": \"gen_%03d\", \"display_name\": \"gen_%03d %%v=%d\", ", f, v, f, f, v
      printf "\"unique_name\": \"\", \"descr\": \"generated test %d\", \"file\": \"/bench/gen/gen_%03d.yaml\", ", f, f
      printf "\"parameters\": {\"v\": \"%d\"}, \"tags\": [\"bench\", \"gen\"], \"maintainers\": [], ", v
      printf "\"system\": \"bench\", \"partition\": \"local\", \"environ\": \"builtin\", \"result\": \"pass\", "
      printf "\"fail_stage\": \"\", \"fail_reason\": \"\", \"repetition\": 0, \"attempt\": 0, "
      printf "\"start_time\": %.3f, \"end_time\": %.3f, ", s, s + 0.04
      printf "\"timings\": [{\"stage\": \"setup\", \"seconds\": 0.001}, {\"stage\": \"run\", \"seconds\": 0.03}, "
      printf "{\"stage\": \"sanity\", \"seconds\": 0.0002}, {\"stage\": \"performance\", \"seconds\": 0.0002}], "
      printf "\"job\": {\"id\": \"%d\", \"state\": \"completed(exit 0)\", \"exit_code\": 0, \"nodelist\": [\"bench\"], ", 100000 + i
      printf "\"submit_time\": %.3f, \"completion_time\": %.3f, \"noticed_time\": %.3f}, ", s, s + 0.035, s + 0.04
      printf "\"resources\": {\"num_tasks\": 1, \"num_tasks_per_node\": 0, \"num_cpus_per_task\": 0, "
      printf "\"num_gpus_per_node\": 0, \"exclusive_access\": false, \"extra_resources\": {}, \"env_vars\": {}, \"modules\": []}, "
      printf "\"stagedir\": \"/tmp/stage/%d\", \"outputdir\": \"/tmp/output/%d\", ", i, i
      printf "\"perf\": [{\"name\": \"value\", \"value\": %d.5, \"unit\": \"s\", ", v
      printf "\"reference\": {\"value\": 1.5, \"lower\": -0.5, \"upper\": 0.5, \"unit\": \"s\"}, "
      printf "\"verdict\": \"pass\", \"message\": \"\"}]}%s\n", (i + 1 < n ? "," : "")
    }
    printf " ]}\n"
  }'
}

echo "store insert: one session of $cases cases, $reps repetitions"
for i in $(seq 1 "$reps"); do
  report "bench-$i" > "$work/report-$i.json"
  for store in "$work/fresh-$i.db" "$work/growing.db"; do
    start=$(date +%s.%N)
    line=$("$hb" results import --store "$store" "$work/report-$i.json")
    end=$(date +%s.%N)
    insert=$(sed -n 's/.* in \([0-9.]*\) s$/\1/p' <<<"$line")
    kind=$([[ $store == *fresh* ]] && echo fresh || echo "holding $((i - 1)) sessions")
    printf 'store_insert_10k insert_s=%s import_wall_s=%.3f store=%s\n' "$insert" "$(echo "$end - $start" | bc)" "$kind"
  done
done
