# shellcheck shell=bash disable=SC2034  # (variables used by the scripts)
# Shared by scripts/slurm-up and scripts/slurm-down (sourced, not run).
#
# Every daemon of the test cluster is started through start-stop-daemon
# (part of dpkg, so present on any Debian) with --make-pidfile: its PID is
# recorded in $PID_DIR/NAME.pid. A daemon counts as "ours and running" only
# if that PID is alive AND is the expected executable, so a stale PID file
# can never make us stop an unrelated process, and nothing is ever killed by
# name.

# Where the PID files, daemon logs, the lock and the current mode live.
STATE_DIR=${HETBENCH_SLURM_STATE:-/run/hetbench-slurm}
PID_DIR=$STATE_DIR/pid
LOG_DIR=$STATE_DIR/log
MODE_FILE=$STATE_DIR/mode           # "plain" or "accounting" while up

CONF_DIR=/etc/slurm                 # Debian's default: plain `sbatch` finds it
CLUSTER_NAME=hetbench

# Executables of the daemons we manage. Some are symlinks (Debian's
# /usr/sbin/slurmctld -> slurmctld-wlm); the functions below compare real
# paths, as /proc/PID/exe shows them.
SLURMCTLD_EXE=/usr/sbin/slurmctld
SLURMD_EXE=/usr/sbin/slurmd
SLURMDBD_EXE=/usr/sbin/slurmdbd
MUNGED_EXE=/usr/sbin/munged
MARIADBD_EXE=/usr/sbin/mariadbd
MYSQL_SOCKET=/run/mysqld/mysqld.sock

# Both scripts ignore SIGPIPE so that a closed stdout (`slurm-up | head -1`)
# cannot stop them half-way; a message that cannot be written is dropped.
trap '' PIPE
note() { echo "${PROG:-slurm}: $*" 2>/dev/null || true; }

# daemon_running NAME EXE: true if the daemon we recorded as NAME is alive.
daemon_running() {
  local pidfile=$PID_DIR/$1.pid
  [ -s "$pidfile" ] || return 1
  start-stop-daemon --status --pidfile "$pidfile" --exec "$(readlink -f "$2")"
}

# daemon_pid NAME: the recorded PID (empty if none).
daemon_pid() {
  cat "$PID_DIR/$1.pid" 2>/dev/null || true
}

# start_daemon NAME EXE [start-stop-daemon options...] -- DAEMON ARGS...
# Starts EXE in the background (it must stay in the foreground itself, e.g.
# `slurmctld -D`), records its PID and sends its stdout/stderr to
# $LOG_DIR/NAME.out.
start_daemon() {
  local name=$1 exe=$2
  shift 2
  mkdir -p "$PID_DIR" "$LOG_DIR"
  # --startas runs the daemon under its usual name (/usr/sbin/slurmctld,
  # not slurmctld-wlm): Slurm looks at its program name to know it is
  # slurmctld, and slurmctld crashes with accounting when it does not.
  # --exec (the real file) is what start-stop-daemon matches the PID to.
  # (In a subshell with SIGPIPE back to default: the daemons, and the jobs
  # slurmd starts, must not inherit our "ignore SIGPIPE".)
  ( trap - PIPE
    exec start-stop-daemon --start --quiet --background \
      --make-pidfile --pidfile "$PID_DIR/$name.pid" \
      --output "$LOG_DIR/$name.out" \
      --startas "$exe" --exec "$(readlink -f "$exe")" "$@" )
  # The PID file is written by the forked child: wait until it is there.
  local _
  for _ in $(seq 50); do
    [ -s "$PID_DIR/$name.pid" ] && return 0
    sleep 0.1
  done
  echo "${PROG:-slurm}: $name wrote no PID file" >&2
  return 1
}

# stop_daemon NAME EXE [SECONDS]: sends SIGTERM to the recorded daemon (only
# if it is still EXE), waits up to SECONDS (default 20), then SIGKILL.
# Quiet and successful if it is not running.
stop_daemon() {
  local name=$1 exe=$2 wait_s=${3:-20}
  local pidfile=$PID_DIR/$name.pid
  if [ -s "$pidfile" ] && daemon_running "$name" "$exe"; then
    note "stopping $name (pid $(daemon_pid "$name"))"
    start-stop-daemon --stop --quiet --oknodo --pidfile "$pidfile" \
      --exec "$(readlink -f "$exe")" --retry "TERM/$wait_s/KILL/5" || true
  fi
  rm -f "$pidfile"
}

# cancel_all_jobs: cancels every job of the cluster (needs slurmctld and
# slurmd up) and waits up to 15 s for them to end.
cancel_all_jobs() {
  local jobs _
  jobs=$(squeue -h -o %i -t PENDING,RUNNING,SUSPENDED,CONFIGURING 2>/dev/null || true)
  [ -n "$jobs" ] || return 0
  note "cancelling jobs ${jobs//$'\n'/ }"
  # shellcheck disable=SC2086
  scancel $jobs 2>/dev/null || true
  for _ in $(seq 75); do
    [ -z "$(squeue -h -o %i -t PENDING,RUNNING,SUSPENDED,CONFIGURING,COMPLETING 2>/dev/null)" ] && return 0
    sleep 0.2
  done
}

# slurmstepd_pids: PIDs of Slurm's per-job step daemons on this machine. Our
# slurmd starts them; they outlive it, so slurm-down has to look for them.
slurmstepd_pids() {
  local exe
  exe=$(readlink -f /usr/sbin/slurmstepd 2>/dev/null) || return 0
  find /proc -mindepth 2 -maxdepth 2 -name exe -lname "$exe" 2>/dev/null |
    sed 's|^/proc/\([0-9]*\)/exe$|\1|'
  return 0
}

# descendants PID...: the PIDs given and all their descendants.
descendants() {
  local -A children=()
  local stat line pid ppid queue=("$@") out=()
  local -a fields
  for stat in /proc/[0-9]*/stat; do
    read -r line <"$stat" 2>/dev/null || continue
    pid=${line%% *}
    read -ra fields <<<"${line##*) }"   # after "(comm)", which may hold spaces
    ppid=${fields[1]}
    children[$ppid]+=" $pid"
  done
  while [ ${#queue[@]} -gt 0 ]; do
    pid=${queue[0]}
    queue=("${queue[@]:1}")
    out+=("$pid")
    # shellcheck disable=SC2206
    [ -n "${children[$pid]:-}" ] && queue+=(${children[$pid]})
  done
  echo "${out[@]}"
}

# kill_leftover_steps: step daemons that are still there once slurmd is
# stopped belong to jobs nobody can cancel any more: stop them together
# with the job processes under them (SIGTERM, then SIGKILL after 2 s).
kill_leftover_steps() {
  local steps procs
  steps=$(slurmstepd_pids)
  [ -n "$steps" ] || return 0
  # shellcheck disable=SC2086
  procs=$(descendants $steps)
  note "stopping leftover job steps (pids $procs)"
  # shellcheck disable=SC2086
  kill -TERM $procs 2>/dev/null || true
  sleep 2
  # shellcheck disable=SC2086
  kill -KILL $procs 2>/dev/null || true
}

# show_log_tails LINES [NAME...]: the end of the logs of those daemons (or
# steps: apt, mariadb-install-db), of every daemon if none is named.
show_log_tails() {
  local lines=$1 name f
  shift
  [ $# -gt 0 ] || set -- munged mariadb slurmdbd slurmctld slurmd
  for name in "$@"; do
    # A Slurm daemon writes the same lines to NAME.log and NAME.out; the
    # .out file alone also has what it printed before opening its log.
    for f in "$LOG_DIR/$name.out" "$LOG_DIR/$name.log"; do
      [ -s "$f" ] && break
    done
    [ -s "$f" ] || continue
    echo "----- last $lines lines of $f -----" >&2
    tail -n "$lines" "$f" >&2
  done
}
