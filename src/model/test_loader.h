// The test-file loader: reads YAML test files into TestSpecs.
//
// A file holds one or more tests: one mapping per YAML document (separated
// by `---`), or a document with a `tests:` list. `extends: BASE` copies
// every field of test BASE (from any loaded file) and lets the test
// override some; `abstract: true` marks a test that is only a base.
//
// Loading is all-or-nothing: the first problem (bad YAML, an unknown key, a
// wrong type, a bad duration, an invalid regex, an unknown placeholder, a
// duplicate name, an unknown base or dependency, a dependency cycle) is
// returned as one Status naming file:line:column and what was expected,
// and no spec is returned. The TestSuite owns its specs; pointers to them
// stay valid for its lifetime. Not thread-safe while loading.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "model/setvar.h"
#include "model/test_spec.h"
#include "util/status.h"

namespace hb {

struct TestSuite {
  std::vector<std::unique_ptr<TestSpec>> specs;  // load order, abstract ones included
  std::vector<std::string> files;
  // Files found in folders that were left out, each with why ("site.yaml:
  // a site configuration, not tests"), for `-v`.
  std::vector<std::string> skipped;

  const TestSpec* Find(const std::string& name) const;
};

struct LoadOptions {
  bool recursive = false;              // -R: descend into sub-folders of folders given
  std::vector<FieldOverride> setvars;  // -S (setvar.h)
};

// `paths` are files or folders (a folder contributes its *.yaml / *.yml).
// In folders, YAML files that are not tests are skipped (TestSuite::
// skipped): site configurations (a mapping with `systems` or
// `environments` and no `name`), Kubernetes objects and kubeconfigs
// (`apiVersion` and `kind`), and everything in a hetbench prefix's
// stage/, output/, perflogs/ and reports/ session folders. A file named
// on the command line is always read as tests.
Result<TestSuite> LoadTests(const std::vector<std::string>& paths, const LoadOptions& opts = {});

// Loads tests from YAML text (for tests and tools); `file` names it in messages.
Result<TestSuite> LoadTestsFromString(const std::string& text, const std::string& file, const LoadOptions& opts = {});

// The keys a test may use (for documentation and "did you mean").
const std::vector<std::string>& TestKeys();

}  // namespace hb
