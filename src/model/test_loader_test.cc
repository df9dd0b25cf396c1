#include "model/test_loader.h"

#include <gtest/gtest.h>

#include "model/expand.h"

namespace hb {
namespace {

Status LoadError(const std::string& yaml) {
  auto r = LoadTestsFromString(yaml, "t.yaml");
  EXPECT_FALSE(r.ok()) << "expected an error for:\n" << yaml;
  return r.status();
}

TEST(TestLoader, LoadsAFullTest) {
  auto r = LoadTestsFromString(R"(
name: stream
descr: STREAM triad bandwidth
tags: [memory, quick]
maintainers: [me]
valid_systems: ['*']
valid_prog_environs: ['builtin']
parameters:
  threads: [1, 2]
build_system: {type: SingleSource, source: stream.c, cflags: ['-O3', '-fopenmp']}
executable_opts: ['-n', '{threads}']
env_vars: {OMP_NUM_THREADS: '{threads}'}
time_limit: 1h30m
exclusive: true
num_tasks: 4
extra_resources: {gpu: {num_gpus_per_node: 2}}
sanity:
  - {pattern: 'Solution Validates', in: stdout}
  - {not_pattern: 'ERROR', in: stderr}
  - {pattern: 'wrong: (\d+)', group: 1, type: int, eq: 0}
  - {pattern: 'x', count: {ge: 2}}
  - {exit_code: [0, 3]}
performance:
  triad: {pattern: 'Triad:\s+(\S+)', group: 1, type: float, reduce: max, unit: MB/s}
reference:
  'hpcsite:compute': {triad: [200000, -0.05, null, MB/s]}
  '*': {triad: [1000, -0.9, null]}
)",
                               "t.yaml");
  ASSERT_TRUE(r.ok()) << r.status().str();
  ASSERT_EQ(r->specs.size(), 1u);
  const TestSpec& s = *r->specs[0];
  EXPECT_EQ(s.name, "stream");
  EXPECT_EQ(s.executable, "./stream");  // SingleSource default
  EXPECT_EQ(s.valid_prog_environs, std::vector<std::string>{"builtin"});
  ASSERT_EQ(s.parameters.size(), 1u);
  EXPECT_EQ(s.parameters[0].second, (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(*s.time_limit_s, 5400);
  EXPECT_TRUE(s.exclusive_access);
  EXPECT_EQ(s.num_tasks, 4);
  EXPECT_EQ(s.extra_resources.at("gpu").at("num_gpus_per_node"), "2");
  ASSERT_EQ(s.sanity.size(), 5u);
  EXPECT_EQ(s.sanity[1].kind, SanitySpec::Kind::kNotPattern);
  EXPECT_EQ(s.sanity[2].value_checks[0].op, "eq");
  EXPECT_EQ(s.sanity[3].count_checks[0].op, "ge");
  EXPECT_EQ(s.sanity[4].exit_codes, (std::vector<int>{0, 3}));
  ASSERT_EQ(s.performance.size(), 1u);
  EXPECT_EQ(s.performance[0].reduce, "max");
  ASSERT_EQ(s.reference.size(), 2u);
  EXPECT_EQ(s.reference[0].second.at("triad").value, 200000);
  EXPECT_FALSE(s.reference[0].second.at("triad").upper.has_value());
  EXPECT_EQ(*s.reference[0].second.at("triad").lower, -0.05);
}

TEST(TestLoader, ValidEnvironsIsAnAlias) {
  auto r = LoadTestsFromString("name: a\nexecutable: x\nvalid_environs: [gnu]\nsanity: [{exit_code: 0}]\n", "t.yaml");
  ASSERT_TRUE(r.ok()) << r.status().str();
  EXPECT_EQ(r->specs[0]->valid_prog_environs, std::vector<std::string>{"gnu"});
}

TEST(TestLoader, ExtendsInheritsAndOverrides) {
  auto r = LoadTestsFromString(R"(
name: resnet_base
abstract: true
executable: train
executable_opts: [--epochs, '2']
tags: [ml]
sanity: [{exit_code: 0}]
---
name: resnet_gpu
extends: resnet_base
num_gpus_per_node: 4
executable_opts: [--epochs, '4']
)",
                               "t.yaml");
  ASSERT_TRUE(r.ok()) << r.status().str();
  const TestSpec* gpu = r->Find("resnet_gpu");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->executable, "train");
  EXPECT_EQ(gpu->tags, std::vector<std::string>{"ml"});
  EXPECT_EQ(gpu->executable_opts[1], "4");
  EXPECT_EQ(gpu->num_gpus_per_node, 4);
  EXPECT_FALSE(gpu->abstract);
  EXPECT_TRUE(r->Find("resnet_base")->abstract);
}

// One test's override of a base field must not leak into a sibling that
// extends the same base (yaml-cpp's Node assignment rewrites the node).
TEST(TestLoader, OverridesDoNotLeakIntoSiblings) {
  auto r = LoadTestsFromString(R"(
name: b
abstract: true
tags: [io]
executable: echo
sanity: [{exit_code: 0}]
---
name: q
extends: b
tags: [io, quick]
---
name: r
extends: b
)",
                               "t.yaml");
  ASSERT_TRUE(r.ok()) << r.status().str();
  EXPECT_EQ(r->Find("q")->tags, (std::vector<std::string>{"io", "quick"}));
  EXPECT_EQ(r->Find("r")->tags, std::vector<std::string>{"io"});
  EXPECT_EQ(r->Find("b")->tags, std::vector<std::string>{"io"});
}

TEST(TestLoader, TestsListForm) {
  auto r = LoadTestsFromString(
      "tests:\n  - {name: a, executable: x, sanity: [{exit_code: 0}]}\n  - {name: b, executable: y, sanity: "
      "[{exit_code: 0}]}\n",
      "t.yaml");
  ASSERT_TRUE(r.ok()) << r.status().str();
  EXPECT_EQ(r->specs.size(), 2u);
}

TEST(TestLoader, ModulesInEveryFormWithPlaceholders) {
  auto r = LoadTestsFromString(
      "name: a\nexecutable: x\nparameters: {ver: ['12']}\nsanity: [{exit_code: 0}]\n"
      "modules: ['gcc/{ver}', {name: PrgEnv-gnu, swap: PrgEnv-cray}, {name: darshan, unload: true},\n"
      "          {name: mpich, path: /opt/mf}, {name: coll, collection: true}]\n"
      "---\nname: b\nextends: a\n",
      "t.yaml");
  ASSERT_TRUE(r.ok()) << r.status().str();
  for (const auto& spec : r->specs) {
    ASSERT_EQ(spec->modules.size(), 5u) << spec->name;
    EXPECT_EQ(spec->modules[0].name, "gcc/{ver}");  // filled in per case when the script is written
    EXPECT_EQ(spec->modules[1].swap, "PrgEnv-cray");
    EXPECT_TRUE(spec->modules[2].unload);
    EXPECT_EQ(spec->modules[3].path, "/opt/mf");
    EXPECT_TRUE(spec->modules[4].collection);
  }
}

TEST(TestLoader, LauncherAndItsOptions) {
  auto r = LoadTestsFromString(
      "name: a\nexecutable: train.py\nparameters: {port: ['29600']}\nlauncher: torchrun\nsanity: [{exit_code: 0}]\n"
      "launcher_options: ['--master_port={port}', --max_restarts=0]\n---\nname: b\nexecutable: x\nsanity: [{exit_code: "
      "0}]\n",
      "t.yaml");
  ASSERT_TRUE(r.ok()) << r.status().str();
  EXPECT_EQ(r->specs[0]->launcher, "torchrun");
  EXPECT_EQ(r->specs[0]->launcher_options, (std::vector<std::string>{"--master_port={port}", "--max_restarts=0"}));
  EXPECT_EQ(r->specs[1]->launcher, "");  // the partition's
  EXPECT_TRUE(r->specs[1]->launcher_options.empty());
  Status st =
      LoadError("name: a\nexecutable: x\nlauncher_options: ['--master_port={prot}']\nsanity: [{exit_code: 0}]\n");
  EXPECT_NE(st.message().find("unknown placeholder '{prot}'"), std::string::npos) << st.str();
}

// ---- Every bad-input case names file:line:column and what was expected.

TEST(TestLoaderErrors, BadModules) {
  EXPECT_EQ(LoadError("name: a\nexecutable: x\nmodules: gcc\nsanity: [{exit_code: 0}]\n").str(),
            "t.yaml:3:10: modules: expected a list, got a scalar 'gcc'");
  EXPECT_EQ(LoadError("name: a\nexecutable: x\nmodules: [{name: gcc, swop: x}]\nsanity: [{exit_code: 0}]\n").str(),
            "t.yaml:3:23: unknown key 'swop' in module of test 'a', did you mean 'swap'?");
  EXPECT_EQ(LoadError("name: a\nexecutable: x\nmodules: ['gcc/{vers}']\nsanity: [{exit_code: 0}]\n").str(),
            "t.yaml:3:11: modules: unknown placeholder '{vers}' (write {{ and }} for literal braces)");
}

TEST(TestLoaderErrors, MalformedYaml) {
  Status st = LoadError("name: a\nexecutable: [x\nsanity: [{exit_code: 0}]\n");
  EXPECT_EQ(st.mark().file, "t.yaml");
  EXPECT_GT(st.mark().line, 0);
  EXPECT_NE(st.str().find("invalid YAML"), std::string::npos) << st.str();
}

TEST(TestLoaderErrors, UnknownKeyWithSuggestion) {
  Status st = LoadError("name: a\nexectuable: x\n");
  EXPECT_EQ(st.str(), "t.yaml:2:1: unknown key 'exectuable' in test, did you mean 'executable'?");
}

TEST(TestLoaderErrors, UnknownNestedKey) {
  Status st = LoadError("name: a\nexecutable: x\nsanity:\n  - {patern: 'x'}\n");
  EXPECT_EQ(st.str(), "t.yaml:4:6: sanity: unknown key 'patern', did you mean 'pattern'?");
}

TEST(TestLoaderErrors, WrongType) {
  Status st = LoadError("name: a\nexecutable: x\nnum_tasks: many\nsanity: [{exit_code: 0}]\n");
  EXPECT_EQ(st.str(), "t.yaml:3:12: num_tasks: expected an integer, got a scalar 'many'");
  st = LoadError("name: a\nexecutable: x\ntags: {a: b}\nsanity: [{exit_code: 0}]\n");
  EXPECT_EQ(st.str(), "t.yaml:3:7: tags: expected a list of strings, got a mapping");
}

TEST(TestLoaderErrors, BadDuration) {
  Status st = LoadError("name: a\nexecutable: x\ntime_limit: 10x\nsanity: [{exit_code: 0}]\n");
  EXPECT_EQ(st.mark().line, 3);
  EXPECT_EQ(st.mark().column, 13);
  EXPECT_NE(st.message().find("'10x' is not a duration"), std::string::npos) << st.str();
}

TEST(TestLoaderErrors, InvalidRegex) {
  Status st = LoadError("name: a\nexecutable: x\nsanity:\n  - pattern: 'a(b'\n");
  EXPECT_EQ(st.mark().line, 4);
  EXPECT_NE(st.message().find("a(b"), std::string::npos) << st.str();
  st = LoadError("name: a\nexecutable: x\nperformance:\n  v: {pattern: 'x[', unit: s}\nsanity: [{exit_code: 0}]\n");
  EXPECT_EQ(st.mark().line, 4);
}

TEST(TestLoaderErrors, UnknownPlaceholder) {
  Status st = LoadError(
      "name: a\nexecutable: x\nparameters: {threads: [1]}\nexecutable_opts: ['{thread}']\nsanity: [{exit_code: 0}]\n");
  EXPECT_EQ(st.mark().line, 4);
  EXPECT_NE(st.message().find("unknown placeholder '{thread}', did you mean 'threads'?"), std::string::npos)
      << st.str();
}

TEST(TestLoaderErrors, NonPlaceholderBracesAreFine) {
  auto r = LoadTestsFromString(
      "name: a\nexecutable: x\nexecutable_opts: ['${HOME}', \"awk '{print $1}'\", '{{literal}}']\n"
      "sanity:\n  - {pattern: '\\d{3}'}\n",
      "t.yaml");
  EXPECT_TRUE(r.ok()) << r.status().str();
}

TEST(TestLoaderErrors, DuplicateNames) {
  Status st = LoadError(
      "name: a\nexecutable: x\nsanity: [{exit_code: 0}]\n---\nname: a\nexecutable: y\nsanity: [{exit_code: 0}]\n");
  EXPECT_EQ(st.str(), "t.yaml:5:7: duplicate test name 'a' (first defined at t.yaml:1:7)");
}

TEST(TestLoaderErrors, ExtendsUnknown) {
  Status st = LoadError("name: base\nexecutable: x\nsanity: [{exit_code: 0}]\n---\nname: b\nextends: bsae\n");
  EXPECT_EQ(st.str(), "t.yaml:6:10: extends: there is no test named 'bsae', did you mean 'base'?");
}

TEST(TestLoaderErrors, ExtendsCycle) {
  Status st = LoadError("name: a\nextends: b\nexecutable: x\n---\nname: b\nextends: a\n");
  EXPECT_NE(st.message().find("extends: cycle a -> b -> a"), std::string::npos) << st.str();
}

TEST(TestLoaderErrors, DependencyCycle) {
  Status st = LoadError(
      "name: a\nexecutable: x\ndepends_on: [b]\nsanity: [{exit_code: 0}]\n---\nname: b\nexecutable: x\ndepends_on: "
      "[c]\nsanity: [{exit_code: 0}]\n---\n"
      "name: c\nexecutable: x\ndepends_on: [a]\nsanity: [{exit_code: 0}]\n");
  EXPECT_NE(st.message().find("dependency cycle a -> b -> c -> a"), std::string::npos) << st.str();
  EXPECT_GT(st.mark().line, 0);
}

TEST(TestLoaderErrors, UnknownDependency) {
  Status st = LoadError(
      "name: a\nexecutable: x\ndepends_on: [bb]\nsanity: [{exit_code: 0}]\n---\nname: b\nexecutable: x\nsanity: "
      "[{exit_code: 0}]\n");
  EXPECT_EQ(st.str(), "t.yaml:3:1: depends_on: there is no test named 'bb', did you mean 'b'?");
}

// issue 16, item 11: an abstract test does not run because another
// depends on it; the dependency is an error at load.
TEST(TestLoaderErrors, DependencyOnAnAbstractTest) {
  Status st = LoadError(
      "name: base\nabstract: true\nexecutable: x\nsanity: [{exit_code: 0}]\n---\n"
      "name: child\nexecutable: x\ndepends_on: [base]\nsanity: [{exit_code: 0}]\n");
  EXPECT_EQ(st.str(),
            "t.yaml:8:1: depends_on: 'base' is abstract (abstract: true), so it never runs; depend on a "
            "test that extends it, or drop abstract: true from 'base'");
}

// Found by fuzz/fuzz_test_loader.cc: yaml-cpp's LoadAll loops for ever,
// eating memory, on a stray ',' where a document starts.
TEST(TestLoaderErrors, AStrayCommaAtTheTopIsAnErrorNotAHang) {
  EXPECT_EQ(LoadError("#\n, x").str(),
            "t.yaml:2:1: invalid YAML: unexpected ',' where a document should start (a flow list or mapping "
            "without its '[' or '{'?)");
  EXPECT_NE(LoadError("name: a\nexecutable: x\nsanity: [{exit_code: 0}]\n---\n,\n").str().find("t.yaml:5:1:"),
            std::string::npos);
}

// issue 16, item 13: deep nesting says so, at its place.
TEST(TestLoaderErrors, DeepNestingSaysSo) {
  Status st = LoadError("name: t\nexecutable: x\nexecutable_opts: " + std::string(5000, '[') + "\n");
  EXPECT_NE(st.str().find("t.yaml:"), std::string::npos) << st.str();
  EXPECT_NE(st.message().find("nested more than 500 deep"), std::string::npos) << st.str();
}

TEST(TestLoaderErrors, ReferenceThresholdOutOfRange) {
  Status st = LoadError(
      "name: a\nexecutable: x\nperformance: {v: {pattern: 'v=(\\d+)'}}\nsanity: [{exit_code: 0}]\n"
      "reference: {'*': {v: [10, 0.5, null]}}\n");
  EXPECT_EQ(st.mark().line, 5);
  EXPECT_NE(st.message().find("lower"), std::string::npos) << st.str();
}

TEST(TestLoaderErrors, ReferenceToUnknownVariable) {
  Status st = LoadError(
      "name: a\nexecutable: x\nperformance: {triad: {pattern: 'v=(\\d+)'}}\nsanity: [{exit_code: 0}]\n"
      "reference: {'*': {traid: [10, -0.1, null]}}\n");
  EXPECT_NE(st.message().find("'traid' is not a performance variable"), std::string::npos) << st.str();
  EXPECT_NE(st.message().find("did you mean 'triad'?"), std::string::npos) << st.str();
}

// issue 16, item 13: YAML requires unique keys; the second one is an error.
TEST(TestLoaderErrors, ADuplicateKeyIsAnError) {
  Status st = LoadError("name: t\nexecutable: echo\nexecutable: ls\nsanity: [{exit_code: 0}]\n");
  EXPECT_EQ(st.str(),
            "t.yaml:3:1: duplicate key 'executable' (first at line 2, column 1): keys of a mapping must be "
            "unique");
  st = LoadError("name: t\nexecutable: echo\nsanity: [{pattern: a, pattern: b}]\n");
  EXPECT_NE(st.str().find("t.yaml:3:23: duplicate key 'pattern'"), std::string::npos) << st.str();
}

// issue 16, item 9: p: [x, x] would give two cases with one id.
TEST(TestLoaderErrors, ARepeatedParameterValueIsRefused) {
  Status st = LoadError("name: a\nexecutable: x\nsanity: [{exit_code: 0}]\nparameters: {p: [x, y, x]}\n");
  EXPECT_EQ(st.str(), "t.yaml:4:24: parameters: p: the value 'x' is listed twice; each value makes one case");
  st = LoadError("name: a\nexecutable: x\nsanity: [{exit_code: 0}]\nparameters: {c: [{n: 1}, {n: 1}]}\n");
  EXPECT_NE(st.str().find("the value '{n: 1}' is listed twice"), std::string::npos) << st.str();
}

// issue 16, item 6: keep_files are below the stage folder.
TEST(TestLoaderErrors, KeepFilesOutsideTheStageAreRefused) {
  for (const char* bad : {"/etc/passwd", "../x", "a/../../b", ".."}) {
    Status st =
        LoadError(std::string("name: a\nexecutable: x\nsanity: [{exit_code: 0}]\nkeep_files: ['") + bad + "']\n");
    EXPECT_EQ(st.str(), std::string("t.yaml:4:1: keep_files: '") + bad +
                            "' must be a path (or glob) relative to the stage folder, without '..'");
  }
  EXPECT_TRUE(LoadTestsFromString("name: a\nexecutable: x\nsanity: [{exit_code: 0}]\nkeep_files: ['out/*.txt', "
                                  "'..hidden']\n",
                                  "t.yaml")
                  .ok());
}

TEST(TestLoaderErrors, MissingExecutable) {
  Status st = LoadError("name: a\n");
  EXPECT_EQ(st.str(),
            "t.yaml:1:7: test 'a' has no 'executable' (the program to run; a Kubernetes test whose "
            "k8s.manifest has containers with their own command needs none)");
  // A manifest of the test's own may run its own command.
  auto r = LoadTestsFromString(
      "name: ipu\nsanity: [{exit_code: 0}]\nk8s:\n  manifest: {apiVersion: v1, kind: Pod, "
      "spec: {containers: [{name: c, image: busybox, command: [echo, hi]}]}}\n",
      "t.yaml");
  ASSERT_TRUE(r.ok()) << r.status().str();
  EXPECT_EQ(r->specs[0]->executable, "");
}

// ---- Expansion

TEST(Expand, CartesianProductAndPartitions) {
  auto r = LoadTestsFromString(R"(
name: t
executable: x
valid_systems: ['sys:cpu', '+gpu']
valid_prog_environs: ['gnu', '+cuda']
parameters: {a: [1, 2], b: [x, y, z]}
sanity: [{exit_code: 0}]
)",
                               "t.yaml");
  ASSERT_TRUE(r.ok()) << r.status().str();
  std::vector<PartitionView> parts = {
      {"sys", "cpu", {}, {{"gnu", {}}, {"intel", {}}}},
      {"sys", "gpu", {"gpu"}, {{"gnu", {}}, {"nvhpc", {"cuda"}}}},
      {"sys", "login", {}, {{"gnu", {}}}},
  };
  auto cases = ExpandCases(*r, parts, {});
  ASSERT_TRUE(cases.ok());
  // 6 parameter combinations x (cpu: gnu; gpu: gnu, nvhpc)
  EXPECT_EQ(cases->size(), 18u);
  EXPECT_EQ((*cases)[0].display_name, "t %a=1 %b=x");
  EXPECT_EQ((*cases)[0].id, "t%a=1%b=x@sys:cpu+gnu");
  CaseFilter f;
  f.names = {"%b=z"};
  f.environs = {"nvhpc"};
  cases = ExpandCases(*r, parts, f);
  ASSERT_TRUE(cases.ok());
  EXPECT_EQ(cases->size(), 2u);
}

TEST(Expand, DependenciesArePulledInAndLinked) {
  auto r = LoadTestsFromString(R"(
name: build
executable: x
sanity: [{exit_code: 0}]
---
name: run
executable: y
depends_on: [build]
parameters: {n: [1, 2]}
sanity: [{exit_code: 0}]
)",
                               "t.yaml");
  ASSERT_TRUE(r.ok()) << r.status().str();
  std::vector<PartitionView> parts = {{"s", "p", {}, {{"e", {}}}}};
  CaseFilter f;
  f.names = {"^run"};
  auto cases = ExpandCases(*r, parts, f);
  ASSERT_TRUE(cases.ok());
  ASSERT_EQ(cases->size(), 3u);
  EXPECT_EQ((*cases)[0].spec->name, "build");
  EXPECT_EQ((*cases)[1].deps, std::vector<size_t>{0});
  EXPECT_EQ((*cases)[2].deps, std::vector<size_t>{0});
}

TEST(Expand, TagsAndExcludes) {
  auto r = LoadTestsFromString(
      "name: a\nexecutable: x\ntags: [quick, mem]\nsanity: [{exit_code: 0}]\n---\nname: b\nexecutable: x\ntags: "
      "[slow]\nsanity: [{exit_code: 0}]\n",
      "t.yaml");
  ASSERT_TRUE(r.ok());
  std::vector<PartitionView> parts = {{"s", "p", {}, {{"e", {}}}}};
  CaseFilter f;
  f.tags = {"quick", "mem"};
  EXPECT_EQ(ExpandCases(*r, parts, f)->size(), 1u);
  f = CaseFilter();
  f.excludes = {"^a$"};
  auto c = ExpandCases(*r, parts, f);
  ASSERT_EQ(c->size(), 1u);
  EXPECT_EQ((*c)[0].spec->name, "b");
  f = CaseFilter();
  f.names = {"("};
  EXPECT_FALSE(ExpandCases(*r, parts, f).ok());
}

}  // namespace
}  // namespace hb

namespace hb {
namespace {

TEST(TestLoader, ContainerPlatformMapping) {
  auto r = LoadTestsFromString(
      "name: c\n"
      "sanity: [{exit_code: 0}]\n"
      "image: ubuntu:22.04\n"
      "container_platform:\n"
      "  type: apptainer\n"
      "  command: bash -c 'cat /etc/os-release'\n"
      "  mount_points: [[/scratch, /data]]\n"
      "  options: [--cleanenv]\n"
      "  pull_image: false\n"
      "  workdir: /w\n"
      "  mount_stagedir: /s\n",
      "t.yaml");
  ASSERT_TRUE(r.ok()) << r.status().str();
  const ContainerSpec& c = r->specs[0]->container;
  EXPECT_TRUE(c.enabled);
  EXPECT_EQ(c.platform, "Apptainer");
  EXPECT_EQ(*c.command, "bash -c 'cat /etc/os-release'");
  EXPECT_EQ(c.mount_points, (std::vector<std::pair<std::string, std::string>>{{"/scratch", "/data"}}));
  EXPECT_EQ(c.options, std::vector<std::string>{"--cleanenv"});
  EXPECT_FALSE(c.pull_image);
  EXPECT_EQ(c.workdir, "/w");
  EXPECT_EQ(c.mount_stagedir, "/s");
  EXPECT_EQ(r->specs[0]->image, "ubuntu:22.04");
  EXPECT_TRUE(r->specs[0]->executable.empty());  // the container test needs no executable
}

TEST(TestLoader, ContainerPlatformShorthandAndDefault) {
  auto r = LoadTestsFromString("name: c\nexecutable: ./a\ncontainer_platform: default\nsanity: [{exit_code: 0}]\n",
                               "t.yaml");
  ASSERT_TRUE(r.ok()) << r.status().str();
  EXPECT_TRUE(r->specs[0]->container.enabled);
  EXPECT_EQ(r->specs[0]->container.platform, "");
  EXPECT_FALSE(r->specs[0]->container.command.has_value());
}

TEST(TestLoaderErrors, UnknownContainerPlatform) {
  Status st = LoadError("name: a\nexecutable: x\ncontainer_platform: Dockr\nsanity: [{exit_code: 0}]\n");
  EXPECT_EQ(st.str(),
            "t.yaml:3:21: container_platform: unknown container platform 'Dockr', did you mean "
            "'Docker'? (known: Apptainer, Docker, Podman, Sarus, Shifter, Singularity, or default for "
            "the partition's default)");
  st = LoadError(
      "name: a\nexecutable: x\ncontainer_platform: {type: Docker, mount_points: [/a]}\nsanity: [{exit_code: 0}]\n");
  EXPECT_EQ(st.str(),
            "t.yaml:3:51: container_platform: mount_points: expected [host path, container path], "
            "got a scalar '/a'");
}

TEST(TestLoader, BuildSystemsAndBuildJob) {
  auto r = LoadTestsFromString(
      "name: s\n"
      "sanity: [{exit_code: 0}]\n"
      "executable: zlib-test\n"
      "build_locally: false\n"
      "build_time_limit: 30m\n"
      "build_system:\n"
      "  type: Spack\n"
      "  specs: [zlib@1.3.1]\n"
      "  install_opts: [--fresh]\n"
      "  emit_load_cmds: false\n"
      "---\n"
      "name: e\n"
      "sanity: [{exit_code: 0}]\n"
      "executable: x\n"
      "build_system: {type: EasyBuild, easyconfigs: [z.eb], package_opts: {type: rpm}}\n"
      "---\n"
      "name: a\n"
      "sanity: [{exit_code: 0}]\n"
      "executable: x\n"
      "build_system: {type: Autotools, config_opts: [--with-x], make_opts: [all]}\n",
      "t.yaml");
  ASSERT_TRUE(r.ok()) << r.status().str();
  EXPECT_FALSE(r->specs[0]->build_locally);
  EXPECT_EQ(r->specs[0]->build_time_limit_s.value_or(0), 1800);
  EXPECT_EQ(r->specs[0]->build.specs, std::vector<std::string>{"zlib@1.3.1"});
  EXPECT_FALSE(r->specs[0]->build.emit_load_cmds);
  EXPECT_EQ(r->specs[1]->build.easyconfigs, std::vector<std::string>{"z.eb"});
  EXPECT_EQ(r->specs[1]->build.package_opts[0].second, "rpm");
  EXPECT_EQ(r->specs[2]->build.config_opts, std::vector<std::string>{"--with-x"});
  EXPECT_TRUE(r->specs[2]->build_locally);
}

TEST(TestLoaderErrors, UnknownBuildSystem) {
  Status st = LoadError("name: a\nexecutable: x\nbuild_system:\n  type: autotool\nsanity: [{exit_code: 0}]\n");
  EXPECT_EQ(st.str(),
            "t.yaml:4:9: build_system: type: 'autotool' is not one of none, SingleSource, Make, CMake, "
            "Autotools, Spack, EasyBuild, Custom, CustomBuild, did you mean 'Autotools'?");
  st = LoadError("name: a\nexecutable: x\nbuild_system: {type: EasyBuild}\nsanity: [{exit_code: 0}]\n");
  EXPECT_EQ(st.str(), "t.yaml:3:15: build_system: EasyBuild needs 'easyconfigs', the easyconfig files to build");
}

}  // namespace
}  // namespace hb

namespace hb {
namespace {

// issue 17, item 1: a test's figure of merit and the direction of a
// variable are declared in the test file, checked at load.
TEST(TestLoader, FigureOfMeritAndBetter) {
  auto r = LoadTestsFromString(R"(
name: train
executable: x
sanity: [{exit_code: 0}]
performance:
  throughput: {pattern: 'tput: (\S+)', unit: samples/s, figure_of_merit: true}
  loss: {pattern: 'loss: (\S+)', better: lower}
  step: {pattern: 'step: (\S+)', unit: s}
)",
                               "t.yaml");
  ASSERT_TRUE(r.ok()) << r.status().str();
  const auto& perf = r->specs[0]->performance;
  ASSERT_EQ(perf.size(), 3u);
  EXPECT_TRUE(perf[0].figure_of_merit);
  EXPECT_EQ(perf[0].better, "");
  EXPECT_FALSE(perf[1].figure_of_merit);
  EXPECT_EQ(perf[1].better, "lower");
  EXPECT_EQ(LoadError("name: a\nexecutable: x\nsanity: [{exit_code: 0}]\nperformance:\n"
                      "  a: {pattern: x, figure_of_merit: true}\n  b: {pattern: y, figure_of_merit: true}\n")
                .str(),
            "t.yaml:6:36: performance: b: figure_of_merit: the test's figure of merit is 'a' already; a test has one");
  Status sideways = LoadError(
      "name: a\nexecutable: x\nsanity: [{exit_code: 0}]\nperformance:\n"
      "  a: {pattern: x, better: up}\n");
  EXPECT_EQ(sideways.mark().line, 5);
  EXPECT_NE(sideways.message().find("higher"), std::string::npos) << sideways.str();
  Status typed = LoadError(
      "name: a\nexecutable: x\nsanity: [{exit_code: 0}]\nperformance:\n"
      "  a: {pattern: x, figure_of_merit: often}\n");
  EXPECT_EQ(typed.mark().line, 5);
}

}  // namespace
}  // namespace hb

namespace hb {
namespace {

TEST(TestLoader, ScalingAxesNameParameters) {
  auto r = LoadTestsFromString(
      "name: t\nexecutable: x\nsanity: [{exit_code: 0}]\nparameters: {ranks: [1, 2]}\n"
      "scaling_axes: [ranks, num_tasks]\n",
      "t.yaml");
  ASSERT_TRUE(r.ok()) << r.status().str();
  EXPECT_EQ(r->specs[0]->scaling_axes, (std::vector<std::string>{"ranks", "num_tasks"}));
  EXPECT_EQ(LoadError("name: t\nexecutable: x\nsanity: [{exit_code: 0}]\nparameters: {ranks: [1, 2]}\n"
                      "scaling_axes: [rank]\n")
                .str(),
            "t.yaml:5:1: scaling_axes: 'rank' is not a parameter of the test (nor num_tasks), did you mean 'ranks'?");
}

}  // namespace
}  // namespace hb
