// What hetbench-train's timing breakdown and MLPerf logging cost, measured
// directly instead of as the difference of two noisy training runs
// (bench/breakdown_overhead.sh divides these figures by measured step
// times; docs/benchmarks/train.md).
//
// Two figures, each the fastest of --repeats timed batches:
//  - clock_cost_per_step: the extra time per step of PhaseClock with the
//    breakdown on over off, running the exact sequence of calls of
//    Trainer::Step (trainer.cc) with no work between them. On the CPU
//    (no device sync) that is all the breakdown adds inside a step.
//  - mllog_cost_per_line: writing one :::MLLOG line through MlLogger to a
//    real file (format, write, fflush), over a mix of the run's events.
//    The lines are written outside the steps: at start-up, and 2 to 6 per
//    epoch.
#include <algorithm>
#include <cstdio>
#include <string>

#include "common/bench_util.h"
#include "train/mllog.h"
#include "train/phase_clock.h"

namespace {

using hbw::Now;
using hbw::train::MlLogger;
using hbw::train::PhaseClock;

struct Times {
  double data, h2d, forward, backward, allreduce, optimizer, wall;
};

// Trainer::Step's clock calls in order, the work between them left out.
double StepClockCalls(bool breakdown, Times* t) {
  const double wall_start = Now();
  PhaseClock clock(breakdown, nullptr);
  clock.Reset();
  clock.Mark(&t->data);
  clock.Mark(&t->h2d);
  clock.Detail(&t->forward);
  clock.Detail(&t->backward);
  if (!breakdown) clock.Reset();
  clock.Mark(&t->allreduce);
  clock.Detail(&t->optimizer);
  t->wall = Now() - wall_start;
  return t->data + t->h2d + t->forward + t->backward + t->allreduce + t->optimizer + t->wall;
}

// Seconds per step, the fastest of `repeats` batches of `steps`.
double TimeSteps(bool breakdown, long steps, long repeats, volatile double* sink) {
  double best = 1e300;
  for (long r = 0; r < repeats; ++r) {
    Times t{};
    double acc = 0;
    const double start = Now();
    for (long i = 0; i < steps; ++i) acc += StepClockCalls(breakdown, &t);
    best = std::min(best, (Now() - start) / static_cast<double>(steps));
    *sink = acc;
  }
  return best;
}

// Seconds per line, the fastest of `repeats` batches of `lines` lines.
double TimeLines(std::FILE* f, long lines, long repeats) {
  MlLogger log(f);
  double best = 1e300;
  for (long r = 0; r < repeats; ++r) {
    const double start = Now();
    for (long i = 0; i < lines; i += 4) {
      log.Start("epoch_start", {{"epoch_num", i}});
      log.Event("seed", 42);
      log.Event("eval_accuracy", 0.125, {{"epoch_num", i}});
      log.End("epoch_stop", {{"epoch_num", i}});
    }
    best = std::min(best, (Now() - start) / static_cast<double>((lines + 3) / 4 * 4));
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  hbw::Flags flags("breakdown_overhead",
                   "Times hetbench-train's breakdown clock calls per step and its :::MLLOG lines.");
  flags.Add("steps", "2000000", "steps per timed batch of clock calls")
      .Add("lines", "20000", "MLLOG lines per timed batch")
      .Add("repeats", "7", "timed batches; the fastest is reported")
      .Add("mllog-file", "", "file the lines are written to (default: an unnamed temporary file)");
  flags.Parse(argc, argv);
  const long steps = flags.Int("steps"), lines = flags.Int("lines"), repeats = flags.Int("repeats");
  if (steps < 1 || lines < 4 || repeats < 1) flags.Fail("--steps, --repeats must be >= 1 and --lines >= 4");

  volatile double sink = 0;
  TimeSteps(true, steps / 10, 1, &sink);  // warm-up
  const double on = TimeSteps(true, steps, repeats, &sink), off = TimeSteps(false, steps, repeats, &sink);

  const std::string path = flags.Str("mllog-file");
  std::FILE* f = path.empty() ? std::tmpfile() : std::fopen(path.c_str(), "w");
  if (!f) flags.Fail("cannot open a file for the MLLOG lines" + (path.empty() ? "" : ": " + path));
  const double line = TimeLines(f, lines, repeats);
  std::fclose(f);

  hbw::Result("clock_calls_per_step_on", on * 1e9, "ns");
  hbw::Result("clock_calls_per_step_off", off * 1e9, "ns");
  hbw::Result("clock_cost_per_step", (on - off) * 1e9, "ns");
  hbw::Result("mllog_cost_per_line", line * 1e9, "ns");
  return 0;
}
