#include "config/topology.h"

#include <gtest/gtest.h>

#include <map>

#include "config/config_loader.h"
#include "config/detect.h"
#include "util/test_temp_dir.h"

namespace hb {
namespace {

Topology Sample() {
  Topology t;
  t.processor.arch = "zen3";
  t.processor.vendor = "AuthenticAMD";
  t.processor.model = "AMD EPYC 7763 64-Core Processor";
  t.processor.platform = "x86_64";
  t.processor.num_cpus = 128;
  t.processor.num_cpus_per_core = 2;
  t.processor.num_cpus_per_socket = 64;
  t.processor.num_sockets = 2;
  t.processor.topology = {{"numa_nodes", {"0x00000000ffffffff"}}};
  t.devices = {{"gpu", "sm_80", "NVIDIA A100-SXM4-80GB", 4}};
  t.hostname = "nid001";
  t.hetbench_version = "9.9.9";
  t.time = 1767225600.5;
  return t;
}

TopologyEnv FakeEnv(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) {
    auto it = vars.find(name);
    return it == vars.end() ? std::string() : it->second;
  };
}

TEST(Topology, JsonRoundTripKeepsEverything) {
  nlohmann::json j = TopologyToJson(Sample());
  EXPECT_EQ(j["schema"], "hetbench-topology");
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["processor"]["num_cpus"], 128);
  EXPECT_EQ(j["devices"][0]["arch"], "sm_80");
  auto back = TopologyFromJson(j, "t.json");
  ASSERT_TRUE(back.ok()) << back.status().str();
  EXPECT_EQ(TopologyToJson(*back), j);
}

TEST(Topology, ReaderRefusesOtherFormatsSayingWhy) {
  nlohmann::json j = TopologyToJson(Sample());
  j["schema_version"] = 2;
  EXPECT_EQ(TopologyFromJson(j, "t.json").status().str(),
            "t.json: schema_version 2 is not one this hetbench reads (it reads 1 to 1); detect again with --refresh");
  // ReFrame's own processor.json is the bare processor: not ours.
  EXPECT_EQ(TopologyFromJson({{"arch", "zen3"}, {"num_cpus", 8}}, "p.json").status().str(),
            "p.json: not a hetbench topology file (expected \"schema\": \"hetbench-topology\")");
  j = TopologyToJson(Sample());
  j["processor"]["num_cpus"] = "many";
  EXPECT_NE(TopologyFromJson(j, "t.json").status().str().find("t.json: processor: "), std::string::npos);
  j = TopologyToJson(Sample());
  j["devices"] = {{{"arch", "sm_80"}}};
  EXPECT_NE(TopologyFromJson(j, "t.json").status().str().find("t.json: devices[0]: type: is required"),
            std::string::npos);
  // issue 16, item 5: wrong types are messages, not a crash of every command.
  j = TopologyToJson(Sample());
  j["hostname"] = 5;
  EXPECT_EQ(TopologyFromJson(j, "t.json").status().str(),
            "t.json: \"hostname\" must be a string, got 5; detect again with --refresh");
  j = TopologyToJson(Sample());
  j["time"] = "noon";
  EXPECT_FALSE(TopologyFromJson(j, "t.json").ok());
  j["schema"] = 7;
  EXPECT_NE(TopologyFromJson(j, "t.json").status().str().find("not a hetbench topology file"), std::string::npos);
}

TEST(Topology, FilesAreWrittenAndRead) {
  TempDir dir;
  std::string path = dir / "a/b/processor.json";
  ASSERT_TRUE(WriteTopologyFile(path, Sample()).ok());
  auto t = ReadTopologyFile(path);
  ASSERT_TRUE(t.ok()) << t.status().str();
  EXPECT_EQ(t->processor.model, "AMD EPYC 7763 64-Core Processor");
  EXPECT_EQ(t->devices.size(), 1u);
  EXPECT_EQ(t->hostname, "nid001");
  dir.Write("bad.json", "{not json");
  EXPECT_EQ(ReadTopologyFile(dir / "bad.json").status().str(), dir / "bad.json" + ": not valid JSON");
  EXPECT_FALSE(ReadTopologyFile(dir / "missing.json").ok());
}

TEST(Topology, LocalDetectionIsThisHost) {
  Topology t = DetectLocalTopology();
  EXPECT_GT(t.processor.num_cpus, 0);
  EXPECT_FALSE(t.hostname.empty());
  EXPECT_FALSE(t.hetbench_version.empty());
  EXPECT_GT(t.time, 1.6e9);
}

TEST(Topology, CacheLocation) {
  EXPECT_EQ(TopologyPrefix({}, FakeEnv({{"XDG_CACHE_HOME", "/c"}, {"HOME", "/h"}})), "/c/hetbench/topology");
  EXPECT_EQ(TopologyPrefix({}, FakeEnv({{"HOME", "/h"}})), "/h/.cache/hetbench/topology");
  EXPECT_EQ(TopologyPrefix({{"topology_prefix", "/shared/topo"}}, FakeEnv({{"HOME", "/h"}})), "/shared/topo");
  EXPECT_EQ(TopologyFile("/c/t", "hpc", "gpu").value(), "/c/t/hpc-gpu/processor.json");
  EXPECT_FALSE(TopologyFile("/c/t", "hpc", "x/../../../etc").ok());
}

const char kSite[] = R"(
systems:
  - name: hpc
    hostnames: ['.*']
    partitions:
      - name: bare
        scheduler: local
        launcher: local
        environs: [builtin]
      - name: configured
        scheduler: local
        launcher: local
        environs: [builtin]
        processor: {num_cpus: 8}
        devices: []
      - name: cpu_only
        scheduler: local
        launcher: local
        environs: [builtin]
        processor: {num_cpus: 2}
environments:
  - {name: builtin, cc: gcc}
)";

TEST(Topology, CacheFillsWhatTheConfigurationLeavesOut) {
  TempDir dir;
  auto cfg = LoadSiteConfig({dir.Write("site.yaml", kSite)});
  ASSERT_TRUE(cfg.ok()) << cfg.status().str();
  TopologyEnv env = FakeEnv({{"XDG_CACHE_HOME", dir / "cache"}});
  std::string prefix = dir / "cache/hetbench/topology";
  for (const char* part : {"bare", "configured", "cpu_only"})
    ASSERT_TRUE(WriteTopologyFile(TopologyFile(prefix, "hpc", part).value(), Sample()).ok());
  EXPECT_TRUE(ApplyTopologyCache(&*cfg, env).empty());
  const System& sys = *cfg->FindSystem("hpc");
  // Nothing configured: both filled in, also in what show-config prints.
  EXPECT_EQ(sys.FindPartition("bare")->processor.num_cpus, 128);
  EXPECT_EQ(sys.FindPartition("bare")->devices.size(), 1u);
  EXPECT_EQ(cfg->raw["systems"][0]["partitions"][0]["processor"]["num_cpus"], 128);
  EXPECT_EQ(cfg->raw["systems"][0]["partitions"][0]["devices"][0]["model"], "NVIDIA A100-SXM4-80GB");
  // The configuration wins, even an explicitly empty device list.
  EXPECT_EQ(sys.FindPartition("configured")->processor.num_cpus, 8);
  EXPECT_TRUE(sys.FindPartition("configured")->devices.empty());
  EXPECT_EQ(sys.FindPartition("cpu_only")->processor.num_cpus, 2);
  EXPECT_EQ(sys.FindPartition("cpu_only")->devices.size(), 1u);
}

TEST(Topology, UnreadableCacheIsAWarningNotAnError) {
  TempDir dir;
  auto cfg = LoadSiteConfig({dir.Write("site.yaml", kSite)});
  ASSERT_TRUE(cfg.ok()) << cfg.status().str();
  std::string file = dir.Write("topo/hpc-bare/processor.json", "{\"schema\": \"other\"}");
  nlohmann::json general = {{"topology_prefix", dir / "topo"}};
  cfg->raw["general"] = nlohmann::json::array({general});
  auto warnings = ApplyTopologyCache(&*cfg, FakeEnv({}));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], "ignoring the cached topology of partition 'hpc:bare': " + file +
                             ": not a hetbench topology file (expected \"schema\": \"hetbench-topology\")");
  EXPECT_EQ(cfg->FindSystem("hpc")->FindPartition("bare")->processor.num_cpus, 0);
}

}  // namespace
}  // namespace hb
