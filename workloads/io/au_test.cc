// DLIO's accelerator utilisation against hand-computed cases.
#include "io/au.h"

#include <gtest/gtest.h>

namespace hbw::io {
namespace {

// Four steps of 1 s compute; loads of 1, 0.5, 0.25, 0 s; no time outside
// the steps, so the epoch lasts 5.75 s.
EpochTimes FourSteps() { return EpochTimes{5.75, {1, 1, 1, 1}, {2, 1.5, 1.25, 1}}; }

TEST(AuTest, DlioDefaultExcludesTheFirstStep) {
  // compute 1+1+1 = 3 s over 5.75 - 2 = 3.75 s.
  EXPECT_DOUBLE_EQ(AcceleratorUtilization(FourSteps(), 1, 0), 80.0);
}

TEST(AuTest, ExcludesStepsAtBothEnds) {
  // compute 2 s over 5.75 - 2 - 1 = 2.75 s.
  EXPECT_DOUBLE_EQ(AcceleratorUtilization(FourSteps(), 1, 1), 100.0 * 2 / 2.75);
  // Everything: 4 s over 5.75 s.
  EXPECT_DOUBLE_EQ(AcceleratorUtilization(FourSteps(), 0, 0), 100.0 * 4 / 5.75);
}

TEST(AuTest, TimeBetweenStepsCounts) {
  EpochTimes e = FourSteps();
  e.seconds += 1;  // e.g. the loop's own overhead: 3 s over 4.75 s
  EXPECT_DOUBLE_EQ(AcceleratorUtilization(e, 1, 0), 100.0 * 3 / 4.75);
}

TEST(AuTest, NoComputeIsZero) {
  EXPECT_EQ(AcceleratorUtilization(EpochTimes{2, {0, 0}, {1, 1}}, 0, 0), 0.0);
  EXPECT_EQ(AcceleratorUtilization(EpochTimes{}, 1, 0), 0.0);
  EXPECT_EQ(AcceleratorUtilization(FourSteps(), 3, 2), 0.0);  // nothing left
}

TEST(AuTest, PerfectOverlapIsHundred) {
  EXPECT_DOUBLE_EQ(AcceleratorUtilization(EpochTimes{3, {1, 1, 1}, {1, 1, 1}}, 0, 0), 100.0);
}

TEST(AuTest, Mean) {
  EXPECT_EQ(Mean({}), 0.0);
  EXPECT_DOUBLE_EQ(Mean({80, 90, 100}), 90.0);
}

}  // namespace
}  // namespace hbw::io
