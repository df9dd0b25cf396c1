#include "check/reference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace hb {
namespace {

Reference Ref(double value, std::optional<double> lower, std::optional<double> upper, const std::string& unit = "") {
  Reference r;
  r.value = value;
  r.lower = lower;
  r.upper = upper;
  r.unit = unit;
  return r;
}

std::string Verdict(double value, const Reference& ref) {
  PerfResult r = EvaluateReference("x", value, "", ref);
  return r.verdict;
}

TEST(Reference, LookupPrefersTheMostSpecificScopePerVariable) {
  ReferenceTable refs = {
      {"*", {{"triad", Ref(1000, -0.9, std::nullopt)}, {"copy", Ref(1, -0.5, std::nullopt)}}},
      {"hpc:*", {{"triad", Ref(2000, -0.1, std::nullopt)}}},
      {"hpc:gpu", {{"triad", Ref(3000, -0.1, std::nullopt)}}},
      {"lab", {{"triad", Ref(4000, -0.1, std::nullopt)}}},
  };
  EXPECT_EQ(FindReference(refs, "hpc", "gpu", "triad")->value, 3000);
  EXPECT_EQ(FindReference(refs, "hpc", "cpu", "triad")->value, 2000);
  EXPECT_EQ(FindReference(refs, "lab", "any", "triad")->value, 4000);  // 'sys' is 'sys:*'
  EXPECT_EQ(FindReference(refs, "other", "p", "triad")->value, 1000);
  // hpc:gpu has no 'copy': resolved per variable, falling back to '*'.
  EXPECT_EQ(FindReference(refs, "hpc", "gpu", "copy")->value, 1);
  EXPECT_FALSE(FindReference(refs, "hpc", "gpu", "scale"));
  EXPECT_FALSE(FindReference({{"hpc:gpu", {{"triad", Ref(1, 0, 0)}}}}, "hpc", "cpu", "triad"));
}

TEST(Reference, ThresholdsAreFractionsOfThePositiveReference) {
  Reference r = Ref(100, -0.1, 0.2);
  EXPECT_EQ(ComputeBounds(r).lower, 90);
  EXPECT_EQ(ComputeBounds(r).upper, 120);
  EXPECT_EQ(Verdict(90, r), "pass");
  EXPECT_EQ(Verdict(120, r), "pass");
  EXPECT_EQ(Verdict(89.9, r), "fail");
  EXPECT_EQ(Verdict(120.1, r), "fail");
}

TEST(Reference, NegativeReferenceInvertsTheThresholds) {
  // assert_reference: "Inverse threshold if ref < 0": -100*(1+0.1), -100*(1-0.2)
  Reference r = Ref(-100, -0.1, 0.2);
  EXPECT_DOUBLE_EQ(ComputeBounds(r).lower, -110);
  EXPECT_DOUBLE_EQ(ComputeBounds(r).upper, -80);
  EXPECT_EQ(Verdict(-110, r), "pass");
  EXPECT_EQ(Verdict(-80, r), "pass");
  EXPECT_EQ(Verdict(-111, r), "fail");
  EXPECT_EQ(Verdict(-79, r), "fail");
  EXPECT_TRUE(ValidateReference(Ref(-100, -5, 1)).ok());  // lower unbounded below for ref < 0
}

TEST(Reference, ZeroReferenceMakesThresholdsAbsolute) {
  Reference r = Ref(0, -1, 2);
  EXPECT_EQ(ComputeBounds(r).lower, -1);
  EXPECT_EQ(ComputeBounds(r).upper, 2);
  EXPECT_EQ(Verdict(0, r), "pass");
  EXPECT_EQ(Verdict(2, r), "pass");
  EXPECT_EQ(Verdict(2.5, r), "fail");
  EXPECT_EQ(Verdict(-1.5, r), "fail");
  EXPECT_EQ(EvaluateReference("errors", 3, "", r).message, "errors 3 is 3 above reference 0 (allowed +2)");
}

TEST(Reference, ABoundOfZeroIsABound) {
  // ReFrame PR #3433: ref 0.1 with lower -1 gives a lower bound of 0, not -inf.
  Reference r = Ref(0.1, -1.0, 0);
  EXPECT_EQ(ComputeBounds(r).lower, 0);
  EXPECT_EQ(Verdict(-0.5, r), "fail");
  EXPECT_EQ(Verdict(0, r), "pass");
  EXPECT_EQ(Verdict(1, r), "fail");
}

TEST(Reference, NullBoundsAreUnbounded) {
  Reference r = Ref(100, std::nullopt, std::nullopt);
  EXPECT_TRUE(std::isinf(ComputeBounds(r).lower));
  EXPECT_TRUE(std::isinf(ComputeBounds(r).upper));
  EXPECT_EQ(Verdict(1e12, r), "pass");
  EXPECT_EQ(Verdict(-1e12, r), "pass");
  EXPECT_EQ(Verdict(1e12, Ref(100, -0.1, std::nullopt)), "pass");
  EXPECT_EQ(Verdict(1, Ref(100, std::nullopt, 0.1)), "pass");
  EXPECT_EQ(Verdict(std::nan(""), r), "fail");
}

TEST(Reference, NoReferenceMeansNoVerdict) {
  PerfResult r = EvaluateReference("triad", 5, "MB/s", std::nullopt);
  EXPECT_EQ(r.verdict, "none");
  EXPECT_EQ(r.name, "triad");
  EXPECT_EQ(r.value, 5);
  EXPECT_EQ(r.unit, "MB/s");
  EXPECT_FALSE(r.reference);
}

TEST(Reference, FailureMessages) {
  Reference r = Ref(12.0, -0.1, 0.1, "images/s");
  PerfResult below = EvaluateReference("throughput", 10.2, "images/s", r);
  EXPECT_EQ(below.verdict, "fail");
  EXPECT_EQ(below.message, "throughput 10.2 images/s is 15% below reference 12 (allowed -10%)");
  EXPECT_EQ(EvaluateReference("throughput", 15, "images/s", r).message,
            "throughput 15 images/s is 25% above reference 12 (allowed +10%)");
  // Under 10%: one decimal.
  EXPECT_EQ(EvaluateReference("t", 94.5, "", Ref(100, -0.05, std::nullopt)).message,
            "t 94.5 is 5.5% below reference 100 (allowed -5%)");
  // Just past the threshold: enough decimals to tell them apart.
  EXPECT_EQ(EvaluateReference("t", 89.6, "s", Ref(100, -0.1, std::nullopt)).message,
            "t 89.6 s is 10.4% below reference 100 (allowed -10%)");
  EXPECT_EQ(EvaluateReference("lat", -130, "", Ref(-100, -0.2, 0.1)).message,
            "lat -130 is 30% below reference -100 (allowed -20%)");
  EXPECT_EQ(EvaluateReference("t", std::nan(""), "s", Ref(100, -0.1, std::nullopt)).message,
            "t nan s is not a number (reference 100)");
}

TEST(Reference, Validation) {
  Reference r = Ref(100, 0.5, std::nullopt);
  r.mark = {"t.yaml", 9, 14};
  EXPECT_EQ(ValidateReference(r).str(), "t.yaml:9:14: lower threshold must be in [-1, 0], got 0.5");
  EXPECT_EQ(ValidateReference(Ref(100, -1.5, std::nullopt)).message(), "lower threshold must be in [-1, 0], got -1.5");
  EXPECT_EQ(ValidateReference(Ref(100, std::nullopt, -0.1)).message(), "upper threshold must be >= 0, got -0.1");
  EXPECT_EQ(ValidateReference(Ref(-100, std::nullopt, 1.5)).message(),
            "upper threshold must be in [0, 1] for a negative reference, got 1.5");
  EXPECT_EQ(ValidateReference(Ref(-100, 0.1, std::nullopt)).message(), "lower threshold must be <= 0, got 0.1");
  EXPECT_TRUE(ValidateReference(Ref(100, -1, 5)).ok());
  EXPECT_TRUE(ValidateReference(Ref(0, -3, 3)).ok());
  // An invalid reference fails the value, as assert_reference raises.
  PerfResult bad = EvaluateReference("t", 100, "", Ref(100, 0.5, std::nullopt));
  EXPECT_EQ(bad.verdict, "fail");
  EXPECT_EQ(bad.message, "t: lower threshold must be in [-1, 0], got 0.5");
}

}  // namespace
}  // namespace hb
