#include "sched/lsf.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sched/batch_test_util.h"
#include "sched/command_runner_fake.h"

namespace hb {
namespace {

using Kind = JobState::Kind;

// `bjobs -o "jobid stat exit_code exec_host pend_reason delimiter='|'"
// -noheader 101 102 103 104 105 106`, in the form IBM's LSF 10.1
// documentation gives for -o with a delimiter (lsf_command_ref/bjobs.o.1):
// one line per job, "-" for an empty field, EXEC_HOST as "N*host:host".
const char kBjobs[] =
    "101|RUN|-|4*cn01:4*cn02|-\n"
    "102|PEND|-|-|New job is waiting for scheduling;\n"
    "103|DONE|-|cn03|-\n"
    "104|EXIT|3|cn03|-\n"
    "105|PSUSP|-|-|The job was suspended by the user while pending;\n"
    "106|EXIT|-|-|-\n";

struct Fixture : BatchFixture<LsfScheduler> {
  Fixture()
      : BatchFixture("bsub", BatchOptions{}, [](std::unique_ptr<CommandRunner> r, BatchOptions o) {
          return std::make_unique<LsfScheduler>("lsf", std::move(r), o);
        }) {
    submit_output = [](const std::string& id) { return "Job <" + id + "> is submitted to default queue <normal>.\n"; };
  }
};

TEST(LsfParse, BjobsLinesAndStates) {
  Observations o = ParseBjobs(kBjobs);
  ASSERT_EQ(o.size(), 6u);
  EXPECT_EQ(o["101"].state.kind, Kind::kRunning);
  EXPECT_EQ(o["101"].nodes, (std::vector<std::string>{"cn01", "cn02"}));
  EXPECT_EQ(o["102"].state.kind, Kind::kQueued);
  EXPECT_EQ(o["102"].state.reason, "New job is waiting for scheduling");
  EXPECT_EQ(o["103"].state.kind, Kind::kCompleted);
  EXPECT_EQ(o["103"].state.exit_code, 0);
  EXPECT_EQ(o["104"].state.kind, Kind::kCompleted);
  EXPECT_EQ(o["104"].state.exit_code, 3);
  EXPECT_EQ(o["105"].state.kind, Kind::kQueued);
  EXPECT_EQ(o["105"].state.reason, "held (PSUSP): The job was suspended by the user while pending");
  EXPECT_EQ(o["106"].state.kind, Kind::kFailed);
  // A pending reason may hold the delimiter.
  EXPECT_EQ(
      ParseBjobs("7|PEND|-|-|Job's requirements for reserving resource (mem|swp) not satisfied;\n")["7"].state.reason,
      "Job's requirements for reserving resource (mem|swp) not satisfied");
  EXPECT_TRUE(ParseBjobs("JOBID|STAT\ngarbage\n").empty());
}

TEST(LsfParse, EveryStateIsMapped) {
  for (const char* s : {"PEND", "PSUSP", "WAIT"}) EXPECT_EQ(LsfJobState(s, "", "").kind, Kind::kQueued) << s;
  for (const char* s : {"RUN", "USUSP", "SSUSP", "UNKWN"}) EXPECT_EQ(LsfJobState(s, "", "").kind, Kind::kRunning) << s;
  EXPECT_EQ(LsfJobState("PROV", "", "").kind, Kind::kStarting);
  EXPECT_EQ(LsfJobState("ZOMBI", "", "").kind, Kind::kCancelled);
  EXPECT_EQ(LsfJobState("DONE", "", "").exit_code, 0);
  EXPECT_EQ(BjobsUnknownIds("Job <12> is not found\nJob <13> is not found\n"), (std::vector<std::string>{"12", "13"}));
}

// ReFrame's LsfJobScheduler.emit_preamble, line for line.
TEST(LsfScheduler, DirectivesAsReFrame) {
  Fixture f;
  Job j = DirectiveJob();
  j.num_cpus_per_task = 2;
  j.time_limit_s = 610;
  j.exclusive = true;
  j.access = {"-q gpu"};
  j.options = {"-P proj", "#BSUB -alloc_flags smt4"};
  EXPECT_EQ(f.sched->Directives(j),
            (std::vector<std::string>{"#BSUB -J hb_stream", "#BSUB -o /s/hb_job.out", "#BSUB -e /s/hb_job.err",
                                      "#BSUB -nnodes 2", "#BSUB -R \"affinity[core(2)]\"", "#BSUB -W 11",
                                      "#BSUB -q gpu", "#BSUB -P proj", "#BSUB -alloc_flags smt4", "#BSUB -x"}));
  j.num_tasks_per_node = 0;
  auto d = f.sched->Directives(j);
  EXPECT_NE(std::find(d.begin(), d.end(), "#BSUB -n 8"), d.end());
}

// bsub reads the script on stdin; one bjobs names every job.
TEST(LsfScheduler, SubmitsOnStdinAndPollsWithOneBjobs) {
  Fixture f;
  f.runner->Expect("bsub", 0, "Job <101> is submitted to queue <normal>.\n");
  Job a;
  a.name = "hb_t";
  a.script_path = "/s/hb_job.sh";
  ASSERT_TRUE(f.sched->Submit(&a).ok());
  EXPECT_EQ(a.id, "101");
  EXPECT_EQ(f.runner->calls.back(), "bsub < /s/hb_job.sh");
  Job b = f.Submit("104");
  f.runner->Expect("bjobs", 0, kBjobs);
  f.Poll({&a, &b});
  EXPECT_EQ(f.Count("bjobs"), 1);
  EXPECT_EQ(f.runner->calls.back(),
            "bjobs -o jobid stat exit_code exec_host pend_reason delimiter='|' -noheader 101 104");
  EXPECT_EQ(a.state.kind, Kind::kRunning);
  EXPECT_EQ(b.state.kind, Kind::kCompleted);
  EXPECT_EQ(b.state.exit_code, 3);
}

// bjobs exits non-zero when it does not know some ids, and still prints
// the others; a job it no longer knows is lost after lost_after.
TEST(LsfScheduler, UnknownIdsAreNotFoundOthersReported) {
  Fixture f;
  Job a = f.Submit("200"), b = f.Submit("201");
  f.runner->Expect("bjobs", 255, "200|RUN|-|cn01|-\n", "Job <201> is not found\n");
  f.Poll({&a, &b});
  EXPECT_EQ(a.state.kind, Kind::kRunning);
  EXPECT_FALSE(b.state.terminal());
  f.runner->Expect("bjobs", 255, "", "LSF is down; try later\n");
  f.Poll({&a, &b});  // a failed query keeps the states
  EXPECT_EQ(a.state.kind, Kind::kRunning);
}

TEST(LsfScheduler, SchedAccessInSubmitAndCancel) {
  Fixture f;
  Job j;
  j.name = "hb_t";
  j.script_path = "/s/hb_job.sh";
  j.access = {"-q", "debug"};
  j.sched_options = {{"sched_access_in_submit", true}};
  auto d = f.sched->Directives(j);
  EXPECT_EQ(std::count(d.begin(), d.end(), "#BSUB -q"), 0);
  f.runner->Expect("bsub", 0, "Job <300> is submitted to queue <debug>.\n");
  ASSERT_TRUE(f.sched->Submit(&j).ok());
  EXPECT_EQ(f.runner->calls.back(), "bsub -q debug < /s/hb_job.sh");
  f.sched->Cancel(&j);
  EXPECT_EQ(f.runner->calls.back(), "bkill 300");
  f.runner->Expect("bsub", 255, "", "Bad resource requirement syntax. Job not submitted.\n");
  Job bad;
  bad.script_path = "/s/x.sh";
  Status st = f.sched->Submit(&bad);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("Bad resource requirement syntax"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace hb
