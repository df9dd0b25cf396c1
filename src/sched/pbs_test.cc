#include "sched/pbs.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <optional>
#include <string>
#include <vector>

#include "sched/batch_test_util.h"
#include "sched/command_runner_fake.h"

namespace hb {
namespace {

using Kind = JobState::Kind;

// ---- Outputs in the formats PBS and Torque print.

// `qstat -f -F json -x` from PBS Pro 19 (a running job as MetaCentrum's
// PBS prints it, trimmed), with finished and queued jobs in the same form.
const char* kProJson = R"json({
    "timestamp":1664911414,
    "pbs_version":"19.0.0",
    "pbs_server":"pbs01",
    "Jobs":{
        "12860476.pbs01":{
            "Job_Name":"hb_stream",
            "Job_Owner":"bench@login01",
            "job_state":"R",
            "queue":"workq",
            "server":"pbs01",
            "Checkpoint":"u",
            "ctime":"Tue Oct  4 21:23:20 2022",
            "exec_host":"charon24/0*2+charon21/0*2",
            "exec_vnode":"(charon24:ncpus=2:mem=4194304kb)+(charon21:ncpus=2:mem=4194304kb)",
            "Resource_List":{
                "mpiprocs":4,
                "ncpus":4,
                "nodect":2,
                "place":"scatter",
                "select":"2:ncpus=2:mpiprocs=2",
                "walltime":"00:01:00"
            },
            "stime":"Tue Oct  4 21:23:33 2022",
            "substate":42,
            "Variable_List":{
                "PBS_O_HOME":"/home/bench",
                "PBS_O_WORKDIR":"/scratch/stage"
            },
            "comment":"Job run at Tue Oct 04 at 21:23 on (charon24:ncpus=2)+(charon21:ncpus=2)",
            "run_count":1
        },
        "12860477.pbs01":{
            "Job_Name":"hb_osu",
            "resources_used":{
                "cpupercent":98,
                "cput":"00:00:59",
                "mem":"10240kb",
                "walltime":"00:01:01"
            },
            "job_state":"F",
            "exec_host":"cn01/0*4",
            "Resource_List":{
                "ncpus":4,
                "select":"1:mpiprocs=4:ncpus=4",
                "walltime":"00:10:00"
            },
            "stime":"Tue Oct  4 21:23:33 2022",
            "obittime":"Tue Oct  4 21:24:34 2022",
            "substate":92,
            "comment":"Job run at Tue Oct 04 at 21:23 on (cn01:ncpus=4) and finished",
            "Exit_status":0,
            "run_count":1
        },
        "12860478.pbs01":{
            "Job_Name":"hb_hpl",
            "resources_used":{
                "walltime":"00:10:05"
            },
            "job_state":"F",
            "exec_host":"cn02/0*4",
            "Resource_List":{
                "walltime":"00:10:00"
            },
            "comment":"Job run at Tue Oct 04 at 21:23 on (cn02:ncpus=4) and failed",
            "Exit_status":-29
        },
        "12860479.pbs01":{
            "Job_Name":"hb_big",
            "job_state":"Q",
            "Resource_List":{
                "select":"64:ncpus=128",
                "walltime":"01:00:00"
            },
            "comment":"Not Running: Insufficient amount of resource: ncpus (R: 8192 A: 512 T: 4096)"
        }
    }
})json";

// The header alone: what `qstat -F json` prints when it knows none of the jobs.
const char* kProJsonNone = R"({
    "timestamp":1752246824,
    "pbs_version":"2024.1.2.20241017100211",
    "pbs_server":"polaris-pbs-01"
})";

// `qstat -f` from Torque: the Administrator Guide's "job failure example"
// (Job Exit Status), long values wrapped onto tab-indented lines, then a
// running and a completed job.
const char* kTorqueText =
    "Job Id: 179.host\n"
    "    Job_Name = STDIN\n"
    "    Job_Owner = user@host\n"
    "    job_state = C\n"
    "    queue = batchq\n"
    "    server = host\n"
    "    Checkpoint = u\n"
    "    ctime = Fri Aug 29 14:55:55 2008\n"
    "    Error_Path = host:/opt/moab/STDIN.e179\n"
    "    exec_host = node1/0\n"
    "    Hold_Types = n\n"
    "    Join_Path = n\n"
    "    Keep_Files = n\n"
    "    Mail_Points = a\n"
    "    mtime = Fri Aug 29 14:55:55 2008\n"
    "    Output_Path = host:/opt/moab/STDIN.o179\n"
    "    Priority = 0\n"
    "    qtime = Fri Aug 29 14:55:55 2008\n"
    "    Rerunable = True\n"
    "    Resource_List.ncpus = 2\n"
    "    Resource_List.nodect = 1\n"
    "    Resource_List.nodes = node1\n"
    "    Variable_List = PBS_O_HOME=/home/user,PBS_O_LOGNAME=user,\n"
    "\tPBS_O_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:,PBS_O_SHELL=/bin/bash,PBS_O_HOST=host,\n"
    "\tPBS_O_WORKDIR=/opt/moab,PBS_O_QUEUE=batchq\n"
    "    sched_hint = Post job file processing error; job 179.host on host node1/0Ba\n"
    "\td UID for job execution REJHOST=pala.cridomain MSG=cannot find user 'user' in password file\n"
    "    etime = Fri Aug 29 14:55:55 2008\n"
    "    exit_status = -1\n"
    "\n"
    "Job Id: 180.host\n"
    "    Job_Name = hb_stream\n"
    "    job_state = R\n"
    "    exec_host = node1/0+node1/1+node1/2+node1/3+node2/0+node2/1+node2/2+node2/3+node3/0+\n"
    "\tnode3/1\n"
    "    start_time = Fri Aug 29 15:00:00 2008\n"
    "\n"
    "Job Id: 181.host\n"
    "    Job_Name = hb_osu\n"
    "    job_state = C\n"
    "    exec_host = node4/0\n"
    "    resources_used.walltime = 00:00:42\n"
    "    Resource_List.walltime = 00:10:00\n"
    "    start_time = Fri Aug 29 15:00:00 2008\n"
    "    comp_time = Fri Aug 29 15:00:42 2008\n"
    "    exit_status = 0\n"
    "\n";

// ---- Pure functions.

PbsJobRecord Rec(char state, std::optional<int> exit = std::nullopt, std::string comment = "") {
  PbsJobRecord r;
  r.id = "1.srv";
  r.state = state;
  r.comment = std::move(comment);
  r.has_exit_status = exit.has_value();
  r.exit_status = exit.value_or(0);
  return r;
}

TEST(PbsState, EveryStateIsMapped) {
  struct Case {
    PbsFlavor flavor;
    PbsJobRecord rec;
    Kind kind;
    int exit_code;
  } cases[] = {
      {PbsFlavor::kPro, Rec('Q'), Kind::kQueued, -1},
      {PbsFlavor::kPro, Rec('H'), Kind::kQueued, -1},
      {PbsFlavor::kPro, Rec('W'), Kind::kQueued, -1},
      {PbsFlavor::kPro, Rec('T'), Kind::kQueued, -1},
      {PbsFlavor::kPro, Rec('S'), Kind::kQueued, -1},
      {PbsFlavor::kPro, Rec('U'), Kind::kQueued, -1},
      {PbsFlavor::kPro, Rec('R'), Kind::kRunning, -1},
      {PbsFlavor::kPro, Rec('E'), Kind::kRunning, -1},
      {PbsFlavor::kPro, Rec('B'), Kind::kRunning, -1},
      {PbsFlavor::kPro, Rec('M'), Kind::kLost, -1},
      {PbsFlavor::kPro, Rec('F', 0), Kind::kCompleted, 0},
      {PbsFlavor::kPro, Rec('F', 3), Kind::kCompleted, 3},
      {PbsFlavor::kPro, Rec('F', 137), Kind::kCompleted, 137},  // the script's own status
      {PbsFlavor::kPro, Rec('X', 0), Kind::kCompleted, 0},
      {PbsFlavor::kPro, Rec('F', 271), Kind::kCancelled, 143},  // 256 + SIGTERM
      {PbsFlavor::kPro, Rec('F', 265), Kind::kCancelled, 137},  // 256 + SIGKILL
      {PbsFlavor::kPro, Rec('F', 267), Kind::kFailed, 139},     // 256 + SIGSEGV
      {PbsFlavor::kPro, Rec('F', -29), Kind::kTimeout, -1},
      {PbsFlavor::kPro, Rec('F', -27), Kind::kFailed, -27},
      {PbsFlavor::kPro, Rec('F', -11), Kind::kFailed, -11},  // JOB_EXEC_RERUN on PBS Pro
      {PbsFlavor::kPro, Rec('F'), Kind::kCancelled, -1},     // deleted while queued
      {PbsFlavor::kTorque, Rec('Q'), Kind::kQueued, -1},
      {PbsFlavor::kTorque, Rec('R'), Kind::kRunning, -1},
      {PbsFlavor::kTorque, Rec('E'), Kind::kRunning, -1},
      {PbsFlavor::kTorque, Rec('C', 0), Kind::kCompleted, 0},
      {PbsFlavor::kTorque, Rec('C', 2), Kind::kCompleted, 2},
      {PbsFlavor::kTorque, Rec('C', -11), Kind::kTimeout, -1},  // JOB_EXEC_OVERLIMIT_WT on Torque
      {PbsFlavor::kTorque, Rec('C', -1), Kind::kFailed, -1},
      {PbsFlavor::kTorque, Rec('C', 271), Kind::kCancelled, 143},
      {PbsFlavor::kTorque, Rec('Z'), Kind::kNone, -1},
  };
  for (const auto& c : cases) {
    JobState s = PbsJobState(c.flavor, c.rec);
    std::string what = std::string(1, c.rec.state) + " " + std::to_string(c.rec.exit_status);
    EXPECT_EQ(s.kind, c.kind) << what << ": " << s.str();
    EXPECT_EQ(s.exit_code, c.exit_code) << what << ": " << s.str();
  }
  EXPECT_EQ(PbsJobState(PbsFlavor::kPro, Rec('Q', {}, "Not Running: Job would exceed queue limits")).reason,
            "Not Running: Job would exceed queue limits");
  EXPECT_EQ(PbsJobState(PbsFlavor::kPro, Rec('H', {}, "job held, too many failed attempts to run")).reason,
            "held (job_state H): job held, too many failed attempts to run");
  EXPECT_EQ(PbsJobState(PbsFlavor::kPro, Rec('F', -29)).reason,
            "time limit exceeded (Exit_status -29, JOB_EXEC_KILL_WALLTIME)");
  EXPECT_EQ(PbsJobState(PbsFlavor::kPro, Rec('F', -27)).reason,
            "killed for exceeding mem (Exit_status -27, JOB_EXEC_KILL_MEM)");
  EXPECT_EQ(PbsJobState(PbsFlavor::kTorque, Rec('C', -11)).reason,
            "time limit exceeded (exit_status -11, JOB_EXEC_OVERLIMIT_WT)");
  EXPECT_EQ(PbsJobState(PbsFlavor::kPro, Rec('F', -99)).reason, "PBS could not run the job (Exit_status -99)");
  EXPECT_EQ(PbsJobState(PbsFlavor::kPro, Rec('F', 271)).reason, "killed by signal 15 (Exit_status 271)");

  // A walltime kill that PBS reports as a signal ("PBS: job killed:
  // walltime 152 exceeded limit 120", Exit_status 271) is a timeout.
  PbsJobRecord killed = Rec('F', 271);
  killed.walltime_used = 152;
  killed.walltime_limit = 120;
  EXPECT_EQ(PbsJobState(PbsFlavor::kPro, killed).kind, Kind::kTimeout);
  EXPECT_EQ(PbsJobState(PbsFlavor::kPro, killed).reason,
            "time limit exceeded (ran 152 s of a 120 s walltime; Exit_status 271)");
}

TEST(PbsParse, QstatJson) {
  auto recs = ParseQstatJson(kProJson);
  ASSERT_TRUE(recs.ok()) << recs.status().str();
  Observations obs = PbsObservations(PbsFlavor::kPro, *recs);
  ASSERT_EQ(obs.size(), 4u);
  EXPECT_EQ(obs["12860476.pbs01"].state.kind, Kind::kRunning);
  EXPECT_EQ(obs["12860476.pbs01"].nodes, (std::vector<std::string>{"charon24", "charon21"}));
  EXPECT_GT(obs["12860476.pbs01"].start_time, 0);
  EXPECT_EQ(obs["12860476.pbs01"].end_time, 0);
  EXPECT_EQ(obs["12860477.pbs01"].state.kind, Kind::kCompleted);
  EXPECT_EQ(obs["12860477.pbs01"].state.exit_code, 0);
  EXPECT_EQ(obs["12860477.pbs01"].end_time - obs["12860477.pbs01"].start_time, 61);
  EXPECT_EQ(obs["12860478.pbs01"].state.kind, Kind::kTimeout);
  EXPECT_EQ(obs["12860479.pbs01"].state.kind, Kind::kQueued);
  EXPECT_EQ(obs["12860479.pbs01"].state.reason,
            "Not Running: Insufficient amount of resource: ncpus (R: 8192 A: 512 T: 4096)");

  auto none = ParseQstatJson(kProJsonNone);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  std::string text = kProJson;
  EXPECT_FALSE(ParseQstatJson(text.substr(0, text.size() / 2)).ok());  // truncated
  EXPECT_FALSE(ParseQstatJson("").ok());
  EXPECT_FALSE(ParseQstatJson("qstat: illegal option -- F").ok());
  // openpbs#1255: an environment value of digits printed as a bare number.
  EXPECT_FALSE(ParseQstatJson(R"({"Jobs":{"1.s":{"job_state":"R","Variable_List":{"foo":005}}}})").ok());
  EXPECT_EQ(ParseQstatJson(R"({"Jobs":{"1.s":{"job_state":"F","Exit_status":"3"}}})")->at(0).exit_status, 3);
}

TEST(PbsParse, QstatText) {
  auto recs = ParseQstatText(kTorqueText);
  ASSERT_EQ(recs.size(), 3u);
  Observations obs = PbsObservations(PbsFlavor::kTorque, recs);
  EXPECT_EQ(obs["179.host"].state.kind, Kind::kFailed);
  EXPECT_EQ(obs["179.host"].state.reason, "job exec failed, before files, no retry (exit_status -1, JOB_EXEC_FAIL1)");
  EXPECT_EQ(obs["180.host"].state.kind, Kind::kRunning);
  EXPECT_EQ(obs["180.host"].nodes, (std::vector<std::string>{"node1", "node2", "node3"}));
  EXPECT_EQ(obs["181.host"].state.kind, Kind::kCompleted);
  EXPECT_EQ(obs["181.host"].end_time - obs["181.host"].start_time, 42);
  EXPECT_EQ(recs[0].comment, "");
  EXPECT_NE(recs[0].exec_host.find("node1/0"), std::string::npos);

  // Cut short: a finished job's exit status may be cut ("exit_status = 1"
  // of 137), so its record is left out; a running job's state is kept.
  std::string cut = std::string(kTorqueText).substr(0, std::string(kTorqueText).find("exit_status = 0") + 15);
  Observations partial = PbsObservations(PbsFlavor::kTorque, ParseQstatText(cut));
  EXPECT_EQ(partial.count("181.host"), 0u);
  EXPECT_EQ(partial["180.host"].state.kind, Kind::kRunning);

  EXPECT_TRUE(ParseQstatText("garbage\n\x01\x02 = =\n    job_state = R\n").empty());
  EXPECT_TRUE(ParseQstatText("Job Id: 5.host\n    job_sta").empty());
}

TEST(PbsParse, UnknownIdsExecHostTimesNames) {
  bool only = false;
  EXPECT_EQ(QstatUnknownIds("qstat: Unknown Job Id 1234.pbsserver\n", &only),
            std::vector<std::string>{"1234.pbsserver"});
  EXPECT_TRUE(only);
  EXPECT_EQ(QstatUnknownIds("qstat: Unknown Job Id Error 1235.host\n", &only), std::vector<std::string>{"1235.host"});
  EXPECT_EQ(
      QstatUnknownIds("qstat: 1015.sch1 Job has finished, use -x or -H to obtain historical job information\n", &only),
      std::vector<std::string>{"1015.sch1"});
  EXPECT_TRUE(only);
  EXPECT_TRUE(
      QstatUnknownIds("Connection refused\nqstat: cannot connect to server aqua (errno=15010)\n", &only).empty());
  EXPECT_FALSE(only);

  EXPECT_EQ(ParsePbsExecHost("n1/0-3+n2/0-3"), (std::vector<std::string>{"n1", "n2"}));
  EXPECT_TRUE(ParsePbsExecHost("").empty());
  EXPECT_EQ(ParsePbsTime("1219945000"), 1219945000);
  EXPECT_EQ(ParsePbsTime("Tue Oct  4 21:24:34 2022") - ParsePbsTime("Tue Oct  4 21:23:33 2022"), 61);
  EXPECT_EQ(ParsePbsTime("soon"), 0);
  EXPECT_EQ(PbsJobName("hb_stream-triad/gpu"), "hb_stream_triad");
}

// ---- The scheduler over a fake runner, polling on every call.

struct Fixture : BatchFixture<PbsScheduler> {
  explicit Fixture(const std::string& name, BatchOptions o = {})
      : BatchFixture("qsub", o, [&](std::unique_ptr<CommandRunner> r, BatchOptions opts) {
          return std::make_unique<PbsScheduler>(name, std::move(r), opts);
        }) {}
  // A `qstat -f -F json` answer with one job.
  void JsonAnswer(const std::string& id, const std::string& attrs) {
    runner->Expect("qstat", 0, R"({"pbs_server":"srv","Jobs":{")" + id + R"(":{)" + attrs + "}}}");
  }
};

const char* kUnknownJob = "qstat: Unknown Job Id ";

Job BenchJob() {
  Job j;
  j.name = "hb_stream_triad_gpu";
  j.num_tasks = 8;
  j.num_tasks_per_node = 4;
  j.num_cpus_per_task = 2;
  j.time_limit_s = 5400;
  j.stdout_path = "/s/hb_job.out";
  j.stderr_path = "/s/hb_job.err";
  return j;
}

TEST(PbsScheduler, DirectivesAsReFrame) {
  Fixture f("pbs");
  Job j = BenchJob();
  j.options = {"-q debug", "-A proj", "mem=100gb", "#DW jobdw", "-l filesystems=home"};
  EXPECT_EQ(f.sched->Directives(j), (std::vector<std::string>{
                                        "#PBS -N hb_stream_triad",
                                        "#PBS -o /s/hb_job.out",
                                        "#PBS -e /s/hb_job.err",
                                        "#PBS -l walltime=01:30:00",
                                        "#PBS -l select=2:mpiprocs=4:ncpus=8:mem=100gb",
                                        "#PBS -q debug",
                                        "#PBS -A proj",
                                        "#PBS -l filesystems=home",
                                        "#DW jobdw",
                                    }));
  j.num_gpus_per_node = 4;
  j.exclusive = true;
  j.options = {};
  auto d = f.sched->Directives(j);
  EXPECT_EQ(d[4], "#PBS -l select=2:mpiprocs=4:ncpus=8:ngpus=4");
  EXPECT_EQ(d[5], "#PBS -l place=excl");
  j.options = {"ngpus=4"};  // a partition's gpu resource already asks for them
  EXPECT_EQ(f.sched->Directives(j)[4], "#PBS -l select=2:mpiprocs=4:ncpus=8:ngpus=4");

  Job one;  // defaults: one task
  one.name = "x";
  EXPECT_EQ(f.sched->Directives(one), (std::vector<std::string>{"#PBS -N x", "#PBS -l select=1:mpiprocs=1:ncpus=1"}));
}

TEST(TorqueScheduler, DirectivesAsReFrame) {
  Fixture f("torque");
  Job j = BenchJob();
  j.num_gpus_per_node = 2;
  j.exclusive = true;
  j.options = {"-W group_list=proj", "feature=skylake"};
  EXPECT_EQ(f.sched->Directives(j), (std::vector<std::string>{
                                        "#PBS -N hb_stream_triad",
                                        "#PBS -o /s/hb_job.out",
                                        "#PBS -e /s/hb_job.err",
                                        "#PBS -l walltime=01:30:00",
                                        "#PBS -l nodes=2:ppn=8:gpus=2:feature=skylake",
                                        "#PBS -n",
                                        "#PBS -W group_list=proj",
                                    }));
}

TEST(PbsScheduler, SubmitsWithQsub) {
  Fixture f("pbspro");
  f.runner->Expect("qsub", 0, "1234.pbsserver\n");
  Job j = BenchJob();
  j.script_path = "/s/hb_job.sh";
  ASSERT_TRUE(f.sched->Submit(&j).ok());
  EXPECT_EQ(j.id, "1234.pbsserver");
  EXPECT_EQ(f.runner->calls.back(), "qsub -o /s/hb_job.out -e /s/hb_job.err /s/hb_job.sh");
  EXPECT_EQ(j.state.kind, Kind::kQueued);
}

TEST(PbsScheduler, QsubErrorFailsTheSubmissionWithItsMessage) {
  Fixture f("pbs");
  f.runner->Expect("qsub", 1, "", "qsub: Unknown resource Resource_List.foo\n");
  Job j;
  j.script_path = "/s/x.sh";
  Status st = f.sched->Submit(&j);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "qsub: Unknown resource Resource_List.foo");

  f.runner->Expect("qsub", 0, "", "");
  st = f.sched->Submit(&j);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("qsub printed no job id"), std::string::npos);
}

TEST(PbsScheduler, OneQstatPerPollForAllJobs) {
  Fixture f("pbs");
  std::vector<Job> jobs;
  for (int i = 0; i < 50; ++i) jobs.push_back(f.Submit(std::to_string(1000 + i) + ".srv"));
  std::string out = R"({"timestamp":1,"pbs_version":"2022.1.7","pbs_server":"srv","Jobs":{)";
  for (int i = 0; i < 50; ++i)
    out += std::string(i ? "," : "") + "\"" + std::to_string(1000 + i) +
           ".srv\":" + (i % 2 ? R"({"job_state":"R","exec_host":"cn01/0"})" : R"({"job_state":"F","Exit_status":0})");
  f.runner->Expect("qstat", 0, out + "}}");
  std::vector<Job*> ptrs;
  for (auto& j : jobs) ptrs.push_back(&j);
  f.Poll(ptrs);
  EXPECT_EQ(f.runner->counts().at("qstat"), 1);
  EXPECT_EQ(jobs[0].state.kind, Kind::kCompleted);
  EXPECT_EQ(jobs[1].state.kind, Kind::kRunning);
  EXPECT_EQ(jobs[1].nodelist, std::vector<std::string>{"cn01"});
  EXPECT_EQ(f.runner->calls.back().substr(0, 47), "qstat -f -F json -x 1000.srv 1001.srv 1002.srv ");
  EXPECT_TRUE(f.sched->using_json());
}

// Issue 19, item 1: qstat names hetbench's jobs, at most 500 ids a call.
TEST(TorqueScheduler, QstatNamesItsOwnJobsInChunksOf500) {
  Fixture f("torque");
  std::vector<Job> jobs;
  for (int i = 0; i < 1001; ++i) jobs.push_back(f.Submit(std::to_string(5000 + i) + ".host"));
  for (int c = 0; c < 3; ++c) {
    std::string out;
    for (int i = c * 500; i < std::min(1001, (c + 1) * 500); ++i)
      out += "Job Id: " + std::to_string(5000 + i) + ".host\n    job_state = R\n\n";
    f.runner->Expect("qstat", 0, out);
  }
  std::vector<Job*> ptrs;
  for (auto& j : jobs) ptrs.push_back(&j);
  f.Poll(ptrs);
  EXPECT_EQ(f.runner->counts().at("qstat"), 3);
  size_t last = f.runner->calls.size();
  ASSERT_GE(last, 3u);
  EXPECT_EQ(std::count(f.runner->calls[last - 3].begin(), f.runner->calls[last - 3].end(), ' '),
            501);  // qstat -f + 500
  EXPECT_EQ(f.runner->calls[last - 1], "qstat -f 6000.host");
  EXPECT_EQ(jobs[0].state.kind, Kind::kRunning);
  EXPECT_EQ(jobs[1000].state.kind, Kind::kRunning);
}

TEST(TorqueScheduler, OneQstatPerPollForAllJobs) {
  Fixture f("torque");
  Job a = f.Submit("179.host"), b = f.Submit("180.host"), c = f.Submit("181.host");
  f.runner->Expect("qstat", 0, kTorqueText);
  f.Poll({&a, &b, &c});
  EXPECT_EQ(f.runner->calls.back(), "qstat -f 179.host 180.host 181.host");
  EXPECT_EQ(a.state.kind, Kind::kFailed);
  EXPECT_EQ(b.state.kind, Kind::kRunning);
  EXPECT_EQ(c.state.kind, Kind::kCompleted);
  EXPECT_EQ(c.state.exit_code, 0);
}

TEST(PbsScheduler, MatchesIdsWithAndWithoutTheServerDomain) {
  Fixture f("pbs");
  Job j = f.Submit("77.pbs01");
  f.JsonAnswer("77.pbs01.example.org", R"("job_state":"F","Exit_status":4)");
  f.Poll({&j});
  EXPECT_EQ(j.state.kind, Kind::kCompleted);
  EXPECT_EQ(j.state.exit_code, 4);
}

TEST(PbsScheduler, SomeJobsUnknownOthersReported) {
  Fixture f("torque");
  Job a = f.Submit("180.host"), b = f.Submit("190.host");
  f.runner->Expect("qstat", 153, "Job Id: 180.host\n    job_state = R\n\n", "qstat: Unknown Job Id Error 190.host\n");
  f.Poll({&a, &b});
  EXPECT_EQ(a.state.kind, Kind::kRunning);
  EXPECT_EQ(b.state.kind, Kind::kQueued);  // not found yet: lost only after lost_after
  auto notices = f.sched->TakeNotices();
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_NE(notices[0].find("keep_completed"), std::string::npos);
}

TEST(PbsScheduler, VanishedJobIsLostNotAHang) {
  BatchOptions o;
  o.lost_after = 0.01;
  Fixture f("pbs", o);
  Job j = f.Submit("500.srv");
  f.runner->Expect("qstat", 153, kProJsonNone, kUnknownJob + std::string("500.srv\n"));
  f.Poll({&j});
  EXPECT_FALSE(j.state.terminal());
  auto notices = f.sched->TakeNotices();
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_NE(notices[0].find("job_history_enable = True"), std::string::npos);
  f.Advance(0.02);
  f.runner->Expect("qstat", 153, kProJsonNone, kUnknownJob + std::string("500.srv\n"));
  f.Poll({&j});
  EXPECT_EQ(j.state.kind, Kind::kLost);
  EXPECT_NE(j.state.reason.find("vanished"), std::string::npos);
  EXPECT_TRUE(f.sched->using_json());
}

TEST(PbsScheduler, FailedQueriesAreRetried) {
  Fixture f("pbs");
  Job j = f.Submit("400.aqua");
  // qstat prints the JSON header even when it cannot reach the server.
  f.runner->Expect("qstat", 255, "{\n  \"timestamp\":1751498039,\n  \"pbs_server\":\"aqua\"\n}\n",
                   "No route to host\nqstat: cannot connect to server aqua (errno=15010)\n");
  f.Poll({&j});
  EXPECT_EQ(j.state.kind, Kind::kQueued);  // unchanged
  auto notices = f.sched->TakeNotices();
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_NE(notices[0].find("(No route to host; qstat: cannot connect to server aqua (errno=15010))"),
            std::string::npos)
      << notices[0];
  f.JsonAnswer("400.aqua", R"("job_state":"R")");
  f.Poll({&j});
  EXPECT_EQ(j.state.kind, Kind::kRunning);
}

TEST(PbsScheduler, UnusableJsonFallsBackToText) {
  Fixture f("pbs");
  Job j = f.Submit("600.srv");
  std::string json = kProJson;
  f.runner->Expect("qstat", 0, json.substr(0, 200));  // truncated
  f.runner->Expect("qstat", 0, "Job Id: 600.srv\n    Job_Name = hb_t\n    job_state = R\n    exec_host = cn07/0*8\n\n");
  f.Poll({&j});
  EXPECT_EQ(j.state.kind, Kind::kRunning);
  EXPECT_EQ(j.nodelist, std::vector<std::string>{"cn07"});
  EXPECT_EQ(f.runner->calls.back(), "qstat -f -x 600.srv");
  EXPECT_FALSE(f.sched->using_json());
  auto notices = f.sched->TakeNotices();
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_NE(notices[0].find("printed invalid JSON"), std::string::npos);
  // Text from now on, and PBS Pro's text names the exit status Exit_status.
  f.runner->Expect("qstat", 0, "Job Id: 600.srv\n    job_state = F\n    Exit_status = 2\n\n");
  f.Poll({&j});
  EXPECT_EQ(j.state.kind, Kind::kCompleted);
  EXPECT_EQ(j.state.exit_code, 2);
  EXPECT_EQ(f.runner->counts().at("qstat"), 3);
}

TEST(PbsScheduler, JsonLeavingOutJobsFallsBackToText) {
  // openpbs#2672: `qstat -f -F json 10 11` printed only job 10.
  Fixture f("pbs");
  Job a = f.Submit("10.ip-10-0-6-176"), b = f.Submit("11.ip-10-0-6-176");
  f.JsonAnswer("10.ip-10-0-6-176", R"("job_state":"R")");
  f.runner->Expect("qstat", 0,
                   "Job Id: 10.ip-10-0-6-176\n    job_state = R\n\nJob Id: 11.ip-10-0-6-176\n    job_state = Q\n\n");
  f.Poll({&a, &b});
  EXPECT_EQ(a.state.kind, Kind::kRunning);
  EXPECT_EQ(b.state.kind, Kind::kQueued);
  EXPECT_FALSE(f.sched->using_json());
  EXPECT_NE(f.sched->TakeNotices()[0].find("left out job 11.ip-10-0-6-176"), std::string::npos);
}

TEST(TorqueScheduler, GarbledTextIsRetried) {
  Fixture f("torque");
  Job j = f.Submit("700.host");
  f.runner->Expect("qstat", 0, "\x1b[?1h garbage that is not qstat output\n");
  f.Poll({&j});
  EXPECT_EQ(j.state.kind, Kind::kQueued);
  EXPECT_NE(f.sched->TakeNotices()[0].find("nothing hetbench can read"), std::string::npos);
  f.runner->Expect("qstat", 0, "Job Id: 700.host\n    job_state = C\n    exit_status = 0\n\n");
  f.Poll({&j});
  EXPECT_EQ(j.state.kind, Kind::kCompleted);
}

TEST(PbsScheduler, CancelAndShutdownUseQdel) {
  Fixture f("pbs");
  Job a = f.Submit("800.srv"), b = f.Submit("801.srv"), c = f.Submit("802.srv");
  f.sched->Cancel(&a);
  EXPECT_EQ(f.runner->calls.back(), "qdel 800.srv");
  f.sched->Cancel(&c);
  // qdel killed the running job (256 + SIGTERM); the queued one just left.
  f.runner->Expect("qstat", 153,
                   R"({"Jobs":{"800.srv":{"job_state":"F","Exit_status":271},"801.srv":{"job_state":"R"}}})",
                   kUnknownJob + std::string("802.srv\n"));
  f.Poll({&a, &b, &c});
  EXPECT_EQ(a.state.kind, Kind::kCancelled);
  EXPECT_EQ(c.state.kind, Kind::kCancelled);
  EXPECT_EQ(b.state.kind, Kind::kRunning);
  f.sched->Shutdown();
  EXPECT_EQ(f.runner->calls.back(), "qdel 801.srv");
}

TEST(PbsScheduler, KilledOutsideHetbenchIsAFailure) {
  Fixture f("pbs");
  Job j = f.Submit("900.srv");
  f.JsonAnswer("900.srv", R"("job_state":"F","Exit_status":271,"comment":"Job run at Mon Jan 24 at 08:39 and failed")");
  f.Poll({&j});
  EXPECT_EQ(j.state.kind, Kind::kFailed);
  EXPECT_NE(j.state.reason.find("outside hetbench"), std::string::npos);
}

TEST(PbsScheduler, WalltimeKillIsATimeout) {
  Fixture f("pbs");
  Job j = f.Submit("901.srv");
  f.JsonAnswer("901.srv", R"("job_state":"F","Exit_status":-29,"resources_used":{"walltime":"00:01:02"},)"
                          R"("Resource_List":{"walltime":"00:01:00"})");
  f.Poll({&j});
  EXPECT_EQ(j.state.kind, Kind::kTimeout);
}

TEST(PbsScheduler, MaxPendingTimeCancels) {
  Fixture f("pbs");
  f.runner->Expect("qsub", 0, "1000.srv\n");
  Job j;
  j.max_pending_time_s = 0.01;
  ASSERT_TRUE(f.sched->Submit(&j).ok());
  const char* queued = R"("job_state":"Q","comment":"Not Running: Insufficient amount of resource: ngpus")";
  f.JsonAnswer("1000.srv", queued);
  f.Poll({&j});
  EXPECT_EQ(j.state.kind, Kind::kQueued);
  f.Advance(0.02);
  f.JsonAnswer("1000.srv", queued);
  f.Poll({&j});
  EXPECT_EQ(j.state.kind, Kind::kFailed);
  EXPECT_NE(j.state.reason.find("max_pending_time; last pending reason: Not Running: Insufficient amount of "
                                "resource: ngpus"),
            std::string::npos)
      << j.state.reason;
  EXPECT_EQ(f.runner->calls.back(), "qdel 1000.srv");
}

TEST(PbsScheduler, MissingCommandsAreOneClearError) {
  Fixture f("torque");
  f.runner->Missing("qstat");
  Status st = f.sched->Check();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(),
            "scheduler 'torque' needs the command 'qstat', which is not in PATH on this host (needed: qsub, qstat, "
            "qdel)");
  Fixture ok("pbs");
  EXPECT_TRUE(ok.sched->Check().ok());
}

}  // namespace
}  // namespace hb
