#include "sched/flux.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sched/batch_test_util.h"
#include "sched/command_runner_fake.h"

namespace hb {
namespace {

using Kind = JobState::Kind;

// `flux jobs -n -o "{id.f58plain}|{state}|{result}|{returncode}|{nodelist}|
// {t_run}|{t_inactive}|{exception.note}" <ids>` in the forms flux-core's
// JobInfo gives them (src/bindings/python/flux/job/info.py): state names
// of flux_job_statetostr (long form), result names of
// flux_job_resulttostr, returncode "" while active, -N for a signal, -128
// for a job cancelled before it ran; t_run 0.0 until the job runs.
const char kFluxJobs[] =
    "fABCa1|RUN|||node[1-2]|1796300000.5|0.0|\n"
    "fABCa2|SCHED|||||0.0|0.0|\n"
    "fABCa3|INACTIVE|COMPLETED|0|node3|1796300000.0|1796300005.25|\n"
    "fABCa4|INACTIVE|FAILED|2|node3|1796300000.0|1796300005.0|\n"
    "fABCa5|INACTIVE|TIMEOUT|-15|node4|1796300000.0|1796300060.0|resource allocation expired\n"
    "fABCa6|INACTIVE|CANCELED|-128||0.0|1796300001.0|Canceled by user\n"
    "fABCa7|INACTIVE|FAILED|-9|node5|1796300000.0|1796300003.0|\n";

struct Fixture : BatchFixture<FluxScheduler> {
  Fixture()
      : BatchFixture("flux", BatchOptions{}, [](std::unique_ptr<CommandRunner> r, BatchOptions o) {
          return std::make_unique<FluxScheduler>("flux", std::move(r), o);
        }) {}
};

TEST(FluxParse, JobsLinesAndStates) {
  Observations o = ParseFluxJobs(kFluxJobs);
  ASSERT_EQ(o.size(), 7u);
  EXPECT_EQ(o["fABCa1"].state.kind, Kind::kRunning);
  EXPECT_EQ(o["fABCa1"].nodes, (std::vector<std::string>{"node1", "node2"}));
  EXPECT_EQ(o["fABCa1"].start_time, 1796300000.5);
  EXPECT_EQ(o["fABCa2"].state.kind, Kind::kQueued);
  EXPECT_EQ(o["fABCa3"].state.kind, Kind::kCompleted);
  EXPECT_EQ(o["fABCa3"].state.exit_code, 0);
  EXPECT_EQ(o["fABCa3"].end_time, 1796300005.25);
  EXPECT_EQ(o["fABCa4"].state.kind, Kind::kCompleted);
  EXPECT_EQ(o["fABCa4"].state.exit_code, 2);
  EXPECT_EQ(o["fABCa5"].state.kind, Kind::kTimeout);
  EXPECT_EQ(o["fABCa5"].state.reason, "resource allocation expired");
  EXPECT_EQ(o["fABCa6"].state.kind, Kind::kCancelled);
  EXPECT_EQ(o["fABCa7"].state.kind, Kind::kFailed);
  EXPECT_EQ(o["fABCa7"].state.reason, "killed by signal 9");
  EXPECT_EQ(FluxAsciiId("\xc6\x92"
                        "ABCa1\n"),
            "fABCa1");
  EXPECT_TRUE(ParseFluxJobs("garbage\n").empty());
}

TEST(FluxScheduler, DirectivesSubmissionAndOneQuery) {
  Fixture f;
  Job j = DirectiveJob();
  j.num_cpus_per_task = 2;
  j.num_gpus_per_node = 4;
  j.time_limit_s = 90;
  j.exclusive = true;
  j.access = {"--queue=batch"};
  EXPECT_EQ(
      f.sched->Directives(j),
      (std::vector<std::string>{"# flux: --job-name=hb_stream", "# flux: --output=/s/hb_job.out",
                                "# flux: --error=/s/hb_job.err", "# flux: -n 8", "# flux: -c 2", "# flux: -N 2",
                                "# flux: -g 1", "# flux: -t 90s", "# flux: --exclusive", "# flux: --queue=batch"}));
  // flux batch prints the F58 id, with "ƒ" unless ASCII is forced.
  f.runner->Expect("flux", 0,
                   "\xc6\x92"
                   "ABCa3\n");
  ASSERT_TRUE(f.sched->Submit(&j).ok());
  EXPECT_EQ(j.id, "fABCa3");
  EXPECT_EQ(f.runner->calls.back(), "flux batch /s/hb_job.sh");
  f.runner->Expect("flux", 0, "fABCa4\n");
  Job k = j;
  ASSERT_TRUE(f.sched->Submit(&k).ok());
  f.runner->Expect("flux", 0, kFluxJobs);
  f.Poll({&j, &k});
  EXPECT_EQ(f.runner->calls.back(),
            "flux jobs -n -o {id.f58plain}|{state}|{result}|{returncode}|{nodelist}|{t_run}|{t_inactive}|"
            "{exception.note} fABCa3 fABCa4");
  EXPECT_EQ(j.state.kind, Kind::kCompleted);
  EXPECT_EQ(k.state.exit_code, 2);
  f.runner->Expect("flux", 0, "fABCa1\n");
  Job l = j;
  ASSERT_TRUE(f.sched->Submit(&l).ok());
  f.sched->Cancel(&l);
  EXPECT_EQ(f.runner->calls.back(), "flux cancel fABCa1");
}

// Only unknown ids: flux jobs exits 1 with "JobID ... unknown"; the jobs
// are not found (lost after lost_after), not a failed query.
TEST(FluxScheduler, UnknownIdsAreNotFound) {
  Fixture f;
  f.runner->Expect("flux", 0, "fXYZ\n");
  Job j;
  j.script_path = "/s/hb_job.sh";
  ASSERT_TRUE(f.sched->Submit(&j).ok());
  f.runner->Expect("flux", 1, "", "JobID fXYZ unknown\n");
  f.Poll({&j});
  EXPECT_FALSE(j.state.terminal());
  EXPECT_TRUE(f.sched->TakeNotices().empty());
}

}  // namespace
}  // namespace hb
