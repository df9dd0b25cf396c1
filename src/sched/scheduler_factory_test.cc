#include "sched/scheduler_factory.h"

#include <gtest/gtest.h>

namespace hb {
namespace {

TEST(MakeScheduler, KnowsLocalAndNamesTheRest) {
  auto local = MakeScheduler("local");
  ASSERT_TRUE(local.ok()) << local.status().str();
  EXPECT_EQ((*local)->name(), "local");
  EXPECT_TRUE((*local)->Directives(Job{}).empty());

  auto slurm = MakeScheduler("slurm");
  ASSERT_FALSE(slurm.ok());
  EXPECT_EQ(slurm.status().message(), "scheduler 'slurm' is not available in this build yet");

  auto typo = MakeScheduler("lcoal");
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.status().message().find("unknown scheduler 'lcoal', did you mean 'local'?"),
            std::string::npos)
      << typo.status().str();
  EXPECT_NE(typo.status().message().find("known: local, slurm"), std::string::npos);
}

}  // namespace
}  // namespace hb
