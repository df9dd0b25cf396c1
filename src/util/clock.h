// Clock: the one source of time for the run loop, the schedulers and the
// commands they run, and the one way they wait. Two readings:
//
//  - Monotonic(): seconds from an arbitrary origin that never goes back;
//    intervals, deadlines, poll scheduling and time limits use it;
//  - Wall(): seconds since the Unix epoch (UTC); the times recorded in
//    reports and the store (submit, start, end) use it.
//
// Sleep(s) waits s seconds (nothing for s <= 0).
//
// Clock::Real() is the process's clock, shared and thread-safe. Code that
// is tested in process takes a Clock* (the executor, every scheduler,
// Kubernetes) so that a test can hand it a FakeClock: then nothing sleeps,
// time moves only when the test (or a Sleep) moves it, and every run of
// the test sees the same times. Code that only reads the time for a log
// line calls MonotonicNow() / WallNow(), the real clock's readings.
#pragma once

#include <mutex>

namespace hb {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual double Monotonic() const = 0;
  virtual double Wall() const = 0;
  virtual void Sleep(double seconds) = 0;

  // The process's real clock (steady_clock, system_clock, nanosleep).
  static Clock& Real();
};

// Clock::Real().Monotonic() and .Wall().
double MonotonicNow();
double WallNow();

// A clock for tests: starts at monotonic 1000 s and wall 1.7e9 s (2023-11);
// both move together, only through Advance() and Sleep(). Thread-safe.
class FakeClock : public Clock {
 public:
  double Monotonic() const override;
  double Wall() const override;
  void Sleep(double seconds) override;  // advances; counts in slept()
  void Advance(double seconds);
  double slept() const;  // total of Sleep() calls

 private:
  mutable std::mutex mu_;
  double elapsed_ = 0, slept_ = 0;
};

}  // namespace hb
