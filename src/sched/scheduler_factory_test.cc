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
    EXPECT_EQ((*s)->name(), CanonicalSchedulerName(pbs));
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

  // Backends of higher layers register themselves, with their aliases.
  std::string asked;
  SchedulerBackend fb;
  fb.name = "fakebackend";
  fb.aliases = {"fakealias"};
  fb.traits.remote_files = true;
  fb.instance_key = [](const nlohmann::json& so, const nlohmann::json& spec,
                       const SchedulerFlags&) -> Result<std::string> {
    if (spec.contains("context")) return spec["context"].get<std::string>();
    return so.value("server", std::string());
  };
  fb.make = [&](const nlohmann::json& so, const nlohmann::json&,
                const SchedulerFlags& f) -> Result<std::unique_ptr<Scheduler>> {
    asked = so.dump() + (f.dry_run ? " dry" : "");
    return Status::Error("no cluster here");
  };
  EXPECT_TRUE(RegisterSchedulerBackend(fb));
  SchedulerFlags dry;
  dry.dry_run = true;
  auto fake = MakeScheduler("fakealias", {{"namespace", "ns"}}, dry);
  ASSERT_FALSE(fake.ok());
  EXPECT_EQ(fake.status().message(), "no cluster here");
  EXPECT_EQ(asked, "{\"namespace\":\"ns\"} dry");
  auto names = SchedulerNames();
  EXPECT_NE(std::find(names.begin(), names.end(), "fakebackend"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "fakealias"), names.end());
  EXPECT_EQ(CanonicalSchedulerName("fakealias"), "fakebackend");
  EXPECT_TRUE((*FindSchedulerBackend("fakealias"))->traits.remote_files);
  // Jobs share an instance when their keys are equal: two partitions on
  // one server, unless a test names another context.
  auto key = [](const nlohmann::json& so, const nlohmann::json& spec) {
    return SchedulerInstanceKey("fakealias", so, spec, {}).value();
  };
  EXPECT_EQ(key({{"server", "a"}, {"namespace", "x"}}, {}), "fakebackend|a");
  EXPECT_EQ(key({{"server", "a"}}, {}), key({{"server", "a"}, {"namespace", "y"}}, {}));
  EXPECT_NE(key({{"server", "a"}}, {}), key({{"server", "a"}}, {{"context", "ipu"}}));

  auto typo = MakeScheduler("lcoal");
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.status().message().find("unknown scheduler 'lcoal', did you mean 'local'?"), std::string::npos)
      << typo.status().str();
  EXPECT_NE(typo.status().message().find("known: local, slurm"), std::string::npos);
}

TEST(SchedulerRegistry, AliasesAndTraitsOfTheBuiltInBackends) {
  EXPECT_EQ(CanonicalSchedulerName("pbspro"), "pbs");
  EXPECT_EQ(CanonicalSchedulerName("torque"), "torque");  // a flavour of its own, as in ReFrame
  EXPECT_EQ(CanonicalSchedulerName("squeue"), "squeue");
  EXPECT_EQ(CanonicalSchedulerName("nosuch"), "nosuch");
  EXPECT_TRUE((*FindSchedulerBackend("local"))->traits.on_this_host);
  EXPECT_FALSE((*FindSchedulerBackend("local"))->traits.node_spawn);
  for (const char* batch : {"slurm", "squeue", "pbs", "torque", "sge"}) {
    const SchedulerTraits& t = (*FindSchedulerBackend(batch))->traits;
    EXPECT_FALSE(t.on_this_host || t.remote_files || t.runs_in_container) << batch;
    EXPECT_TRUE(t.node_spawn) << batch;
  }
  // The local scheduler is one instance for all; batch partitions share one
  // when their sched_options are equal, and bad options are refused.
  EXPECT_EQ(SchedulerInstanceKey("local", {{"x", 1}}, {}, {}).value(),
            SchedulerInstanceKey("local", {}, {}, {}).value());
  EXPECT_EQ(SchedulerInstanceKey("slurm", {{"lost_after", 5}}, {}, {}).value(),
            SchedulerInstanceKey("slurm", {{"lost_after", 5}}, {}, {}).value());
  EXPECT_NE(SchedulerInstanceKey("slurm", {}, {}, {}).value(), SchedulerInstanceKey("squeue", {}, {}, {}).value());
  // Options of the partition's own (submission, pending reasons, pe) do not
  // split the endpoint; polling options do.
  EXPECT_EQ(SchedulerInstanceKey("slurm", {{"job_submit_timeout", 10}, {"use_nodes_option", true}}, {}, {}).value(),
            SchedulerInstanceKey("slurm", {}, {}, {}).value());
  EXPECT_EQ(SchedulerInstanceKey("sge", {{"pe", "smp"}}, {}, {}).value(),
            SchedulerInstanceKey("sge", {{"pe", "mpi"}}, {}, {}).value());
  EXPECT_NE(SchedulerInstanceKey("slurm", {{"lost_after", 5}}, {}, {}).value(),
            SchedulerInstanceKey("slurm", {}, {}, {}).value());
  EXPECT_FALSE(SchedulerInstanceKey("slurm", {{"lost_after", "later"}}, {}, {}).ok());
  EXPECT_FALSE(SchedulerInstanceKey("sge", {{"pe", 2}}, {}, {}).ok());
  Job job;
  NodeSpawn slurm = (*FindSchedulerBackend("slurm"))->traits.node_spawn(job, 2, 8);
  EXPECT_EQ(slurm.spawner.front(), "srun");
  EXPECT_EQ(slurm.job_id, "\"$SLURM_JOB_ID\"");
}

}  // namespace
}  // namespace hb
