#include "util/clock.h"

#include <chrono>
#include <thread>

namespace hb {

namespace {

class RealClock : public Clock {
 public:
  double Monotonic() const override {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }
  double Wall() const override {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  }
  void Sleep(double seconds) override {
    if (seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  }
};

constexpr double kFakeMonotonicStart = 1000;
constexpr double kFakeWallStart = 1.7e9;

}  // namespace

Clock& Clock::Real() {
  static RealClock clock;
  return clock;
}

double MonotonicNow() { return Clock::Real().Monotonic(); }
double WallNow() { return Clock::Real().Wall(); }

double FakeClock::Monotonic() const {
  std::lock_guard<std::mutex> l(mu_);
  return kFakeMonotonicStart + elapsed_;
}

double FakeClock::Wall() const {
  std::lock_guard<std::mutex> l(mu_);
  return kFakeWallStart + elapsed_;
}

void FakeClock::Sleep(double seconds) {
  if (seconds <= 0) return;
  std::lock_guard<std::mutex> l(mu_);
  elapsed_ += seconds;
  slept_ += seconds;
}

void FakeClock::Advance(double seconds) {
  std::lock_guard<std::mutex> l(mu_);
  if (seconds > 0) elapsed_ += seconds;
}

double FakeClock::slept() const {
  std::lock_guard<std::mutex> l(mu_);
  return slept_;
}

}  // namespace hb
