// Binding: turns a TestSpec as loaded (a template) into the concrete
// TestSpec of one TestCase. Bind once, completely (docs/design.md):
//
//   1. the `overrides` entries that match the case (its partition, its
//      environment, its scheduler, its parameter values) are merged into
//      the test's fields, in file order, as `extends` merges a child
//      (model/field_merge.h); then -S values are applied again, so they win;
//   2. every string anywhere in every field, at any depth (user manifests,
//      the `k8s` block, extra_resources, build and container settings,
//      sanity and performance patterns...) has its placeholders replaced
//      (model/template.h, model/expr.h). A field that is exactly one
//      placeholder keeps the value's type, so `num_tasks: '{n // 4}'` is an
//      integer and `replicas: '{n}'` in a manifest a number;
//   3. the changed fields are parsed again, by the same code as at load,
//      so a wrong result type is the usual error ("num_tasks: expected an
//      integer"), at the field's file:line:column, with the case named.
//
// Values known only when a case runs ({stagedir}, {outputdir}, {prefix},
// {session}, {repetition}, {deps.TEST.stagedir|outputdir}) are left as
// written by BindCase and filled in by BindForRun, which the executor
// calls when the case starts, before any file or scheduler sees the case.
//
// Shell text (executable, executable_opts, prerun/postrun_cmds, env_vars,
// launcher_options, build command lists, a container's command) gets each
// substituted value quoted for the shell, so values reach the job literally.
//
// Pure functions over immutable inputs; thread-compatible.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/expr.h"
#include "model/setvar.h"
#include "model/template.h"
#include "model/test_fields.h"
#include "model/test_spec.h"
#include "util/status.h"

namespace hb {

struct PartitionView;
struct EnvironView;

// One entry of a test's `overrides` mapping.
struct OverrideEntry {
  std::string key;                  // as written: 'archer2:* env:gnu'
  std::vector<std::string> tokens;  // space-separated, all must hold
  FieldMap fields;                  // the entry's test fields
  SourceMark mark;
};

// What binding needs of a test beyond its parsed fields. Built by the
// loader, immutable afterwards, shared by the spec and its bound copies.
struct SpecSource {
  const TestSpec* tmpl = nullptr;  // the spec as loaded (owned by the suite)
  FieldMap fields;                 // merged through `extends`, -S applied
  std::vector<OverrideEntry> overrides;
  std::vector<FieldOverride> setvars;                               // -S of fields, applied after overrides
  std::map<std::string, FieldOverride> variable_setvars;            // -S of variables
  std::vector<std::vector<YAML::Node>> param_values;                // each parameter's values as written
  std::set<std::string> templated;                                  // fields holding brace text
  std::set<std::string> known;                                      // every name a placeholder of this test may use
  std::unordered_map<std::string, std::vector<TemplateRef>> scans;  // brace text -> its refs
  bool uses_run_values = false;                                     // some placeholder names a run-time value

  bool IsKnown(const std::string& name) const;
  // The refs of one string (cached at load).
  std::vector<TemplateRef> Scan(const std::string& text) const;
};

// The typed names a case's placeholders and derived performance variables
// read: parameters (and `p.key` of mapping values), variables, the case's
// identity (name, display_name, system, partition, environ) and the
// partition's processor.* and devices.* values.
struct CaseNames {
  std::map<std::string, Value> values;
};

// Values known only when the case runs.
struct RunValues {
  std::string stagedir, outputdir, prefix, session;
  int repetition = 0;
  // dependency test name -> (stagedir, outputdir)
  std::map<std::string, std::pair<std::string, std::string>> deps;
  // The partition's processor.* and devices.* names as they are now
  // (remote_detect may have found them after loading).
  std::shared_ptr<const std::map<std::string, Value>> partition;
};

// Names of run-time values, and whether `name` is one.
bool IsRunName(const std::string& name);

// The fields that hold brace text (those parsed per case, after binding).
std::set<std::string> TemplatedFields(const FieldMap& fields);

// Fills the loader's part of `src` (templated fields, known names, scans)
// and checks every placeholder of a concrete test: an unknown name is an
// error at its file:line:column, with a did-you-mean.
Status PrepareSource(const TestSpec& spec, SpecSource* src);

// True when an overrides key token is PARAM=VALUE (the value may hold ':').
bool IsParamToken(const std::string& tok);
// True when every token of an overrides key holds for the case.
bool OverrideMatches(const OverrideEntry& o, const PartitionView& p, const EnvironView& e, const TestCase& c);

// Binds case `c` (its spec, params and param_index set by the expander)
// on partition `p` in environment `e`: sets c->overrides, c->names,
// c->loggable and c->spec (the bound spec). Errors name the field's
// file:line:column and the case.
Status BindCase(const TestSpec& tmpl, const PartitionView& p, const EnvironView& e, TestCase* c);

// The case's spec with the run-time values bound too (the spec itself when
// the test uses none).
Result<std::shared_ptr<const TestSpec>> BindForRun(const TestCase& c, const RunValues& run);

// The case's test-file fields as bound (overrides, -S, placeholders; the
// run-time ones left as written), for `hetbench list --describe`. The
// fixed fields (name, parameters, valid_systems...) are not included.
Result<FieldMap> BoundFields(const TestCase& c);

// `text` with its placeholders filled from the case's names (parameters,
// variables, identity), e.g. a depends_on entry 'gen %n={n}'.
Result<std::string> BindText(const std::string& text, const TestCase& c);

// The value of `name` in a bound case, as `-E` and `skip_if` read it: the
// case's names (parameters, variables, name, display_name, system,
// partition, environ, processor.*, devices.*), then the bound fields
// num_tasks, num_tasks_per_node, num_cpus_per_task, num_gpus_per_node,
// executable and sourcesdir. nullopt for any other name.
std::optional<Value> CaseValue(const TestCase& c, const std::string& name);
// Every name CaseValue knows for `c` (for did-you-mean).
std::vector<std::string> CaseValueNames(const TestCase& c);

// The value of a derived performance variable (PerfSpec::expr) from the
// values extracted so far (by name) and the case's names. Inputs that are
// missing (their extraction failed) are named in the error.
Result<double> EvaluateDerived(const PerfSpec& p, const std::map<std::string, double>& values, const CaseNames& names);

}  // namespace hb
