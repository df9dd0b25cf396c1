#include "sched/local_scheduler.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <limits>
#include <set>

#include "sched/proc_tree.h"
#include "sched/process.h"
#include "util/clock.h"
#include "util/strings.h"

namespace hb {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Scans for strays cost a walk of /proc where the kernel has no children
// files; at most one per interval keeps 500 trivial jobs cheap.
constexpr double kStrayScanInterval = 0.05;
// Shutdown: how long and how often to look for marked children.
constexpr int kShutdownRounds = 200;
constexpr int kShutdownRoundMs = 10;

void SleepMs(int ms) { ::poll(nullptr, 0, ms); }

// Signals a process group or process; one that is already gone (ESRCH) or
// holds a process we may not signal (EPERM: a setuid program) is no error
// we can act on, so the result is deliberately not reported.
void SignalGroup(pid_t pgid, int sig) { (void)::killpg(pgid, sig); }
void SignalProcess(pid_t pid, int sig) { (void)::kill(pid, sig); }

std::string SignalName(int sig) {
  static const std::pair<int, const char*> kNames[] = {
      {SIGHUP, "SIGHUP"},   {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"}, {SIGILL, "SIGILL"},   {SIGTRAP, "SIGTRAP"},
      {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},   {SIGKILL, "SIGKILL"}, {SIGUSR1, "SIGUSR1"},
      {SIGSEGV, "SIGSEGV"}, {SIGUSR2, "SIGUSR2"}, {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"},
      {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"}, {SIGSYS, "SIGSYS"}};
  for (const auto& [n, name] : kNames) {
    if (n == sig) return name;
  }
  return "SIG" + std::to_string(sig);
}

// The state of a job whose leader ended with wait status `status`.
JobState EndState(int status, bool timed_out, bool cancelled, double limit_s) {
  JobState s;
  bool exited = WIFEXITED(status);
  int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  s.exit_code = exited ? WEXITSTATUS(status) : 128 + sig;
  if (timed_out) {
    s.kind = JobState::Kind::kTimeout;
    s.reason = "time limit of " + FormatNumber(limit_s) + "s exceeded";
  } else if (cancelled) {
    s.kind = JobState::Kind::kCancelled;
  } else if (exited) {
    s.kind = JobState::Kind::kCompleted;
  } else {
    s.kind = JobState::Kind::kFailed;
    s.reason = "killed by signal " + std::to_string(sig) + " (" + SignalName(sig) + ")";
  }
  return s;
}

// The leader pid a job's id names; 0 (no entry has it) when it is not one.
pid_t PidOf(const Job& job) {
  pid_t pid = 0;
  const char* end = job.id.data() + job.id.size();
  auto [ptr, ec] = std::from_chars(job.id.data(), end, pid);
  return ec == std::errc() && ptr == end ? pid : 0;
}

std::string HostName() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "localhost";
  return buf;
}

// Job marks are numbered across instances: "<pid>.<seq>" names one job of
// this process whichever instance runs it.
long g_next_seq = 0;

}  // namespace

// Every instance alive in this process: each reaps all children, so a
// child of another instance is handed to it, and strays are judged
// against every instance's live jobs.
std::set<LocalScheduler*>& LocalScheduler::Instances() {
  static std::set<LocalScheduler*> all;
  return all;
}

LocalScheduler::LocalScheduler(Options opts)
    : opts_(opts), init_(BecomeSubreaper()), hostname_(HostName()), mark_prefix_(std::to_string(::getpid()) + ".") {
  Instances().insert(this);
}

LocalScheduler::~LocalScheduler() {
  Shutdown();
  Instances().erase(this);
}

Status LocalScheduler::Submit(Job* job) {
  if (!init_.ok()) return init_;
  long seq = ++g_next_seq;
  ++submitted_;
  std::string mark = mark_prefix_ + std::to_string(seq);
  const char* outer = std::getenv(kMarkVar);  // we run inside a job ourselves
  SpawnOptions o;
  o.argv = {"/bin/bash", job->script_path};
  o.cwd = job->workdir;
  for (const auto& kv : job->env) {
    if (kv.first != kMarkVar) o.env.push_back(kv);
  }
  o.env.emplace_back(kMarkVar, outer && *outer ? std::string(outer) + "," + mark : mark);
  o.stdout_path = job->stdout_path;
  o.stderr_path = job->stderr_path;
  Result<pid_t> pid = SpawnProcess(o);
  if (!pid.ok()) return pid.status().Prefixed("cannot submit job '" + job->name + "'");

  double now = MonotonicNow();
  Entry e;
  e.seq = seq;
  own_seqs_.insert(seq);
  e.time_limit_s = job->time_limit_s;
  e.deadline = job->time_limit_s > 0 ? now + job->time_limit_s : kInf;
  e.kill_at = kInf;
  e.state.kind = JobState::Kind::kRunning;
  entries_[*pid] = e;  // replaces a never-collected entry of a reused pid

  job->id = std::to_string(*pid);
  job->state = e.state;
  job->nodelist = {hostname_};
  job->submit_time = job->start_time = WallNow();
  job->end_time = 0;
  return Status::OK();
}

LocalScheduler::Entry* LocalScheduler::Find(const Job& job) {
  auto it = entries_.find(PidOf(job));
  return it == entries_.end() ? nullptr : &it->second;
}

void LocalScheduler::Poll(const std::vector<Job*>& jobs) {
  Reap();
  double now = MonotonicNow();
  if (scan_pending_ && now >= next_scan_at_) ScanForStrays(false);
  EnforceDeadlines(now);
  for (Job* job : jobs) {
    Entry* e = Find(*job);
    if (!e) continue;
    job->state = e->state;
    if (!e->ended) continue;
    job->end_time = e->end_time;
    entries_.erase(PidOf(*job));
  }
}

// Reaps every exited child: job leaders, and orphans reparented to us
// (their statuses are discarded). Any reaped process may have left
// children behind, so a scan for strays becomes due.
void LocalScheduler::Reap() {
  while (true) {
    int status = 0;
    pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid < 0 && errno == EINTR) continue;
    if (pid <= 0) return;  // 0: none has exited; ECHILD: no children at all
    for (LocalScheduler* owner : Instances()) {
      owner->scan_pending_ = true;
      auto it = owner->entries_.find(pid);
      if (it != owner->entries_.end() && !it->second.ended) owner->Finish(pid, &it->second, status);
    }
  }
}

void LocalScheduler::Finish(pid_t pid, Entry* e, int status) {
  SignalGroup(pid, SIGKILL);  // whatever is left in the job's group
  e->ended = true;
  e->end_time = WallNow();
  e->state = EndState(status, e->stop == Stop::kTimeLimit, e->stop == Stop::kCancel, e->time_limit_s);
}

void LocalScheduler::BeginStop(pid_t pid, Entry* e, Stop why, double now) {
  if (e->ended || e->stop != Stop::kNone) return;
  e->stop = why;
  if (opts_.kill_grace_s <= 0) {
    SignalGroup(pid, SIGKILL);
    return;
  }
  SignalGroup(pid, SIGTERM);
  e->kill_at = now + opts_.kill_grace_s;
}

void LocalScheduler::EnforceDeadlines(double now) {
  for (auto& [pid, e] : entries_) {
    if (e.ended) continue;
    if (e.stop == Stop::kNone && now >= e.deadline) BeginStop(pid, &e, Stop::kTimeLimit, now);
    if (e.stop != Stop::kNone && now >= e.kill_at) {
      SignalGroup(pid, SIGKILL);
      e.kill_at = kInf;
    }
  }
}

void LocalScheduler::Cancel(Job* job) {
  Entry* e = Find(*job);
  if (!e) return;
  BeginStop(PidOf(*job), e, Stop::kCancel, MonotonicNow());
}

double LocalScheduler::NextPollDelay() const {
  double next = kInf;
  for (const auto& [pid, e] : entries_) {
    if (!e.ended) next = std::min(next, e.stop == Stop::kNone ? e.deadline : e.kill_at);
  }
  if (scan_pending_) next = std::min(next, next_scan_at_);
  return next == kInf ? kInf : std::max(0.0, next - MonotonicNow());
}

// SIGKILLs each child of ours that is not a live job's leader and carries a
// mark of a job of ours that has ended (every_mark: of any job of ours).
// Returns how many it signalled.
int LocalScheduler::ScanForStrays(bool every_mark) {
  scan_pending_ = false;
  next_scan_at_ = MonotonicNow() + kStrayScanInterval;
  int signalled = 0;
  for (pid_t pid : ListChildren(::getpid())) {
    bool leader = std::any_of(Instances().begin(), Instances().end(), [&](const LocalScheduler* i) {
      auto it = i->entries_.find(pid);
      return it != i->entries_.end() && !it->second.ended;
    });
    if (leader) continue;
    std::optional<std::string> mark = ReadProcessEnv(pid, kMarkVar);
    if (!mark || !IsOurEndedMark(*mark, every_mark)) continue;
    SignalProcess(pid, SIGKILL);
    ++signalled;
  }
  return signalled;
}

bool LocalScheduler::IsOurEndedMark(const std::string& value, bool every_mark) const {
  for (const std::string& token : Split(value, ',')) {
    if (!StartsWith(token, mark_prefix_)) continue;
    long seq = std::atol(token.c_str() + mark_prefix_.size());
    if (every_mark) {  // every job this instance ran, live or not
      if (own_seqs_.count(seq)) return true;
      continue;
    }
    bool live = std::any_of(Instances().begin(), Instances().end(), [&](const LocalScheduler* i) {
      return std::any_of(i->entries_.begin(), i->entries_.end(),
                         [&](const auto& kv) { return !kv.second.ended && kv.second.seq == seq; });
    });
    if (!live) return true;
  }
  return false;
}

int LocalScheduler::LiveJobs() const {
  return static_cast<int>(
      std::count_if(entries_.begin(), entries_.end(), [](const auto& kv) { return !kv.second.ended; }));
}

// Cancels what is left (SIGTERM, up to the grace period, then SIGKILL),
// kills every marked child, and reaps until none is left or ~2 s passed.
void LocalScheduler::Shutdown() {
  if (submitted_ == 0) return;  // never ran anything
  double now = MonotonicNow();
  for (auto& [pid, e] : entries_) BeginStop(pid, &e, Stop::kCancel, now);
  Reap();
  while (LiveJobs() > 0 && MonotonicNow() < now + opts_.kill_grace_s) {
    SleepMs(kShutdownRoundMs);
    Reap();
  }
  for (int round = 0; round < kShutdownRounds; ++round) {
    for (auto& [pid, e] : entries_) {
      if (!e.ended) SignalGroup(pid, SIGKILL);
    }
    Reap();
    if (ScanForStrays(true) == 0 && LiveJobs() == 0) break;
    SleepMs(kShutdownRoundMs);
  }
  Reap();
  scan_pending_ = false;
}

}  // namespace hb
