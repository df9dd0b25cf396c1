#include "sched/oar.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sched/batch_test_util.h"
#include "sched/command_runner_fake.h"

namespace hb {
namespace {

using Kind = JobState::Kind;

// `oarstat -f -J -j 41 -j 42 -j 43 -j 44 -j 45` as Debian 12's oar-user
// 2.5.9 prints it: oarstat's dump_data (JSON->new->pretty) of a hash by
// job id of OAR::Stat::get_job_data's full view, trimmed to the keys
// hetbench reads. Perl's DBI gives numbers as strings; exit_code is the
// job's wait status (exit 2 -> 512).
const char kOarstat[] = R"json({
   "41" : {
      "Job_Id" : "41",
      "state" : "Running",
      "assigned_network_address" : ["node1", "node2"],
      "startTime" : "1796300000",
      "stopTime" : "0",
      "exit_code" : null,
      "events" : [],
      "message" : "R=8,W=0:10:0,J=B (Karma=0.000,quota_ok)"
   },
   "42" : {
      "Job_Id" : "42",
      "state" : "Terminated",
      "assigned_network_address" : ["node1"],
      "startTime" : "1796300000",
      "stopTime" : "1796300012",
      "exit_code" : "512",
      "events" : [ { "type" : "SWITCH_INTO_TERMINATE_STATE", "description" : "[bipbip 42] Ask to change the job state", "date" : "1796300012" } ],
      "message" : ""
   },
   "43" : {
      "Job_Id" : "43",
      "state" : "Error",
      "assigned_network_address" : [],
      "exit_code" : null,
      "events" : [ { "type" : "WALLTIME", "description" : "[sarko] Job [43] from 1796300000 with 600; current time=1796300601 (Elapsed)", "date" : "1796300601" } ],
      "message" : ""
   },
   "44" : {
      "Job_Id" : "44",
      "state" : "Waiting",
      "assigned_network_address" : [],
      "exit_code" : null,
      "events" : [],
      "message" : "Karma = 0.000"
   },
   "45" : {
      "Job_Id" : "45",
      "state" : "Error",
      "assigned_network_address" : [],
      "exit_code" : null,
      "events" : [ { "type" : "FRAG_JOB_REQUEST", "description" : "User bench requested to frag the job 45", "date" : "1796300601" } ],
      "message" : ""
   }
}
)json";

struct Fixture : BatchFixture<OarScheduler> {
  Fixture()
      : BatchFixture("oarsub", BatchOptions{}, [](std::unique_ptr<CommandRunner> r, BatchOptions o) {
          return std::make_unique<OarScheduler>("oar", std::move(r), o);
        }) {
    // oarsub's output (2.5.9): "[ADMISSION RULE] ..." lines, then the id.
    submit_output = [](const std::string& id) {
      return "[ADMISSION RULE] Set default walltime to 7200.\nOAR_JOB_ID=" + id + "\n";
    };
  }
};

TEST(OarParse, OarstatJsonStates) {
  auto o = ParseOarstatJson(kOarstat);
  ASSERT_TRUE(o.ok()) << o.status().str();
  ASSERT_EQ(o->size(), 5u);
  EXPECT_EQ((*o)["41"].state.kind, Kind::kRunning);
  EXPECT_EQ((*o)["41"].nodes, (std::vector<std::string>{"node1", "node2"}));
  EXPECT_EQ((*o)["41"].start_time, 1796300000);
  EXPECT_EQ((*o)["42"].state.kind, Kind::kCompleted);
  EXPECT_EQ((*o)["42"].state.exit_code, 2);
  EXPECT_EQ((*o)["42"].end_time, 1796300012);
  EXPECT_EQ((*o)["43"].state.kind, Kind::kTimeout);
  EXPECT_EQ((*o)["44"].state.kind, Kind::kQueued);
  EXPECT_EQ((*o)["44"].state.reason, "Karma = 0.000");
  EXPECT_EQ((*o)["45"].state.kind, Kind::kCancelled);
  EXPECT_TRUE(ParseOarstatJson("")->empty());
  auto bad = ParseOarstatJson("DBI connect failed\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "oarstat -J printed no JSON object: 'DBI connect failed'");
}

// ReFrame's OarJobScheduler.emit_preamble and submit.
TEST(OarScheduler, DirectivesAndSubmissionAsReFrame) {
  Fixture f;
  Job j = DirectiveJob();
  j.time_limit_s = 3661;
  j.access = {"-q besteffort"};
  j.options = {"-p \"gpu='YES'\""};
  EXPECT_EQ(f.sched->Directives(j),
            (std::vector<std::string>{"#OAR -n \"hb_stream\"", "#OAR -O /s/hb_job.out", "#OAR -E /s/hb_job.err",
                                      "#OAR -l /host=2/core=4,walltime=1:1:1", "#OAR -q besteffort",
                                      "#OAR -p \"gpu='YES'\""}));
  Job a = f.Submit("41");
  EXPECT_EQ(f.runner->calls.back(), "oarsub -S /s/hb_job.sh");
}

// One oarstat for all jobs, each named with -j (ReFrame runs one per job).
TEST(OarScheduler, OneOarstatPerPollNamingEveryJob) {
  Fixture f;
  std::vector<Job> jobs;
  for (const char* id : {"41", "42", "43", "44", "45"}) jobs.push_back(f.Submit(id));
  f.runner->Expect("oarstat", 0, kOarstat);
  std::vector<Job*> ptrs;
  for (auto& j : jobs) ptrs.push_back(&j);
  f.Poll(ptrs);
  EXPECT_EQ(f.Count("oarstat"), 1);
  EXPECT_EQ(f.runner->calls.back(), "oarstat -f -J -j 41 -j 42 -j 43 -j 44 -j 45");
  EXPECT_EQ(jobs[1].state.kind, Kind::kCompleted);
  EXPECT_EQ(jobs[1].state.exit_code, 2);
  EXPECT_EQ(jobs[2].state.kind, Kind::kTimeout);
  f.sched->Cancel(&jobs[3]);
  EXPECT_EQ(f.runner->calls.back(), "oardel 44");
}

}  // namespace
}  // namespace hb
