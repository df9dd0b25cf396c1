#!/bin/bash
# Replays the probes of issue 16 (hostile input, faults and resource
# limits) against a built hetbench and checks what it does with each:
# one clear message with file:line:column, the right exit status, nothing
# written outside the prefix, nothing lost. Runs in well under a minute.
#
#   tests/probes/run.sh [path/to/hetbench]     (default: build/hetbench)
#
# Prints one line per probe ("ok 3 - ..." or "not ok 3 - ...: why") and
# exits 1 when any probe failed. CTest runs it as Probes.Issue16.
set -u
HB=${1:-$(dirname "$0")/../../build/hetbench}
HB=$(cd "$(dirname "$HB")" && pwd)/$(basename "$HB")
[ -x "$HB" ] || { echo "tests/probes/run.sh: no hetbench at $HB (build it first: ./scripts/build)" >&2; exit 2; }
ROOT=$(mktemp -d "${TMPDIR:-/tmp}/hb-probes.XXXXXX")
trap 'rm -rf "$ROOT"' EXIT
export HETBENCH_STORE=$ROOT/results.db
n=0
failed=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1: $2"; }
# check DESCRIPTION CONDITION-COMMAND... : ok when the command succeeds.
check() {
  local what=$1
  shift
  if "$@"; then ok "$what"; else bad "$what" "${WHY:-check failed}"; fi
  WHY=
}
# Runs hetbench in a fresh folder: sets RC, OUT, ERR, DIR.
hb() {
  DIR=$ROOT/p$n-$RANDOM
  mkdir -p "$DIR"
  # file_t_yaml holds t.yaml, file_site_yaml site.yaml.
  local f name
  for f in "${FILES[@]}"; do
    name=${f#file_}
    printf '%b' "${!f}" > "$DIR/${name%_yaml}.yaml"
  done
  (cd "$DIR" && timeout 60 "$HB" "$@" > out.txt 2> err.txt)
  RC=$?
  OUT=$(cat "$DIR/out.txt")
  ERR=$(cat "$DIR/err.txt")
}
has() { grep -qF -- "$2" <<< "$1" || { WHY="expected '$2' in: $(head -c 600 <<< "$1")"; return 1; }; }
rc_is() { [ "$RC" = "$1" ] || { WHY="exit status $RC, expected $1; stderr: $(head -c 600 <<< "$ERR")"; return 1; }; }
report() { ls -t "$DIR"/out/reports/*.json 2>/dev/null | head -1; }

SITE='systems:\n  - name: s\n    hostnames: [".*"]\n    partitions:\n      - {name: p, scheduler: local, launcher: local, environs: [e]}\nenvironments:\n  - {name: e}\n'
PASS='name: t\nexecutable: echo\nexecutable_opts: [hello]\nsanity: [{pattern: hello}]\n'

# 1. Bytes that are not UTF-8 lose nothing.
file_t_yaml='name: latin\nexecutable: sh\nexecutable_opts: ["-c", "printf '"'"'Gr\\\\374\\\\337e\\\\n'"'"' >&2; echo done"]\nsanity: [{pattern: done}]\n---\nname: many\nparameters: {i: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]}\nexecutable: echo\nexecutable_opts: [ok]\nsanity: [{pattern: ok}]\n'
FILES=(file_t_yaml); hb run -c t.yaml --prefix out
check "a job's Latin-1 stderr: run ends normally with 21 cases in the report" \
  eval 'rc_is 0 && [ -n "$(report)" ] && [ "$(grep -o "\"result\": *\"pass\"" "$(report)" | wc -l)" = 21 ]'
file_t_yaml='name: latin\nexecutable: sh\nexecutable_opts: ["-c", "'"'"'printf \"Gr\\\\374\\\\337e\\\\n\" >&2; exit 1'"'"'"]\nsanity: [{pattern: x}]\n'
FILES=(file_t_yaml); hb run -c t.yaml --prefix out
GRUSSE=$'Gr\xef\xbf\xbd\xef\xbf\xbde' 
check "a failure reason quoting Latin-1 stderr: U+FFFD in the report, recorded in utf8_replaced" \
  eval 'rc_is 1 && has "$(cat "$(report)")" "$GRUSSE" && has "$(cat "$(report)")" "\"/fail_reason\""'
latest_replaced() { sqlite3 "$HETBENCH_STORE" "SELECT utf8_replaced FROM cases WHERE name = '$1' ORDER BY id DESC LIMIT 1"; }
check "... the store has U+FFFD and utf8_replaced too, and the run says so" \
  eval 'has "$(latest_replaced latin)" "\"/fail_reason\"" && has "$OUT$ERR" "text that is not UTF-8"'
file_t_yaml='name: iso\ndescr: "M\xfcnchen"\nexecutable: echo\nexecutable_opts: [hello]\nsanity: [{pattern: hello}]\n'
FILES=(file_t_yaml); hb run -c t.yaml --prefix out
check "a test file in ISO-8859-1 runs and is reported" eval 'rc_is 0 && [ -n "$(report)" ]'
file_site_yaml='systems:\n  - name: "c\xff"\n    hostnames: [".*"]\n    partitions: []\n'
FILES=(file_site_yaml); hb list -C site.yaml
check "a system name with byte 0xFF is a configuration error" eval 'rc_is 2 && has "$ERR" "site.yaml:2:"'

# 2. Names do not escape the prefix.
mkdir -p "$ROOT/victim/perfcase" && echo precious > "$ROOT/victim/perfcase/keep.txt"
file_site_yaml='systems:\n  - name: s\n    hostnames: [".*"]\n    partitions:\n      - {name: p, scheduler: local, launcher: local, environs: ["../../../victim"]}\nenvironments:\n  - {name: "../../../victim"}\n'
file_t_yaml=$PASS
FILES=(file_site_yaml file_t_yaml); hb run -C site.yaml -c t.yaml --prefix out
check "an environment named ../../victim is refused and deletes nothing" \
  eval 'rc_is 2 && has "$ERR" "site.yaml:7:" && [ -f "$ROOT/victim/perfcase/keep.txt" ]'
for field in system partition; do
  if [ $field = system ]; then
    file_site_yaml='systems:\n  - name: "../../esc"\n    hostnames: [".*"]\n    partitions:\n      - {name: p, scheduler: local, launcher: local, environs: [e]}\nenvironments:\n  - {name: e}\n'
  else
    file_site_yaml='systems:\n  - name: s\n    hostnames: [".*"]\n    partitions:\n      - {name: "../../esc", scheduler: local, launcher: local, environs: [e]}\nenvironments:\n  - {name: e}\n'
  fi
  FILES=(file_site_yaml file_t_yaml); hb run -C site.yaml -c t.yaml --prefix out/in
  check "a $field name with ../ is refused, nothing written outside the prefix" \
    eval 'rc_is 2 && has "$ERR" "is not valid" && [ ! -e "$DIR/esc" ] && [ ! -e "$DIR/out/esc" ]'
done
file_t_yaml='name: "../../esc"\nexecutable: echo\nexecutable_opts: [hello]\nsanity: [{pattern: hello}]\n'
FILES=(file_t_yaml); hb run -c t.yaml --prefix out/in
check "a test named ../../esc is refused with its place" \
  eval 'rc_is 2 && has "$ERR" "t.yaml:1:" && [ ! -e "$DIR/esc" ] && [ ! -e "$DIR/out/esc" ]'
file_t_yaml='name: t\nparameters: {p: ["../../esc"]}\nexecutable: echo\nexecutable_opts: [hello]\nsanity: [{pattern: hello}]\nkeep_files: [x]\nprerun_cmds: ["echo x > x"]\n'
FILES=(file_t_yaml); hb run -c t.yaml --prefix out --keep-stage-files
check "a parameter value ../../esc stays inside the prefix" eval '[ ! -e "$DIR/esc" ] && [ -z "$(find "$DIR" -maxdepth 2 -name esc)" ]'
file_t_yaml='name: t\nexecutable: echo\nexecutable_opts: [hello]\nsanity: [{pattern: hello}]\nkeep_files: [/etc/passwd]\n'
FILES=(file_t_yaml); hb run -c t.yaml --prefix out
check "keep_files with an absolute path is refused at load (no crash)" eval 'rc_is 2 && has "$ERR" "t.yaml:5:"'
file_t_yaml='name: t\nexecutable: echo\nexecutable_opts: [hello]\nsanity: [{pattern: hello}]\nkeep_files: ["../../x"]\n'
FILES=(file_t_yaml); hb run -c t.yaml --prefix out
check "keep_files with .. is refused at load" eval 'rc_is 2 && has "$ERR" "t.yaml:5:"'
file_t_yaml='name: t\nexecutable: echo\nexecutable_opts: [hello]\nsanity: [{pattern: hello}]\nsourcesdir: .\n'
FILES=(file_t_yaml); hb run -c t.yaml --prefix out
check "sourcesdir: . fails the case clearly without a deep copy" \
  eval 'rc_is 1 && has "$OUT$ERR" "inside it" && [ "$(find "$DIR" -type d | awk -F/ "{print NF}" | sort -n | tail -1)" -lt 40 ]'
file_site_yaml=$SITE'logging:\n  - handlers_perflog: [{type: filelog, basedir: perf, prefix: "%(check_system)s/%(check_partition)s"}]\n'
file_t_yaml='name: t\nparameters: {p: ["../../../esc", "a/b"]}\nexecutable: echo\nexecutable_opts: ["v 1"]\nsanity: [{pattern: v}]\nperformance: {v: {pattern: "v (\\\\d+)", unit: x}}\n'
FILES=(file_site_yaml file_t_yaml); hb run -C site.yaml -c t.yaml --prefix out
check "parameter values with ../ and / in perflog and stage paths stay below the perflog basedir and prefix" \
  eval 'rc_is 0 && [ -n "$(find "$DIR/out/perf" -name "*.log")" ] && [ -z "$(find "$ROOT" -name "*.log" -newer "$DIR/t.yaml" ! -path "$DIR/out/*")" ] && [ ! -e "$ROOT/esc" ] && [ ! -e "$DIR/esc" ]'

# 3. The regex engine giving up is never "no match".
file_site_yaml=$SITE'general:\n  - regex_match_limit: 100000\n'
file_t_yaml='name: t\nexecutable: printf\nexecutable_opts: ["aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab\\\\nERROR\\\\n"]\nsanity: [{not_pattern: "^(a+)+$|ERROR"}]\n'
FILES=(file_site_yaml file_t_yaml); hb run -C site.yaml -c t.yaml --prefix out
check "a not_pattern PCRE2 gives up on fails the case (regex too expensive)" \
  eval 'rc_is 1 && has "$(cat "$(report)")" "regex too expensive"'
file_t_yaml='name: t\nexecutable: printf\nexecutable_opts: ["'"'"'aaaa\\\\naaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab\\\\naaaa\\\\n'"'"'"]\nsanity: [{pattern: "^(a+)+$", count: 2}]\n'
FILES=(file_site_yaml file_t_yaml); hb run -C site.yaml -c t.yaml --prefix out
check "a count PCRE2 gives up on fails the case, not a short count" \
  eval 'rc_is 1 && has "$(cat "$(report)")" "regex too expensive"'

# 4. A reader that goes away loses nothing.
DIR=$ROOT/pipe; mkdir -p "$DIR"; printf '%b' "$PASS" > "$DIR/t.yaml"
(cd "$DIR" && { "$HB" run -c t.yaml --prefix out; echo "rc=$?" > rc; } | head -c 1 > /dev/null)
check "hetbench run | head -1: exit status 0, report written" eval '[ "$(cat "$DIR/rc")" = rc=0 ] && [ -n "$(report)" ]'

# 5. Wrongly typed configuration values are errors with file:line:column.
for bad_cfg in 'logging:\n  - handlers_perflog: [filelog]\n' 'logging:\n  - handlers_perflog: filelog\n' \
               'logging:\n  - handlers_perflog: 5\n' 'logging:\n  - handlers_perflog: [{type: [filelog]}]\n' \
               'general:\n  - remote_detect: "yes"\n' 'storage:\n  - sqlite_db_file: [x]\n' \
               'storage:\n  - sqlite_conn_timeout: soon\n' 'general:\n  - topology_prefix: [1]\n' \
               'general:\n  - max_output_per_case: lots\n' 'general:\n  - max_cases: 0\n'; do
  file_site_yaml=$SITE$bad_cfg; file_t_yaml=$PASS
  FILES=(file_site_yaml file_t_yaml); hb list -C site.yaml -c t.yaml
  key=$(printf '%b' "$bad_cfg" | sed -n '2s/^  - \([a-z_]*\).*/\1/p')
  check "$key of the wrong type: exit 2, site.yaml:9:, no crash" eval 'rc_is 2 && has "$ERR" "site.yaml:9:"'
done
mkdir -p "$ROOT/topo/s/p"
file_t_yaml=$PASS; file_site_yaml=$SITE'general:\n  - topology_prefix: '"$ROOT"'/topo\n'
printf '{"hostname": 5}' > "$ROOT/topo/s/p/processor.json"
FILES=(file_site_yaml file_t_yaml); hb list -C site.yaml -c t.yaml
check "a topology cache with a number for a hostname is not a crash" eval '[ "$RC" -lt 128 ] && [ "$RC" != 70 ]'

# 7. Limits.
file_t_yaml='name: huge\nexecutable: "true"\nsanity: [{exit_code: 0}]\nparameters:\n'
for i in 0 1 2 3 4 5 6 7 8 9; do file_t_yaml+="  p$i: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n"; done
FILES=(file_t_yaml); hb list -c t.yaml
check "10 parameters of 10 values: list refuses at once (general: max_cases)" \
  eval 'rc_is 2 && has "$ERR" "t.yaml:4:" && has "$ERR" "general: max_cases"'
file_site_yaml=$SITE'general:\n  - max_output_per_case: 1MiB\n'
file_t_yaml='name: chatty\nexecutable: "yes"\ntime_limit: 60\nsanity: [{pattern: y}]\n'
start=$(date +%s)
FILES=(file_site_yaml file_t_yaml); hb run -C site.yaml -c t.yaml --prefix out
took=$(( $(date +%s) - start ))
check "yes for its time limit: stopped at max_output_per_case, cut with a marker, fails" \
  eval 'rc_is 1 && [ $took -lt 30 ] && has "$(cat "$(report)")" "output limit: hb_job.out grew beyond 1 MiB" &&
        [ "$(tail -c 200 "$(find "$DIR/out/output" -name hb_job.out)")" != "" ] &&
        has "$(tail -c 100 "$(find "$DIR/out/output" -name hb_job.out)")" "[hetbench: output cut here at 1 MiB"'
file_t_yaml='name: big\nexecutable: sh\nexecutable_opts: ["-c", "head -c 300000000 /dev/zero | tr \\"\\\\\\\\0\\" x | fold -w 99; echo Solution Validates"]\ntime_limit: 120\nsanity: [{pattern: "^Solution Validates$"}, {not_pattern: ERROR}]\n'
FILES=(file_t_yaml); DIR=$ROOT/big; mkdir -p "$DIR"; printf '%b' "$file_t_yaml" > "$DIR/t.yaml"
(cd "$DIR" && /usr/bin/time -f '%M' -o rss timeout 120 "$HB" run -c t.yaml --prefix out > out.txt 2> err.txt); RC=$?
rss_kb=$(tail -1 "$DIR/rss")
check "sanity over 300 MB of stdout passes in under 100 MiB (max RSS ${rss_kb} KiB)" \
  eval 'rc_is 0 && [ "$rss_kb" -lt 102400 ]'

# 8. Sanity stops at an interrupt.
DIR=$ROOT/slow; mkdir -p "$DIR"
cat > "$DIR/t.yaml" <<'YAML'
name: slow
executable: sh
executable_opts: ['-c', "'i=0; while [ $i -lt 20000 ]; do echo aaaaaaaaaaaaaaaaaaaaaaaaaaab; i=$((i+1)); done'"]
sanity: [{not_pattern: '^(a|aa)+$'}]
YAML
(cd "$DIR" && exec "$HB" run -c t.yaml --prefix out > out.txt 2> err.txt) & pid=$!
for _ in $(seq 100); do grep -q "RUN" "$DIR/out.txt" 2> /dev/null && break; sleep 0.1; done
sleep 2
t0=$(date +%s%N); kill -INT $pid; wait $pid; RC=$?; t1=$(date +%s%N)
ms=$(( (t1 - t0) / 1000000 ))
check "SIGINT during a slow sanity check: exit 130 in ${ms} ms, report written" \
  eval 'rc_is 130 && [ $ms -lt 1500 ] && [ -n "$(report)" ]'

# 9. Repeated parameter values.
file_t_yaml='name: t\nparameters: {p: [x, x]}\nexecutable: echo\nexecutable_opts: [hello]\nsanity: [{pattern: hello}]\n'
FILES=(file_t_yaml); hb list -c t.yaml
check "p: [x, x] is refused with its place" eval 'rc_is 2 && has "$ERR" "t.yaml:2:"'

# 11. Documented keys do what they say.
file_site_yaml='systems:\n  - name: s\n    hostnames: [".*"]\n    prefix: '"$ROOT"'/sysprefix\n    partitions:\n      - {name: p, scheduler: local, launcher: local, environs: [e]}\nenvironments:\n  - {name: e}\n'
file_t_yaml=$PASS
FILES=(file_site_yaml file_t_yaml); hb run -C site.yaml -c t.yaml
check "the system's prefix is used" eval 'rc_is 0 && [ -d "$ROOT/sysprefix/reports" ]'
file_t_yaml='name: base\nabstract: true\nexecutable: echo\nexecutable_opts: [base]\nsanity: [{pattern: base}]\n---\nname: child\ndepends_on: [base]\nexecutable: echo\nexecutable_opts: [child]\nsanity: [{pattern: child}]\n'
FILES=(file_t_yaml); hb run -c t.yaml --prefix out
check "a dependency on an abstract test is an error at load, not a run of it" \
  eval 'rc_is 2 && has "$ERR" "t.yaml:8:" && has "$ERR" "is abstract" && ! has "$OUT" "[ RUN"'

# 12. Exit codes.
file_t_yaml=$PASS
FILES=(file_t_yaml); hb run -c t.yaml --prefix /etc/passwd
check "--prefix /etc/passwd: exit 2 before anything runs" eval 'rc_is 2 && ! has "$OUT" "[ RUN" 2>/dev/null'
echo x > "$ROOT/notadir"
FILES=(file_t_yaml); hb run -c t.yaml --prefix out --report-file "$ROOT/notadir/r.json"
check "an unwritable report: exit 3, no temporary file left" \
  eval 'rc_is 3 && [ -z "$(find "$ROOT" -name "*.tmp.*")" ]'
file_site_yaml='systems:\n  - name: s\n    hostnames: [".*"]\n    partitions:\n      - {name: p, scheduler: nosuch, launcher: local, environs: [e]}\nenvironments:\n  - {name: e}\n'
FILES=(file_site_yaml file_t_yaml); hb run -C site.yaml -c t.yaml --prefix out
check "an unknown scheduler: exit 2 at load, with its place" eval 'rc_is 2 && has "$ERR" "site.yaml:5:"'
file_site_yaml='systems:\n  - name: s\n    hostnames: [".*"]\n    partitions:\n      - {name: p, scheduler: local, launcher: nosuch, environs: [e]}\nenvironments:\n  - {name: e}\n'
FILES=(file_site_yaml file_t_yaml); hb run -C site.yaml -c t.yaml --prefix out
check "an unknown launcher: exit 2 at load" eval 'rc_is 2'
for sched in slurm sge kubernetes; do
  file_site_yaml='systems:\n  - name: s\n    hostnames: [".*"]\n    partitions:\n      - {name: p, scheduler: '$sched', launcher: local, environs: [e],\n         sched_options: {lost_after: [1], memory_limit: [1]}}\nenvironments:\n  - {name: e}\n'
  FILES=(file_site_yaml file_t_yaml); hb list -C site.yaml -c t.yaml
  check "$sched sched_options of the wrong type: exit 2 at load, with the value's place" \
    eval 'rc_is 2 && has "$ERR" "site.yaml:6:" && has "$ERR" "sched_options"'
done
file_site_yaml=$SITE'general:\n  - module_mappings: ["a: "]\n'
FILES=(file_site_yaml file_t_yaml); hb run -C site.yaml -c t.yaml --prefix out
check "bad module_mappings: exit 2 at load" eval 'rc_is 2'
file_site_yaml='systems: {name: [}\n'
FILES=(file_site_yaml); hb detect -C site.yaml
check "a configuration error in detect: exit 2" eval 'rc_is 2 && has "$ERR" "site.yaml:1:"'
for sig in QUIT USR1; do
  DIR=$ROOT/sig$sig; mkdir -p "$DIR"
  printf '%b' 'name: long\nexecutable: sleep\nexecutable_opts: ["300"]\nsanity: [{exit_code: 0}]\n' > "$DIR/t.yaml"
  (cd "$DIR" && exec "$HB" run -c t.yaml --prefix out > out.txt 2> err.txt) & pid=$!
  for _ in $(seq 100); do grep -q "RUN" "$DIR/out.txt" 2> /dev/null && break; sleep 0.1; done
  kill -$sig $pid; wait $pid; RC=$?
  check "SIG$sig cancels the jobs like SIGTERM: exit 130, report written, no sleep left" \
    eval 'rc_is 130 && [ -n "$(report)" ] && ! pgrep -f "sleep 300" > /dev/null'
done

# 13. Messages.
file_t_yaml='name: t\nexecutable: echo\nexecutable_opts: [hello]\nsanity: {pattern: nothere}\n'
FILES=(file_t_yaml); hb run -c t.yaml --prefix out
check "sanity: {pattern: x} (one entry, not a list) is checked, not ignored" \
  eval 'rc_is 1 && has "$(cat "$(report)")" "pattern '"'"'nothere'"'"' not found in stdout"'
file_t_yaml='name: t\nexecutable: echo\nsanity: [{patern: x}]\n'
FILES=(file_t_yaml); hb list -c t.yaml
check "a misspelt sanity key is an error with line:column" eval 'rc_is 2 && has "$ERR" "t.yaml:3:"'
deep=$(printf '%.0s[' $(seq 5000))
file_t_yaml="name: t\nexecutable: echo\nexecutable_opts: $deep\n"
FILES=(file_t_yaml); hb list -c t.yaml
check "5000 nested lists: a clear YAML error, no crash" eval 'rc_is 2 && has "$ERR" "t.yaml:" && ! has "$ERR" "bad file"'
file_t_yaml='name: t\nexecutable: echo\nexecutable: ls\n'
FILES=(file_t_yaml); hb list -c t.yaml
check "a key written twice is an error at the second" eval 'rc_is 2 && has "$ERR" "t.yaml:3:"'
FILES=(file_t_yaml); hb run -c t.yaml -j 99999999999999999999999999999999999999999999999999999999999999999999999
check "an out-of-range option value: a short message" eval 'rc_is 2 && [ ${#ERR} -lt 300 ]'
file_site_yaml=$SITE'logging:\n  - handlers_perflog: [{type: httpjson, url: "https://localhost:1/x", extra_headers: {"X-A": "b\\r\\nX-Injected: 1"}}]\n'
file_t_yaml=$PASS
FILES=(file_site_yaml file_t_yaml); hb run -C site.yaml -c t.yaml --prefix out
check "CR/LF in httpjson extra_headers is refused before anything runs" \
  eval 'rc_is 2 && has "$ERR" "extra_headers" && has "$ERR" "line break" && ! has "$OUT" "[ RUN"'

echo "$((n - failed))/$n probes behaved as expected"
[ $failed = 0 ]
