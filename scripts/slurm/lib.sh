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

# The Slurm daemons' ports (slurm.conf and slurmdbd.conf keep the defaults).
# stop_daemon counts a daemon as gone only once its port is free.
declare -A DAEMON_PORT=([slurmctld]=6817 [slurmd]=6818 [slurmdbd]=6819)

# daemon_running NAME EXE: true if the daemon we recorded as NAME is alive
# and runs EXE. Pure bash (no start-stop-daemon, no fork), as it is called
# often: `-ef` compares the file /proc/PID/exe points to with EXE, so
# symlinks such as /usr/sbin/slurmctld -> slurmctld-wlm match. A zombie
# has no exe, so it does not count as running.
daemon_running() {
  local pid
  read -r pid 2>/dev/null <"$PID_DIR/$1.pid" || return 1
  [[ $pid =~ ^[0-9]+$ ]] && [ /proc/"$pid"/exe -ef "$2" ]
}

# slurp VAR FILE: sets VAR to the content of FILE, without its final
# newline (empty if there is no FILE). No fork: on a loaded 2-core machine
# each program started costs ~0.1 s, and the no-op slurm-up must be fast.
slurp() {
  local _text=""
  IFS= read -r -d '' _text 2>/dev/null <"$2" || true
  printf -v "$1" '%s' "${_text%$'\n'}"
}

# alive PID: true if process PID exists and is not a zombie (a zombie's
# /proc/PID/exe leads nowhere). Our daemons' parent is PID 1, which may reap
# them only a while after they exit, so `kill -0` is not enough.
alive() {
  [ -e /proc/"$1"/exe ]
}

# daemon_pid NAME: the recorded PID (empty if none).
daemon_pid() {
  local pid
  slurp pid "$PID_DIR/$1.pid"
  echo "$pid"
}

# Each Slurm daemon we start gets a "stamp" next to its PID file: a copy of
# the configuration it was started with ($PID_DIR/NAME.stamp, mode 600: the
# slurmdbd one holds the database password). slurm-up restarts a running
# daemon only if the configuration it wants now is not its stamp, so
# "already running with the right configuration" is known per daemon, even
# after an interrupted run. stop_daemon and start_daemon remove the stamp.
# daemon_is_current NAME EXE CONFIG: running, and started with CONFIG.
daemon_is_current() {
  local stamp
  daemon_running "$1" "$2" || return 1
  slurp stamp "$PID_DIR/$1.stamp"
  [ "$stamp" = "$3" ]
}
set_stamp() { (umask 077; printf '%s\n' "$2" >"$PID_DIR/$1.stamp"); }

# start_daemon NAME EXE [start-stop-daemon options...] -- DAEMON ARGS...
# Starts EXE in the background (it must stay in the foreground itself, e.g.
# `slurmctld -D`), records its PID and sends its stdout/stderr to
# $LOG_DIR/NAME.out. Returns once the daemon runs (not once it is ready);
# fails if it is gone before that.
start_daemon() {
  local name=$1 exe=$2 pidfile=$PID_DIR/$1.pid
  shift 2
  rm -f "$pidfile" "$PID_DIR/$name.stamp"
  # --startas runs the daemon under its usual name (/usr/sbin/slurmctld,
  # not slurmctld-wlm): Slurm looks at its program name to know it is
  # slurmctld, and slurmctld crashes with accounting when it does not.
  # --exec (the real file) is what start-stop-daemon matches the PID to.
  # (In a subshell with SIGPIPE back to default: the daemons, and the jobs
  # slurmd starts, must not inherit our "ignore SIGPIPE".)
  ( trap - PIPE
    exec start-stop-daemon --start --quiet --background \
      --make-pidfile --pidfile "$pidfile" \
      --output "$LOG_DIR/$name.out" \
      --startas "$exe" --exec "$(readlink -f "$exe")" "$@" ) ||
    { echo "${PROG:-slurm}: start-stop-daemon could not start $name" >&2; return 1; }
  # start-stop-daemon returns once its child has written the PID file, but
  # that child execs the daemon only afterwards (after opening the log,
  # changing user, ...): for a moment (40 to 70 ms with both cores busy,
  # more on a busier machine) the recorded PID still runs
  # start-stop-daemon. Checking the daemon
  # then made slurm-up report "slurmdbd exited while starting" / "slurmd
  # exited" about daemons that were starting fine. So wait until the PID
  # runs EXE, or is gone (the exec failed, or the daemon died at once).
  local pid _
  for _ in $(seq 200); do                      # 20 s, for a very busy machine
    daemon_running "$name" "$exe" && return 0
    read -r pid 2>/dev/null <"$pidfile" || pid=
    if [ -n "$pid" ] && ! alive "$pid"; then
      echo "${PROG:-slurm}: $name (pid $pid) exited at once" >&2
      return 1
    fi
    sleep 0.1
  done
  echo "${PROG:-slurm}: $name did not start within 20 s (pid ${pid:-none})" >&2
  return 1
}

# terminating NAME: true if slurmctld or slurmdbd (NAME) has logged that it
# got SIGTERM/SIGINT since it last started, i.e. it is shutting down. That
# takes seconds (slurmctld saves its state, flushes to slurmdbd), during
# which it still runs, may even still answer, and then exits. (slurmd logs
# nothing like it.) Reads the end of its log only.
terminating() {
  local text line last=""
  case $1 in slurmctld | slurmdbd) ;; *) return 1 ;; esac
  text=$(tail -c 4096 "$LOG_DIR/$1.log" 2>/dev/null) || return 1
  while IFS= read -r line; do
    case $line in
      *"version "*" started"*) last=started ;;
      *"Terminate signal"*) last=terminating ;;
    esac
  done <<<"$text"
  [ "$last" = terminating ]
}

# port_listening PORT: true if something on this machine listens on TCP PORT.
port_listening() {
  awk -v port="$(printf '%04X' "$1")" \
    'FNR > 1 && $4 == "0A" && substr($2, length($2) - 3) == port { found = 1; exit }
     END { exit !found }' /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# stop_daemon NAME EXE [SECONDS]: sends SIGTERM to the recorded daemon (only
# if it is still EXE) and waits until the process is gone: up to SECONDS
# (default 30), then SIGKILL and up to 5 s more. For a Slurm daemon, it
# then also waits (up to 10 s) until nothing listens on its port any more,
# so that the next one can bind it. Quiet and successful if the daemon is
# not running; fails (with a message) if it could not be stopped.
stop_daemon() {
  local name=$1 exe=$2 wait_s=${3:-30} port=${DAEMON_PORT[$1]:-} pid _
  local pidfile=$PID_DIR/$name.pid
  if daemon_running "$name" "$exe"; then
    pid=$(daemon_pid "$name")
    note "stopping $name (pid $pid)"
    start-stop-daemon --stop --quiet --oknodo --pidfile "$pidfile" \
      --exec "$(readlink -f "$exe")" --retry "TERM/$wait_s/KILL/5" || true
    if daemon_running "$name" "$exe"; then
      echo "${PROG:-slurm}: $name (pid $pid) is still running after SIGKILL" >&2
      return 1
    fi
    rm -f "$pidfile" "$PID_DIR/$name.stamp"
    # The process is gone, so are its sockets, unless a child inherited
    # one: make sure, so that the next daemon does not fail to bind.
    if [ -n "$port" ]; then
      for _ in $(seq 50); do
        port_listening "$port" || return 0
        sleep 0.2
      done
      echo "${PROG:-slurm}: port $port is still in use after $name stopped" >&2
      return 1
    fi
  fi
  rm -f "$pidfile" "$PID_DIR/$name.stamp"
  return 0
}

# active_jobs: the IDs of the jobs that are not finished (one per line).
# Fails if squeue cannot reach slurmctld (e.g. it is very busy) -- which
# must not be mistaken for "no jobs".
active_jobs() {
  squeue -h -o %i -t PENDING,RUNNING,SUSPENDED,CONFIGURING,COMPLETING,STOPPED 2>/dev/null
}

# cancel_all_jobs [SECONDS]: cancels every job of the cluster (needs
# slurmctld and slurmd up) and waits up to SECONDS (default 30) until they
# are all finished AND every slurmstepd has exited, i.e. slurmd has cleaned
# up their processes. Stopping slurmd earlier would leave step daemons
# behind. If they take longer, says so and returns (the caller stops the
# leftovers with kill_leftover_steps).
cancel_all_jobs() {
  local wait_s=${1:-30} jobs id cancelled=" " deadline
  deadline=$((SECONDS + wait_s))
  while [ $SECONDS -lt $deadline ]; do
    if jobs=$(active_jobs); then
      [ -z "$jobs" ] && [ -z "$(slurmstepd_pids)" ] && return 0
      # Cancel what is not cancelled yet (a job may have been submitted
      # or recovered since the last look).
      local new=()
      for id in $jobs; do
        [[ $cancelled == *" $id "* ]] || new+=("$id")
      done
      if [ ${#new[@]} -gt 0 ]; then
        note "cancelling jobs ${new[*]}"
        scancel "${new[@]}" 2>/dev/null || true
        cancelled+="${new[*]} "
      fi
    fi
    sleep 0.2
  done
  note "jobs still ending after ${wait_s}s: ${jobs//$'\n'/ } (steps: $(slurmstepd_pids | paste -sd ' '))"
}

# slurmstepd_pids: PIDs of Slurm's per-job step daemons on this machine. Our
# slurmd starts them; they outlive it, so slurm-down has to look for them.
slurmstepd_pids() {
  local exe
  exe=$(readlink -f /usr/sbin/slurmstepd 2>/dev/null) || return 0
  # (find fails when a process vanishes while it looks: that is fine.)
  { find /proc -mindepth 2 -maxdepth 2 -name exe -lname "$exe" 2>/dev/null || true; } |
    sed 's|^/proc/\([0-9]*\)/exe$|\1|'
  return 0
}

# descendants PID...: the PIDs given and all their descendants.
descendants() {
  local -A children=()
  local stat line pid ppid queue=("$@") out=()
  local -a fields
  for stat in /proc/[0-9]*/stat; do
    read -r line 2>/dev/null <"$stat" || continue
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
  local steps procs p any _
  steps=$(slurmstepd_pids)
  [ -n "$steps" ] || return 0
  # shellcheck disable=SC2086
  procs=$(descendants $steps)
  note "stopping leftover job steps (pids $procs)"
  # shellcheck disable=SC2086
  kill -TERM $procs 2>/dev/null || true
  for _ in $(seq 10); do
    any=no
    for p in $procs; do
      alive "$p" && { any=yes; break; }
    done
    [ $any = yes ] || return 0
    sleep 0.2
  done
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
