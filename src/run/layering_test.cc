// Only src/sched and src/k8s know how a scheduler is spoken to. Above
// them, the executor, remote detection, the launchers and the command line
// ask a backend's SchedulerTraits (sched/scheduler_factory.h); none of them
// compares a partition's scheduler with a name or keeps a list of backend
// names. This test reads their sources and fails on any line that does.
#include <dirent.h>

#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "util/fs.h"
#include "util/strings.h"

namespace hb {
namespace {

// What a backend name test looks like.
const std::vector<std::pair<std::string, std::regex>>& Patterns() {
  static const std::string kNames = "(local|slurm|squeue|pbs|pbspro|torque|sge|k8s|kubernetes|lsf|flux|oar)";
  static const std::vector<std::pair<std::string, std::regex>> kPatterns = {
      {"a comparison with `scheduler`", std::regex(R"(scheduler\s*(==|!=))")},
      {"a comparison with `scheduler`", std::regex(R"((==|!=)\s*[A-Za-z_>.\-]*scheduler\b)")},
      {"a backend predicate", std::regex(R"(\bIs(Slurm|Squeue|Pbs|Torque|Sge|Kubernetes|K8s|Local)(Scheduler)?\s*\()")},
      {"a comparison with a backend name", std::regex("(==|!=)\\s*\"" + kNames + "\"")},
      {"a comparison with a backend name", std::regex("\"" + kNames + "\"\\s*(==|!=)")},
      {"a list of backend names", std::regex("\"" + kNames + "\"\\s*,\\s*\"" + kNames + "\"")},
  };
  return kPatterns;
}

// "file:line: what: text" for every offending line of one source file.
std::vector<std::string> Offences(const std::string& path, const std::string& text) {
  std::vector<std::string> out;
  std::vector<std::string> lines = Split(text, '\n');
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string code = lines[i].substr(0, lines[i].find("//"));  // comments may name backends
    for (const auto& [what, re] : Patterns())
      if (std::regex_search(code, re)) {
        out.push_back(path + ":" + std::to_string(i + 1) + ": " + what + ": " + Trim(lines[i]));
        break;
      }
  }
  return out;
}

TEST(Layering, ThePatternsCatchWhatTheyAreFor) {
  for (const char* bad : {R"(bool k = p.scheduler == "k8s";)", R"(if ("local" != part->scheduler) {)",
                          R"(bool IsSlurm(const std::string& s);)", R"(if (IsKubernetes(part)))",
                          R"(for (const char* n : {"k8s", "kubernetes"}))", R"(return name == "torque";)",
                          R"(if (t.part->scheduler != name) {)"})
    EXPECT_EQ(Offences("x.cc", bad).size(), 1u) << bad;
  for (const char* fine : {R"(// scheduler == "k8s" in a comment)", R"(auto b = FindSchedulerBackend(p.scheduler);)",
                           R"(if (traits.on_this_host) {)", R"(std::string name() const override { return "k8s"; })"})
    EXPECT_TRUE(Offences("x.cc", fine).empty()) << fine;
}

TEST(Layering, NoBackendNameAboveTheSchedulers) {
  std::vector<std::string> offences;
  int files = 0;
  for (const char* dir : {"src/run", "src/launch", "src/cli"}) {
    std::string folder = JoinPath(HB_SOURCE_DIR, dir);
    DIR* d = opendir(folder.c_str());
    ASSERT_NE(d, nullptr) << folder;
    while (dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (!(EndsWith(name, ".cc") || EndsWith(name, ".h")) || EndsWith(name, "_test.cc")) continue;
      auto text = ReadFile(JoinPath(folder, name));
      ASSERT_TRUE(text.ok()) << text.status().str();
      ++files;
      for (auto& o : Offences(std::string(dir) + "/" + name, *text)) offences.push_back(o);
    }
    closedir(d);
  }
  EXPECT_GT(files, 20);
  EXPECT_TRUE(offences.empty()) << "ask the backend's SchedulerTraits (sched/scheduler_factory.h) instead:\n"
                                << Join(offences, "\n");
}

}  // namespace
}  // namespace hb
