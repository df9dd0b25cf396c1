// End to end: `run --ci-generate`, `-S/--setvar` and `--mode`.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "e2e_util.h"

namespace {

const char* kDeps = R"(
name: prepare
executable: echo
executable_opts: [prepared]
sanity: [{exit_code: 0}]
---
name: compute
parameters:
  n: [1, 2]
executable: echo
executable_opts: ['value {n}']
depends_on: [prepare]
performance:
  value: {pattern: 'value (\S+)', group: 1, unit: s}
sanity: [{exit_code: 0}]
---
name: summary
executable: echo
depends_on: [{test: compute, variants: all}]
sanity: [{exit_code: 0}]
)";

// Checks a GitLab pipeline: YAML, stages in order, each job's stage known,
// needs naming earlier jobs, names unique and at most 255 characters.
const char* kCheck = R"(
import sys, yaml
class Unique(yaml.SafeLoader):
    pass
def mapping(loader, node):
    keys = [loader.construct_object(k) for k, _ in node.value]
    assert len(keys) == len(set(keys)), 'duplicate keys'
    return loader.construct_mapping(node)
Unique.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
p = yaml.load(open(sys.argv[1]), Loader=Unique)
stages = p['stages']
jobs = {k: v for k, v in p.items() if k != 'stages'}
assert stages == ['hb-stage-%d' % i for i in range(len(stages))], stages
for name, job in jobs.items():
    assert len(name) <= 255 and not name.startswith('.'), name
    level = stages.index(job['stage'])
    for need in job['needs']:
        assert need in jobs, (name, need)
        assert stages.index(jobs[need]['stage']) < level, (name, need)
    assert job['script'] and job['artifacts']['reports']['junit']
print('OK', len(stages), len(jobs))
)";

std::string BinDir() {
  std::string bin = HETBENCH_BIN;
  return bin.substr(0, bin.rfind('/'));
}

TEST(CliE2E, CiGenerateWritesAValidPipelineWhoseJobsRun) {
  std::string dir = TempDir();
  Write(dir + "/t.yaml", kDeps);
  Write(dir + "/check.py", kCheck);
  auto o = Hetbench({"run", "-c", "t.yaml", "-S", "summary.executable_opts=done", "--ci-generate", "child.yml"}, dir);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("Wrote a GitLab CI child pipeline with 4 jobs to child.yml"), std::string::npos) << o.out;
  EXPECT_FALSE(Exists(dir + "/reports")) << "--ci-generate runs nothing";
  EXPECT_EQ(e2e::Shell("/usr/bin/python3 " + dir + "/check.py " + dir + "/child.yml 2>&1"), "OK 3 4\n");
  // Run the last stage's job as GitLab would (hetbench on PATH).
  std::string script = e2e::Shell("/usr/bin/python3 -c \"import yaml; p = yaml.safe_load(open('" + dir +
                                  "/child.yml')); print(p['summary@generic:default+builtin']['script'][0])\"");
  ASSERT_NE(script.find("-S summary.executable_opts=done"), std::string::npos) << script;
  e2e::Shell("cd " + dir + " && PATH=" + BinDir() + ":$PATH " + script + " >job.out 2>&1");
  ASSERT_TRUE(Exists(dir + "/summary@generic:default+builtin-report.json")) << Read(dir + "/job.out");
  auto rep = nlohmann::json::parse(Read(dir + "/summary@generic:default+builtin-report.json"));
  bool summary_passed = false;
  for (const auto& c : rep["cases"]) summary_passed |= c["name"] == "summary" && c["result"] == "pass";
  EXPECT_TRUE(summary_passed) << rep.dump();
  EXPECT_TRUE(Exists(dir + "/summary@generic:default+builtin-report.xml"));
}

TEST(CliE2E, CiGenerateRefusesCyclesAndUnknownDependencies) {
  std::string dir = TempDir();
  Write(dir + "/cycle.yaml",
        "name: a\nexecutable: echo\ndepends_on: [b]\nsanity: [{exit_code: 0}]\n---\nname: b\nexecutable: "
        "echo\ndepends_on: [a]\nsanity: [{exit_code: 0}]\n");
  auto o = Hetbench({"run", "-c", "cycle.yaml", "--ci-generate", "child.yml"}, dir);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("dependency cycle"), std::string::npos) << o.err;
  EXPECT_FALSE(Exists(dir + "/child.yml"));
  Write(dir + "/unknown.yaml", "name: a\nexecutable: echo\ndepends_on: [nope]\nsanity: [{exit_code: 0}]\n");
  o = Hetbench({"run", "-c", "unknown.yaml", "--ci-generate", "child.yml"}, dir);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("depends_on: there is no test named 'nope'"), std::string::npos) << o.err;
  EXPECT_FALSE(Exists(dir + "/child.yml"));
  // A dependency with no case in the case's environment.
  Write(dir + "/env.yaml",
        "name: a\nexecutable: echo\nvalid_prog_environs: [intel]\nsanity: [{exit_code: 0}]\n---\n"
        "name: b\nexecutable: echo\ndepends_on: [a]\nsanity: [{exit_code: 0}]\n");
  o = Hetbench({"run", "-c", "env.yaml", "--ci-generate", "child.yml"}, dir);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("--ci-generate: case 'b@generic:default+builtin' depends on a"), std::string::npos) << o.err;
  EXPECT_FALSE(Exists(dir + "/child.yml"));
}

const char* kGreet = R"(
name: greet
executable: sh
executable_opts: ['-c', '"echo $GREETING x{n}"']
parameters:
  n: [1]
env_vars: {GREETING: hello}
sanity: [{exit_code: 0}]
)";

std::string JobOutputs(const std::string& dir) {
  std::string all;
  for (const auto& f : e2e::Find(dir + "/output", "hb_job.out")) all += Read(f);
  return all;
}

TEST(CliE2E, SetvarOverridesFieldsAndParameters) {
  std::string dir = TempDir();
  Write(dir + "/t.yaml", kGreet);
  auto o = Hetbench(
      {"run", "-c", "t.yaml", "-S", "env_vars=GREETING:bonjour", "-S", "greet.n=7,8", "--keep-stage-files"}, dir);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  std::string out = JobOutputs(dir);
  EXPECT_NE(out.find("bonjour x7"), std::string::npos) << out;
  EXPECT_NE(out.find("bonjour x8"), std::string::npos) << out;
  EXPECT_EQ(out.find("hello"), std::string::npos) << out;

  o = Hetbench({"run", "-c", "t.yaml", "-S", "num_tasks=many"}, dir);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("-S num_tasks=many: num_tasks expects an integer, got 'many'"), std::string::npos) << o.err;
  o = Hetbench({"list", "-c", "t.yaml", "-S", "greeting=x"}, dir);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("-S greeting=x: no test has a field or parameter named 'greeting'"), std::string::npos) << o.err;
}

TEST(CliE2E, ModeOptionsApplyAndTheCommandLineWins) {
  std::string dir = TempDir();
  Write(dir + "/t.yaml", kGreet);
  Write(dir + "/site.yaml", e2e::LocalSite(R"(
modes:
  - name: nightly
    options: ['--report-file=mode.json', '-S env_vars=GREETING:nightly', '--keep-stage-files']
)"));
  auto o = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml", "--mode", "nightly"}, dir);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_TRUE(Exists(dir + "/mode.json"));
  EXPECT_NE(JobOutputs(dir).find("nightly x1"), std::string::npos) << JobOutputs(dir);

  std::string dir2 = TempDir();
  Write(dir2 + "/t.yaml", kGreet);
  Write(dir2 + "/site.yaml", Read(dir + "/site.yaml"));
  o = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml", "--mode=nightly", "--report-file", "cli.json", "-S",
                "env_vars=GREETING:cli"},
               dir2);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_TRUE(Exists(dir2 + "/cli.json"));
  EXPECT_FALSE(Exists(dir2 + "/mode.json"));
  EXPECT_NE(JobOutputs(dir2).find("cli x1"), std::string::npos) << JobOutputs(dir2);

  o = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml", "--mode", "nighly"}, dir2);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("no mode 'nighly', did you mean 'nightly'?"), std::string::npos) << o.err;
}

}  // namespace
