#include "config/config_parse.h"

#include <gtest/gtest.h>

#include "util/strings.h"
#include "util/yaml_util.h"

// GCC 12 warns about designated initializers that leave members at their
// defaults (GCC bug 96868); these tests rely on exactly that.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace hb {
namespace {

Result<ConfigFragment> Parse(const std::string& text) {
  Result<std::vector<YAML::Node>> docs = LoadYamlString(text, "site.yaml");
  if (!docs.ok()) return docs.status();
  return ParseConfigDocument(docs->empty() ? YAML::Node() : (*docs)[0], "site.yaml");
}

std::string ErrorOf(const std::string& text) {
  Result<ConfigFragment> r = Parse(text);
  return r.ok() ? "no error" : r.status().str();
}

// A system with one partition whose last lines are `extra` (indented as
// partition keys, starting on line 8).
std::string WithPartitionKeys(const std::string& extra) {
  return "systems:\n"                  // 1
         "  - name: c\n"               // 2
         "    hostnames: [x]\n"        // 3
         "    partitions:\n"           // 4
         "      - name: p\n"           // 5
         "        scheduler: local\n"  // 6
         "        launcher: local\n"   // 7
         + extra;
}

TEST(ConfigParse, WrongTypeNamesTheValue) {
  EXPECT_EQ(ErrorOf(WithPartitionKeys("        max_jobs: abc\n")),
            "site.yaml:8:19: max_jobs: expected an integer, got a scalar 'abc'");
  EXPECT_EQ(ErrorOf(WithPartitionKeys("        max_jobs: 99999999999\n")),
            "site.yaml:8:19: max_jobs: 99999999999 is out of range");
  EXPECT_EQ(ErrorOf(WithPartitionKeys("        access: {a: 1}\n")),
            "site.yaml:8:17: access: expected a list of strings, got a mapping");
  EXPECT_EQ(ErrorOf(WithPartitionKeys("        extras: [1]\n")),
            "site.yaml:8:17: extras: expected a mapping, got a list");
  EXPECT_EQ(ErrorOf(WithPartitionKeys("        processor: {num_cpus: many}\n")),
            "site.yaml:8:31: num_cpus: expected an integer, got a scalar 'many'");
}

// issue 16, item 5: wrong types in general and storage stop the load
// with the value's place, instead of a crash or a silent default later.
TEST(ConfigParse, GeneralAndStorageValuesAreTyped) {
  EXPECT_EQ(ErrorOf("general:\n  - remote_detect: 'yes'\n"),
            "site.yaml:2:20: general: remote_detect: expected true or false, got a string 'yes'");
  EXPECT_EQ(ErrorOf("general:\n  - topology_prefix: [1]\n"),
            "site.yaml:2:22: general: topology_prefix: expected a string, got a list");
  EXPECT_EQ(ErrorOf("general:\n  - regex_match_limit: 0\n"),
            "site.yaml:2:24: general: regex_match_limit: expected a positive number of match steps (default 10000000), "
            "got 0");
  EXPECT_EQ(ErrorOf("general:\n  - max_cases: -5\n"),
            "site.yaml:2:16: general: max_cases: expected a positive number of cases (default 1000000), got -5");
  EXPECT_EQ(ErrorOf("general:\n  - max_output_per_case: lots\n"),
            "site.yaml:2:26: general: max_output_per_case: expected a size such as 1GiB, 500MiB or a number of "
            "bytes (default 1GiB), got a string 'lots'");
  EXPECT_EQ(ErrorOf("general:\n  - max_output_per_case: [1]\n"),
            "site.yaml:2:26: general: max_output_per_case: expected a size such as 1GiB, 500MiB or a number of "
            "bytes (default 1GiB), got a list");
  EXPECT_EQ(ErrorOf("general:\n  - {max_cases: 10, max_output_per_case: 500MiB}\n"), "no error");
  EXPECT_EQ(ErrorOf("general:\n  - check_search_path: tests\n"),
            "site.yaml:2:24: general: check_search_path: expected a list of strings, got a string 'tests'");
  EXPECT_EQ(ErrorOf("general:\n  - remote_detect_time_limit: soon\n"),
            "site.yaml:2:31: general: remote_detect_time_limit: expected a duration such as '30s', '10m', '1h30m' "
            "or '2d', got a string 'soon'");
  EXPECT_EQ(ErrorOf("general:\n  - module_mappings: [3]\n"),
            "site.yaml:2:23: general: module_mappings[0]: expected a string, got 3");
  EXPECT_EQ(ErrorOf("general:\n  - regex_match_limit: 1.5\n"),
            "site.yaml:2:24: general: regex_match_limit: expected a positive number of match steps (default 10000000), "
            "got 1.5");
  EXPECT_EQ(ErrorOf("storage:\n  - sqlite_db_file: [x]\n"),
            "site.yaml:2:21: sqlite_db_file: expected a string, got a list");
  EXPECT_EQ(ErrorOf("storage:\n  - sqlite_conn_timeout: soon\n"),
            "site.yaml:2:26: sqlite_conn_timeout: expected a duration such as '30s', '10m', '1h30m' or '2d', got "
            "a scalar 'soon'");
  EXPECT_EQ(ErrorOf("storage:\n  - {enable: maybe}\n"),
            "site.yaml:2:14: enable: expected true or false, got a scalar 'maybe'");
  EXPECT_EQ(ErrorOf("general:\n  - {remote_detect: true, regex_match_limit: 500, check_search_recursive: false}\n"
                    "storage:\n  - {enable: true, sqlite_db_file: x.db, sqlite_conn_timeout: 20}\n"),
            "no error");
}

// issue 16, item 4: a partition's sched_options are checked when the
// configuration loads, as its backend reads them, at the value's place.
TEST(ConfigParse, SchedOptionsAreCheckedAtLoadWithTheirPlace) {
  auto slurm = [](const std::string& options) {
    std::string text = WithPartitionKeys("        sched_options: " + options + "\n");
    return ReplaceAll(text, "scheduler: local", "scheduler: slurm");
  };
  EXPECT_EQ(ErrorOf(slurm("{lost_after: soon}")),
            "site.yaml:8:37: partition 'c:p': sched_options: 'lost_after' must be a number of seconds >= 0");
  EXPECT_EQ(ErrorOf(slurm("{resubmit_on_errors: [1]}")),
            "site.yaml:8:45: partition 'c:p': sched_options: 'resubmit_on_errors' must be a list of strings");
  EXPECT_EQ(ErrorOf(slurm("{max_resubmits: -1}")),
            "site.yaml:8:40: partition 'c:p': sched_options: 'max_resubmits' must be an integer >= 0");
  EXPECT_EQ(ErrorOf(slurm("{lost_after: 30, ssh_hosts: [a]}")),
            "site.yaml:8:52: partition 'c:p': sched_options: 'ssh_hosts' is an option of the ssh scheduler only");
  EXPECT_EQ(ErrorOf(slurm("{lost_afterr: 30}")).substr(0, 101),
            "site.yaml:8:38: partition 'c:p': sched_options: unknown key 'lost_afterr', did you mean 'lost_after'?");
  EXPECT_EQ(ErrorOf(slurm("{slurm_envvar_whitelist: [SBATCH_ACCOUNT]}")).substr(0, 116),
            "site.yaml:8:49: partition 'c:p': sched_options: 'slurm_envvar_whitelist' (ReFrame's) is not supported: "
            "hetbench does");
  EXPECT_EQ(ErrorOf(slurm("{sched_access_in_submit: true, slurm_job_cancel_reasons: [NodeDown]}")), "no error");
  EXPECT_EQ(ErrorOf(slurm("{sched_access_in_submit: 1}")),
            "site.yaml:8:49: partition 'c:p': sched_options: 'sched_access_in_submit' must be true or false");
  std::string sge = ReplaceAll(slurm("{pe: ''}"), "scheduler: slurm", "scheduler: sge");
  EXPECT_EQ(
      ErrorOf(sge),
      "site.yaml:8:29: partition 'c:p': sched_options: 'pe' must be the name of a parallel environment (e.g. smp)");
}

// issue 16, item 2: names become folders, so none may lead elsewhere.
TEST(ConfigParse, NamesThatWouldLeaveThePrefixAreRefused) {
  EXPECT_EQ(ErrorOf("systems:\n  - name: '../../tmp/victim'\n    hostnames: [x]\n    partitions: []\n"),
            "site.yaml:2:11: the name '../../tmp/victim' of system is not valid: it names folders, so use letters, "
            "digits and _ - . + @, not starting with '.'");
  EXPECT_NE(ErrorOf("environments:\n  - name: 'gnu/../../x'\n").find("the name 'gnu/../../x' of environment"),
            std::string::npos);
  std::string err = ErrorOf("systems:\n  - name: \"c\\xFF\"\n    hostnames: [x]\n    partitions: []\n");
  EXPECT_NE(err.find("the name 'c\\xC3\\xBF' of system is not valid"), std::string::npos) << err;
  EXPECT_EQ(ErrorOf(WithPartitionKeys("")), "no error");  // c and p are fine
}

TEST(ConfigParse, LoggingHandlerListsHaveTheirPlace) {
  EXPECT_EQ(ErrorOf("logging:\n  - handlers_perflog: [filelog]\n"),
            "site.yaml:2:24: handlers_perflog: each handler is a mapping with a 'type' (e.g. {type: filelog}), got "
            "a scalar 'filelog'");
  EXPECT_EQ(ErrorOf("logging:\n  - handlers_perflog: filelog\n"),
            "site.yaml:2:23: handlers_perflog: expected a list of handlers such as [{type: filelog}], got a scalar "
            "'filelog'");
  EXPECT_EQ(ErrorOf("logging:\n  - handlers: [{type: [file]}]\n"),
            "site.yaml:2:23: handlers: type: expected a handler name such as filelog, got a list");
  EXPECT_EQ(ErrorOf("logging:\n  - handlers_perflog: [{type: filelog, basedir: perflogs}]\n"), "no error");
}

TEST(ConfigParse, BadTimeLimit) {
  EXPECT_EQ(ErrorOf(WithPartitionKeys("        time_limit: soon\n")),
            "site.yaml:8:21: time_limit: expected a duration such as '30s', '10m', '1h30m' or '2d', got a "
            "scalar 'soon'");
  auto ok = Parse(WithPartitionKeys("        time_limit: 1h30m\n"));
  ASSERT_TRUE(ok.ok()) << ok.status().str();
  EXPECT_EQ(ok->systems[0].partitions[0].time_limit_s, 5400);
  ok = Parse(WithPartitionKeys("        time_limit: null\n"));
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->systems[0].partitions[0].time_limit_s, 0);
}

TEST(ConfigParse, PartitionWithoutName) {
  EXPECT_EQ(ErrorOf("systems:\n"
                    "  - name: c\n"
                    "    hostnames: [x]\n"
                    "    partitions:\n"
                    "      - scheduler: local\n"
                    "        launcher: local\n"),
            "site.yaml:5:9: partition of system 'c' without a name");
}

TEST(ConfigParse, SystemWithoutPartitions) {
  EXPECT_EQ(ErrorOf("systems:\n  - name: c\n    hostnames: [x]\n"),
            "site.yaml:2:5: system 'c' has no partitions (ReFrame requires at least one)");
  EXPECT_EQ(ErrorOf("systems:\n  - name: c\n    hostnames: [x]\n    partitions: []\n"),
            "site.yaml:4:17: system 'c' has no partitions (ReFrame requires at least one)");
}

TEST(ConfigParse, DuplicatePartitionNames) {
  EXPECT_EQ(ErrorOf(WithPartitionKeys("      - name: p\n"
                                      "        scheduler: slurm\n"
                                      "        launcher: srun\n")),
            "site.yaml:8:15: partition 'p' is defined twice in system 'c' (first at site.yaml:5:9)");
}

TEST(ConfigParse, MissingRequiredKeys) {
  EXPECT_EQ(ErrorOf("systems:\n  - name: c\n    hostnames: [x]\n    partitions:\n      - name: p\n"
                    "        launcher: local\n"),
            "site.yaml:5:9: partition 'c:p' lacks the required key 'scheduler'");
  EXPECT_EQ(ErrorOf("systems:\n  - name: c\n    partitions: [{name: p, scheduler: local, launcher: local}]\n"),
            "site.yaml:2:5: system 'c' lacks the required key 'hostnames'");
}

TEST(ConfigParse, UnknownKeysAreErrorsWithSuggestions) {
  EXPECT_EQ(ErrorOf(WithPartitionKeys("        max_job: 4\n")),
            "site.yaml:8:9: unknown key 'max_job' in partition 'c:p', did you mean 'max_jobs'?");
  EXPECT_EQ(ErrorOf("systems:\n  - name: c\n    hostname: [x]\n"),
            "site.yaml:3:5: unknown key 'hostname' in system 'c', did you mean 'hostnames'?");
  EXPECT_EQ(ErrorOf("environments:\n  - name: e\n    imgae: pytorch\n"),
            "site.yaml:3:5: unknown key 'imgae' in environment 'e', did you mean 'image'?");
  EXPECT_EQ(ErrorOf("environments:\n  - name: e\n    colour: red\n"),
            "site.yaml:3:5: unknown key 'colour' in environment 'e'");
  EXPECT_EQ(ErrorOf(WithPartitionKeys("        resources: [{name: gpu, option: [x]}]\n")),
            "site.yaml:8:33: unknown key 'option' in resource, did you mean 'options'?");
}

TEST(ConfigParse, ReframeKeysHetbenchIgnoresAreKeptInRaw) {
  auto r = Parse(
      "systems:\n"
      "  - name: c\n"
      "    hostnames: [x]\n"
      "    max_local_jobs: 4\n"
      "    sched_options: {job_submit_timeout: 30}\n"
      "    variables: [[A, '1']]\n"
      "    partitions:\n"
      "      - name: p\n"
      "        scheduler: slurm\n"
      "        launcher: srun\n"
      "        container_platforms: [{type: Sarus, modules: [sarus], default: true}]\n"
      "        container_runtime: null\n"
      "environments:\n"
      "  - name: e\n"
      "    resources: {gpu: {num_gpus_per_node: 2}}\n"
      "    modules: [{name: cuda, collection: false, path: /opt/mods}]\n");
  ASSERT_TRUE(r.ok()) << r.status().str();
  const System& sys = r->systems[0];
  EXPECT_EQ(sys.raw["max_local_jobs"], 4);
  EXPECT_EQ(sys.env_vars, EnvVars({{"A", "1"}}));  // the deprecated `variables`
  const Partition& p = sys.partitions[0];
  EXPECT_EQ(p.raw["container_platforms"][0]["type"], "Sarus");
  EXPECT_EQ(p.raw["container_platforms"][0]["default"], true);
  EXPECT_TRUE(p.raw["container_runtime"].is_null());
  EXPECT_EQ(p.extras["scheduler"], "slurm");  // ReFrame 4.6+ default extras
  EXPECT_EQ(p.extras["launcher"], "srun");
  EXPECT_FALSE(p.raw.contains("extras"));  // raw stays as read
  EXPECT_EQ(r->environments[0].modules,
            std::vector<ModuleSpec>({{.name = "cuda", .collection = false, .path = "/opt/mods"}}));
  EXPECT_EQ(r->environments[0].resources["gpu"]["num_gpus_per_node"], 2);
}

TEST(ConfigParse, EnvVarsAsPairsOrMapping) {
  auto r = Parse(WithPartitionKeys("        env_vars: [[OMP_NUM_THREADS, 4], [PATH, '$PATH:/x']]\n"));
  ASSERT_TRUE(r.ok()) << r.status().str();
  EXPECT_EQ(r->systems[0].partitions[0].env_vars, EnvVars({{"OMP_NUM_THREADS", "4"}, {"PATH", "$PATH:/x"}}));
  r = Parse(WithPartitionKeys("        env_vars: {A: x, B: 2}\n"));
  ASSERT_TRUE(r.ok()) << r.status().str();
  EXPECT_EQ(r->systems[0].partitions[0].env_vars, EnvVars({{"A", "x"}, {"B", "2"}}));
  EXPECT_EQ(ErrorOf(WithPartitionKeys("        env_vars: [[A, 1, 2]]\n")),
            "site.yaml:8:20: env_vars: expected a list of [name, value] pairs, but an item is a list");
}

TEST(ConfigParse, BadHostnameRegex) {
  EXPECT_EQ(ErrorOf("systems:\n  - name: c\n    hostnames: ['nid(\\d+']\n    partitions: []\n"),
            "site.yaml:3:17: hostnames: invalid regex 'nid(\\d+': missing closing parenthesis at offset 7");
  // A repeat count std::regex once overflowed on is PCRE2's error.
  EXPECT_EQ(ErrorOf("systems:\n  - name: c\n    hostnames: ['x{99999}']\n    partitions: []\n"),
            "site.yaml:3:17: hostnames: invalid regex 'x{99999}': number too big in {} quantifier at offset 7");
}

TEST(ConfigParse, HostnamesArePythonRegexes) {
  // Python's named groups, which std::regex refused, are PCRE2's too.
  EXPECT_EQ(ErrorOf("systems:\n  - name: c\n    hostnames: ['(?P<n>nid)\\d+']\n"
                    "    partitions: [{name: p, scheduler: local, launcher: local}]\n"),
            "no error");
}

TEST(ConfigParse, DuplicateSystemInOneFile) {
  std::string sys = "  - name: c\n    hostnames: [x]\n    partitions: [{name: p, scheduler: local, launcher: local}]\n";
  EXPECT_EQ(ErrorOf("systems:\n" + sys + sys), "site.yaml:5:11: system 'c' is defined twice (first at site.yaml:2:5)");
}

TEST(ConfigParse, SectionsMustHaveTheirShape) {
  EXPECT_EQ(ErrorOf("- a\n- b\n"),
            "site.yaml:1:1: a configuration file must be a mapping of sections (systems, environments, ...), "
            "got a list");
  EXPECT_EQ(ErrorOf("systems: {name: c}\n"), "site.yaml:1:10: systems: expected a list, got a mapping");
  EXPECT_EQ(ErrorOf("modes:\n  - options: [-x]\n"), "site.yaml:2:5: mode without a name");
  EXPECT_EQ(ErrorOf("general: {colorize: false}\n"), "site.yaml:1:10: general: expected a list, got a mapping");
  EXPECT_EQ(ErrorOf("environments:\n  - name: e\n    modules: [{path: /x}]\n"),
            "site.yaml:3:15: module without a name in environment 'e'");
}

TEST(ConfigParse, ModulesSystemMustBeOneHetbenchKnows) {
  std::string sys = "systems:\n  - name: c\n    hostnames: [x]\n    modules_system: ";
  std::string rest = "\n    partitions: [{name: p, scheduler: local, launcher: local}]\n";
  for (const char* name : {"nomod", "lmod", "tmod", "tmod31", "tmod32", "tmod4", "envmod", "spack"}) {
    auto r = Parse(sys + name + rest);
    ASSERT_TRUE(r.ok()) << name << ": " << r.status().str();
    EXPECT_EQ(r->systems[0].modules_system, name);
  }
  EXPECT_EQ(ErrorOf(sys + "lmodd" + rest),
            "site.yaml:4:21: modules_system: 'lmodd' is not a module system hetbench knows; expected one of "
            "nomod, lmod, tmod, tmod31, tmod32, tmod4, envmod, spack, did you mean 'lmod'?");
  EXPECT_EQ(ErrorOf(sys + "easybuild" + rest),
            "site.yaml:4:21: modules_system: 'easybuild' is not a module system hetbench knows; expected one of "
            "nomod, lmod, tmod, tmod31, tmod32, tmod4, envmod, spack");
}

TEST(ConfigParse, ModuleEntriesOfEveryLevel) {
  auto r = Parse(
      "systems:\n  - name: c\n    hostnames: [x]\n    modules: [craype]\n"
      "    partitions:\n      - name: p\n        scheduler: local\n        launcher: local\n"
      "        modules: [{name: PrgEnv-gnu, swap: PrgEnv-cray}, {name: darshan, unload: true}]\n"
      "environments:\n  - name: e\n    modules: ['gcc/12', {name: mine, collection: true}]\n");
  ASSERT_TRUE(r.ok()) << r.status().str();
  EXPECT_EQ(r->systems[0].modules, std::vector<ModuleSpec>({{.name = "craype"}}));
  EXPECT_EQ(r->systems[0].partitions[0].modules, std::vector<ModuleSpec>({{.name = "PrgEnv-gnu", .swap = "PrgEnv-cray"},
                                                                          {.name = "darshan", .unload = true}}));
  EXPECT_EQ(r->environments[0].modules,
            std::vector<ModuleSpec>({{.name = "gcc/12"}, {.name = "mine", .collection = true}}));
  EXPECT_EQ(ErrorOf("environments:\n  - name: e\n    modules: [{name: x, swapp: y}]\n"),
            "site.yaml:3:25: unknown key 'swapp' in module of environment 'e', did you mean 'swap'?");
}

TEST(ConfigParse, EmptyDocumentIsAnEmptyFragment) {
  auto r = Parse("# nothing yet\n");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->systems.empty());
}

TEST(ConfigParse, ReframeKeyLists) {
  EXPECT_NE(std::find(ReframeKeys("partition").begin(), ReframeKeys("partition").end(), "sched_options"),
            ReframeKeys("partition").end());
  EXPECT_TRUE(ReframeKeys("nonsense").empty());
}

}  // namespace
}  // namespace hb

namespace hb {
namespace {

TEST(ConfigParse, ContainerPlatforms) {
  auto r =
      Parse(WithPartitionKeys("        container_platforms:\n"
                              "          - type: Apptainer\n"
                              "            modules: [apptainer/1.3]\n"
                              "            env_vars: [[APPTAINER_CACHEDIR, /tmp/cache]]\n"
                              "          - type: podman\n"
                              "            default: true\n"));
  ASSERT_TRUE(r.ok()) << r.status().str();
  const Partition& p = r->systems[0].partitions[0];
  ASSERT_EQ(p.container_platforms.size(), 2u);
  EXPECT_EQ(p.container_platforms[0].type, "Apptainer");
  EXPECT_EQ(p.container_platforms[0].modules, std::vector<ModuleSpec>({{.name = "apptainer/1.3"}}));
  EXPECT_EQ(p.container_platforms[0].env_vars[0].second, "/tmp/cache");
  EXPECT_EQ(p.container_platforms[1].type, "Podman");  // any case, stored as spelled by hetbench
  EXPECT_EQ(p.FindContainerPlatform("default")->type, "Podman");
  EXPECT_EQ(p.FindContainerPlatform("apptainer")->type, "Apptainer");
}

TEST(ConfigParse, ContainerRuntimeNamesTheDefault) {
  auto r = Parse(WithPartitionKeys("        container_runtime: Singularity\n"));
  ASSERT_TRUE(r.ok()) << r.status().str();
  const Partition& p = r->systems[0].partitions[0];
  ASSERT_EQ(p.container_platforms.size(), 1u);
  EXPECT_EQ(p.FindContainerPlatform("")->type, "Singularity");
}

TEST(ConfigParse, UnknownContainerPlatformNamesKeyAndAllowedValues) {
  EXPECT_EQ(ErrorOf(WithPartitionKeys("        container_platforms:\n"
                                      "          - type: Dokcer\n")),
            "site.yaml:9:19: container_platforms: type: unknown container platform 'Dokcer', did you mean "
            "'Docker'? (known: Apptainer, Docker, Podman, Sarus, Shifter, Singularity)");
  EXPECT_EQ(ErrorOf(WithPartitionKeys("        container_runtime: charliecloud\n")),
            "site.yaml:8:28: container_runtime: unknown container platform 'charliecloud' (known: Apptainer, "
            "Docker, Podman, Sarus, Shifter, Singularity)");
  EXPECT_EQ(ErrorOf(WithPartitionKeys("        container_platforms:\n"
                                      "          - {type: Docker, defualt: true}\n")),
            "site.yaml:9:28: unknown key 'defualt' in container platform, did you mean 'default'?");
  EXPECT_EQ(ErrorOf(WithPartitionKeys("        container_platforms:\n"
                                      "          - modules: [x]\n")),
            "site.yaml:9:13: a container_platforms entry lacks the required key 'type'");
  EXPECT_EQ(ErrorOf(WithPartitionKeys("        container_platforms:\n"
                                      "          - {type: Docker, default: true}\n"
                                      "          - {type: Podman, default: true}\n")),
            "site.yaml:10:13: container_platforms: both 'Docker' and 'Podman' are marked default: true; mark one");
  EXPECT_EQ(ErrorOf(WithPartitionKeys("        container_platforms:\n"
                                      "          - {type: Docker}\n"
                                      "          - {type: docker}\n")),
            "site.yaml:10:13: container_platforms: 'Docker' is listed twice (first at site.yaml:9:13)");
}

}  // namespace
}  // namespace hb
