#include "sched/job.h"

#include <gtest/gtest.h>

namespace hb {
namespace {

TEST(Job, NormalizeJobOptionAsReFrame) {
  EXPECT_EQ(NormalizeJobOption("mem=100GB"), "--mem=100GB");
  EXPECT_EQ(NormalizeJobOption("C=gpu"), "-C gpu");
  EXPECT_EQ(NormalizeJobOption("--account=proj"), "--account=proj");
  EXPECT_EQ(NormalizeJobOption("-p debug"), "-p debug");
  EXPECT_EQ(NormalizeJobOption("#DW jobdw"), "#DW jobdw");
  EXPECT_EQ(NormalizeJobOption("exclusive"), "--exclusive");
}

TEST(JobState, Strings) {
  JobState s;
  s.kind = JobState::Kind::kCompleted;
  s.exit_code = 3;
  EXPECT_EQ(s.str(), "completed(exit 3)");
  EXPECT_TRUE(s.terminal());
  s.kind = JobState::Kind::kQueued;
  s.reason = "Priority";
  EXPECT_EQ(s.str(), "queued(Priority)");
  EXPECT_FALSE(s.terminal());
}

}  // namespace
}  // namespace hb
