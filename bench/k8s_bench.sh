#!/usr/bin/env bash
# hetbench's Kubernetes backend against the fake API server
# (tests/k8s/fake_apiserver.py, real HTTPS; its kubelet runs each pod's
# command here): N trivial cases with max_jobs 50, for N = 200 and N = 20.
# Reports the wall time, hetbench's CPU time (user+sys, hetbench alone: the
# pods are the server's children), the API requests hetbench made by kind
# (from the server's request log), requests per poll cycle (a poll cycle is
# one GET of the session's Jobs) and requests per job.
# Usage: bench/k8s_bench.sh [path/to/hetbench]
#
# Needs: a build (./scripts/build) and Debian's python3 with
# python3-kubernetes, python3-yaml and openssl, for the fake API server
# (./scripts/deps).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
hb="$(realpath "${1:-$here/../build/hetbench}")"
work="$(mktemp -d /tmp/hb_k8s_bench_XXXXXX)"
# Runs store their sessions (as by default) in a throw-away store.
export HETBENCH_STORE="$work/results.db"
# shellcheck source=fake_apiserver_lib.sh
. "$here/fake_apiserver_lib.sh"
start_fake_apiserver "$work"

cat > "$work/site.yaml" <<YAML
systems:
  - name: bench
    hostnames: ['.*']
    partitions:
      - name: kube
        scheduler: k8s
        launcher: local
        environs: [builtin]
        max_jobs: 50
        sched_options:
          kubeconfig: $work/api/kubeconfig
          image: busybox
environments:
  - {name: builtin, cc: gcc}
YAML

for n in 200 20; do
  cat > "$work/t.yaml" <<YAML
name: trivial
executable: echo
executable_opts: ['"value: 1.5"']
parameters: {i: [$(seq -s, 1 "$n")]}
sanity:
  - {pattern: 'value: '}
performance:
  value: {pattern: 'value: (\S+)', group: 1, unit: s}
YAML
  : > "$work/api/requests.log"
  rm -rf "$work/out"
  start=$(date +%s.%N)
  (cd "$work" && /usr/bin/time -f "%U %S" -o "$work/cpu" "$hb" run -C site.yaml -c t.yaml --prefix out >/dev/null) || {
    echo "run of $n cases failed" >&2; exit 1; }
  end=$(date +%s.%N)
  /usr/bin/python3 - "$work" "$n" "$start" "$end" <<'PY'
import collections, json, re, sys
work, n, start, end = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
user, sys_ = (float(x) for x in open(work + "/cpu").read().split()[-2:])
kinds = collections.Counter()
for line in open(work + "/api/requests.log"):
    r = json.loads(line)
    path = r["path"]
    kind = "log" if path.endswith("/log") else re.sub(r".*/namespaces/[^/]+/([^/]+).*", r"\1", path)
    named = re.match(r".*/namespaces/[^/]+/[^/]+/[^/]+", path) is not None
    kinds[f'{r["method"]} {kind}{"/NAME" if named and kind != "log" else ""}'] += 1
total = sum(kinds.values())
# Poll cycles: GETs of the Job list (the session's jobs), one per cycle.
polls = kinds.get("GET jobs", 0)
list_requests = sum(v for k, v in kinds.items() if k.startswith("GET ") and "/NAME" not in k and k != "GET log")
print(f"k8s cases={n} wall_s={end-start:.2f} cpu_s={user+sys_:.2f} requests={total} "
      f"per_job={total/n:.2f} poll_cycles={polls} list_requests_per_cycle={list_requests/max(polls,1):.2f} "
      + " ".join(f"'{k}'={v}" for k, v in sorted(kinds.items())))
PY
done
