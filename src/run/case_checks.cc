#include "run/case_checks.h"

#include <glob.h>

#include <filesystem>
#include <map>

#include "check/performance.h"
#include "model/bind.h"
#include "util/fs.h"
#include "util/regex.h"
#include "util/strings.h"

namespace hb {

PerfOutcome CheckPerformance(const TestSpec& s, const TestCase& tc, const Partition& part, const CheckInput& in) {
  PerfOutcome out;
  std::map<std::string, double> values;
  std::map<std::string, Result<double>> got;
  for (const PerfSpec& ps : s.performance) {
    if (!ps.expr.empty()) continue;
    auto v = ExtractPerf(ps, in);
    if (Regex::ScanInterrupted(v.status())) {
      out.interrupted = true;
      return out;
    }
    if (v.ok()) values[ps.name] = *v;
    got.emplace(ps.name, v);
  }
  for (bool progress = true; progress;) {
    progress = false;
    for (const PerfSpec& ps : s.performance) {
      if (ps.expr.empty() || values.count(ps.name)) continue;
      auto v = EvaluateDerived(ps, values, *tc.names);
      if (!v.ok()) continue;
      values[ps.name] = *v;
      progress = true;
    }
  }
  for (const PerfSpec& ps : s.performance)
    if (!ps.expr.empty())
      got.emplace(ps.name,
                  values.count(ps.name) ? Result<double>(values[ps.name]) : EvaluateDerived(ps, values, *tc.names));
  for (const PerfSpec& ps : s.performance) {
    const auto& v = got.at(ps.name);
    if (!v.ok()) {
      if (out.failure.empty()) out.failure = v.status().message();
      continue;
    }
    auto ref = FindReference(s.reference, tc.system, tc.partition, ps.name, part.aliases);
    PerfResult pr = EvaluateReference(ps.name, *v, ps.unit, ref);
    pr.figure_of_merit = ps.figure_of_merit;
    pr.better = ps.better;
    if (pr.verdict == "fail" && out.failure.empty()) out.failure = pr.message;
    out.perf.push_back(std::move(pr));
  }
  return out;
}

std::vector<std::string> KeepFiles(const std::string& stagedir, const std::string& outputdir,
                                   const std::vector<std::string>& patterns) {
  std::vector<std::string> notes;
  for (const auto& pattern : patterns) {
    std::string full = JoinPath(stagedir, pattern);
    glob_t g{};
    if (glob(full.c_str(), 0, nullptr, &g) == 0) {
      for (size_t i = 0; i < g.gl_pathc; ++i) {
        std::string p = g.gl_pathv[i];
        if (!StartsWith(p, stagedir + "/") || !IsWithin(p, stagedir)) {
          notes.push_back("not keeping '" + p + "': it is not inside the stage folder " + stagedir);
          continue;
        }
        std::string rel = p.substr(stagedir.size() + 1);
        auto dest = SafeJoin(outputdir, rel);
        Status st = dest.ok() ? MakeDirs(DirName(*dest)) : dest.status();
        if (!st.ok()) {
          notes.push_back("not keeping '" + rel + "': " + st.message());
          continue;
        }
        std::error_code ec;
        std::filesystem::copy(
            p, *dest, std::filesystem::copy_options::recursive | std::filesystem::copy_options::overwrite_existing, ec);
        if (ec) notes.push_back("could not keep '" + rel + "': " + ec.message());
      }
    }
    globfree(&g);
  }
  return notes;
}

}  // namespace hb
