// EventWaiter: how the executor's main loop sleeps. It blocks SIGCHLD,
// SIGINT, SIGTERM (and SIGHUP) for the process and receives them through a
// signalfd, so waiting is event-driven: Wait() returns as soon as a child
// exits or the user interrupts, or when the timeout expires; it never
// sleeps in a fixed poll. One instance per process, owned by the executor;
// not thread-safe.
//
// Child processes must restore the signal mask and dispositions before
// exec (ChildSignalMask() gives the mask to restore).
#pragma once

#include <signal.h>

namespace hb {

// What a main loop waits on between polls: EventWaiter in a real run; the
// executor's in-process tests give a fake that moves a FakeClock instead
// of sleeping (run/executor_test.cc).
class EventSource {
 public:
  struct Events {
    bool child_exited = false;  // at least one SIGCHLD
    int interrupt = 0;          // SIGINT/SIGTERM/SIGHUP/SIGQUIT/SIGUSR1/SIGUSR2 number, or 0
    bool timed_out = false;
  };
  virtual ~EventSource() = default;
  // Waits up to timeout_s seconds (negative or infinite = no limit).
  virtual Events Wait(double timeout_s) = 0;
  // Drains pending events without blocking.
  Events Poll() { return Wait(0); }
  // True when an interrupt is pending; it is not consumed: the next Wait()
  // still reports it. For work that runs between waits and must stop
  // promptly (a sanity check of a long output).
  virtual bool Interrupting() const = 0;
};

class EventWaiter : public EventSource {
 public:
  EventWaiter();
  ~EventWaiter() override;
  EventWaiter(const EventWaiter&) = delete;
  EventWaiter& operator=(const EventWaiter&) = delete;

  bool ok() const { return fd_ >= 0; }
  Events Wait(double timeout_s) override;
  bool Interrupting() const override { return InterruptPending(); }

  // True when an interrupting signal (any but SIGCHLD) is pending in this
  // process. It is not consumed: the next Wait() still reports it.
  static bool InterruptPending();

  // The signal mask that was in force before construction; children get it.
  static const sigset_t& OriginalMask();

 private:
  int fd_ = -1;
};

}  // namespace hb
