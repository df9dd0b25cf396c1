#include "model/test_loader.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <set>

#include "check/performance.h"
#include "check/reference.h"
#include "check/sanity.h"
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

Result<std::vector<std::string>> CollectFiles(const std::vector<std::string>& paths, bool recursive) {
  std::vector<std::string> files;
  for (const auto& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<std::string> found;
      auto add = [&](const fs::directory_entry& e) {
        auto ext = e.path().extension().string();
        if (e.is_regular_file() && (ext == ".yaml" || ext == ".yml")) found.push_back(e.path().string());
      };
      if (recursive) {
        for (const auto& e : fs::recursive_directory_iterator(p, ec)) add(e);
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
    return Status::Error(MarkOf(name, file),
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
  // Erase then emplace: assigning over a FieldNode would assign its
  // YAML::Node members, which yaml-cpp does by rewriting the node they refer
  // to, i.e. the base test's own field, seen again by the next test that
  // extends the same base.
  for (const auto& kv : t.node) {
    out->erase(kv.first.Scalar());
    out->emplace(kv.first.Scalar(), FieldNode{kv.first, kv.second, t.file});
  }
  return Status::OK();
}

// Fields whose strings may hold placeholders.
const std::set<std::string> kPlaceholderFields = {
    "executable", "executable_opts", "env_vars", "prerun_cmds", "postrun_cmds", "build_system", "keep_files",
    "job_options", "launcher_options", "modules", "sanity", "performance", "extra_resources", "image"};

Status CheckPlaceholdersIn(const YAML::Node& n, const std::string& file, const std::string& field,
                           const std::vector<std::string>& known) {
  if (n.IsScalar()) {
    for (const auto& ref : FindPlaceholders(n.Scalar())) {
      if (std::find(known.begin(), known.end(), ref.name) != known.end()) continue;
      SourceMark m = MarkOf(n, file);
      std::string hint = DidYouMean(ref.name, known);
      if (StartsWith(ref.name, "deps."))
        hint = "; a dependency's folders are {deps.TEST.stagedir} and {deps.TEST.outputdir} for a TEST in depends_on";
      return Status::Error(m, field + ": unknown placeholder '{" + ref.name + "}'" + hint +
                                  " (write {{ and }} for literal braces)");
    }
    return Status::OK();
  }
  if (n.IsMap()) {
    for (const auto& kv : n) {
      Status st = CheckPlaceholdersIn(kv.second, file, field, known);
      if (!st.ok()) return st;
    }
  } else if (n.IsSequence()) {
    for (const auto& item : n) {
      Status st = CheckPlaceholdersIn(item, file, field, known);
      if (!st.ok()) return st;
    }
  }
  return Status::OK();
}

Status CheckPlaceholders(const FieldMap& fields, const TestSpec& spec) {
  std::vector<std::string> known = BuiltinPlaceholders();
  for (const auto& [p, v] : spec.parameters) known.push_back(p);
  for (const auto& d : spec.depends_on) {
    known.push_back("deps." + d + ".stagedir");
    known.push_back("deps." + d + ".outputdir");
  }
  for (const auto& [key, fn] : fields) {
    if (!kPlaceholderFields.count(key)) continue;
    Status st = CheckPlaceholdersIn(fn.value, fn.file, key, known);
    if (!st.ok()) return st;
  }
  return Status::OK();
}

Status CheckChecks(const TestSpec& spec) {
  for (const auto& s : spec.sanity) {
    Status st = ValidateSanitySpec(s);
    if (!st.ok()) return st;
  }
  std::vector<std::string> vars;
  for (const auto& p : spec.performance) {
    Status st = ValidatePerfSpec(p);
    if (!st.ok()) return st;
    vars.push_back(p.name);
  }
  for (const auto& [key, refs] : spec.reference) {
    for (const auto& [var, ref] : refs) {
      if (std::find(vars.begin(), vars.end(), var) == vars.end()) {
        auto it = spec.marks.find("reference:" + key + ":" + var);
        SourceMark m = it != spec.marks.end() ? it->second : ref.mark;
        std::string known = vars.empty() ? "the test defines none" : "defined: " + Join(vars, ", ");
        return Status::Error(m, "reference: '" + var + "' is not a performance variable of this test (" + known + ")" +
                                    DidYouMean(var, vars));
      }
      Status st = ValidateReference(ref);
      if (!st.ok()) return st;
    }
  }
  return Status::OK();
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

Result<TestSuite> BuildSuite(const std::vector<RawTest>& raws, std::vector<std::string> files,
                             const std::vector<FieldOverride>& setvars) {
  std::map<std::string, const RawTest*> by_name;
  for (const auto& r : raws) {
    auto [it, fresh] = by_name.emplace(r.name, &r);
    if (!fresh)
      return Status::Error(r.mark, "duplicate test name '" + r.name + "' (first defined at " +
                                       it->second->mark.str() + ")");
  }
  TestSuite suite;
  suite.files = std::move(files);
  std::set<size_t> used;  // the -S overrides that applied
  for (const auto& r : raws) {
    FieldMap fields;
    std::vector<std::string> chain;
    Status st = MergeFields(r, by_name, &chain, &fields);
    if (!st.ok()) return st;
    ApplySetvars(setvars, r.name, &fields, &used);
    auto spec = std::make_unique<TestSpec>();
    spec->name = r.name;
    spec->file = AbsPath(r.file);
    spec->mark = r.mark;
    if (const YAML::Node ext = r.node["extends"]) spec->extends = ext.Scalar();
    // ReFrame's default: a `src` folder beside the test file.
    std::string src = JoinPath(DirName(spec->file), "src");
    if (PathExists(src)) spec->sourcesdir = src;
    st = ParseTestFields(fields, spec.get());
    if (st.ok()) st = CheckPlaceholders(fields, *spec);
    if (st.ok()) st = CheckChecks(*spec);
    if (!st.ok()) return st;
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
  auto files = CollectFiles(paths, opts.recursive);
  if (!files.ok()) return files.status();
  std::vector<RawTest> raws;
  for (const auto& f : *files) {
    auto docs = LoadYamlFile(f);
    if (!docs.ok()) return docs.status();
    Status st = ReadDocuments(*docs, f, &raws);
    if (!st.ok()) return st;
  }
  return BuildSuite(raws, *files, opts.setvars);
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
