// End to end: `hetbench detect --partition` through a real detection job
// (the local scheduler), the topology cache, and `hetbench run` filling in
// a partition's processor from it (or detecting it with remote_detect).
#include <sys/stat.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <regex>

#include "e2e_util.h"

namespace {

void WriteScript(const std::string& path, const std::string& body) {
  Write(path, "#!/bin/bash\n" + body);
  chmod(path.c_str(), 0755);
}

std::string NumCpus(const std::string& yaml) {
  std::smatch m;
  return std::regex_search(yaml, m, std::regex(R"(\n  num_cpus: (\d+)\n)")) ? m[1].str() : "";
}

class Detect : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TempDir();
    env_ = {{"XDG_CACHE_HOME", dir_ + "/cache"}};
    Write(dir_ + "/site.yaml", e2e::LocalSite());
  }
  std::string CacheFile() const { return dir_ + "/cache/hetbench/topology/box-p/processor.json"; }
  std::string dir_;
  e2e::Env env_;
};

TEST_F(Detect, PartitionJobPrintsWhatLocalDetectPrintsAndCachesIt) {
  auto local = Hetbench({"detect"}, dir_, 60, env_);
  ASSERT_EQ(local.exit_code, 0) << local.err;
  ASSERT_FALSE(NumCpus(local.out).empty()) << local.out;

  auto remote = Hetbench({"detect", "-C", "site.yaml", "--partition", "box:p"}, dir_, 120, env_);
  ASSERT_EQ(remote.exit_code, 0) << remote.err;
  EXPECT_EQ(remote.out, local.out) << "the job ran `hetbench detect` on this same host";
  EXPECT_NE(remote.err.find("detecting the topology of partition 'box:p': job "), std::string::npos) << remote.err;
  EXPECT_NE(remote.err.find("cached in " + CacheFile()), std::string::npos) << remote.err;

  ASSERT_TRUE(Exists(CacheFile()));
  auto cache = nlohmann::json::parse(Read(CacheFile()));
  EXPECT_EQ(cache["schema"], "hetbench-topology");
  EXPECT_EQ(cache["schema_version"], 1);
  EXPECT_FALSE(cache["hetbench_version"].get<std::string>().empty());
  EXPECT_GT(cache["time"].get<double>(), 1.6e9);
  EXPECT_EQ(std::to_string(cache["processor"]["num_cpus"].get<int>()), NumCpus(local.out));
  // The job's folder (under the current folder) is gone after a success.
  EXPECT_TRUE(e2e::Find(dir_, "hb_detect.sh").empty());

  // Asked again: the cache answers, and says so; --refresh runs a job again.
  auto again = Hetbench({"detect", "-C", "site.yaml", "--system", "box:p"}, dir_, 60, env_);
  EXPECT_EQ(again.out, local.out);
  EXPECT_NE(again.err.find("cached in " + CacheFile() + " (detected on "), std::string::npos) << again.err;
  EXPECT_EQ(again.err.find("job "), std::string::npos) << again.err;
  auto refreshed =
      Hetbench({"detect", "-C", "site.yaml", "--partition", "box:p", "--refresh", "--json"}, dir_, 120, env_);
  ASSERT_EQ(refreshed.exit_code, 0) << refreshed.err;
  EXPECT_NE(refreshed.err.find("job "), std::string::npos) << refreshed.err;
  EXPECT_EQ(nlohmann::json::parse(refreshed.out)["processor"], cache["processor"]);

  // `hetbench run` fills the partition's processor in from the cache.
  Write(dir_ + "/t.yaml", R"(
name: cpus
executable: echo
executable_opts: ['cpus={processor.num_cpus} arch={processor.arch}']
sanity:
  - {pattern: 'cpus=)" + NumCpus(local.out) +
                              R"( arch=\S+$'}
)");
  auto run = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml", "--no-store"}, dir_, 120, env_);
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  auto shown =
      Hetbench({"show-config", "systems/0/partitions/0/processor/num_cpus", "-C", "site.yaml"}, dir_, 60, env_);
  EXPECT_EQ(shown.out, NumCpus(local.out) + "\n") << shown.err;
}

// Fake GPU tools on PATH print real output formats (nvidia-smi's
// --format=csv,noheader; rocm-smi --showproductname of ROCm 6, which
// includes the GFX version); the job on the "node" finds them.
TEST_F(Detect, GpusOfTheNodeComeFromNvidiaSmiAndRocmSmi) {
  std::string bin = dir_ + "/fakebin";
  WriteScript(bin + "/nvidia-smi", R"(
[ "$*" = '--query-gpu=name,compute_cap --format=csv,noheader' ] || exit 2
for i in 0 1 2 3; do echo 'NVIDIA A100-SXM4-80GB, 8.0'; done
)");
  WriteScript(bin + "/rocm-smi", R"(
[ "$*" = '--showproductname' ] || exit 2
printf '\n\n============================ ROCm System Management Interface ============================\n'
printf '====================================== Product Info ======================================\n'
for i in 0 1; do
printf 'GPU[%d]\t\t: Card Series: \t\tAMD Instinct MI210\n' $i
printf 'GPU[%d]\t\t: Card Model: \t\t0x740f\n' $i
printf 'GPU[%d]\t\t: Card Vendor: \t\tAdvanced Micro Devices, Inc. [AMD/ATI]\n' $i
printf 'GPU[%d]\t\t: Card SKU: \t\tD67301\n' $i
printf 'GPU[%d]\t\t: GFX Version: \t\tgfx90a\n' $i
done
printf '==========================================================================================\n'
printf '================================== End of ROCm SMI Log ===================================\n'
)");
  e2e::Env env = env_;
  env.emplace_back("PATH", bin + ":" + std::string(getenv("PATH")));
  auto o = Hetbench({"detect", "-C", "site.yaml", "--partition", "box:p"}, dir_, 120, env);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("devices:\n"
                       "  - arch: sm_80\n"
                       "    model: NVIDIA A100-SXM4-80GB\n"
                       "    num_devices: 4\n"
                       "    type: gpu\n"
                       "  - arch: gfx90a\n"
                       "    model: AMD Instinct MI210\n"
                       "    num_devices: 2\n"
                       "    type: gpu\n"),
            std::string::npos)
      << o.out;
  auto cache = nlohmann::json::parse(Read(CacheFile()));
  EXPECT_EQ(cache["devices"].size(), 2u);
}

TEST_F(Detect, AFailingJobIsReportedWithItsStderr) {
  WriteScript(dir_ + "/broken-hetbench", "echo 'libfoo.so: cannot open shared object file' >&2; exit 127\n");
  auto o = Hetbench({"detect", "-C", "site.yaml", "--partition", "box:p", "--hetbench", dir_ + "/broken-hetbench"},
                    dir_, 60, env_);
  EXPECT_EQ(o.exit_code, 1) << o.err;
  EXPECT_NE(o.err.find("hetbench: error: partition 'box:p': detection job "), std::string::npos) << o.err;
  EXPECT_NE(o.err.find(" ended completed(exit 127); its standard error ends with:\n"
                       "  libfoo.so: cannot open shared object file\n"),
            std::string::npos)
      << o.err;
  EXPECT_FALSE(Exists(CacheFile()));
  EXPECT_EQ(e2e::Find(dir_, "hb_detect.err").size(), 1u) << "kept for inspection";
}

TEST_F(Detect, UnknownPartitionListsTheKnownOnes) {
  auto o = Hetbench({"detect", "-C", "site.yaml", "--partition", "box:q"}, dir_, 60, env_);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("hetbench: error: system 'box' has no partition 'q'"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("(it has: p)"), std::string::npos) << o.err;
  auto sys = Hetbench({"detect", "-C", "site.yaml", "--partition", "nosuch:p"}, dir_, 60, env_);
  EXPECT_EQ(sys.exit_code, 2);
  EXPECT_NE(sys.err.find("unknown system 'nosuch' (the configuration defines: box)"), std::string::npos) << sys.err;
}

TEST_F(Detect, RunWithRemoteDetectDetectsUncachedPartitions) {
  Write(dir_ + "/site.yaml", e2e::LocalSite("general:\n  - remote_detect: true\n"));
  Write(dir_ + "/t.yaml",
        "name: cpus\nexecutable: echo\nexecutable_opts: ['cpus={processor.num_cpus}']\n"
        "sanity:\n  - {pattern: 'cpus=[1-9][0-9]*$'}\n");
  auto o = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml", "--no-store"}, dir_, 120, env_);
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_NE(o.err.find("detecting the topology of partition 'box:p'"), std::string::npos) << o.err;
  EXPECT_TRUE(Exists(CacheFile()));
  // Next time the cache answers: no job.
  auto again = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml", "--no-store"}, dir_, 120, env_);
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_EQ(again.err.find("detecting the topology"), std::string::npos) << again.err;
}

}  // namespace
