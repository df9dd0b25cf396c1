#!/usr/bin/env bash
# API calls per poll cycle with two Kubernetes partitions in one run, against
# the fake API server (tests/k8s/fake_apiserver.py, real HTTPS; its kubelet
# runs each pod's command here). N trivial cases, half on each partition
# (one test on both, so their cases alternate and both partitions have jobs
# in flight), for N = 200 and N = 20, in three layouts of the two partitions:
#
#   one-namespace   same kubeconfig, context and namespace: one scheduler,
#                   per cycle one list of Jobs and one of pods
#   two-namespaces  same context, namespaces bench-a and bench-b: per cycle
#                   those two lists in each namespace
#   two-kinds       same namespace; partition b's cases are IPUJob custom
#                   resources (the fake server's IPU operator): per cycle
#                   Jobs, IPUJobs and pods
#
# A poll cycle is a burst of list requests (GETs of a collection) with no
# other request between them: hetbench lists every namespace first, then
# reads logs and deletes. Prints, per
# layout and N: wall time, requests, list requests, cycles, lists per cycle
# (mean and max), and requests by kind.
# Usage: bench/k8s_partitions_bench.sh [path/to/hetbench]
#
# Needs: a build (./scripts/build) and Debian's python3 with
# python3-kubernetes, python3-yaml and openssl, for the fake API server
# (./scripts/deps).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
hb="$(realpath "${1:-$here/../build/hetbench}")"
work="$(mktemp -d /tmp/hb_k8s_parts_XXXXXX)"
export HETBENCH_STORE="$work/results.db"
# shellcheck source=fake_apiserver_lib.sh
. "$here/fake_apiserver_lib.sh"
start_fake_apiserver "$work" --ipujob-queue-delay 0.1

site() {  # site LAYOUT
  local ns_b=bench-a
  [ "$1" = two-namespaces ] && ns_b=bench-b
  cat <<YAML
systems:
  - name: bench
    hostnames: ['.*']
    partitions:
$(for p in a b; do
  ns=bench-a; [ $p = b ] && ns=$ns_b
  cat <<PART
      - name: $p
        scheduler: k8s
        launcher: local
        environs: [builtin]
        max_jobs: 50
        sched_options:
          kubeconfig: $work/api/kubeconfig
          namespace: $ns
          image: busybox
          min_poll_interval: 0.25
PART
done)
environments:
  - {name: builtin, cc: gcc}
YAML
}

tests() {  # tests LAYOUT N: one test on both partitions, so that their cases alternate
  cat <<YAML
name: trivial
valid_systems: ['bench:a', 'bench:b']
executable: echo
executable_opts: ['"value: 1.5"']
parameters: {i: [$(seq -s, 1 "$(($2 / 2))")]}
sanity: [{pattern: 'value: '}]
performance: {value: {pattern: 'value: (\S+)', unit: s}}
YAML
  if [ "$1" = two-kinds ]; then
    cat <<'YAML'
overrides:
  'bench:b':
    k8s:
      manifest:
        apiVersion: graphcore.ai/v1alpha1
        kind: IPUJob
        spec:
          jobInstances: 1
          ipusPerJobInstance: '1'
          workers:
            template:
              spec:
                containers: [{name: w, image: busybox, command: [echo, 'value: 1.5']}]
YAML
  fi
}

for layout in one-namespace two-namespaces two-kinds; do
  site "$layout" >"$work/site.yaml"
  for n in 200 20; do
    tests "$layout" "$n" >"$work/t.yaml"
    : >"$work/api/requests.log"
    rm -rf "$work/out"
    start=$(date +%s.%N)
    (cd "$work" && "$hb" run -C site.yaml -c t.yaml --system bench --prefix out >"$work/run.log" 2>&1) || {
      echo "run of $n cases ($layout) failed" >&2; tail -20 "$work/run.log" >&2; exit 1; }
    end=$(date +%s.%N)
    /usr/bin/python3 - "$work" "$layout" "$n" "$start" "$end" <<'PY'
import collections, json, re, sys
work, layout, n, start, end = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
kinds, sizes, in_burst = collections.Counter(), [], False
for line in sorted(open(work + "/api/requests.log"), key=lambda l: json.loads(l)["t"]):
    r = json.loads(line)
    m = re.match(r".*/namespaces/([^/]+)/([^/]+)(/[^/]+)?(/log)?$", r["path"])
    if not m:
        continue
    ns, kind, name, log = m.groups()
    kinds[f'{r["method"]} {kind}{"/log" if log else "/NAME" if name else ""} ({ns})'] += 1
    is_list = r["method"] == "GET" and not name and "limit=1" not in r.get("query", "")
    if is_list and not in_burst:
        sizes.append(0)  # hetbench is one thread: a poll's lists come one after another
    if is_list:
        sizes[-1] += 1
    in_burst = is_list
lists, cycles = sum(sizes), len(sizes)
total = sum(kinds.values())
print(f"layout={layout} cases={n} wall_s={end-start:.1f} requests={total} list_requests={lists} "
      f"cycles={cycles} lists_per_cycle_mean={lists/max(cycles,1):.2f} lists_per_cycle_max={max(sizes or [0])} | "
      + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
PY
  done
done
