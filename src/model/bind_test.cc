#include "model/bind.h"

#include <gtest/gtest.h>

#include "model/expand.h"
#include "model/test_loader.h"

namespace hb {
namespace {

PartitionView Part(const std::string& sys, const std::string& part, std::vector<std::string> features = {},
                   const std::string& sched = "slurm", std::vector<std::string> envs = {"gnu"}) {
  PartitionView p;
  p.system = sys;
  p.partition = part;
  p.features = std::move(features);
  p.scheduler = sched;
  for (const auto& e : envs) p.environs.push_back({e, {}});
  auto values = std::make_shared<std::map<std::string, Value>>();
  (*values)["processor.num_cpus"] = Value::Int(128);
  (*values)["devices.gpu.num_devices"] = Value::Int(4);
  p.values = values;
  return p;
}

struct Loaded {
  TestSuite suite;
  std::vector<TestCase> cases;
};

Result<Loaded> Expand(const std::string& yaml, const std::vector<PartitionView>& parts = {Part("site", "gpu")},
                      const std::vector<std::string>& setvars = {}) {
  LoadOptions opts;
  for (const auto& a : setvars) {
    auto o = ParseSetvar(a);
    if (!o.ok()) return o.status();
    opts.setvars.push_back(*o);
  }
  auto suite = LoadTestsFromString(yaml, "t.yaml", opts);
  if (!suite.ok()) return suite.status();
  Loaded l{std::move(suite.value()), {}};
  auto cases = ExpandCases(l.suite, parts, {});
  if (!cases.ok()) return cases.status();
  l.cases = std::move(cases.value());
  return l;
}

std::string ErrorOf(const std::string& yaml, const std::vector<PartitionView>& parts = {Part("site", "gpu")},
                    const std::vector<std::string>& setvars = {}) {
  auto r = Expand(yaml, parts, setvars);
  return r.ok() ? "no error" : r.status().str();
}

TEST(Bind, IntegerFieldsTakeExpressions) {
  auto l = Expand(R"(
name: resnet
executable: train
parameters: {num_gpus: [1, 8]}
num_tasks: '{num_gpus}'
num_tasks_per_node: '{min(num_gpus, 4)}'
num_gpus_per_node: '{min(num_gpus, 4)}'
num_cpus_per_task: '{processor.num_cpus // num_tasks_per_node}'
exclusive_access: '{num_gpus > 4}'
executable_opts: ['--batch', '{64 * num_gpus}', '--nodes={ceil(num_gpus / 4)}']
sanity: [{pattern: done}]
)");
  ASSERT_TRUE(l.ok()) << l.status().str();
  ASSERT_EQ(l->cases.size(), 2u);
  const TestSpec& one = *l->cases[0].spec;
  const TestSpec& eight = *l->cases[1].spec;
  EXPECT_EQ(one.num_tasks, 1);
  EXPECT_EQ(one.num_tasks_per_node, 1);
  EXPECT_EQ(one.num_cpus_per_task, 128);
  EXPECT_FALSE(one.exclusive_access);
  EXPECT_EQ(eight.num_tasks, 8);
  EXPECT_EQ(eight.num_tasks_per_node, 4);
  EXPECT_EQ(eight.num_gpus_per_node, 4);
  EXPECT_EQ(eight.num_cpus_per_task, 32);
  EXPECT_TRUE(eight.exclusive_access);
  EXPECT_EQ(eight.executable_opts, (std::vector<std::string>{"--batch", "512", "--nodes=2"}));
  // The loaded spec itself is unchanged: each case has its own.
  EXPECT_EQ(l->suite.specs[0]->num_tasks, 1);
}

TEST(Bind, EveryFieldAtAnyDepth) {
  auto l = Expand(R"(
name: nbody
executable: nbody
parameters: {n_bodies: [1000, 2000], num_gpus: [2]}
extra_resources: {gpu: {num_gpus: '{num_gpus}'}, cs: {num_csx: '{num_gpus // 2}'}}
job_options: ['--comment={name}-{n_bodies}']
env_vars: {OMP_NUM_THREADS: '{num_gpus * 2}'}
keep_files: ['out-{n_bodies}.txt']
modules: ['cuda/{num_gpus}']
sanity: [{pattern: 'bodies: {n_bodies}'}]
performance:
  rate: {pattern: 'rate {n_bodies}: (\S+)', unit: 'GFLOP/s'}
k8s:
  manifest:
    apiVersion: v1
    kind: Pod
    metadata: {name: 'nbody-{n_bodies}'}
    spec:
      nodeSelector: {gpus: '{num_gpus}'}
      containers:
        - name: main
          image: nbody
          args: ['-numbodies={n_bodies}']
          resources: {limits: {nvidia.com/gpu: '{num_gpus}'}}
)");
  ASSERT_TRUE(l.ok()) << l.status().str();
  ASSERT_EQ(l->cases.size(), 2u);
  const TestSpec& s = *l->cases[1].spec;
  EXPECT_EQ(s.extra_resources.at("gpu").at("num_gpus"), "2");
  EXPECT_EQ(s.extra_resources.at("cs").at("num_csx"), "1");
  EXPECT_EQ(s.job_options[0], "--comment=nbody-2000");
  EXPECT_EQ(s.env_vars[0].second, "4");
  EXPECT_EQ(s.keep_files[0], "out-2000.txt");
  EXPECT_EQ(s.modules[0].name, "cuda/2");
  EXPECT_EQ(s.sanity[0].pattern, "bodies: 2000");
  EXPECT_EQ(s.performance[0].pattern, "rate 2000: (\\S+)");
  const auto& pod = s.k8s["manifest"];
  EXPECT_EQ(pod["metadata"]["name"], "nbody-2000");
  EXPECT_EQ(pod["spec"]["containers"][0]["args"][0], "-numbodies=2000");
  // A lone placeholder keeps its type: a number, as Kubernetes reads it.
  EXPECT_EQ(pod["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"], 2);
  EXPECT_EQ(l->cases[0].spec->k8s["manifest"]["metadata"]["name"], "nbody-1000");
}

TEST(Bind, BracesThatAreNotPlaceholders) {
  auto l = Expand(R"(
name: t
executable: sh
parameters: {n: [3]}
executable_opts: ['{{n}}', '${HOME}', 'x{2,5}', '{a,b}']
prerun_cmds: ["awk '{print $1}' f", "awk '{ print }' f", 'grep -E "\d{3}" f', 'echo {n}']
sanity: [{pattern: '\d{3}-\w{n}'}]
)");
  ASSERT_TRUE(l.ok()) << l.status().str();
  const TestSpec& s = *l->cases[0].spec;
  EXPECT_EQ(s.executable_opts, (std::vector<std::string>{"{n}", "${HOME}", "x{2,5}", "{a,b}"}));
  EXPECT_EQ(s.prerun_cmds[0], "awk '{print $1}' f");
  EXPECT_EQ(s.prerun_cmds[1], "awk '{ print }' f");
  EXPECT_EQ(s.prerun_cmds[2], "grep -E \"\\d{3}\" f");
  EXPECT_EQ(s.prerun_cmds[3], "echo 3");
  EXPECT_EQ(s.sanity[0].pattern, "\\d{3}-\\w3");
}

TEST(Bind, ShellTextIsQuoted) {
  auto l = Expand(R"(
name: t
executable: echo
parameters: {msg: ['a b; rm -rf /']}
executable_opts: ['{msg}']
env_vars: {MSG: '{msg}'}
job_options: ['--comment={msg}']
sanity: [{pattern: x}]
)");
  ASSERT_TRUE(l.ok()) << l.status().str();
  const TestSpec& s = *l->cases[0].spec;
  EXPECT_EQ(s.executable_opts[0], "'a b; rm -rf /'");
  EXPECT_EQ(s.env_vars[0].second, "'a b; rm -rf /'");
  EXPECT_EQ(s.job_options[0], "--comment=a b; rm -rf /");  // scheduler options are not shell text
}

TEST(Bind, ErrorsNameThePlaceAndTheCase) {
  std::string e = ErrorOf(R"(
name: t
executable: x
parameters: {n: [4, 5]}
num_tasks: '{n / 2}'
sanity: [{exit_code: 0}]
)");
  EXPECT_NE(e.find("t.yaml:5:12: num_tasks: expected an integer"), std::string::npos) << e;
  EXPECT_NE(e.find("case 't %n=4' on site:gpu+gnu"), std::string::npos) << e;

  e = ErrorOf("name: t\nexecutable: x\nparameters: {n: [0]}\nnum_tasks: '{8 // n}'\nsanity: [{exit_code: 0}]\n");
  EXPECT_NE(e.find("t.yaml:4:12: num_tasks: '{8 // n}': division by zero"), std::string::npos) << e;
  EXPECT_NE(e.find("%n=0"), std::string::npos) << e;

  e = ErrorOf(
      "name: t\nexecutable: x\nparameters: {name1: [1]}\nexecutable_opts: ['{nmae1}']\nsanity: [{exit_code: 0}]\n");
  EXPECT_NE(e.find("t.yaml:4:19: executable_opts: unknown placeholder '{nmae1}'"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean 'name1'"), std::string::npos) << e;

  e = ErrorOf(R"(
name: t
executable: x
k8s:
  manifest:
    kind: Pod
    spec: {containers: [{name: a, args: ['--n={num_gpu}']}]}
sanity: [{exit_code: 0}]
)");
  EXPECT_NE(e.find("t.yaml:7:42: k8s: unknown placeholder '{num_gpu}'"), std::string::npos) << e;

  // A processor value the partition lacks may still be found by
  // remote_detect: it is an error when the case runs.
  auto l = Expand("name: t\nexecutable: x\nnum_tasks: '{processor.num_sockets * 2}'\nsanity: [{exit_code: 0}]\n");
  ASSERT_TRUE(l.ok()) << l.status().str();
  auto run = BindForRun(l->cases[0], RunValues());
  EXPECT_NE(run.status().str().find("t.yaml:3:12: num_tasks: '{processor.num_sockets * 2}': partition 'site:gpu' "
                                    "does not define processor.num_sockets"),
            std::string::npos)
      << run.status().str();
}

TEST(Bind, OverridesBySystemEnvironmentSchedulerAndParameter) {
  const char* yaml = R"(
name: t
executable: x
parameters: {size: [1, 1024]}
job_options: ['--base']
overrides:
  'cirrus:*': {job_options: {append: ['--qos=gpu']}}
  'archer2:* env:cray': {launcher: srun}
  'sched:k8s': {image: 'img:{size}'}
  '+gpu size=1024': {tags: [large], reference: {'*': {t: [10, -0.1, null, s]}}}
  'nosuchsite:gpu': {num_tasks: 99}
performance: {t: {pattern: 't=(\S+)', unit: s}}
sanity: [{exit_code: 0}]
)";
  auto l = Expand(yaml, {Part("cirrus", "gpu", {"gpu"}), Part("archer2", "cpu", {}, "slurm", {"cray", "gnu"}),
                         Part("eidf", "k8s", {}, "k8s")});
  ASSERT_TRUE(l.ok()) << l.status().str();
  ASSERT_EQ(l->cases.size(), 8u);
  auto find = [&](const std::string& id) -> const TestSpec& {
    for (const auto& c : l->cases)
      if (c.id == id) return *c.spec;
    ADD_FAILURE() << "no case " << id;
    return *l->cases[0].spec;
  };
  EXPECT_EQ(find("t%size=1@cirrus:gpu+gnu").job_options, (std::vector<std::string>{"--base", "--qos=gpu"}));
  EXPECT_TRUE(find("t%size=1@cirrus:gpu+gnu").tags.empty());
  EXPECT_EQ(find("t%size=1024@cirrus:gpu+gnu").tags, (std::vector<std::string>{"large"}));
  EXPECT_EQ(find("t%size=1024@cirrus:gpu+gnu").reference.size(), 1u);
  EXPECT_EQ(find("t%size=1@archer2:cpu+cray").launcher, "srun");
  EXPECT_EQ(find("t%size=1@archer2:cpu+gnu").launcher, "");
  EXPECT_EQ(find("t%size=1024@eidf:k8s+gnu").image, "img:1024");
  EXPECT_EQ(find("t%size=1@archer2:cpu+gnu").job_options, (std::vector<std::string>{"--base"}));
}

TEST(Bind, SetvarWinsOverOverrides) {
  auto l = Expand(R"(
name: t
executable: x
overrides: {'*': {num_tasks: 4}}
sanity: [{exit_code: 0}]
)",
                  {Part("site", "gpu")}, {"num_tasks=8"});
  ASSERT_TRUE(l.ok()) << l.status().str();
  EXPECT_EQ(l->cases[0].spec->num_tasks, 8);
}

TEST(Bind, OverrideErrors) {
  EXPECT_NE(ErrorOf("name: t\nexecutable: x\noverrides: {'size=1': {num_tasks: 2}}\nsanity: [{exit_code: 0}]\n")
                .find("t.yaml:3:13: overrides: 'size=1': this test has no parameter 'size'"),
            std::string::npos);
  EXPECT_NE(ErrorOf("name: t\nexecutable: x\noverrides: {'*': {parameters: {a: [1]}}}\nsanity: [{exit_code: 0}]\n")
                .find("'parameters' cannot be set per system"),
            std::string::npos);
  EXPECT_NE(ErrorOf("name: t\nexecutable: x\noverrides: {'*': {num_task: 2}}\nsanity: [{exit_code: 0}]\n")
                .find("did you mean 'num_tasks'"),
            std::string::npos);
}

TEST(Bind, InheritanceByFieldKind) {
  auto l = Expand(R"(
name: base
abstract: true
executable: x
executable_opts: ['-a']
tags: [one]
env_vars: {A: '1', B: '2'}
performance:
  bw: {pattern: 'bw (\S+)', unit: MB/s}
  lat: {pattern: 'lat (\S+)', unit: us}
reference: {'*': {bw: [10, -0.1, null, MB/s]}}
sanity: [{exit_code: 0}]
---
name: child
extends: base
executable_opts: {append: ['-b']}
tags: {prepend: [zero]}
env_vars: {B: null, C: '3'}
performance:
  power: {pattern: 'W (\S+)', unit: W}
  lat: null
reference: {'*': {power: [100, null, 0.1, W]}}
)");
  ASSERT_TRUE(l.ok()) << l.status().str();
  const TestSpec& s = *l->cases[0].spec;
  EXPECT_EQ(s.executable_opts, (std::vector<std::string>{"-a", "-b"}));
  EXPECT_EQ(s.tags, (std::vector<std::string>{"zero", "one"}));
  EXPECT_EQ(s.env_vars, (StringPairs{{"A", "1"}, {"C", "3"}}));
  ASSERT_EQ(s.performance.size(), 2u);
  EXPECT_EQ(s.performance[0].name, "bw");
  EXPECT_EQ(s.performance[1].name, "power");
  ASSERT_EQ(s.reference.size(), 1u);
  EXPECT_EQ(s.reference[0].second.size(), 2u);
}

TEST(Bind, AbstractBaseUsesItsChildrensParameters) {
  auto l = Expand(R"(
name: base
abstract: true
executable: x
executable_opts: ['--n={n}']
sanity: [{exit_code: 0}]
---
name: child
extends: base
parameters: {n: [2]}
)");
  ASSERT_TRUE(l.ok()) << l.status().str();
  EXPECT_EQ(l->cases[0].spec->executable_opts[0], "--n=2");
  EXPECT_NE(ErrorOf("name: base\nabstract: true\nexecutable: x\nexecutable_opts: ['--n={n}']\nsanity: [{exit_code: "
                    "0}]\n---\nname: c\nextends: "
                    "base\n")
                .find("unknown placeholder '{n}'"),
            std::string::npos);
}

TEST(Bind, PerformanceNamesAndDerivedVariables) {
  auto l = Expand(R"(
name: wrf
executable: x
parameters: {cores: [72]}
performance:
  'Epoch Length': {pattern: 'epoch: (\S+) s', unit: s}
  time: {pattern: 'time (\S+)', unit: s}
  gflops: {expr: 'cores / time', unit: GFLOP/s}
  per_epoch: {expr: "perf['Epoch Length'] * 2", unit: s}
reference: {'*': {gflops: [1, -0.5, null, GFLOP/s]}}
sanity: [{exit_code: 0}]
)");
  ASSERT_TRUE(l.ok()) << l.status().str();
  const TestSpec& s = *l->cases[0].spec;
  ASSERT_EQ(s.performance.size(), 4u);
  EXPECT_EQ(s.performance[0].name, "Epoch Length");
  std::map<std::string, double> values = {{"time", 8}, {"Epoch Length", 1.5}};
  auto g = EvaluateDerived(s.performance[2], values, *l->cases[0].names);
  ASSERT_TRUE(g.ok()) << g.status().str();
  EXPECT_DOUBLE_EQ(*g, 9.0);
  auto pe = EvaluateDerived(s.performance[3], values, *l->cases[0].names);
  ASSERT_TRUE(pe.ok()) << pe.status().str();
  EXPECT_DOUBLE_EQ(*pe, 3.0);
  auto missing = EvaluateDerived(s.performance[2], {}, *l->cases[0].names);
  EXPECT_NE(missing.status().message().find("derived from time, which could not be extracted"), std::string::npos);

  EXPECT_NE(ErrorOf("name: t\nexecutable: x\nperformance:\n  a: {pattern: '(\\d)'}\n  b: {expr: 'aa * 2'}\nsanity: "
                    "[{exit_code: 0}]\n")
                .find("t.yaml:5:13: performance: b: expr: 'aa' is not a performance variable"),
            std::string::npos);
  EXPECT_NE(ErrorOf("name: t\nexecutable: x\nperformance:\n  '': {pattern: '(\\d)'}\nsanity: [{exit_code: 0}]\n")
                .find("non-empty"),
            std::string::npos);
}

TEST(Bind, VariablesAndStructuredParameters) {
  const char* yaml = R"(
name: t
executable: x
variables:
  steps: {type: int, default: 100, loggable: false}
  spec: {type: str, required: true}
  ratio: 0.5
parameters:
  mesh: [{nx: 128, nodes: 1}, {nx: 256, nodes: 8}]
num_tasks: '{mesh.nodes * 4}'
executable_opts: ['--nx={mesh.nx}', '--steps={steps}', '--spec={spec}', '--r={ratio * 2}']
sanity: [{exit_code: 0}]
)";
  auto l = Expand(yaml, {Part("site", "gpu")}, {"spec=hpcg@3.1", "steps=7"});
  ASSERT_TRUE(l.ok()) << l.status().str();
  ASSERT_EQ(l->cases.size(), 2u);
  EXPECT_EQ(l->cases[1].display_name, "t %mesh={nx: 256, nodes: 8}");
  const TestSpec& s = *l->cases[1].spec;
  EXPECT_EQ(s.num_tasks, 32);
  EXPECT_EQ(s.executable_opts, (std::vector<std::string>{"--nx=256", "--steps=7", "--spec=hpcg@3.1", "--r=1.0"}));
  // Variables are loggable unless they say not (ReFrame 4.5+).
  EXPECT_EQ(l->cases[1].loggable, (StringPairs{{"spec", "hpcg@3.1"}, {"ratio", "0.5"}}));

  std::string e = ErrorOf(yaml);
  EXPECT_NE(e.find("variable 'spec' is required: set it with -S spec=VALUE"), std::string::npos) << e;
  e = ErrorOf(yaml, {Part("site", "gpu")}, {"spec=x", "steps=many"});
  EXPECT_NE(e.find("-S steps=many: expected an int, got 'many'"), std::string::npos) << e;
  e = ErrorOf(yaml, {Part("site", "gpu")}, {"spec=x", "nosuch=1"});
  EXPECT_NE(e.find("-S nosuch=1: no test has a field or parameter named 'nosuch'"), std::string::npos) << e;
  e = ErrorOf("name: t\nexecutable: x\nparameters: {n: [1]}\nvariables: {n: 2}\nsanity: [{exit_code: 0}]\n");
  EXPECT_NE(e.find("variables: 'n' is also a parameter"), std::string::npos) << e;
  e = ErrorOf("name: t\nexecutable: x\nvariables: {time_limit: 2}\nsanity: [{exit_code: 0}]\n");
  EXPECT_NE(e.find("is the name of a test field"), std::string::npos) << e;
}

TEST(Bind, RunTimeValuesAreBoundWhenTheCaseStarts) {
  auto l = Expand(R"(
name: build
executable: make
sanity: [{exit_code: 0}]
---
name: run
executable: ./a.out
depends_on: [build]
prerun_cmds: ['cp {deps.build.stagedir}/a.out {stagedir}/']
executable_opts: ['--rep={repetition}', '--n={num_tasks}']
num_tasks: 2
sanity: [{exit_code: 0}]
)");
  ASSERT_TRUE(l.ok()) << l.status().str();
  const TestCase& c = l->cases[1];
  EXPECT_EQ(c.spec->prerun_cmds[0], "cp {deps.build.stagedir}/a.out {stagedir}/");
  EXPECT_EQ(c.spec->executable_opts[1], "--n=2");
  RunValues run;
  run.stagedir = "/s/run dir";
  run.repetition = 1;
  run.deps["build"] = {"/s/build", "/o/build"};
  auto bound = BindForRun(c, run);
  ASSERT_TRUE(bound.ok()) << bound.status().str();
  EXPECT_EQ((*bound)->prerun_cmds[0], "cp /s/build/a.out '/s/run dir'/");
  EXPECT_EQ((*bound)->executable_opts, (std::vector<std::string>{"--rep=1", "--n=2"}));
  // A test without run-time placeholders keeps its bound spec.
  EXPECT_EQ(BindForRun(l->cases[0], run)->get(), l->cases[0].spec.get());
}

}  // namespace
}  // namespace hb

namespace hb {
namespace {

TEST(Bind, DependenciesOnParametrisedTests) {
  const char* gen = "name: gen\nexecutable: x\nparameters: {n: [10, 20]}\nsanity: [{exit_code: 0}]\n---\n";
  std::string e = ErrorOf(std::string(gen) + "name: use\nexecutable: y\ndepends_on: [gen]\nsanity: [{exit_code: 0}]\n");
  EXPECT_NE(e.find("t.yaml:8:1: depends_on: 'gen' has 2 variants (gen %n=10, gen %n=20): name one, e.g. 'gen %n=10', "
                   "or depend on all of them with {test: gen, variants: all}"),
            std::string::npos)
      << e;
  auto one = Expand(std::string(gen) +
                    "name: use\nexecutable: y\ndepends_on: ['gen %n=20']\nprerun_cmds: ['ls "
                    "{deps.gen.stagedir}']\nsanity: [{exit_code: 0}]\n");
  ASSERT_TRUE(one.ok()) << one.status().str();
  ASSERT_EQ(one->cases.size(), 3u);
  ASSERT_EQ(one->cases[2].deps.size(), 1u);
  EXPECT_EQ(one->cases[one->cases[2].deps[0]].display_name, "gen %n=20");
  // The same value as the dependent's own parameter, by placeholder.
  auto same = Expand(
      std::string(gen) +
      "name: use\nexecutable: y\nparameters: {n: [10, 20]}\ndepends_on: ['gen %n={n}']\nsanity: [{exit_code: 0}]\n");
  ASSERT_TRUE(same.ok()) << same.status().str();
  ASSERT_EQ(same->cases.size(), 4u);
  EXPECT_EQ(same->cases[same->cases[3].deps[0]].display_name, "gen %n=20");
  auto all = Expand(std::string(gen) +
                    "name: use\nexecutable: y\ndepends_on: [{test: gen, variants: all}]\nsanity: [{exit_code: 0}]\n");
  ASSERT_TRUE(all.ok()) << all.status().str();
  EXPECT_EQ(all->cases[2].deps.size(), 2u);
  e = ErrorOf(std::string(gen) +
              "name: use\nexecutable: y\ndepends_on: [{test: gen, variants: all}]\nprerun_cmds: ['ls "
              "{deps.gen.stagedir}']\nsanity: [{exit_code: 0}]\n");
  EXPECT_NE(e.find("unknown placeholder '{deps.gen.stagedir}'"), std::string::npos) << e;
  e = ErrorOf(std::string(gen) + "name: use\nexecutable: y\ndepends_on: ['gen %n=11']\nsanity: [{exit_code: 0}]\n");
  EXPECT_NE(e.find("'gen %n=11' names no variant of gen on site:gpu+gnu (variants: gen %n=10, gen %n=20)"),
            std::string::npos)
      << e;
}

TEST(Bind, OverridesEntriesAreInheritedAsWritten) {
  auto l = Expand(R"(
name: base
abstract: true
executable: x
job_options: ['--base']
overrides: {'site:*': {num_tasks: 2}}
sanity: [{exit_code: 0}]
---
name: child
extends: base
overrides: {'*': {job_options: {append: ['--child']}}}
)");
  ASSERT_TRUE(l.ok()) << l.status().str();
  EXPECT_EQ(l->cases[0].spec->job_options, (std::vector<std::string>{"--base", "--child"}));
  EXPECT_EQ(l->cases[0].spec->num_tasks, 2);
}

TEST(Bind, SmallRules) {
  // A mapping variable without a type takes its default's.
  auto l = Expand(
      "name: t\nexecutable: x\nvariables: {steps: {default: 100}}\nexecutable_opts: ['{steps * 2}']\nsanity: "
      "[{exit_code: 0}]\n");
  ASSERT_TRUE(l.ok()) << l.status().str();
  EXPECT_EQ(l->cases[0].spec->executable_opts[0], "200");
  // PARAM=VALUE keys may hold ':'; derived variables may read num_* parameters.
  l = Expand(R"(
name: t
executable: x
parameters: {num_nodes: [2], time: ['1:00']}
overrides: {'time=1:00': {num_tasks: 3}}
performance:
  t: {pattern: 't=(\S+)'}
  per_node: {expr: 't / num_nodes'}
sanity: [{exit_code: 0}]
)");
  ASSERT_TRUE(l.ok()) << l.status().str();
  EXPECT_EQ(l->cases[0].spec->num_tasks, 3);
  EXPECT_NE(ErrorOf("name: t\nexecutable: x\nperformance:\n  a: {pattern: '(\\d)'}\n  b: {expr: 'a', reduce: "
                    "max}\nsanity: [{exit_code: 0}]\n")
                .find("'reduce' is for extracted values"),
            std::string::npos);
  // {name} in a custom resource's pod_selector is the object's name, left for the backend.
  l = Expand(
      "name: t\nexecutable: x\nk8s: {custom_resource: {plural: ipujobs, pod_selector: 'owner={name}'}}\nsanity: "
      "[{exit_code: 0}]\n");
  ASSERT_TRUE(l.ok()) << l.status().str();
  EXPECT_EQ(l->cases[0].spec->k8s["custom_resource"]["pod_selector"], "owner={name}");
}

}  // namespace
}  // namespace hb
