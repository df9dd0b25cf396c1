// BatchFixture: a batch-scheduler backend over a FakeCommandRunner and a
// FakeClock that polls on every Poll() call, for the backends' unit tests
// (slurm, pbs, sge, lsf, oar, flux). Time moves only through Poll() (1 ms,
// past the tiny poll interval) and Advance(), so the tests never sleep and
// a loaded machine cannot make them late. Test-only (header).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sched/batch_scheduler.h"
#include "sched/command_runner_fake.h"
#include "util/clock.h"

namespace hb {

// A job for directive tests: hb_stream with 8 tasks, 4 a node, and its
// output files in /s.
inline Job DirectiveJob() {
  Job j;
  j.name = "hb_stream";
  j.script_path = "/s/hb_job.sh";
  j.stdout_path = "/s/hb_job.out";
  j.stderr_path = "/s/hb_job.err";
  j.num_tasks = 8;
  j.num_tasks_per_node = 4;
  return j;
}

template <typename S>
struct BatchFixture {
  using Make = std::function<std::unique_ptr<S>(std::unique_ptr<CommandRunner>, BatchOptions)>;

  // `submit` is the backend's submission program (sbatch, qsub).
  BatchFixture(std::string submit, BatchOptions o, const Make& make) : submit_(std::move(submit)) {
    o.min_poll_interval = 0.0001;
    o.max_poll_interval = 0.0001;
    auto r = std::make_unique<FakeCommandRunner>();
    runner = r.get();
    sched = make(std::move(r), o);
    sched->set_clock(&clock);
  }
  // What the submission program prints for a job it numbers `id` (sbatch
  // --parsable, qsub: the id alone; bsub: "Job <id> is submitted...").
  std::function<std::string(const std::string&)> submit_output = [](const std::string& id) { return id + "\n"; };

  // Submits a job that the fake scheduler numbers `id`.
  Job Submit(const std::string& id) {
    runner->Expect(submit_, 0, submit_output(id));
    Job j;
    j.name = "hb_t";
    j.script_path = "/s/hb_job.sh";
    EXPECT_TRUE(sched->Submit(&j).ok());
    EXPECT_EQ(j.id, id);
    return j;
  }
  void Poll(std::vector<Job*> jobs) {
    clock.Advance(0.001);  // past the (tiny) poll interval
    sched->Poll(jobs);
  }
  // Lets `seconds` pass, on the fake clock.
  void Advance(double seconds) { clock.Advance(seconds); }
  int Count(const std::string& program) {
    auto it = runner->counts().find(program);
    return it == runner->counts().end() ? 0 : it->second;
  }

  FakeClock clock;  // before sched: outlives it
  FakeCommandRunner* runner = nullptr;
  std::unique_ptr<S> sched;

 private:
  std::string submit_;
};

}  // namespace hb
