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
  start-stop-daemon --start --quiet --background \
    --make-pidfile --pidfile "$PID_DIR/$name.pid" \
    --output "$LOG_DIR/$name.out" \
    --exec "$(readlink -f "$exe")" "$@"
  # The PID file is written by the forked child: wait until it is there.
  local i
  for i in $(seq 50); do
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
    echo "${PROG:-slurm}: stopping $name (pid $(daemon_pid "$name"))"
    start-stop-daemon --stop --quiet --oknodo --pidfile "$pidfile" \
      --exec "$(readlink -f "$exe")" --retry "TERM/$wait_s/KILL/5" || true
  fi
  rm -f "$pidfile"
}

# slurmstepd_pids: PIDs of Slurm's per-job step daemons on this machine. Our
# slurmd starts them; they outlive it, so slurm-down has to look for them.
slurmstepd_pids() {
  local p exe
  exe=$(readlink -f /usr/sbin/slurmstepd) || return 0
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/exe" 2>/dev/null)" = "$exe" ] && echo "${p#/proc/}"
  done
  return 0
}

# show_log_tails: the end of every log we know of (called on failure).
show_log_tails() {
  local f
  for f in "$LOG_DIR"/*.log "$LOG_DIR"/*.out; do
    [ -s "$f" ] || continue
    echo "----- tail of $f -----" >&2
    tail -n "${1:-15}" "$f" >&2
  done
}
