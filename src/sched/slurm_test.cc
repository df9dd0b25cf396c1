#include "sched/slurm.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>

#include "sched/batch_test_util.h"
#include "sched/command_runner_fake.h"

namespace hb {
namespace {

using Kind = JobState::Kind;

TEST(SlurmState, EveryStateIsMapped) {
  struct Case {
    const char *state, *reason, *exit;
    Kind kind;
    int exit_code;
  } cases[] = {
      {"PENDING", "Priority", "0:0", Kind::kQueued, -1},
      {"CONFIGURING", "None", "0:0", Kind::kStarting, -1},
      {"RUNNING", "None", "0:0", Kind::kRunning, -1},
      {"COMPLETING", "None", "0:0", Kind::kRunning, -1},
      {"COMPLETED", "None", "0:0", Kind::kCompleted, 0},
      {"FAILED", "NonZeroExitCode", "3:0", Kind::kCompleted, 3},
      {"FAILED", "None", "0:9", Kind::kFailed, 137},
      {"TIMEOUT", "TimeLimit", "0:15", Kind::kTimeout, -1},
      {"OUT_OF_MEMORY", "OutOfMemory", "0:125", Kind::kFailed, -1},
      {"NODE_FAIL", "NodeDown", "0:0", Kind::kFailed, -1},
      {"CANCELLED by 0", "None", "0:15", Kind::kCancelled, -1},
      {"PREEMPTED", "None", "0:0", Kind::kFailed, -1},
      {"REQUEUED", "None", "0:0", Kind::kQueued, -1},
      {"REQUEUE_HOLD", "JobHeldAdmin", "0:0", Kind::kQueued, -1},
      {"BOOT_FAIL", "None", "0:0", Kind::kFailed, -1},
      {"DEADLINE", "None", "0:0", Kind::kFailed, -1},
  };
  for (const auto& c : cases) {
    JobState s = SlurmJobState(c.state, c.reason, c.exit);
    EXPECT_EQ(s.kind, c.kind) << c.state;
    if (c.exit_code >= 0) {
      EXPECT_EQ(s.exit_code, c.exit_code) << c.state;
    }
  }
  EXPECT_EQ(SlurmJobState("PENDING", "ReqNodeNotAvail, UnavailableNodes:n1", "0:0").reason,
            "ReqNodeNotAvail, UnavailableNodes:n1");
  EXPECT_EQ(SlurmJobState("OUT_OF_MEMORY", "", "0:125").reason, "out of memory (Slurm state OUT_OF_MEMORY)");
}

TEST(SlurmParse, Nodelists) {
  EXPECT_EQ(ExpandSlurmNodelist("nid[001-003,007],login1"),
            (std::vector<std::string>{"nid001", "nid002", "nid003", "nid007", "login1"}));
  EXPECT_EQ(ExpandSlurmNodelist("vm"), std::vector<std::string>{"vm"});
  EXPECT_TRUE(ExpandSlurmNodelist("").empty());
  EXPECT_TRUE(ExpandSlurmNodelist("None assigned").empty());
}

TEST(SlurmParse, SqueueScontrolSacct) {
  auto q = ParseSqueue("101|PENDING|Priority|\n102|RUNNING|None|vm\ngarbage\n103|RUNN");
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q["101"].state.kind, Kind::kQueued);
  EXPECT_EQ(q["101"].state.reason, "Priority");
  EXPECT_EQ(q["102"].nodes, std::vector<std::string>{"vm"});

  auto c = ParseScontrolJobs(
      "JobId=104 JobName=hb_x UserId=root(0) GroupId=root(0) Priority=1 JobState=FAILED Reason=NonZeroExitCode "
      "Dependency=(null) ExitCode=3:0 RunTime=00:00:01 TimeLimit=00:01:00 SubmitTime=2026-11-30T08:40:00 "
      "StartTime=2026-11-30T08:40:01 EndTime=2026-11-30T08:40:02 NodeList=vm BatchHost=vm "
      "Command=/tmp/x y/hb_job.sh WorkDir=/tmp/x y\n"
      "JobId=105 JobName=hb_y JobState=TIMEOUT Reason=TimeLimit ExitCode=0:15 NodeList=vm\n");
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c["104"].state.kind, Kind::kCompleted);
  EXPECT_EQ(c["104"].state.exit_code, 3);
  EXPECT_GT(c["104"].end_time, c["104"].start_time);
  EXPECT_EQ(c["105"].state.kind, Kind::kTimeout);

  auto a = ParseSacct(
      "106|COMPLETED|0:0|None|vm|2026-11-30T08:40:01|2026-11-30T08:40:02\n"
      "107|CANCELLED by 0|0:15|None|vm|2026-11-30T08:40:01|2026-11-30T08:40:05\n"
      "108|PENDING|0:0|BeginTime|None assigned|Unknown|Unknown\n"
      "109|COMPL");
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a["106"].state.kind, Kind::kCompleted);
  EXPECT_EQ(a["107"].state.kind, Kind::kCancelled);
  EXPECT_EQ(a["108"].state.reason, "BeginTime");
  EXPECT_EQ(a["108"].start_time, 0);
}

// A Slurm scheduler over a fake runner, polling on every call.
struct Fixture : BatchFixture<SlurmScheduler> {
  explicit Fixture(const std::string& name, BatchOptions o = {})
      : BatchFixture("sbatch", o, [&](std::unique_ptr<CommandRunner> r, BatchOptions opts) {
          return std::make_unique<SlurmScheduler>(name, std::move(r), opts);
        }) {}
};

TEST(SlurmScheduler, DirectivesAsReFrame) {
  Fixture f("slurm");
  Job j;
  j.name = "hb_stream";
  j.num_tasks = 4;
  j.num_tasks_per_node = 2;
  j.num_cpus_per_task = 8;
  j.time_limit_s = 5400;
  j.exclusive = true;
  j.stdout_path = "/s/hb_job.out";
  j.stderr_path = "/s/hb_job.err";
  j.options = {"--account=proj", "--gres=gpu:4", "#DW jobdw"};
  EXPECT_EQ(
      f.sched->Directives(j),
      (std::vector<std::string>{"#SBATCH --job-name=\"hb_stream\"", "#SBATCH --ntasks=4", "#SBATCH --ntasks-per-node=2",
                                "#SBATCH --cpus-per-task=8", "#SBATCH --time=1:30:00", "#SBATCH --exclusive",
                                "#SBATCH --output=/s/hb_job.out", "#SBATCH --error=/s/hb_job.err",
                                "#SBATCH --account=proj", "#SBATCH --gres=gpu:4", "#DW jobdw"}));
}

// ReFrame's order: tasks per core and socket after tasks per node, the
// access options after the output files, --hint before the test's options.
TEST(SlurmScheduler, AccessTasksPerCoreAndMultithreading) {
  Fixture f("slurm");
  Job j;
  j.name = "hb_t";
  j.num_tasks = 8;
  j.num_tasks_per_core = 1;
  j.num_tasks_per_socket = 4;
  j.use_smt = 0;
  j.stdout_path = "/s/o";
  j.stderr_path = "/s/e";
  j.script_path = "/s/hb_job.sh";
  j.access = {"--partition=debug", "--account=a1"};
  j.options = {"--qos=low"};
  EXPECT_EQ(f.sched->Directives(j),
            (std::vector<std::string>{"#SBATCH --job-name=\"hb_t\"", "#SBATCH --ntasks=8",
                                      "#SBATCH --ntasks-per-core=1", "#SBATCH --ntasks-per-socket=4",
                                      "#SBATCH --output=/s/o", "#SBATCH --error=/s/e", "#SBATCH --hint=nomultithread",
                                      "#SBATCH --partition=debug", "#SBATCH --account=a1", "#SBATCH --qos=low"}));
  f.runner->Expect("sbatch", 0, "42\n");
  ASSERT_TRUE(f.sched->Submit(&j).ok());
  EXPECT_EQ(f.runner->calls.back(), "sbatch --parsable /s/hb_job.sh");

  // sched_access_in_submit: true moves the access options to sbatch's
  // command line (ReFrame's option of that name).
  j.sched_options = {{"sched_access_in_submit", true}};
  j.use_smt = 1;
  auto d = f.sched->Directives(j);
  EXPECT_EQ(std::count(d.begin(), d.end(), "#SBATCH --partition=debug"), 0);
  EXPECT_EQ(std::count(d.begin(), d.end(), "#SBATCH --hint=multithread"), 1);
  EXPECT_EQ(std::count(d.begin(), d.end(), "#SBATCH --qos=low"), 1);
  f.runner->Expect("sbatch", 0, "43\n");
  ASSERT_TRUE(f.sched->Submit(&j).ok());
  EXPECT_EQ(f.runner->calls.back(), "sbatch --parsable --partition=debug --account=a1 /s/hb_job.sh");
}

TEST(SlurmScheduler, OptionsSbatchWouldMisreadGoOnTheCommandLine) {
  Fixture f("squeue");
  Job j;
  j.name = "hb_t";
  j.script_path = "/s/hb_job.sh";
  j.stdout_path = "/s/o";
  j.stderr_path = "/s/e";
  j.options = {"-p debug", "--comment=; rm -rf ~", "--comment=a'b\"c", "--comment=line1\nline2", "--begin=now+1hour"};
  auto d = f.sched->Directives(j);
  EXPECT_NE(std::find(d.begin(), d.end(), "#SBATCH -p debug"), d.end());
  EXPECT_NE(std::find(d.begin(), d.end(), "#SBATCH --begin=now+1hour"), d.end());
  EXPECT_NE(std::find(d.begin(), d.end(), "# on the sbatch command line: '--comment=; rm -rf ~'"), d.end());
  // A line break stays inside the comment line.
  EXPECT_NE(std::find(d.begin(), d.end(), "# on the sbatch command line: '--comment=line1\\nline2'"), d.end());
  for (const auto& line : d) EXPECT_EQ(line.find('\n'), std::string::npos) << line;
  f.runner->Expect("sbatch", 0, "42\n");
  ASSERT_TRUE(f.sched->Submit(&j).ok());
  EXPECT_EQ(f.runner->calls.back(),
            "sbatch --parsable --comment=; rm -rf ~ --comment=a'b\"c --comment=line1\nline2 /s/hb_job.sh");
}

TEST(SlurmScheduler, OneSacctPerPollForAllJobs) {
  Fixture f("slurm");
  std::vector<Job> jobs;
  for (int i = 0; i < 50; ++i) jobs.push_back(f.Submit(std::to_string(1000 + i)));
  std::string out;
  for (int i = 0; i < 50; ++i)
    out += std::to_string(1000 + i) + (i % 2 ? "|RUNNING|0:0|None|vm|2026-11-30T08:40:01|Unknown\n"
                                             : "|COMPLETED|0:0|None|vm|2026-11-30T08:40:01|2026-11-30T08:40:02\n");
  f.runner->Expect("sacct", 0, out);
  // The 25 running ones are still in the queue.
  std::string queue;
  for (int i = 1; i < 50; i += 2) queue += std::to_string(1000 + i) + "|RUNNING|None|vm\n";
  f.runner->Expect("squeue", 0, queue);
  std::vector<Job*> ptrs;
  for (auto& j : jobs) ptrs.push_back(&j);
  f.Poll(ptrs);
  EXPECT_EQ(f.runner->counts().at("sacct"), 1);
  EXPECT_EQ(f.runner->counts().at("squeue"), 1);
  EXPECT_EQ(f.runner->counts().count("scontrol"), 0u);
  EXPECT_EQ(jobs[0].state.kind, Kind::kCompleted);
  EXPECT_EQ(jobs[1].state.kind, Kind::kRunning);
  ASSERT_EQ(f.runner->calls.size(), 52u);  // 50 sbatch, sacct, squeue
  EXPECT_NE(f.runner->calls[50].find("-j 1000,1001,1002"), std::string::npos);
  EXPECT_NE(f.runner->calls[51].find("-j 1001,1003,1005"), std::string::npos) << "only the jobs not ended";
}

// Issue 19, item 3: slurmdbd records an end after the controller. A job
// that sacct still shows running but squeue no longer lists is asked about
// with scontrol, by its id alone, and its end is noticed in that poll.
TEST(SlurmScheduler, AccountingLagIsFollowedUpByScontrolForThoseIdsOnly) {
  Fixture f("slurm");
  Job a = f.Submit("2000"), b = f.Submit("2001");
  f.runner->Expect("sacct", 0,
                   "2000|RUNNING|0:0|None|vm|2026-11-30T08:40:01|Unknown\n"
                   "2001|RUNNING|0:0|None|vm|2026-11-30T08:40:01|Unknown\n");
  f.runner->Expect("squeue", 0, "2000|RUNNING|None|vm\n");
  f.runner->Expect("scontrol", 0, "JobId=2001 JobState=COMPLETED Reason=None ExitCode=0:0 NodeList=vm\n");
  f.Poll({&a, &b});
  EXPECT_EQ(a.state.kind, Kind::kRunning);
  EXPECT_EQ(b.state.kind, Kind::kCompleted);
  EXPECT_EQ(f.runner->calls.back(), "scontrol -o show job 2001");
}

// Issue 19, item 1: every query names hetbench's own jobs, at most 500 ids
// an argument, and scontrol is never asked for the controller's whole list.
TEST(SlurmScheduler, QueriesNameOnlyItsOwnJobsInChunks) {
  Fixture f("squeue");
  std::vector<Job> jobs;
  for (int i = 0; i < 1200; ++i) jobs.push_back(f.Submit(std::to_string(10000 + i)));
  for (int c = 0; c < 3; ++c) {
    std::string out;
    for (int i = c * 500; i < std::min(1200, (c + 1) * 500); ++i)
      if (i != 7) out += std::to_string(10000 + i) + "|RUNNING|None|vm\n";
    f.runner->Expect("squeue", 0, out);
  }
  f.runner->Expect("scontrol", 0, "JobId=10007 JobState=FAILED Reason=NonZeroExitCode ExitCode=3:0 NodeList=vm\n");
  std::vector<Job*> ptrs;
  for (auto& j : jobs) ptrs.push_back(&j);
  f.Poll(ptrs);
  EXPECT_EQ(f.runner->counts().at("squeue"), 3);
  EXPECT_EQ(f.runner->counts().at("scontrol"), 1);
  for (const auto& call : f.runner->calls) {
    if (call.rfind("squeue", 0) == 0) {
      size_t ids = std::count(call.begin(), call.end(), ',') + 1;
      EXPECT_LE(ids, 500u) << call.substr(0, 80);
    }
    if (call.rfind("scontrol", 0) == 0) {
      EXPECT_EQ(call, "scontrol -o show job 10007");
    }
  }
  EXPECT_EQ(jobs[7].state.kind, Kind::kCompleted);  // FAILED with an exit code: completed, exit 3
  EXPECT_EQ(jobs[7].state.exit_code, 3);
  EXPECT_EQ(jobs[8].state.kind, Kind::kRunning);
  EXPECT_EQ(jobs[1199].state.kind, Kind::kRunning);
}

TEST(SlurmScheduler, FallsBackToSqueueWhenAccountingIsOff) {
  Fixture f("slurm");
  Job a = f.Submit("200"), b = f.Submit("201");
  f.runner->Expect("sacct", 1, "", "sacct: error: Slurm accounting storage is disabled\n");
  f.runner->Expect("squeue", 0, "200|RUNNING|None|vm\n");
  f.runner->Expect("scontrol", 0, "JobId=201 JobState=COMPLETED Reason=None ExitCode=0:0 NodeList=vm\n");
  f.Poll({&a, &b});
  EXPECT_FALSE(f.sched->using_sacct());
  EXPECT_EQ(a.state.kind, Kind::kRunning);
  EXPECT_EQ(b.state.kind, Kind::kCompleted);
  auto notices = f.sched->TakeNotices();
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_NE(notices[0].find("accounting is off"), std::string::npos);
  // The next poll uses squeue alone while every job is still in the queue.
  f.runner->Expect("squeue", 0, "200|RUNNING|None|vm\n");
  f.Poll({&a});
  EXPECT_EQ(f.runner->counts().at("sacct"), 1);
  EXPECT_EQ(f.runner->counts().at("scontrol"), 1);
  EXPECT_TRUE(f.sched->TakeNotices().empty()) << "said once";
}

TEST(SlurmScheduler, SbatchErrorFailsTheSubmissionWithItsMessage) {
  Fixture f("squeue");
  f.runner->Expect("sbatch", 1, "", "sbatch: error: invalid partition specified: nope\n");
  Job j;
  j.script_path = "/s/x.sh";
  Status st = f.sched->Submit(&j);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "sbatch: error: invalid partition specified: nope");
}

TEST(SlurmScheduler, ResubmitsOnTransientErrors) {
  BatchOptions o;
  o.resubmit_on_errors = {"Socket timed out"};
  Fixture f("squeue", o);
  f.runner->Expect("sbatch", 1, "", "sbatch: error: Batch job submission failed: Socket timed out on send/recv\n");
  Job j = f.Submit("300");
  EXPECT_EQ(f.runner->counts().at("sbatch"), 2);
}

TEST(SlurmScheduler, FailedOrTruncatedQueriesAreRetried) {
  Fixture f("squeue");
  Job j = f.Submit("400");
  f.runner->Expect("squeue", 1, "", "slurm_load_jobs error: Unable to contact slurm controller (connect failure)\n");
  f.Poll({&j});
  EXPECT_EQ(j.state.kind, Kind::kQueued);  // unchanged
  auto notices = f.sched->TakeNotices();
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_NE(notices[0].find("Unable to contact slurm controller"), std::string::npos);
  f.runner->Expect("squeue", 0, "400|RUNN");  // truncated
  f.runner->Expect("scontrol", 0, "JobId=40");
  f.Poll({&j});
  EXPECT_EQ(j.state.kind, Kind::kQueued);
  f.runner->Expect("squeue", 0, "400|RUNNING|None|vm\n");
  f.Poll({&j});
  EXPECT_EQ(j.state.kind, Kind::kRunning);
}

TEST(SlurmScheduler, VanishedJobIsLostNotAHang) {
  BatchOptions o;
  o.lost_after = 0.01;
  Fixture f("squeue", o);
  Job j = f.Submit("500");
  f.runner->Expect("squeue", 1, "", "slurm_load_jobs error: Invalid job id specified\n");
  f.runner->Expect("scontrol", 0, "");
  f.Poll({&j});
  EXPECT_FALSE(j.state.terminal());
  f.Advance(0.02);
  f.runner->Expect("squeue", 1, "", "slurm_load_jobs error: Invalid job id specified\n");
  f.runner->Expect("scontrol", 0, "");
  f.Poll({&j});
  EXPECT_EQ(j.state.kind, Kind::kLost);
  EXPECT_NE(j.state.reason.find("vanished"), std::string::npos);
}

TEST(SlurmScheduler, MaxPendingTimeCancels) {
  Fixture f("squeue");
  f.runner->Expect("sbatch", 0, "600\n");
  Job j;
  j.max_pending_time_s = 0.01;
  ASSERT_TRUE(f.sched->Submit(&j).ok());
  f.runner->Expect("squeue", 0, "600|PENDING|BeginTime|\n");
  f.Poll({&j});
  f.Advance(0.02);
  f.runner->Expect("squeue", 0, "600|PENDING|BeginTime|\n");
  f.Poll({&j});
  EXPECT_EQ(j.state.kind, Kind::kFailed);
  EXPECT_NE(j.state.reason.find("max_pending_time; last pending reason: BeginTime"), std::string::npos)
      << j.state.reason;
  EXPECT_EQ(f.runner->calls.back(), "scancel 600");
}

TEST(SlurmScheduler, HopelessPendingReasonCancels) {
  Fixture f("squeue");
  Job j = f.Submit("700");
  f.runner->Expect("squeue", 0, "700|PENDING|PartitionNodeLimit|\n");
  f.Poll({&j});
  EXPECT_EQ(j.state.kind, Kind::kFailed);
  EXPECT_NE(j.state.reason.find("PartitionNodeLimit"), std::string::npos);
}

// Partitions with different options share one instance (one squeue per
// poll); each job follows its own partition's options.
TEST(SlurmScheduler, EachJobFollowsItsPartitionsOptions) {
  Fixture f("squeue");
  Job plain = f.Submit("710");
  f.runner->Expect("sbatch", 0, "711\n");
  Job tolerant;
  tolerant.name = "hb_t";
  tolerant.script_path = "/s/hb_job.sh";
  tolerant.num_tasks = 4;
  tolerant.num_tasks_per_node = 2;
  tolerant.sched_options = {{"cancel_pending_reasons", {"Priority"}}, {"use_nodes_option", true}};
  ASSERT_TRUE(f.sched->Submit(&tolerant).ok());
  auto directives = f.sched->Directives(tolerant);
  EXPECT_NE(std::find(directives.begin(), directives.end(), "#SBATCH --nodes=2"), directives.end());
  directives = f.sched->Directives(plain);
  EXPECT_EQ(std::find(directives.begin(), directives.end(), "#SBATCH --nodes=2"), directives.end());
  size_t before = f.runner->calls.size();
  f.runner->Expect("squeue", 0, "710|PENDING|PartitionNodeLimit|\n711|PENDING|PartitionNodeLimit|\n");
  f.Poll({&plain, &tolerant});
  EXPECT_EQ(f.runner->calls.size() - before, 2u);  // one squeue for both, one scancel
  EXPECT_EQ(plain.state.kind, Kind::kFailed);      // the default list has PartitionNodeLimit
  EXPECT_EQ(tolerant.state.kind, Kind::kQueued);   // its partition lists Priority only
}

TEST(SlurmScheduler, CancelAndShutdown) {
  Fixture f("squeue");
  Job a = f.Submit("800"), b = f.Submit("801");
  f.sched->Cancel(&a);
  EXPECT_EQ(f.runner->calls.back(), "scancel 800");
  f.runner->Expect("squeue", 0, "801|RUNNING|None|vm\n");
  f.runner->Expect("scontrol", 0, "JobId=800 JobState=CANCELLED Reason=None ExitCode=0:15 NodeList=vm\n");
  f.Poll({&a, &b});
  EXPECT_EQ(a.state.kind, Kind::kCancelled);
  f.sched->Shutdown();
  EXPECT_EQ(f.runner->calls.back(), "scancel 801");
}

TEST(SlurmScheduler, CancelledByOthersIsAFailure) {
  Fixture f("squeue");
  Job a = f.Submit("900");
  f.runner->Expect("squeue", 1, "", "slurm_load_jobs error: Invalid job id specified\n");
  f.runner->Expect("scontrol", 0, "JobId=900 JobState=CANCELLED Reason=None ExitCode=0:15 NodeList=vm\n");
  f.Poll({&a});
  EXPECT_EQ(a.state.kind, Kind::kFailed);
  EXPECT_NE(a.state.reason.find("outside hetbench"), std::string::npos);
}

TEST(SlurmScheduler, MissingCommandsAreOneClearError) {
  Fixture f("slurm");
  f.runner->Missing("sbatch");
  Status st = f.sched->Check();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("needs the command 'sbatch', which is not in PATH"), std::string::npos);
}

// `scontrol -a show -o node` as Slurm 22.05 prints it (fields trimmed).
const char kNodes[] =
    "NodeName=nid001 Arch=x86_64 CoresPerSocket=64 CPUAlloc=0 AvailableFeatures=a100,ib ActiveFeatures=a100,ib "
    "Gres=gpu:4 NodeAddr=nid001 State=IDLE ThreadsPerCore=2 Partitions=gpu,all  BootTime=2026-11-30T07:33:29\n"
    "NodeName=nid002 Arch=x86_64 AvailableFeatures=a100 ActiveFeatures=a100 State=MIXED Partitions=gpu,all\n"
    "NodeName=nid003 Arch=x86_64 AvailableFeatures=a100,ib ActiveFeatures=a100,ib State=IDLE+DRAIN "
    "Partitions=gpu,all Reason=bad dimm [root@2026-11-29T10:00:00]\n"
    "NodeName=nid004 Arch=x86_64 AvailableFeatures=(null) ActiveFeatures=(null) State=DOWN* Partitions=cpu,all\n"
    "NodeName=nid005 Arch=x86_64 AvailableFeatures=(null) ActiveFeatures=(null) State=ALLOCATED Partitions=cpu,all\n"
    "NodeName=nid006 Arch=x86_64 AvailableFeatures=(null) ActiveFeatures=(null) State=IDLE+RESERVED "
    "Partitions=cpu,all\n"
    "NodeName=nid007 Arch=x86_64 AvailableFeatures=(null) ActiveFeatures=(null) State=IDLE Partitions=cpu,all\n";

TEST(SlurmNodes, ParseStatesPartitionsFeatures) {
  auto nodes = ParseSlurmNodes(kNodes);
  ASSERT_EQ(nodes.size(), 7u);
  EXPECT_EQ(nodes[0].name, "nid001");
  EXPECT_EQ(nodes[0].partitions, (std::vector<std::string>{"gpu", "all"}));
  EXPECT_EQ(nodes[0].features, (std::vector<std::string>{"a100", "ib"}));
  EXPECT_EQ(nodes[2].states, (std::vector<std::string>{"IDLE", "DRAIN"}));
  EXPECT_EQ(nodes[3].states, (std::vector<std::string>{"NOT_RESPONDING", "DOWN"}));
  EXPECT_TRUE(nodes[3].features.empty());
}

TEST(SlurmNodes, SelectByStatePartitionConstraintAndLists) {
  auto nodes = ParseSlurmNodes(kNodes);
  using V = std::vector<std::string>;
  // idle: usable idle nodes only (not drained, reserved or down).
  EXPECT_EQ(SelectSlurmNodes(nodes, {}, "idle"), (V{"nid001", "nid007"}));
  EXPECT_EQ(SelectSlurmNodes(nodes, {}, "avail"), (V{"nid001", "nid002", "nid005", "nid007"}));
  EXPECT_EQ(SelectSlurmNodes(nodes, {}, "all").size(), 7u);
  EXPECT_EQ(SelectSlurmNodes(nodes, {}, "drain"), (V{"nid003"}));
  EXPECT_EQ(SelectSlurmNodes(nodes, {}, "MIXED"), (V{"nid002"}));
  // Partition, in each of sbatch's spellings.
  EXPECT_EQ(SelectSlurmNodes(nodes, {"--partition=gpu"}, "avail"), (V{"nid001", "nid002"}));
  EXPECT_EQ(SelectSlurmNodes(nodes, {"-p cpu"}, "avail"), (V{"nid005", "nid007"}));
  EXPECT_EQ(SelectSlurmNodes(nodes, {"-p", "cpu"}, "idle"), (V{"nid007"}));
  // Constraints: AND with & (or ,), OR with |.
  EXPECT_EQ(SelectSlurmNodes(nodes, {"--partition=gpu", "--constraint=a100&ib"}, "all"), (V{"nid001", "nid003"}));
  EXPECT_EQ(SelectSlurmNodes(nodes, {"-C ib|a100"}, "avail"), (V{"nid001", "nid002"}));
  // Node lists and exclusions, with Slurm's ranges.
  EXPECT_EQ(SelectSlurmNodes(nodes, {"--nodelist=nid[001-002,005]"}, "avail"), (V{"nid001", "nid002", "nid005"}));
  EXPECT_EQ(SelectSlurmNodes(nodes, {"--exclude=nid[001-002]"}, "avail"), (V{"nid005", "nid007"}));
  // A reservation's own nodes count although they are RESERVED.
  EXPECT_EQ(SelectSlurmNodes(nodes, {"--reservation=maint"}, "idle", {"nid006", "nid007"}), (V{"nid006", "nid007"}));
}

TEST(SlurmNodes, ListNodesRunsOneScontrolAndPinsJobs) {
  Fixture f("squeue");
  f.runner->Expect("scontrol", 0, kNodes);
  auto nodes = f.sched->ListNodes({"--partition=gpu"}, "idle");
  ASSERT_TRUE(nodes.ok()) << nodes.status().str();
  EXPECT_EQ(*nodes, (std::vector<std::string>{"nid001"}));
  EXPECT_EQ(f.runner->calls, (std::vector<std::string>{"scontrol -a show -o node"}));
  f.runner->Expect("scontrol", 1, "", "slurm_load_node error: Unable to contact slurm controller");
  auto down = f.sched->ListNodes({}, "idle");
  ASSERT_FALSE(down.ok());
  EXPECT_NE(down.status().message().find("Unable to contact slurm controller"), std::string::npos);
  Job j;
  j.name = "hb_t";
  j.pin_nodes = "nid001";
  auto d = f.sched->Directives(j);
  EXPECT_NE(std::find(d.begin(), d.end(), "#SBATCH --nodelist=nid001"), d.end());
}

}  // namespace
}  // namespace hb
