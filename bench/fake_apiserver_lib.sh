# Sourced by the Kubernetes benchmarks: start_fake_apiserver WORK [FLAG...]
# starts tests/k8s/fake_apiserver.py (real HTTPS) with its state in
# WORK/api, waits until it is ready, and removes WORK when the script
# exits. Sets $server (its pid). Needs $here (the bench folder).
start_fake_apiserver() {
  local work=$1
  shift
  mkdir -p "$work/api"
  /usr/bin/python3 "$here/../tests/k8s/fake_apiserver.py" --dir "$work/api" --pod-start-delay 0.1 "$@" \
    >"$work/api/server.log" 2>&1 &
  server=$!
  # shellcheck disable=SC2064  # expand now: the values are this call's
  trap "kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf '$work'" EXIT
  for _ in $(seq 300); do [ -e "$work/api/ready" ] && break; sleep 0.1; done
  [ -e "$work/api/ready" ] || { echo "fake API server did not start" >&2; cat "$work/api/server.log" >&2; exit 1; }
}
