#include "util/signals.h"

#include <poll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <initializer_list>

namespace hb {

namespace {
sigset_t g_original_mask;
bool g_have_original = false;
}  // namespace

const sigset_t& EventWaiter::OriginalMask() {
  if (!g_have_original) {
    sigemptyset(&g_original_mask);
  }
  return g_original_mask;
}

EventWaiter::EventWaiter() {
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGCHLD);
  sigaddset(&mask, SIGINT);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGHUP);
  sigaddset(&mask, SIGQUIT);  // as SIGTERM: cancel the jobs, write the report
  sigaddset(&mask, SIGUSR1);  // (their default would kill hetbench and leave the jobs running)
  sigaddset(&mask, SIGUSR2);
  sigset_t old;
  if (sigprocmask(SIG_BLOCK, &mask, &old) != 0) return;
  if (!g_have_original) {
    g_original_mask = old;
    g_have_original = true;
  }
  fd_ = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
}

bool EventWaiter::InterruptPending() {
  sigset_t pending;
  if (sigpending(&pending) != 0) return false;
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2})
    if (sigismember(&pending, sig) == 1) return true;
  return false;
}

EventWaiter::~EventWaiter() {
  if (fd_ >= 0) close(fd_);
}

EventWaiter::Events EventWaiter::Wait(double timeout_s) {
  Events ev;
  if (fd_ < 0) return ev;
  int ms = -1;
  if (timeout_s >= 0 && std::isfinite(timeout_s)) {
    double m = std::ceil(timeout_s * 1000.0);
    ms = m > 2e9 ? 2000000000 : static_cast<int>(m);
  }
  pollfd p{fd_, POLLIN, 0};
  int r;
  do {
    r = ::poll(&p, 1, ms);
  } while (r < 0 && errno == EINTR);
  if (r == 0) ev.timed_out = true;
  // Drain everything pending.
  signalfd_siginfo si;
  while (read(fd_, &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
    if (si.ssi_signo == SIGCHLD)
      ev.child_exited = true;
    else if (ev.interrupt == 0)
      ev.interrupt = static_cast<int>(si.ssi_signo);
  }
  return ev;
}

}  // namespace hb
