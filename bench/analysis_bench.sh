#!/usr/bin/env bash
# Benchmark of `hetbench compare` and `hetbench report` on a large results
# store (issue 6). Target: each under 2 s on a store of 1,000,000
# performance values.
#
# The store is filled through the real import path (`hetbench results
# import` of generated hetbench run reports): SESSIONS sessions (default
# 500), each of CASES cases (default 500) with VALUES performance values
# each (default 4), so 1,000,000 values in 2,000 series of 500 points. One
# series in ten drops by 15% from session 300 on, so the change-point
# detection has real work. Then, REPS times each:
#   hetbench compare runs:11-20 last:10        (all 2,000 series, MWU each)
#   hetbench compare 7d..3d 3d..now            (time ranges)
#   hetbench report -o report.html             (whole store: change points of
#                                               every series, all analyses)
# printing wall time and peak RSS (GNU time).
# Usage: bench/analysis_bench.sh [path/to/hetbench]   (default build/hetbench)
#
# Needs: a build (./scripts/build) and sqlite3; both come with
# ./scripts/deps.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
hb="$(realpath "${1:-$here/../build/hetbench}")"
sessions="${SESSIONS:-500}"
cases="${CASES:-500}"
values="${VALUES:-4}"
reps="${REPS:-3}"
work="$(mktemp -d /tmp/hb_analysis_bench_XXXXXX)"
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
now=$(date +%s)

# report K: session K of $sessions, one every 20 minutes up to now.
report() {
  awk -v k="$1" -v n="$cases" -v nv="$values" -v ns="$sessions" -v now="$now" 'BEGIN {
    srand(k)
    t = now - (ns - k) * 1200
    printf "{\"schema\": \"hetbench-run-report\", \"schema_version\": 1,\n"
    printf " \"session\": {\"session_id\": \"bench-%05d\", \"version\": \"0.1.0\", \"hostname\": \"bench\", \"user\": \"bench\", ", k
    printf "\"argv\": [\"hetbench\", \"run\"], \"system\": \"bench\", \"prefix\": \"/tmp\", "
    printf "\"config_files\": [], \"start_time\": %d, \"end_time\": %d, \"exit_code\": 0},\n", t, t + 600
    printf " \"cases\": [\n"
    for (i = 0; i < n; i++) {
      s = t + i * 0.5
      printf "  {\"id\": \"gen_%03d@bench:gpu+env\", \"name\": \"gen_%03d\", \"display_name\": \"gen_%03d\", ", i, i, i
      printf "\"unique_name\": \"\", \"descr\": \"\", \"file\": \"/bench/gen.yaml\", \"parameters\": {}, \"tags\": [\"bench\"], "
      printf "\"maintainers\": [], \"system\": \"bench\", \"partition\": \"gpu\", \"environ\": \"env\", \"result\": \"pass\", "
      printf "\"fail_stage\": \"\", \"fail_reason\": \"\", \"repetition\": 0, \"attempt\": 0, "
      printf "\"start_time\": %.3f, \"end_time\": %.3f, \"timings\": [], ", s, s + 0.4
      printf "\"job\": {\"id\": \"\", \"state\": \"\", \"exit_code\": 0, \"nodelist\": []}, "
      printf "\"resources\": {\"num_tasks\": 1}, \"stagedir\": \"\", \"outputdir\": \"\", \"perf\": ["
      for (v = 0; v < nv; v++) {
        level = 100 * (1 + v)
        if (i % 10 == 0 && k >= 300) level *= 0.85
        printf "{\"name\": \"v%d\", \"value\": %.3f, \"unit\": \"GB/s\", ", v, level * (1 + 0.02 * (rand() - 0.5))
        printf "\"reference\": {\"value\": %d, \"lower\": -0.1, \"upper\": null, \"unit\": \"GB/s\"}, ", 100 * (1 + v)
        printf "\"verdict\": \"pass\", \"message\": \"\"}%s", (v + 1 < nv ? ", " : "")
      }
      printf "]}%s\n", (i + 1 < n ? "," : "")
    }
    printf " ]}\n"
  }'
}

echo "generating $sessions sessions x $cases cases x $values values"
mkdir -p "$work/reports"
for k in $(seq 1 "$sessions"); do report "$k" > "$work/reports/run-$(printf %05d "$k").json"; done
start=$(date +%s.%N)
"$hb" results import --store "$work/big.db" "$work"/reports/*.json | tail -1   # oldest first, as runs land
echo "import: $(echo "$(date +%s.%N) - $start" | bc) s"
rm -rf "$work/reports"
echo "store: $(du -h "$work/big.db" | cut -f1), $(sqlite3 "$work/big.db" 'SELECT count(*) FROM perf') values"

run() {
  local name="$1"; shift
  for i in $(seq 1 "$reps"); do
    /usr/bin/time -f "%e %M" -o "$work/time" "$hb" "$@" --store "$work/big.db" > "$work/out" 2>&1 || true
    read -r wall rss < "$work/time"
    printf '%s wall_s=%s peak_rss_mib=%d %s\n' "$name" "$wall" $((rss / 1024)) "$(tail -1 "$work/out")"
  done
}
run compare_runs compare runs:11-20 last:10
run compare_time compare 7d..3d 3d..now
run report report -o "$work/report.html"
grep -c '"kind":"regression"' "$work/report.html" >/dev/null && \
  echo "report: $(grep -o '"kind":"regression"' "$work/report.html" | wc -l) regressions marked, $(du -h "$work/report.html" | cut -f1)"
