// PhaseClock charges the time since its previous mark to one part of a
// training step (trainer.h lists the parts).
//
// With the breakdown on, `sync` (the device synchronisation; null on the
// CPU) runs before each mark so that a part's asynchronous kernels are
// charged to it. With the breakdown off, Detail() does nothing: only the
// marks that need no synchronisation are kept (the data wait, the
// host-to-device copy, the communication).
//
// This is all the breakdown adds to a step on the CPU: three extra clock
// reads. bench/breakdown_overhead.cc times exactly this class.
// Header-only, no torch, so the benchmark builds without libtorch.
#pragma once

#include "common/bench_util.h"

namespace hbw::train {

class PhaseClock {
 public:
  using Sync = void (*)();
  PhaseClock(bool breakdown, Sync sync) : breakdown_(breakdown), sync_(sync) {}

  void Reset() { last_ = Now(); }
  void Mark(double* part) {
    if (breakdown_ && sync_) sync_();
    const double now = Now();
    *part = now - last_;
    last_ = now;
  }
  // A mark only in breakdown mode.
  void Detail(double* part) {
    if (breakdown_) Mark(part);
  }

 private:
  bool breakdown_;
  Sync sync_;
  double last_ = 0;
};

}  // namespace hbw::train
