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

// ---- Pure functions.

TEST(SgeState, EveryStateIsMapped) {
  struct Case {
    const char* state;
    Kind kind;
  } cases[] = {
      {"qw", Kind::kQueued},  {"hqw", Kind::kQueued},  {"hRwq", Kind::kQueued}, {"Rq", Kind::kQueued},
      {"t", Kind::kStarting}, {"Rt", Kind::kStarting}, {"r", Kind::kRunning},   {"Rr", Kind::kRunning},
      {"hr", Kind::kRunning}, {"dr", Kind::kRunning},  {"dt", Kind::kRunning},  {"dRr", Kind::kRunning},
      {"ds", Kind::kRunning}, {"Eqw", Kind::kFailed},  {"Ehqw", Kind::kFailed}, {"EhRqw", Kind::kFailed},
      {"s", Kind::kQueued},   {"S", Kind::kQueued},    {"T", Kind::kQueued},    {"ts", Kind::kQueued},
      {"Rs", Kind::kQueued},  {"tT", Kind::kQueued},   {"z", Kind::kNone},      {"Q", Kind::kQueued},
  };
  for (const auto& c : cases) EXPECT_EQ(SgeJobState(c.state).kind, c.kind) << c.state;
  EXPECT_EQ(SgeJobState("qw").reason, "qw");
  EXPECT_EQ(SgeJobState("hqw").reason, "held (hqw)");
  EXPECT_EQ(SgeJobState("s").reason, "suspended (s)");
  EXPECT_EQ(SgeJobState("dr").reason, "being deleted (dr)");
  EXPECT_EQ(SgeJobState("Eqw").reason, "error state (Eqw)");
  EXPECT_EQ(SgeJobState("Q").reason, "Grid Engine state 'Q'");
}

TEST(SgeParse, QstatXml) {
  auto jobs = ParseQstatXml(kQstatXml);
  ASSERT_TRUE(jobs.ok()) << jobs.status().str();
  ASSERT_EQ(jobs->size(), 6u);
  EXPECT_EQ((*jobs)[0].id, "39");
  EXPECT_EQ((*jobs)[0].state, "r");
  EXPECT_EQ((*jobs)[0].queue, "all.q@vm");
  EXPECT_EQ((*jobs)[0].start, "2026-11-30T08:49:15");
  EXPECT_EQ((*jobs)[1].state, "dr");
  EXPECT_EQ((*jobs)[3].id, "43");
  EXPECT_EQ((*jobs)[3].queue, "");
  EXPECT_EQ((*jobs)[4].state, "Eqw");
  EXPECT_TRUE(ParseQstatXml(kQstatXmlEmpty)->empty());
  EXPECT_EQ(ParseQstatXml(kQstatXmlArray)->at(0).id, "75");

  // Entities, self-closing tags, comments.
  auto odd = ParseQstatXml(
      "<?xml version='1.0'?><!-- x --><job_info><queue_info><job_list state=\"running\"><JB_job_number>7"
      "</JB_job_number><JB_name>a&amp;b&#60;</JB_name><state>r</state><queue_name/></job_list>"
      "<job_list><state>r</state></job_list></queue_info></job_info>");
  ASSERT_TRUE(odd.ok()) << odd.status().str();
  ASSERT_EQ(odd->size(), 1u);  // the entry without a job number is left out
  EXPECT_EQ(odd->at(0).queue, "");

  // Malformed or truncated: errors, never a crash.
  std::string xml = kQstatXml;
  for (size_t cut : {size_t{0}, size_t{10}, xml.size() / 3, xml.size() / 2, xml.size() - 12, xml.size() - 2}) {
    auto r = ParseQstatXml(xml.substr(0, cut));
    EXPECT_FALSE(r.ok()) << "cut at " << cut;
  }
  EXPECT_FALSE(ParseQstatXml("error: commlib error: got select error (Connection refused)\n").ok());
  EXPECT_FALSE(ParseQstatXml("<job_info><job_list></job_info></job_list>").ok());
  EXPECT_FALSE(ParseQstatXml("<job_info></job_info><job_info></job_info>").ok());
  EXPECT_EQ(ParseQstatXml("<detailed_job_info></detailed_job_info>").status().message(),
            "XML whose document element is <detailed_job_info>, not <job_info>");
  EXPECT_EQ(ParseQstatXml(xml.substr(0, xml.find("<slots>2"))).status().message(), "XML cut short inside <job_list>");
  EXPECT_EQ(ParseQstatXml(xml.substr(0, xml.find("<slots>2") + 3)).status().message(), "XML cut short in a tag");
  EXPECT_FALSE(ParseQstatXml("<job_info><job_list <").ok());
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "<a>";
  EXPECT_EQ(ParseQstatXml("<job_info>" + deep).status().message(), "XML nested more than 64 deep");
  EXPECT_FALSE(ParseQstatXml(std::string("<job_info>\0\x01\xff</job_info", 21)).ok());
}

TEST(SgeParse, QstatDetails) {
  auto d = ParseQstatDetails(kQstatDetails);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d["72"].scheduling_info,
            "(-l mem_free=1000G) cannot run in queue \"vm\" because it offers only hl:mem_free=23.246G; "
            "cannot run in PE \"smp\" because it only offers 0 slots");
  EXPECT_EQ(d["72"].error_reason, "");
  EXPECT_EQ(d["46"].error_reason, "error: can't chdir to /nonexistent: No such file or directory");
  EXPECT_EQ(d["46"].scheduling_info, "Job is in error state");
  EXPECT_EQ(d["47"].scheduling_info, "Job is in hold state");
  EXPECT_TRUE(ParseQstatDetails("Following jobs do not exist: \n99999\n").empty());
  EXPECT_TRUE(ParseQstatDetails("").empty());
}

TEST(SgeParse, Qacct) {
  auto one = ParseQacct(Acct("40", kOk, kExit3));
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].id, "40");
  EXPECT_EQ(one[0].task, "undefined");
  EXPECT_EQ(one[0].host, "vm");
  EXPECT_EQ(one[0].failed, 0);
  EXPECT_EQ(one[0].exit_status, 3);
  EXPECT_EQ(one[0].end_time - one[0].start_time, 1);

  auto many = ParseQacct(Acct("62", kH_rt, kKilled) + Acct("63", kQdel, kKilled) +
                         Acct("44", kNoCwd, "0                   ", "-/-", "-/-"));
  ASSERT_EQ(many.size(), 3u);
  EXPECT_EQ(many[0].failed, 37);
  EXPECT_EQ(many[0].failed_text, "qmaster enforced h_rt, h_cpu, or h_vmem limit");
  EXPECT_EQ(many[0].exit_status, 137);
  EXPECT_EQ(many[1].failed, 100);
  EXPECT_EQ(many[1].failed_text, "assumedly after job");
  EXPECT_EQ(many[2].failed_text, "changing into working directory");
  EXPECT_EQ(many[2].start_time, 0);

  // Cut short before the keys after exit_status: "137" may have been cut.
  std::string rec = Acct("62", kH_rt, kKilled);
  EXPECT_TRUE(ParseQacct(rec.substr(0, rec.find("exit_status") + 15)).empty());
  EXPECT_TRUE(ParseQacct(kQacctNone).empty());
  EXPECT_TRUE(ParseQacct("error: job id 99 not found\n").empty());
  EXPECT_TRUE(ParseQacct("=====\nfailed\nexit_status\nru_wallclock 1s\n").empty());
}

TEST(SgeParse, AccountingStates) {
  auto state = [](const char* failed, const char* exit) {
    return SgeAccountingState(ParseQacct(Acct("1", failed, exit))[0]);
  };
  EXPECT_EQ(state(kOk, kExit3).kind, Kind::kCompleted);
  EXPECT_EQ(state(kOk, kExit3).exit_code, 3);
  EXPECT_EQ(state(kOk, kOk).exit_code, 0);
  EXPECT_EQ(state(kH_rt, kKilled).kind, Kind::kTimeout);
  EXPECT_EQ(state(kH_rt, kKilled).reason,
            "time limit exceeded (qacct: failed 37 : qmaster enforced h_rt, h_cpu, or h_vmem limit)");
  EXPECT_EQ(state(kQdel, kKilled).kind, Kind::kCancelled);
  EXPECT_EQ(state(kQdel, "1 ").kind, Kind::kFailed);
  EXPECT_EQ(state(kQdel, "1 ").reason, "qacct: failed 100 : assumedly after job, exit_status 1");
  EXPECT_EQ(state(kNoCwd, kOk).kind, Kind::kFailed);
  EXPECT_EQ(state(kNoCwd, kOk).reason, "qacct: failed 28 : changing into working directory");
  EXPECT_EQ(state(kResched, kOk).kind, Kind::kNone);

  // `qdel -f` of a running job: the qmaster's record, without usage (job
  // 141, forced out 10 s after it started while its execd was down).
  std::string forced = Acct("141", kOk, kOk, "Mon Nov 30 09:05:11 2026", "Mon Nov 30 09:05:21 2026");
  forced.replace(forced.find("ru_wallclock 1s"), 15, "ru_wallclock 0s");
  auto f = ParseQacct(forced);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].wallclock, 0);
  EXPECT_EQ(SgeAccountingState(f[0]).kind, Kind::kCancelled);
  EXPECT_EQ(SgeAccountingState(f[0]).reason,
            "deleted by force (qdel -f): the accounting record has no usage after 10 s");
  EXPECT_EQ(ParseQacct(Acct("1", kOk, kOk))[0].wallclock, 1);
  // A job that ended within a second also has ru_wallclock 0 s.
  auto quick = ParseQacct(Acct("2", kOk, kOk, "Mon Nov 30 09:05:11 2026", "Mon Nov 30 09:05:12 2026"));
  quick[0].wallclock = 0;
  EXPECT_EQ(SgeAccountingState(quick[0]).kind, Kind::kCompleted);
}

TEST(SgeParse, Times) {
  double a = ParseSgeTime("Mon Nov 30 08:50:55 2026");
  EXPECT_GT(a, 0);
  EXPECT_EQ(ParseSgeTime("2026-11-30T08:50:55"), a);
  EXPECT_EQ(QacctTime(a), "202611300850.55");
  EXPECT_EQ(ParseSgeTime("-/-"), 0);
  EXPECT_EQ(ParseSgeTime(""), 0);
}

TEST(SgeParse, ParallelEnvOption) {
  EXPECT_EQ(*ParseSgeParallelEnv(nlohmann::json::object()), "");
  EXPECT_EQ(*ParseSgeParallelEnv({{"pe", "smp"}, {"lost_after", 10}}), "smp");
  EXPECT_FALSE(ParseSgeParallelEnv({{"pe", 4}}).ok());
  EXPECT_FALSE(ParseSgeParallelEnv({{"pe", "smp 4"}}).ok());
}

}  // namespace
}  // namespace hb
