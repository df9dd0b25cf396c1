#include "sched/scheduler_factory.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace hb {
namespace {

TEST(MakeScheduler, KnowsLocalAndNamesTheRest) {
  auto local = MakeScheduler("local");
  ASSERT_TRUE(local.ok()) << local.status().str();
  EXPECT_EQ((*local)->name(), "local");
  EXPECT_TRUE((*local)->Directives(Job{}).empty());

  auto slurm = MakeScheduler("slurm");
  ASSERT_TRUE(slurm.ok()) << slurm.status().str();
  EXPECT_EQ((*slurm)->name(), "slurm");
  auto squeue = MakeScheduler("squeue", {{"job_submit_timeout", 10}});
  ASSERT_TRUE(squeue.ok()) << squeue.status().str();
  auto bad = MakeScheduler("squeue", {{"job_submit_timeout", "soon"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "sched_options: 'job_submit_timeout' must be a number of seconds >= 0");

  for (const char* pbs : {"pbs", "pbspro", "torque"}) {
    auto s = MakeScheduler(pbs, {{"lost_after", 120}});
    ASSERT_TRUE(s.ok()) << s.status().str();
    EXPECT_EQ((*s)->name(), pbs);
  }
  Job job;
  job.name = "hb_x";
  EXPECT_EQ((*MakeScheduler("torque"))->Directives(job).front(), "#PBS -N hb_x");
  EXPECT_FALSE(MakeScheduler("pbs", {{"lost_after", "later"}}).ok());

  auto sge = MakeScheduler("sge", {{"pe", "smp"}, {"lost_after", 120}});
  ASSERT_TRUE(sge.ok()) << sge.status().str();
  EXPECT_EQ((*sge)->name(), "sge");
  job.num_tasks = 2;
  EXPECT_EQ((*sge)->Directives(job).back(), "#$ -pe smp 2");
  EXPECT_EQ(MakeScheduler("sge", {{"pe", 2}}).status().message(),
            "sched_options: 'pe' must be the name of a parallel environment (e.g. smp)");
  EXPECT_FALSE(MakeScheduler("sge", {{"lost_after", "later"}}).ok());

  // Backends of higher layers come in through RegisterScheduler.
  std::string asked;
  RegisterScheduler("fakebackend", [&](const std::string& name, const nlohmann::json& so)
                                       -> Result<std::unique_ptr<Scheduler>> {
    asked = name + " " + so.dump();
    return Status::Error("no cluster here");
  });
  auto fake = MakeScheduler("fakebackend", {{"namespace", "ns"}});
  ASSERT_FALSE(fake.ok());
  EXPECT_EQ(fake.status().message(), "no cluster here");
  EXPECT_EQ(asked, "fakebackend {\"namespace\":\"ns\"}");
  auto names = SchedulerNames();
  EXPECT_NE(std::find(names.begin(), names.end(), "fakebackend"), names.end());

  auto typo = MakeScheduler("lcoal");
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.status().message().find("unknown scheduler 'lcoal', did you mean 'local'?"),
            std::string::npos)
      << typo.status().str();
  EXPECT_NE(typo.status().message().find("known: local, slurm"), std::string::npos);
}

}  // namespace
}  // namespace hb
