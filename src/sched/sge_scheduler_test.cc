#include "sched/sge.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <utility>
#include <vector>

#include "sched/batch_test_util.h"
#include "sched/command_runner_fake.h"
#include "sched/sge_test_data.h"

namespace hb {
namespace {

using Kind = JobState::Kind;

// ---- The scheduler over a fake runner, polling on every call.

struct Fixture : BatchFixture<SgeScheduler> {
  explicit Fixture(BatchOptions o = {}, const std::string& pe = "")
      : BatchFixture("qsub", o, [&](std::unique_ptr<CommandRunner> r, BatchOptions opts) {
          return std::make_unique<SgeScheduler>(std::move(r), opts, pe);
        }) {}
};

// `qstat -xml` listing jobs in the given states, in 8.1.9's layout.
std::string QstatXml(const std::vector<std::pair<std::string, std::string>>& jobs) {
  std::string running, pending;
  for (const auto& [id, state] : jobs) {
    bool queued = state.find_first_of("qw") != std::string::npos;
    std::string entry = std::string("    <job_list state=\"") + (queued ? "pending" : "running") +
                        "\">\n      <JB_job_number>" + id +
                        "</JB_job_number>\n      <JAT_prio>0.25000</JAT_prio>\n      <JB_name>hb_t</JB_name>\n"
                        "      <JB_owner>root</JB_owner>\n      <state>" +
                        state + "</state>\n" +
                        (queued ? "      <JB_submission_time>2026-11-30T08:49:18</JB_submission_time>\n"
                                  "      <queue_name></queue_name>\n"
                                : "      <JAT_start_time>2026-11-30T08:49:15</JAT_start_time>\n"
                                  "      <queue_name>all.q@vm</queue_name>\n") +
                        "      <slots>1</slots>\n    </job_list>\n";
    (queued ? pending : running) += entry;
  }
  return "<?xml version='1.0'?>\n<job_info  xmlns:xsd=\"http://arc.liv.ac.uk/repos/darcs/sge/source/dist/util/"
         "resources/schemas/qstat/qstat.xsd\">\n  <queue_info>\n" +
         running + "  </queue_info>\n  <job_info>\n" + pending + "  </job_info>\n</job_info>\n";
}

Job BenchJob() {
  Job j;
  j.name = "hb_stream";
  j.workdir = "/s";
  j.num_tasks = 4;
  j.num_cpus_per_task = 2;
  j.time_limit_s = 5400;
  j.stdout_path = "/s/hb_job.out";
  j.stderr_path = "/s/hb_job.err";
  return j;
}

TEST(SgeScheduler, DirectivesAsReFrame) {
  Fixture f;
  Job j = BenchJob();
  j.options = {"-q debug.q", "-P proj", "#DW jobdw", "-l gpu=2"};
  EXPECT_EQ(f.sched->Directives(j), (std::vector<std::string>{
                                        "#$ -N \"hb_stream\"",
                                        "#$ -o /s/hb_job.out",
                                        "#$ -e /s/hb_job.err",
                                        "#$ -wd /s",
                                        "#$ -S /bin/bash",
                                        "#$ -l h_rt=1:30:0",
                                        "#$ -q debug.q",
                                        "#$ -P proj",
                                        "#DW jobdw",
                                        "#$ -l gpu=2",
                                    }));
  Fixture pe({}, "smp");
  j.options = {};
  j.time_limit_s = 5;
  auto d = pe.sched->Directives(j);
  EXPECT_EQ(d[5], "#$ -l h_rt=0:0:5");
  EXPECT_EQ(d[6], "#$ -pe smp 8");  // 4 tasks x 2 CPUs
  Job one;
  one.name = "x";
  EXPECT_EQ(pe.sched->Directives(one), (std::vector<std::string>{"#$ -N \"x\"", "#$ -S /bin/bash", "#$ -pe smp 1"}));
}

TEST(SgeScheduler, SubmitsWithQsubTerse) {
  Fixture f;
  Job j = BenchJob();
  j.script_path = "/s/hb_job.sh";
  f.runner->Expect("qsub", 0, "4\n");
  ASSERT_TRUE(f.sched->Submit(&j).ok());
  EXPECT_EQ(j.id, "4");
  EXPECT_EQ(f.runner->calls.back(), "qsub -terse /s/hb_job.sh");
  EXPECT_EQ(j.state.kind, Kind::kQueued);
  f.runner->Expect("qsub", 0, "6.1-3:1\n");  // an array job
  ASSERT_TRUE(f.sched->Submit(&j).ok());
  EXPECT_EQ(j.id, "6");
  f.runner->Expect("qsub", 0, "Your job 7 (\"hb_stream\") has been submitted\n");  // without -terse, as ReFrame reads
  ASSERT_TRUE(f.sched->Submit(&j).ok());
  EXPECT_EQ(j.id, "7");
  auto notices = f.sched->TakeNotices();
  ASSERT_EQ(notices.size(), 1u);  // 8 slots asked, no parallel environment: said once
  EXPECT_NE(notices[0].find("sched_options: {pe: <name>}"), std::string::npos);
}

TEST(SgeScheduler, QsubRejectionFailsTheCaseWithItsMessage) {
  Fixture f;
  Job j;
  j.script_path = "/s/x.sh";
  f.runner->Expect("qsub", 1, "",
                   "Unable to run job: job rejected: the requested parallel environment \"nope\" does not exist\n"
                   "Exiting.\n");
  Status st = f.sched->Submit(&j);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(),
            "Unable to run job: job rejected: the requested parallel environment \"nope\" does not exist");
  f.runner->Expect("qsub", 0, "", "");
  st = f.sched->Submit(&j);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("qsub printed no job id"), std::string::npos);
}

TEST(SgeScheduler, OneQstatAndOneQacctPerPollForAllJobs) {
  Fixture f;
  std::vector<Job> jobs;
  for (int i = 0; i < 50; ++i) jobs.push_back(f.Submit(std::to_string(1000 + i)));
  // The odd jobs run; the even ones have finished (exit code = their number % 7).
  std::vector<std::pair<std::string, std::string>> listed;
  std::string acct;
  for (int i = 0; i < 50; ++i) {
    std::string id = std::to_string(1000 + i);
    if (i % 2)
      listed.emplace_back(id, "r");
    else
      acct += Acct(id, kOk, std::to_string(i % 7));
  }
  acct += Acct("999", kOk, "0");  // someone else's job in the window
  f.runner->Expect("qstat", 0, QstatXml(listed));
  f.runner->Expect("qacct", 0, acct);
  std::vector<Job*> ptrs;
  for (auto& j : jobs) ptrs.push_back(&j);
  f.Poll(ptrs);
  EXPECT_EQ(f.Count("qstat"), 1);
  EXPECT_EQ(f.Count("qacct"), 1);
  EXPECT_EQ(f.runner->calls[50], "qstat -xml -u " + f.sched->user());
  EXPECT_EQ(f.runner->calls[51].rfind("qacct -o " + f.sched->user() + " -E -b 20", 0), 0u) << f.runner->calls[51];
  EXPECT_EQ(f.runner->calls[51].substr(f.runner->calls[51].size() - 3), " -j");
  for (int i = 0; i < 50; ++i) {
    if (i % 2) {
      EXPECT_EQ(jobs[i].state.kind, Kind::kRunning) << i;
      EXPECT_EQ(jobs[i].nodelist, std::vector<std::string>{"vm"});
      EXPECT_EQ(jobs[i].start_time, ParseSgeTime("2026-11-30T08:49:15"));
    } else {
      EXPECT_EQ(jobs[i].state.kind, Kind::kCompleted) << i;
      EXPECT_EQ(jobs[i].state.exit_code, i % 7) << i;
    }
  }
  // Only running jobs left: one qstat, no qacct.
  f.runner->Expect("qstat", 0, QstatXml(listed));
  f.Poll(ptrs);
  EXPECT_EQ(f.Count("qstat"), 2);
  EXPECT_EQ(f.Count("qacct"), 1);
}

TEST(SgeScheduler, RealQstatEveryState) {
  Fixture f;
  Job r = f.Submit("39"), dr = f.Submit("63"), s = f.Submit("64"), qw = f.Submit("43"), eqw = f.Submit("44"),
      hqw = f.Submit("42");
  f.runner->Expect("qstat", 0, kQstatXml);
  const char* more =
      "==============================================================\n"
      "job_number:                 44\n"
      "error reason          1:      11/30/2026 08:49:19 [0:24012]: error: can't chdir to /nonexistent: No such "
      "file or directory\n"
      "scheduling info:            Job is in error state\n"
      "==============================================================\n"
      "job_number:                 43\n"
      "scheduling info:            cannot run in PE \"smp\" because it only offers 0 slots\n";
  f.runner->Expect("qstat", 0, std::string(kQstatDetails) + more);
  f.Poll({&r, &dr, &s, &qw, &eqw, &hqw});
  EXPECT_EQ(r.state.kind, Kind::kRunning);
  EXPECT_EQ(dr.state.kind, Kind::kRunning);
  EXPECT_EQ(s.state.kind, Kind::kQueued);
  EXPECT_EQ(s.state.reason, "suspended (s)");
  EXPECT_EQ(qw.state.kind, Kind::kQueued);
  EXPECT_EQ(qw.state.reason, "qw: cannot run in PE \"smp\" because it only offers 0 slots");
  EXPECT_EQ(hqw.state.reason, "held (hqw)");  // no scheduling info for it in this answer
  EXPECT_EQ(eqw.state.kind, Kind::kFailed);
  EXPECT_EQ(eqw.state.reason,
            "error state (Eqw): error: can't chdir to /nonexistent: No such file or directory; deleted with qdel");
  EXPECT_EQ(f.Count("qacct"), 0);  // every job is in qstat
  // qstat -j for the queued and errored jobs, then qdel for the errored one.
  ASSERT_GE(f.runner->calls.size(), 3u);
  EXPECT_EQ(f.runner->calls[f.runner->calls.size() - 2], "qstat -j 64,43,42,44");
  EXPECT_EQ(f.runner->calls.back(), "qdel 44");

  // Within 30 s the scheduling info is not asked again, and is kept.
  f.runner->Expect("qstat", 0, kQstatXml);
  f.Poll({&r, &dr, &s, &qw, &hqw});
  EXPECT_EQ(f.Count("qstat"), 3);
  EXPECT_EQ(qw.state.reason, "qw: cannot run in PE \"smp\" because it only offers 0 slots");
}

TEST(SgeScheduler, SchedulingInfoTurnedOffIsNotAskedAgain) {
  Fixture f;
  Job j = f.Submit("43");
  f.runner->Expect("qstat", 0, QstatXml({{"43", "qw"}}));
  f.runner->Expect("qstat", 0,
                   "==============================================================\njob_number:                 43\n"
                   "scheduling info:            (Collecting of scheduler job information is turned off)\n");
  f.Poll({&j});
  EXPECT_EQ(j.state.reason, "qw");
  EXPECT_EQ(f.Count("qstat"), 2);
  // A new queued job: schedd_job_info is off, so its info is not asked for.
  Job k = f.Submit("44");
  f.runner->Expect("qstat", 0, QstatXml({{"43", "qw"}, {"44", "qw"}}));
  f.Poll({&j, &k});
  EXPECT_EQ(f.Count("qstat"), 3);
  EXPECT_EQ(k.state.reason, "qw");
}

TEST(SgeScheduler, AccountingRecordNotYetWritten) {
  Fixture f;
  Job j = f.Submit("40");
  f.runner->Expect("qstat", 0, QstatXml({{"40", "r"}}));
  f.Poll({&j});
  EXPECT_EQ(j.state.kind, Kind::kRunning);
  // Gone from qstat, no record yet: keeps its state, no error, no notice.
  f.runner->Expect("qstat", 0, kQstatXmlEmpty);
  f.runner->Expect("qacct", 0, kQacctNone);
  f.Poll({&j});
  EXPECT_EQ(j.state.kind, Kind::kRunning);
  EXPECT_TRUE(f.sched->TakeNotices().empty());
  // A fresh cluster has no accounting file until the first job ends.
  f.runner->Expect("qstat", 0, kQstatXmlEmpty);
  f.runner->Expect("qacct", 1, "no jobs running since startup\n",
                   "/var/lib/gridengine/default/common/accounting: No such file or directory\n");
  f.Poll({&j});
  EXPECT_EQ(j.state.kind, Kind::kRunning);
  EXPECT_TRUE(f.sched->TakeNotices().empty());
  f.runner->Expect("qstat", 0, kQstatXmlEmpty);
  f.runner->Expect("qacct", 0, Acct("40", kOk, kExit3));
  f.Poll({&j});
  EXPECT_EQ(j.state.kind, Kind::kCompleted);
  EXPECT_EQ(j.state.exit_code, 3);
  EXPECT_EQ(j.end_time - j.start_time, 1);
  EXPECT_EQ(f.Count("qacct"), 3);
}

TEST(SgeScheduler, AJobMissingLongerIsAskedForAlone) {
  BatchOptions o;
  o.lost_after = 0.12;  // per-job qacct after 0.02 s
  Fixture f(o);
  Job a = f.Submit("62"), b = f.Submit("44");
  f.runner->Expect("qstat", 0, kQstatXmlEmpty);
  f.runner->Expect("qacct", 0, kQacctNone);
  f.Poll({&a, &b});
  EXPECT_EQ(f.Count("qacct"), 1);
  f.Advance(0.03);
  // 44 has a record without an end time (-E -b cannot find it); 62 is not written yet.
  f.runner->Expect("qstat", 0, kQstatXmlEmpty);
  f.runner->Expect("qacct", 0, kQacctNone);
  f.runner->Expect("qacct", 1, "", "error: job id 62 not found\n");
  f.runner->Expect("qacct", 0, Acct("44", kNoCwd, "0                   ", "-/-", "-/-"));
  f.Poll({&a, &b});
  EXPECT_EQ(f.runner->calls[f.runner->calls.size() - 2], "qacct -j 62");
  EXPECT_EQ(f.runner->calls.back(), "qacct -j 44");
  EXPECT_FALSE(a.state.terminal());
  EXPECT_EQ(b.state.kind, Kind::kFailed);
  EXPECT_EQ(b.state.reason, "qacct: failed 28 : changing into working directory");
  auto notices = f.sched->TakeNotices();
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_NE(notices[0].find("reporting_params accounting=true"), std::string::npos);
  f.Advance(0.12);
  f.runner->Expect("qstat", 0, kQstatXmlEmpty);
  f.runner->Expect("qacct", 0, kQacctNone);
  f.runner->Expect("qacct", 1, "", "error: job id 62 not found\n");
  f.Poll({&a});
  EXPECT_EQ(a.state.kind, Kind::kLost);
}

TEST(SgeScheduler, TimeLimitIsATimeout) {
  Fixture f;
  Job j = f.Submit("62");
  f.runner->Expect("qstat", 0, kQstatXmlEmpty);
  f.runner->Expect("qacct", 0, Acct("62", kH_rt, kKilled, "Mon Nov 30 08:50:55 2026", "Mon Nov 30 08:51:01 2026"));
  f.Poll({&j});
  EXPECT_EQ(j.state.kind, Kind::kTimeout);
  EXPECT_EQ(j.end_time - j.start_time, 6);
}

TEST(SgeScheduler, RescheduledRecordIsNotTheEnd) {
  Fixture f;
  Job j = f.Submit("74");
  f.runner->Expect("qstat", 0, kQstatXmlEmpty);
  f.runner->Expect("qacct", 0, Acct("74", kResched, kOk));
  f.Poll({&j});
  EXPECT_FALSE(j.state.terminal());
  f.runner->Expect("qstat", 0, kQstatXmlEmpty);
  f.runner->Expect("qacct", 0, Acct("74", kResched, kOk) + Acct("74", kOk, kOk));
  f.Poll({&j});
  EXPECT_EQ(j.state.kind, Kind::kCompleted);
}

TEST(SgeScheduler, CancelWithQdel) {
  Fixture f;
  Job a = f.Submit("63"), b = f.Submit("64"), c = f.Submit("65");
  f.sched->Cancel(&a);
  EXPECT_EQ(f.runner->calls.back(), "qdel 63");
  f.sched->Cancel(&c);
  f.runner->Expect("qstat", 0, QstatXml({{"63", "dr"}, {"64", "r"}}));
  f.Poll({&a, &b, &c});
  EXPECT_EQ(a.state.kind, Kind::kRunning);    // being deleted
  EXPECT_EQ(c.state.kind, Kind::kCancelled);  // was pending: gone, no record
  f.runner->Expect("qstat", 0, QstatXml({{"64", "r"}}));
  f.runner->Expect("qacct", 0, Acct("63", kQdel, kKilled));
  f.Poll({&a, &b});
  EXPECT_EQ(a.state.kind, Kind::kCancelled);
  EXPECT_EQ(b.state.kind, Kind::kRunning);
  f.sched->Shutdown();
  EXPECT_EQ(f.runner->calls.back(), "qdel 64");
}

TEST(SgeScheduler, DeletedOutsideHetbenchIsAFailure) {
  Fixture f;
  Job j = f.Submit("63");
  f.runner->Expect("qstat", 0, kQstatXmlEmpty);
  f.runner->Expect("qacct", 0, Acct("63", kQdel, kKilled));
  f.Poll({&j});
  EXPECT_EQ(j.state.kind, Kind::kFailed);
  EXPECT_NE(j.state.reason.find("outside hetbench"), std::string::npos);
}

TEST(SgeScheduler, QmasterDownIsRetried) {
  Fixture f;
  Job j = f.Submit("39");
  f.runner->Expect("qstat", 1, "", kCommlib);
  f.Poll({&j});
  EXPECT_EQ(j.state.kind, Kind::kQueued);  // unchanged
  EXPECT_EQ(f.Count("qacct"), 0);
  auto notices = f.sched->TakeNotices();
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_NE(notices[0].find("(error: commlib error: got select error (Connection refused); error: unable to send"),
            std::string::npos)
      << notices[0];
  f.runner->Expect("qstat", 0, QstatXml({{"39", "r"}}));
  f.Poll({&j});
  EXPECT_EQ(j.state.kind, Kind::kRunning);
  EXPECT_EQ(f.sched->TakeNotices(), std::vector<std::string>{"the scheduler answers again"});
}

TEST(SgeScheduler, BadXmlIsRetriedNeverACrash) {
  Fixture f;
  Job j = f.Submit("39");
  std::string xml = QstatXml({{"39", "r"}});
  for (const std::string& bad : {xml.substr(0, xml.size() / 2), std::string(""), std::string("<job_info><</job_info>"),
                                 std::string("\x1b[?1h garbage")}) {
    f.runner->Expect("qstat", 0, bad);
    f.Poll({&j});
    EXPECT_EQ(j.state.kind, Kind::kQueued);
  }
  EXPECT_EQ(f.Count("qacct"), 0);  // a bad answer is not taken for "every job left"
  auto notices = f.sched->TakeNotices();
  ASSERT_FALSE(notices.empty());
  EXPECT_NE(notices[0].find("qstat -xml printed XML cut short"), std::string::npos) << notices[0];
  f.runner->Expect("qstat", 0, xml);
  f.Poll({&j});
  EXPECT_EQ(j.state.kind, Kind::kRunning);
}

TEST(SgeScheduler, ErrorStateWithoutItsReasonIsRetried) {
  Fixture f;
  Job j = f.Submit("44");
  f.runner->Expect("qstat", 0, QstatXml({{"44", "Eqw"}}));
  f.runner->Expect("qstat", 1, "", kCommlib);
  f.Poll({&j});
  EXPECT_EQ(j.state.kind, Kind::kQueued);
  EXPECT_EQ(f.Count("qdel"), 0);
  f.runner->Expect("qstat", 0, QstatXml({{"44", "Eqw"}}));
  f.runner->Expect("qstat", 1, "", "Following jobs do not exist: \n44\n");  // deleted meanwhile
  f.Poll({&j});
  EXPECT_EQ(j.state.kind, Kind::kFailed);
  EXPECT_EQ(j.state.reason, "error state (Eqw); deleted with qdel");
}

TEST(SgeScheduler, MaxPendingTimeCancels) {
  Fixture f;
  f.runner->Expect("qsub", 0, "1000\n");
  Job j;
  j.max_pending_time_s = 0.01;
  ASSERT_TRUE(f.sched->Submit(&j).ok());
  f.runner->Expect("qstat", 0, QstatXml({{"1000", "hqw"}}));
  f.runner->Expect("qstat", 0,
                   "==============================================================\njob_number:                 1000\n"
                   "scheduling info:            Job is in hold state\n");
  f.Poll({&j});
  f.Advance(0.02);
  f.runner->Expect("qstat", 0, QstatXml({{"1000", "hqw"}}));
  f.Poll({&j});
  EXPECT_EQ(j.state.kind, Kind::kFailed);
  EXPECT_NE(j.state.reason.find("max_pending_time; last pending reason: held (hqw): Job is in hold state"),
            std::string::npos)
      << j.state.reason;
  EXPECT_EQ(f.runner->calls.back(), "qdel 1000");
}

TEST(SgeScheduler, MissingCommandsAreOneClearError) {
  Fixture f;
  f.runner->Missing("qacct");
  Status st = f.sched->Check();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(),
            "scheduler 'sge' needs the command 'qacct', which is not in PATH on this host (needed: qsub, qstat, qdel, "
            "qacct)");
  Fixture ok;
  EXPECT_TRUE(ok.sched->Check().ok());
}

}  // namespace
}  // namespace hb
