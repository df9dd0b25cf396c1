#include "config/config_loader.h"

#include <gtest/gtest.h>

#include "config/detect.h"
#include "util/test_temp_dir.h"

namespace hb {
namespace {

// A ReFrame 4 configuration of a Slurm cluster, as a site would write it.
const char kCluster[] = R"(# hpcsite: login nodes and a GPU partition
systems:
  - name: hpcsite
    descr: Example cluster
    hostnames: ['login\d+', 'nid\d+']
    modules_system: lmod
    max_local_jobs: 4
    prefix: '/scratch/{{ user }}/reframe'
    stagedir: '{{ getenv("HB_TEST_SCRATCH") }}/stage'
    env_vars:
      - [SCRATCH_DIR, '/scratch/{{ user }}']
    partitions:
      - name: login
        descr: Login nodes
        scheduler: local
        launcher: local
        environs: [builtin, gnu]
        max_jobs: 4
      - name: gpu
        descr: GPU nodes with 4x A100
        scheduler: slurm
        launcher: srun
        access: ['--partition=gpu', '--account=proj01']
        environs: [gnu, cuda]
        max_jobs: 100
        time_limit: 30m
        features: [gpu, cuda]
        extras: {gpu_mem_gib: 80}
        sched_options: {use_nodes_option: true, job_submit_timeout: 120}
        env_vars: [[OMP_PROC_BIND, close], [NCCL_DEBUG, WARN]]
        modules: [cuda/12.2, {name: nccl, collection: false}]
        prepare_cmds: ['source /etc/profile.d/site.sh']
        resources:
          - name: gpu
            options: ['--gres=gpu:{num_gpus_per_node}']
          - name: memory
            options: ['--mem={size}']
        container_platforms:
          - type: Apptainer
            modules: [apptainer]
        processor:
          arch: zen3
          num_cpus: 128
          num_cpus_per_core: 2
          num_cpus_per_socket: 64
          num_sockets: 2
        devices:
          - type: gpu
            arch: sm_80
            model: A100-SXM4-80GB
            num_devices: 4
environments:
  - name: builtin
    cc: cc
    cxx: CC
    ftn: ftn
  - name: gnu
    modules: [gcc/12]
    cc: gcc
    cxx: g++
    ftn: gfortran
    cflags: [-O3]
    features: [openmp]
  - name: gnu
    target_systems: ['hpcsite:gpu']
    modules: [gcc/12, openmpi]
    cc: mpicc
    cxx: mpicxx
    ftn: mpif90
  - name: cuda
    target_systems: [hpcsite]
    modules: [cuda/12.2]
    cxx: g++
    extras: {cuda_version: '12.2'}
    image: nvcr.io/nvidia/pytorch:24.05-py3
logging:
  - level: debug
    handlers:
      - type: stream
        name: stdout
        level: info
        format: '%(message)s'
    handlers_perflog:
      - type: filelog
        prefix: '%(check_system)s/%(check_partition)s'
        level: info
        format: '%(check_job_completion_time)s|reframe %(version)s|%(check_info)s|%(check_perfvalues)s'
        format_perfvars: '%(check_perf_value)s|%(check_perf_unit)s|'
        append: true
modes:
  - name: nightly
    options: ['--tag=nightly', '--max-retries=2']
  - name: gpu-only
    options: ['--system=hpcsite:gpu']
    target_systems: [hpcsite]
general:
  - check_search_path: [checks/]
    check_search_recursive: true
    report_junit: null
storage:
  - enable: true
    sqlite_db_file: '${HOME}/.reframe/results.db'
autodetect_methods: ['py::socket.gethostname']
)";

JinjaContext TestContext() {
  JinjaContext ctx;
  ctx.hostname = "login01";
  ctx.user = "alice";
  ctx.getenv = [](const std::string& n) -> std::optional<std::string> {
    if (n == "HB_TEST_SCRATCH") return std::string("/lus/alice");
    return std::nullopt;
  };
  return ctx;
}

SiteConfig LoadOk(const std::vector<ConfigSource>& sources) {
  Result<SiteConfig> cfg = LoadSiteConfigSources(sources, TestContext());
  EXPECT_TRUE(cfg.ok()) << cfg.status().str();
  return cfg.ok() ? *cfg : SiteConfig();
}

TEST(ConfigLoader, ReadsAReframeClusterConfigUnchanged) {
  SiteConfig cfg = LoadOk({{"cluster.yaml", kCluster}});
  ASSERT_EQ(cfg.systems.size(), 1u);
  const System& sys = cfg.systems[0];
  EXPECT_EQ(sys.name, "hpcsite");
  EXPECT_EQ(sys.hostnames, std::vector<std::string>({"login\\d+", "nid\\d+"}));
  EXPECT_EQ(sys.modules_system, "lmod");
  EXPECT_EQ(sys.prefix, "/scratch/alice/reframe");
  EXPECT_EQ(sys.stagedir, "/lus/alice/stage");
  EXPECT_EQ(sys.env_vars, EnvVars({{"SCRATCH_DIR", "/scratch/alice"}}));
  EXPECT_EQ(sys.mark.str(), "cluster.yaml:3:5");
  ASSERT_EQ(sys.partitions.size(), 2u);
  const Partition& gpu = sys.partitions[1];
  EXPECT_EQ(gpu.scheduler, "slurm");
  EXPECT_EQ(gpu.launcher, "srun");
  EXPECT_EQ(gpu.access, std::vector<std::string>({"--partition=gpu", "--account=proj01"}));
  EXPECT_EQ(gpu.environs, std::vector<std::string>({"gnu", "cuda"}));
  EXPECT_EQ(gpu.max_jobs, 100);
  EXPECT_EQ(gpu.time_limit_s, 1800);
  EXPECT_EQ(gpu.features, std::vector<std::string>({"gpu", "cuda"}));
  EXPECT_EQ(ModuleNames(gpu.modules), std::vector<std::string>({"cuda/12.2", "nccl"}));
  EXPECT_EQ(gpu.env_vars, EnvVars({{"OMP_PROC_BIND", "close"}, {"NCCL_DEBUG", "WARN"}}));
  EXPECT_EQ(gpu.prepare_cmds, std::vector<std::string>({"source /etc/profile.d/site.sh"}));
  ASSERT_EQ(gpu.resources.size(), 2u);
  EXPECT_EQ(gpu.resources[0].name, "gpu");
  EXPECT_EQ(gpu.resources[0].options, std::vector<std::string>({"--gres=gpu:{num_gpus_per_node}"}));
  EXPECT_EQ(gpu.extras["gpu_mem_gib"], 80);
  EXPECT_EQ(gpu.sched_options["job_submit_timeout"], 120);
  EXPECT_EQ(gpu.processor.arch, "zen3");
  EXPECT_EQ(gpu.processor.num_cpus, 128);
  EXPECT_EQ(gpu.processor.num_sockets, 2);
  ASSERT_EQ(gpu.devices.size(), 1u);
  EXPECT_EQ(gpu.devices[0].arch, "sm_80");
  EXPECT_EQ(gpu.devices[0].num_devices, 4);
  EXPECT_EQ(gpu.raw["container_platforms"][0]["type"], "Apptainer");
  EXPECT_TRUE(gpu.raw["max_jobs"].is_number_integer());
  EXPECT_EQ(sys.partitions[0].time_limit_s, 0);
}

TEST(ConfigLoader, EnvironmentsModesAndOtherSections) {
  SiteConfig cfg = LoadOk({{"cluster.yaml", kCluster}});
  ASSERT_EQ(cfg.environments.size(), 4u);
  EXPECT_EQ(cfg.FindEnvironment("gnu", "hpcsite", "gpu")->cc, "mpicc");
  EXPECT_EQ(cfg.FindEnvironment("gnu", "hpcsite", "login")->cc, "gcc");
  EXPECT_EQ(cfg.FindEnvironment("gnu", "hpcsite", "login")->cflags, std::vector<std::string>({"-O3"}));
  const Environment* cuda = cfg.FindEnvironment("cuda", "hpcsite", "gpu");
  ASSERT_NE(cuda, nullptr);
  EXPECT_EQ(cuda->image, "nvcr.io/nvidia/pytorch:24.05-py3");
  EXPECT_EQ(cuda->nvcc, "nvcc");  // ReFrame's default
  EXPECT_EQ(cuda->extras["cuda_version"], "12.2");
  EXPECT_EQ(cfg.FindEnvironment("cuda", "laptop", "default"), nullptr);

  EXPECT_EQ(cfg.modes.size(), 1u);
  EXPECT_EQ(cfg.modes["nightly"], std::vector<std::string>({"--tag=nightly", "--max-retries=2"}));
  EXPECT_EQ(cfg.FindMode("gpu-only", "hpcsite"), std::vector<std::string>({"--system=hpcsite:gpu"}));
  EXPECT_EQ(cfg.general["check_search_recursive"], true);
  EXPECT_TRUE(cfg.general["report_junit"].is_null());
  ASSERT_EQ(cfg.logging.size(), 1u);
  EXPECT_EQ(cfg.logging[0]["handlers_perflog"][0]["type"], "filelog");
  EXPECT_EQ(cfg.logging[0]["handlers_perflog"][0]["append"], true);
  EXPECT_EQ(cfg.storage[0]["sqlite_db_file"], "${HOME}/.reframe/results.db");
  EXPECT_EQ(cfg.raw["autodetect_methods"][0], "py::socket.gethostname");
  EXPECT_EQ(cfg.raw["systems"][0]["partitions"][1]["name"], "gpu");
  EXPECT_EQ(cfg.files, std::vector<std::string>({"cluster.yaml"}));
}

const char kRefinement[] = R"(
systems:
  - name: hpcsite
    hostnames: ['login\d+']
    partitions: [{name: login, scheduler: local, launcher: local, environs: [builtin]}]
  - name: laptop
    hostnames: ['mylaptop']
    partitions: [{name: default, scheduler: local, launcher: local, environs: [builtin]}]
environments:
  - name: builtin
    cc: clang
    cxx: clang++
general:
  - check_search_recursive: false
    colorize: false
logging:
  - handlers_perflog: []
    target_systems: [laptop]
modes:
  - name: nightly
    options: ['--tag=nightly']
)";

TEST(ConfigLoader, LaterFilesRefineEarlierOnes) {
  SiteConfig cfg = LoadOk({{"cluster.yaml", kCluster}, {"mine.yaml", kRefinement}});
  ASSERT_EQ(cfg.systems.size(), 2u);
  EXPECT_EQ(cfg.systems[0].name, "hpcsite");
  EXPECT_EQ(cfg.systems[0].partitions.size(), 1u);  // replaced, not merged
  EXPECT_EQ(cfg.systems[0].mark.file, "mine.yaml");
  EXPECT_EQ(cfg.systems[1].name, "laptop");
  // builtin (same name, same targets) replaced; gnu and cuda kept.
  EXPECT_EQ(cfg.environments.size(), 4u);
  EXPECT_EQ(cfg.FindEnvironment("builtin", "laptop", "default")->cc, "clang");
  EXPECT_EQ(cfg.FindEnvironment("gnu", "hpcsite", "gpu")->cc, "mpicc");
  // general merged key by key, later wins.
  EXPECT_EQ(cfg.general["check_search_path"], nlohmann::json::array({"checks/"}));
  EXPECT_EQ(cfg.general["check_search_recursive"], false);
  EXPECT_EQ(cfg.general["colorize"], false);
  // logging entries for other systems are added, not merged.
  EXPECT_EQ(cfg.logging.size(), 2u);
  EXPECT_EQ(cfg.SectionFor("logging", "laptop")["handlers_perflog"], nlohmann::json::array());
  EXPECT_EQ(cfg.SectionFor("logging", "hpcsite")["level"], "debug");
  EXPECT_EQ(cfg.modes["nightly"], std::vector<std::string>({"--tag=nightly"}));
  EXPECT_EQ(cfg.raw["systems"].size(), 2u);
  EXPECT_EQ(cfg.files, std::vector<std::string>({"cluster.yaml", "mine.yaml"}));
}

TEST(ConfigLoader, LaterSystemsAreMatchedFirst) {
  const char generic[] =
      "systems:\n  - name: generic\n    hostnames: ['.*']\n"
      "    partitions: [{name: default, scheduler: local, launcher: local}]\n";
  SiteConfig cfg = LoadOk({{"base.yaml", generic}, {"cluster.yaml", kCluster}});
  auto chosen = SelectSystem(cfg, "", "login07");
  ASSERT_TRUE(chosen.ok()) << chosen.status().str();
  EXPECT_EQ(chosen->first->name, "hpcsite");
  EXPECT_EQ(chosen->second, nullptr);
  chosen = SelectSystem(cfg, "", "my-laptop");
  ASSERT_TRUE(chosen.ok()) << chosen.status().str();
  EXPECT_EQ(chosen->first->name, "generic");
}

TEST(ConfigLoader, SelectSystemByHostnameIsAnchoredAtTheStart) {
  SiteConfig cfg = LoadOk({{"cluster.yaml", kCluster}});
  EXPECT_EQ(SelectSystem(cfg, "", "nid001234")->first->name, "hpcsite");
  EXPECT_EQ(SelectSystem(cfg, "", "login3.cluster.example.org")->first->name, "hpcsite");
  auto none = SelectSystem(cfg, "", "mynid001");  // re.match, not re.search
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().str(),
            "no system in the configuration matches host 'mynid001'; use --system SYSTEM[:PARTITION] "
            "(systems: hpcsite) or add the host to a system's hostnames");
}

TEST(ConfigLoader, SelectSystemBySpec) {
  SiteConfig cfg = LoadOk({{"cluster.yaml", kCluster}});
  auto sys = SelectSystem(cfg, "hpcsite", "anyhost");
  ASSERT_TRUE(sys.ok()) << sys.status().str();
  EXPECT_EQ(sys->first->name, "hpcsite");
  EXPECT_EQ(sys->second, nullptr);
  auto part = SelectSystem(cfg, "hpcsite:gpu", "anyhost");
  ASSERT_TRUE(part.ok());
  EXPECT_EQ(part->second->name, "gpu");
  EXPECT_EQ(SelectSystem(cfg, "hpcsit", "x").status().str(),
            "unknown system 'hpcsit', did you mean 'hpcsite'? (the configuration defines: hpcsite)");
  EXPECT_EQ(SelectSystem(cfg, "hpcsite:gpus", "x").status().str(),
            "system 'hpcsite' has no partition 'gpus', did you mean 'gpu'? (it has: login, gpu)");
}

TEST(ConfigLoader, SelectSystemChecksEnvironmentsAreDefined) {
  const char text[] =
      "systems:\n  - name: c\n    hostnames: [c]\n    partitions:\n"
      "      - {name: p, scheduler: local, launcher: local, environs: [gnu]}\n"
      "environments:\n  - {name: gnu, target_systems: ['other']}\n";
  SiteConfig cfg = LoadOk({{"c.yaml", text}});
  EXPECT_EQ(
      SelectSystem(cfg, "c", "").status().str(),
      "c.yaml:5:9: partition 'c:p' lists environment 'gnu', which is not defined for it (its target_systems: other)");
  cfg.environments.clear();
  EXPECT_EQ(SelectSystem(cfg, "c:p", "").status().str(),
            "c.yaml:5:9: partition 'c:p' lists environment 'gnu', which is not defined for it");
}

TEST(ConfigLoader, JinjaErrorsNameTheFile) {
  auto r = LoadSiteConfigSources({{"bad.yaml", "systems:\n  - name: '{{ cluster_name }}'\n"}}, TestContext());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().str().substr(0, 55), "bad.yaml:2:12: unsupported Jinja expression '{{ cluster");
}

TEST(ConfigLoader, RejectsWhatItCannotRead) {
  auto multi = LoadSiteConfigSources({{"two.yaml", "systems: []\n---\nenvironments: []\n"}}, TestContext());
  EXPECT_EQ(multi.status().str(),
            "two.yaml:3:1: a configuration file holds one YAML document, but this one has more ('---')");
  auto py = LoadSiteConfigSources({{"settings.py", "site_configuration = {}\n"}}, TestContext());
  EXPECT_EQ(py.status().str(),
            "settings.py: Python configuration files are not supported; hetbench reads "
            "ReFrame's YAML (and JSON) configuration files");
  auto yaml = LoadSiteConfigSources({{"broken.yaml", "systems: [\n"}}, TestContext());
  EXPECT_EQ(yaml.status().mark().file, "broken.yaml");
  EXPECT_FALSE(LoadSiteConfig({"/nonexistent/hb.yaml"}).ok());
}

TEST(ConfigLoader, NumbersWhereReframeWantsStringsDoNotCrash) {
  SiteConfig cfg = LoadOk({{"m.yaml",
                            "modes:\n  - {name: 2024, options: [-J, 5, 1.5, true]}\n"
                            "  - {name: 2024, options: [-x], target_systems: [7]}\n"}});
  EXPECT_EQ(cfg.modes["2024"], std::vector<std::string>({"-J", "5", "1.5", "true"}));
  EXPECT_EQ(cfg.FindMode("2024", "7"), std::vector<std::string>({"-x"}));
}

TEST(ConfigLoader, ReadsJsonConfigurationFiles) {
  SiteConfig cfg = LoadOk({{"settings.json", R"({"systems": [{"name": "j", "hostnames": ["j.*"],
      "partitions": [{"name": "p", "scheduler": "local", "launcher": "local", "max_jobs": 2}]}]})"}});
  EXPECT_EQ(cfg.systems[0].partitions[0].max_jobs, 2);
}

TEST(ConfigLoader, LoadsFilesWithTheHostsJinjaValues) {
  TempDir dir;
  std::string a = dir.Write("a.yaml", kCluster);
  std::string b = dir.Write("conf/b.yaml", kRefinement);
  setenv("HB_TEST_SCRATCH", "/from/env", 1);
  Result<SiteConfig> cfg = LoadSiteConfig({b, a});
  unsetenv("HB_TEST_SCRATCH");
  ASSERT_TRUE(cfg.ok()) << cfg.status().str();
  EXPECT_EQ(cfg->FindSystem("hpcsite")->stagedir, "/from/env/stage");
  EXPECT_EQ(cfg->files, std::vector<std::string>({b, a}));
}

TEST(ConfigLoader, ConfigFilesFromEnv) {
  setenv("HETBENCH_CONFIG_FILES", "/etc/hb/site.yaml::~/hb.yaml:", 1);
  EXPECT_EQ(ConfigFilesFromEnv(), std::vector<std::string>({"/etc/hb/site.yaml", "~/hb.yaml"}));
  unsetenv("HETBENCH_CONFIG_FILES");
  EXPECT_TRUE(ConfigFilesFromEnv().empty());
}

TEST(ConfigLoader, GenericConfigFromDetection) {
  Processor cpu;
  cpu.arch = "zen3";
  cpu.platform = "x86_64";
  cpu.num_cpus = 16;
  std::vector<Device> gpus = {{"gpu", "sm_90", "NVIDIA H200", 2}};
  SiteConfig cfg = GenericConfig(cpu, gpus);
  EXPECT_TRUE(cfg.files.empty());
  ASSERT_EQ(cfg.systems.size(), 1u);
  EXPECT_EQ(cfg.systems[0].name, "generic");
  EXPECT_EQ(cfg.systems[0].hostnames, std::vector<std::string>({".*"}));
  const Partition& local = cfg.systems[0].partitions.at(0);
  EXPECT_EQ(local.name, "default");  // ReFrame's name
  // 'local' (hetbench's name before) still finds it, as --system and
  // reference keys use it.
  EXPECT_EQ(cfg.systems[0].FindPartition("local"), &local);
  EXPECT_EQ(cfg.systems[0].FindPartition("default"), &local);
  EXPECT_EQ(cfg.systems[0].FindPartition("gpu"), nullptr);
  EXPECT_EQ(local.scheduler, "local");
  EXPECT_EQ(local.launcher, "local");
  EXPECT_EQ(local.environs, std::vector<std::string>({"builtin"}));
  EXPECT_EQ(local.max_jobs, 16);
  EXPECT_EQ(local.features, std::vector<std::string>({"gpu", "cuda"}));
  EXPECT_EQ(local.processor.arch, "zen3");
  ASSERT_EQ(local.devices.size(), 1u);
  EXPECT_EQ(local.devices[0].num_devices, 2);
  EXPECT_FALSE(local.mark.known());
  const Environment* builtin = cfg.FindEnvironment("builtin", "generic", "default");
  ASSERT_NE(builtin, nullptr);
  EXPECT_EQ(builtin->cc, "gcc");
  EXPECT_EQ(builtin->cxx, "g++");
  EXPECT_EQ(builtin->ftn, "gfortran");
  EXPECT_EQ(cfg.raw["systems"][0]["partitions"][0]["processor"]["num_cpus"], 16);
  EXPECT_EQ(SelectSystem(cfg, "", "whatever.example.org")->first->name, "generic");
}

TEST(ConfigLoader, GenericConfigOfThisHost) {
  SiteConfig cfg = GenericConfig();
  const Partition& local = cfg.systems.at(0).partitions.at(0);
  EXPECT_GE(local.max_jobs, 1);
  EXPECT_GE(local.processor.num_cpus, 1);
  EXPECT_EQ(local.max_jobs, local.processor.num_cpus);
  EXPECT_TRUE(LoadSiteConfig({})->FindSystem("generic"));
}

TEST(ConfigLoader, ShowConfigRoundTrips) {
  SiteConfig cfg = LoadOk({{"cluster.yaml", kCluster}});
  std::string shown = ConfigToYaml(cfg.raw);
  SiteConfig again = LoadOk({{"shown.yaml", shown}});
  EXPECT_EQ(again.raw, cfg.raw) << shown;
}

}  // namespace
}  // namespace hb
