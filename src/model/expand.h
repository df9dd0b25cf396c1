// The expander turns TestSpecs into TestCases: the cartesian product of a
// spec's parameters, times the partitions its valid_systems admit, times the
// environments its valid_prog_environs admit on each partition; then links
// each case to the cases it depends on. It sees partitions and environments
// only through the small views below, so the model does not depend on the
// configuration layer. Pure; thread-safe.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/expr.h"
#include "model/test_loader.h"
#include "model/test_spec.h"
#include "util/status.h"

namespace hb {

struct EnvironView {
  std::string name;
  std::vector<std::string> features;
};

struct PartitionView {
  std::string system, partition;
  std::vector<std::string> features;
  std::vector<EnvironView> environs;  // those the partition lists and that exist for it
  std::string scheduler = "local";    // for `sched:NAME` in overrides keys
  // Placeholder names the partition defines: processor.* and devices.*
  // (model/bind.h), shared by every case on it.
  std::shared_ptr<const std::map<std::string, Value>> values;
};

// Command-line filters (`-n`, `-x`, `-t`, `-p`). Every list entry is a
// regular expression (ECMAScript syntax, searched, not anchored).
struct CaseFilter {
  std::vector<std::string> names;     // keep a case if any matches its name or display name
  std::vector<std::string> excludes;  // drop a case if any matches its name or display name
  std::vector<std::string> tags;      // every pattern must match one of the test's tags
  std::vector<std::string> environs;  // keep cases whose environment matches any
};

// True when a valid_systems entry list admits the partition: an entry is
// space-separated tokens that must all hold: `*`, `sys`, `sys:part`,
// `sys:*`, `*:part`, `+feature`, `-feature`.
bool ValidSystemsMatch(const std::vector<std::string>& valid, const PartitionView& p);
// Same for valid_prog_environs: `*`, a name, `+feature`, `-feature`.
bool ValidEnvironsMatch(const std::vector<std::string>& valid, const EnvironView& e);

// Cases in dependency order (a case's dependencies come before it), each
// bound (model/bind.h). Selected cases pull in the cases they depend on.
// Bad filter regexes and binding errors are errors. Tags are matched
// against each case's bound tags (overrides may add some).
// The cases marked in `keep` and those they depend on (transitively), in
// order, with their dependency links re-numbered. `all` is in dependency
// order (a case's dependencies come before it).
std::vector<TestCase> KeepWithDependencies(std::vector<TestCase> all, std::vector<bool> keep);

Result<std::vector<TestCase>> ExpandCases(const TestSuite& suite, const std::vector<PartitionView>& partitions,
                                          const CaseFilter& filter);

}  // namespace hb
