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
  std::vector<std::string> aliases;   // other names of the partition (config/site_config.h)
  std::string scheduler = "local";    // for `sched:NAME` in overrides keys
  // Placeholder names the partition defines: processor.* and devices.*
  // (model/bind.h), shared by every case on it.
  std::shared_ptr<const std::map<std::string, Value>> values;
};

// Command-line filters (`-n`, `-x`, `-t`, `-p`, `-E`). Every list entry is
// a regular expression (ECMAScript syntax, searched, not anchored), except
// a `-n`/`-x` entry `/HASH`, which is a variant's hashcode (TestCase).
struct CaseFilter {
  std::vector<std::string> names;     // keep a case if any matches its name or display name
  std::vector<std::string> excludes;  // drop a case if any matches its name or display name
  std::vector<std::string> tags;      // every pattern must match one of the test's tags
  std::vector<std::string> environs;  // keep cases whose environment matches any
  // -E: keep cases for which this expression (model/expr.h) is true, with
  // the names of CaseValue (model/bind.h): `-E 'num_gpus > 4'`. A case
  // that lacks a name it reads is not selected.
  std::string expr;

  bool empty() const { return names.empty() && excludes.empty() && tags.empty() && environs.empty() && expr.empty(); }
};

// What the filters did, for `-v` and for the message when nothing is left.
struct SelectionReport {
  size_t tests = 0;                       // tests loaded (not abstract)
  size_t named_tests = 0;                 // tests with a variant that -n/-x keep
  size_t on_system = 0;                   // cases valid on the selected partitions, before -p
  size_t dropped_by_environ = 0;          // by -p
  size_t dropped_by_tag = 0;              // by -t
  size_t dropped_by_expr = 0;             // by -E: false, or could not be evaluated
  size_t expr_false = 0;                  // -E evaluated to false
  std::vector<std::string> expr_errors;   // distinct reasons -E failed on a case (at most 5)
  std::vector<std::string> expr_unknown;  // names -E reads that no case defines
  std::vector<std::string> expr_known;    // every name some case defines (for did-you-mean)
  size_t selected = 0;                    // before dependencies are added
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

// At most `max_cases` cases (general: max_cases): a test whose parameters
// alone make more is an error before any case is made, with the test's
// place; so is a suite whose cases on the partitions come to more.
constexpr size_t kDefaultMaxCases = 1000000;
Result<std::vector<TestCase>> ExpandCases(const TestSuite& suite, const std::vector<PartitionView>& partitions,
                                          const CaseFilter& filter, SelectionReport* report = nullptr,
                                          size_t max_cases = kDefaultMaxCases);

// Why the filters selected no case, for the error: which option matched
// nothing, with a did-you-mean from the loaded tags, test names and
// environments ("-t 'exmaple' matches no tag of the 12 loaded tests, did
// you mean 'example'?").
std::string ExplainEmptySelection(const TestSuite& suite, const std::vector<PartitionView>& partitions,
                                  const CaseFilter& filter, const SelectionReport& report);

}  // namespace hb
