// References: the expected value of a performance variable with tolerated
// deviations, and the verdict on a measured value. Both copy ReFrame:
//   - lookup: a test's `reference` maps 'sys:part', 'sys:*' (or 'sys') and
//     '*' to {variable: Reference}; the most specific scope that has the
//     variable wins, per variable, as ReFrame's ScopedDict resolves
//     self.reference['sys:part:var'] (reframe/utility/__init__.py).
//   - evaluation: sanity.assert_reference (reframe/utility/sanity.py).
//     Thresholds are fractions of the reference value (lower in [-1, 0],
//     upper >= 0); for a negative reference they are inverted (lower <= 0,
//     upper in [0, 1]); for a reference of 0 they are absolute bounds
//     (ReFrame PR #3434, 4.8). A bound that computes to 0 is a real bound
//     (PR #3433), not "unbounded" as `bound or inf` made it before.
// Pure functions; thread-safe.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "check/check_spec.h"
#include "util/status.h"

namespace hb {

// The outcome for one performance variable of a case. (Defined here, in the
// check layer that produces it; results/case_result.h includes it.)
struct PerfResult {
  std::string name;
  double value = 0;
  std::string unit;
  std::optional<Reference> reference;  // none when no reference applies
  std::string verdict = "none";        // pass | fail | none (no reference)
  std::string message;                 // why it failed, for a failing value
  bool figure_of_merit = false;        // as the test declared (PerfSpec)
  std::string better;                  // "higher", "lower" or "" (by the unit)
};

// A test's references in file order: scope -> {variable -> Reference}.
using ReferenceTable = std::vector<std::pair<std::string, std::map<std::string, Reference>>>;

// The reference for `var` on system:partition: the first scope in file
// order that is `system:partition` (or `system:ALIAS` for one of the
// partition's `aliases`), else `system:*` or `system`, else `*`.
std::optional<Reference> FindReference(const ReferenceTable& refs, const std::string& system,
                                       const std::string& partition, const std::string& var,
                                       const std::vector<std::string>& aliases = {});

// Checks the thresholds as assert_reference does; the error carries the
// reference's mark: "lower threshold must be in [-1, 0], got 0.5".
Status ValidateReference(const Reference& ref);

// The interval assert_reference accepts; -inf/+inf where unbounded.
struct ReferenceBounds {
  double lower;
  double upper;
};
ReferenceBounds ComputeBounds(const Reference& ref);

// The verdict on `value`: "none" without a reference, else "pass" or
// "fail" with a message such as
//   "throughput 10.2 images/s is 15% below reference 12 (allowed -10%)".
PerfResult EvaluateReference(const std::string& name, double value, const std::string& unit,
                             const std::optional<Reference>& ref);

}  // namespace hb
