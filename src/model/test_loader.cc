#include "model/test_loader.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "check/performance.h"
#include "check/reference.h"
#include "check/sanity.h"
#include "model/bind.h"
#include "model/field_merge.h"
#include "model/placeholder.h"
#include "model/test_fields.h"
#include "util/fs.h"
#include "util/strings.h"
#include "util/yaml_util.h"

namespace fs = std::filesystem;

namespace hb {

const TestSpec* TestSuite::Find(const std::string& name) const {
  for (const auto& s : specs)
    if (s->name == name) return s.get();
  return nullptr;
}

namespace {

// One test mapping as found in a file, before `extends` is applied.
struct RawTest {
  std::string name;
  YAML::Node node;
  std::string file;
  SourceMark mark;
};

// A folder hetbench writes under its prefix: stage/, output/, perflogs/
// or reports/ (the first two hold a folder per session,
// YYYYMMDDTHHMMSS-PID).
bool IsPrefixFolder(const fs::path& dir) {
  static const std::regex kSession(R"(\d{8}T\d{6}-\d+)");
  std::string name = dir.filename().string();
  std::string parent = dir.parent_path().filename().string();
  if ((parent == "stage" || parent == "output") && std::regex_match(name, kSession)) return true;
  if (name == "perflogs" || name == "reports") {
    std::error_code ec;
    // Only hetbench's: beside a stage/ or output/ folder.
    return fs::is_directory(dir.parent_path() / "stage", ec) || fs::is_directory(dir.parent_path() / "output", ec);
  }
  return false;
}

// Why a YAML file found in a folder is not tests, or "".
std::string NotTests(const std::vector<YAML::Node>& docs) {
  if (docs.empty()) return "";
  const YAML::Node& d = docs[0];
  if (!d.IsMap() || d["name"] || d["tests"]) return "";
  if (d["systems"] || d["environments"]) return "a site configuration, not tests";
  if (d["apiVersion"] && d["kind"]) return "a Kubernetes object or kubeconfig, not tests";
  return "";
}

// The files to read; those found in folders (not named) go in `found_in_folder`.
Result<std::vector<std::string>> CollectFiles(const std::vector<std::string>& paths, bool recursive,
                                              std::vector<std::string>* skipped,
                                              std::set<std::string>* found_in_folder) {
  std::vector<std::string> files;
  for (const auto& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<std::string> found;
      auto add = [&](const fs::directory_entry& e) {
        auto ext = e.path().extension().string();
        if (!e.is_regular_file() || (ext != ".yaml" && ext != ".yml")) return;
        found.push_back(e.path().string());
        found_in_folder->insert(e.path().string());
      };
      if (recursive) {
        for (auto it = fs::recursive_directory_iterator(p, ec); !ec && it != fs::recursive_directory_iterator();
             it.increment(ec)) {
          if (it->is_directory() && IsPrefixFolder(it->path())) {
            skipped->push_back(it->path().string() + "/: hetbench's own output, not tests");
            it.disable_recursion_pending();
            continue;
          }
          add(*it);
        }
      } else {
        for (const auto& e : fs::directory_iterator(p, ec)) add(e);
      }
      if (ec) return Status::Error("cannot read folder '" + p + "': " + ec.message());
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::exists(p, ec)) {
      files.push_back(p);
    } else {
      return Status::Error("test file or folder '" + p + "' does not exist");
    }
  }
  return files;
}

Status AddRawTest(const YAML::Node& n, const std::string& file, std::vector<RawTest>* out) {
  if (!n.IsMap())
    return Status::Error(MarkOf(n, file), "expected a test (a mapping with 'name:'), got " + YamlTypeName(n));
  Status st = CheckTestKeys(n, file);
  if (!st.ok()) return st;
  const YAML::Node name = n["name"];
  if (!name) return Status::Error(MarkOf(n, file), "this test has no 'name'");
  auto nm = YamlString(name, file, "name");
  if (!nm.ok()) return nm.status();
  static const std::string kOk = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-";
  if (nm->empty() || nm->find_first_not_of(kOk) != std::string::npos || std::isdigit((*nm)[0]))
    return Status::Error(
        MarkOf(name, file),
        "name: '" + *nm + "' is not a valid test name (start with a letter; letters, digits, _ and -)");
  out->push_back({*nm, n, file, MarkOf(name, file)});
  return Status::OK();
}

Status ReadDocuments(const std::vector<YAML::Node>& docs, const std::string& file, std::vector<RawTest>* out) {
  for (const auto& doc : docs) {
    if (doc.IsMap() && doc["tests"] && !doc["name"]) {
      const YAML::Node tests = doc["tests"];
      if (!tests.IsSequence())
        return Status::Error(MarkOf(tests, file), "tests: expected a list of tests, got " + YamlTypeName(tests));
      for (const auto& t : tests) {
        Status st = AddRawTest(t, file, out);
        if (!st.ok()) return st;
      }
      continue;
    }
    Status st = AddRawTest(doc, file, out);
    if (!st.ok()) return st;
  }
  return Status::OK();
}

// Merges the fields of `t` over those of its bases (extends chain).
Status MergeFields(const RawTest& t, const std::map<std::string, const RawTest*>& by_name,
                   std::vector<std::string>* chain, FieldMap* out) {
  chain->push_back(t.name);
  if (const YAML::Node ext = t.node["extends"]) {
    auto base_name = YamlString(ext, t.file, "extends");
    if (!base_name.ok()) return base_name.status();
    auto it = by_name.find(*base_name);
    if (it == by_name.end()) {
      std::vector<std::string> names;
      for (const auto& [n, r] : by_name) names.push_back(n);
      return Status::Error(MarkOf(ext, t.file),
                           "extends: there is no test named '" + *base_name + "'" + DidYouMean(*base_name, names));
    }
    if (std::find(chain->begin(), chain->end(), *base_name) != chain->end()) {
      chain->push_back(*base_name);
      return Status::Error(MarkOf(ext, t.file), "extends: cycle " + Join(*chain, " -> "));
    }
    Status st = MergeFields(*it->second, by_name, chain, out);
    if (!st.ok()) return st;
    out->erase("abstract");  // a base's abstract flag is not inherited
  }
  // Each field combines with the inherited one by its kind
  // (model/field_merge.h).
  FieldMap own;
  for (const auto& kv : t.node) own.emplace(kv.first.Scalar(), FieldNode{kv.first, kv.second, t.file});
  return MergeFieldsInto(own, out);
}

Status CheckDependencies(const TestSuite& suite) {
  std::map<std::string, const TestSpec*> by_name;
  std::vector<std::string> names;
  for (const auto& s : suite.specs) {
    by_name[s->name] = s.get();
    names.push_back(s->name);
  }
  for (const auto& s : suite.specs) {
    for (const auto& d : s->depends_on) {
      if (!by_name.count(d))
        return Status::Error(s->marks.at("depends_on"),
                             "depends_on: there is no test named '" + d + "'" + DidYouMean(d, names));
      if (d == s->name) return Status::Error(s->marks.at("depends_on"), "depends_on: a test cannot depend on itself");
      // ReFrame never makes a case of an abstract test, so a dependency on
      // one has nothing to wait for (it would otherwise run after all).
      if (by_name[d]->abstract)
        return Status::Error(s->marks.at("depends_on"),
                             "depends_on: '" + d +
                                 "' is abstract (abstract: true), so it never runs; depend on "
                                 "a test that extends it, or drop abstract: true from '" +
                                 d + "'");
    }
  }
  // Depth-first search for a cycle; colour 1 = on the current path.
  std::map<std::string, int> colour;
  std::vector<std::string> path;
  std::function<Status(const TestSpec*)> visit = [&](const TestSpec* s) -> Status {
    colour[s->name] = 1;
    path.push_back(s->name);
    for (const auto& d : s->depends_on) {
      if (colour[d] == 1) {
        auto start = std::find(path.begin(), path.end(), d);
        std::vector<std::string> cycle(start, path.end());
        cycle.push_back(d);
        return Status::Error(s->marks.at("depends_on"), "depends_on: dependency cycle " + Join(cycle, " -> "));
      }
      if (colour[d] == 0) {
        Status st = visit(by_name[d]);
        if (!st.ok()) return st;
      }
    }
    path.pop_back();
    colour[s->name] = 2;
    return Status::OK();
  };
  for (const auto& s : suite.specs) {
    if (colour[s->name] == 0) {
      Status st = visit(s.get());
      if (!st.ok()) return st;
    }
  }
  return Status::OK();
}

bool IsTestKey(const std::string& k) {
  const auto& keys = TestKeys();
  return std::find(keys.begin(), keys.end(), k) != keys.end();
}

// -S NAME=VALUE for a variable the test declares: kept for binding.
void TakeVariableSetvars(const std::vector<FieldOverride>& setvars, const std::string& test, SpecSource* src,
                         std::set<size_t>* used) {
  auto it = src->fields.find("variables");
  if (it == src->fields.end() || !it->second.value.IsMap()) return;
  for (size_t i = 0; i < setvars.size(); ++i) {
    const FieldOverride& o = setvars[i];
    if ((!o.test.empty() && o.test != test) || IsTestKey(o.field) || !it->second.value[o.field]) continue;
    src->variable_setvars[o.field] = o;
    used->insert(i);
  }
}

// The parameter values as written, for their types and mapping keys.
Status ReadParameterValues(const TestSpec& spec, SpecSource* src) {
  auto it = src->fields.find("parameters");
  if (it == src->fields.end() || !it->second.value.IsMap()) return Status::OK();
  for (const auto& [name, shown] : spec.parameters) {
    YAML::Node values = it->second.value[name];
    std::vector<YAML::Node> nodes;
    if (values.IsSequence()) {
      for (const auto& v : values) nodes.push_back(v);
    } else {
      nodes.push_back(values);
    }
    src->param_values.push_back(std::move(nodes));
  }
  return Status::OK();
}

// The loaded spec is the cases' template: its fields with placeholders are
// kept as written where they parse so (strings, lists); the others (an
// integer written '{n}') keep their defaults. Cases bind them all.
void ParseTemplatedFields(const SpecSource& src, TestSpec* spec) {
  for (const auto& key : src.templated) {
    TestSpec scratch = *spec;
    if (ParseTestField(key, src.fields.at(key), &scratch).ok()) *spec = std::move(scratch);
  }
}

Status CheckVariableNames(const TestSpec& spec) {
  for (const auto& v : spec.variables)
    for (const auto& [p, values] : spec.parameters)
      if (p == v.name) return Status::Error(v.mark, "variables: '" + v.name + "' is also a parameter of this test");
  return Status::OK();
}

// One overrides key token: sys, sys:part, *, +feature, -feature, env:NAME,
// sched:NAME or PARAM=VALUE.
Status CheckOverrideToken(const TestSpec& spec, const std::string& tok, const SourceMark& mark) {
  if (!IsParamToken(tok)) return Status::OK();
  std::string p = tok.substr(0, tok.find('='));
  std::vector<std::string> names;
  for (const auto& [n, v] : spec.parameters) names.push_back(n);
  if (std::find(names.begin(), names.end(), p) != names.end()) return Status::OK();
  return Status::Error(mark, "overrides: '" + tok + "': this test has no parameter '" + p + "'" +
                                 (names.empty() ? "" : " (it has: " + Join(names, ", ") + ")") + DidYouMean(p, names));
}

Status ReadOverrides(const TestSpec& spec, SpecSource* src) {
  auto it = src->fields.find("overrides");
  if (it == src->fields.end() || it->second.value.IsNull()) return Status::OK();
  const FieldNode& fn = it->second;
  if (!fn.value.IsMap())
    return Status::Error(
        MarkOf(fn.value, fn.file),
        "overrides: expected a mapping of 'system:partition': {field: value}, got " + YamlTypeName(fn.value));
  for (const auto& kv : fn.value) {
    OverrideEntry o;
    o.key = kv.first.Scalar();
    o.mark = MarkOf(kv.first, fn.file);
    std::istringstream words(o.key);
    for (std::string t; words >> t;) o.tokens.push_back(t);
    if (o.tokens.empty())
      return Status::Error(o.mark, "overrides: an empty key matches nothing; use '*' for every case");
    for (const auto& t : o.tokens) {
      Status st = CheckOverrideToken(spec, t, o.mark);
      if (!st.ok()) return st;
    }
    if (!kv.second.IsMap())
      return Status::Error(
          MarkOf(kv.second, fn.file),
          "overrides: '" + o.key + "': expected a mapping of test fields, got " + YamlTypeName(kv.second));
    Status st = CheckTestKeys(kv.second, fn.file);
    if (!st.ok()) return st.Prefixed("overrides: '" + o.key + "'");
    for (const auto& f : kv.second) o.fields.emplace(f.first.Scalar(), FieldNode{f.first, f.second, fn.file});
    src->overrides.push_back(std::move(o));
  }
  return Status::OK();
}

Result<TestSuite> BuildSuite(const std::vector<RawTest>& raws, std::vector<std::string> files,
                             const std::vector<FieldOverride>& setvars) {
  std::map<std::string, const RawTest*> by_name;
  for (const auto& r : raws) {
    auto [it, fresh] = by_name.emplace(r.name, &r);
    if (!fresh)
      return Status::Error(r.mark,
                           "duplicate test name '" + r.name + "' (first defined at " + it->second->mark.str() + ")");
  }
  TestSuite suite;
  suite.files = std::move(files);
  std::set<size_t> used;  // the -S overrides that applied
  for (const auto& r : raws) {
    auto src = std::make_shared<SpecSource>();
    std::vector<std::string> chain;
    Status st = MergeFields(r, by_name, &chain, &src->fields);
    if (!st.ok()) return st;
    ResolveListOps(&src->fields);
    TakeVariableSetvars(setvars, r.name, src.get(), &used);
    ApplySetvars(setvars, r.name, &src->fields, &used);
    for (const auto& o : setvars)
      if ((o.test.empty() || o.test == r.name) && IsTestKey(o.field)) src->setvars.push_back(o);
    auto spec = std::make_unique<TestSpec>();
    spec->name = r.name;
    spec->file = AbsPath(r.file);
    spec->mark = r.mark;
    if (const YAML::Node ext = r.node["extends"]) spec->extends = ext.Scalar();
    // ReFrame's default: a `src` folder beside the test file.
    std::string src_dir = JoinPath(DirName(spec->file), "src");
    if (PathExists(src_dir)) spec->sourcesdir = src_dir;
    src->templated = TemplatedFields(src->fields);
    st = ParseTestFields(src->fields, spec.get(), src->templated);
    if (st.ok()) st = ReadParameterValues(*spec, src.get());
    if (st.ok()) st = CheckVariableNames(*spec);
    if (st.ok()) st = ReadOverrides(*spec, src.get());
    if (st.ok()) ParseTemplatedFields(*src, spec.get());
    // With placeholders or overrides, required fields and checks are
    // checked per case, after binding.
    bool per_case = !src->templated.empty() || !src->overrides.empty();
    if (st.ok()) st = FinishTestSpec(spec.get(), !per_case);
    if (st.ok() && !per_case) st = CheckTestChecks(*spec);
    if (st.ok()) st = PrepareSource(*spec, src.get());
    if (!st.ok()) return st;
    src->tmpl = spec.get();
    spec->source = std::move(src);
    suite.specs.push_back(std::move(spec));
  }
  std::vector<std::string> names;
  for (const auto& r : raws) names.push_back(r.name);
  Status st = CheckSetvarsUsed(setvars, used, names);
  if (st.ok()) st = CheckDependencies(suite);
  if (!st.ok()) return st;
  return suite;
}

}  // namespace

Result<TestSuite> LoadTests(const std::vector<std::string>& paths, const LoadOptions& opts) {
  std::vector<std::string> skipped;
  std::set<std::string> in_folder;
  auto files = CollectFiles(paths, opts.recursive, &skipped, &in_folder);
  if (!files.ok()) return files.status();
  std::vector<RawTest> raws;
  std::vector<std::string> read;
  for (const auto& f : *files) {
    auto docs = LoadYamlFile(f);
    if (!docs.ok()) return docs.status();
    if (in_folder.count(f)) {
      std::string why = NotTests(*docs);
      if (!why.empty()) {
        skipped.push_back(f + ": " + why);
        continue;
      }
    }
    read.push_back(f);
    Status st = ReadDocuments(*docs, f, &raws);
    if (!st.ok()) return st;
  }
  auto suite = BuildSuite(raws, read, opts.setvars);
  if (suite.ok()) suite->skipped = std::move(skipped);
  return suite;
}

Result<TestSuite> LoadTestsFromString(const std::string& text, const std::string& file, const LoadOptions& opts) {
  auto docs = LoadYamlString(text, file);
  if (!docs.ok()) return docs.status();
  std::vector<RawTest> raws;
  Status st = ReadDocuments(*docs, file, &raws);
  if (!st.ok()) return st;
  return BuildSuite(raws, {file}, opts.setvars);
}

}  // namespace hb
