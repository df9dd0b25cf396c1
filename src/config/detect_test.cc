#include "config/detect.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <map>

#include "config/config_yaml.h"
#include "util/test_temp_dir.h"

namespace hb {
namespace {

using nlohmann::json;

std::string Hex8(int mask) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08x", mask);
  return buf;
}

// A fake /sys/devices/system of 2 sockets x 2 cores x 2 threads, numbered as
// Linux does: core k holds cpus k and k+4.
void WriteFakeSysfs(const TempDir& dir) {
  for (int cpu = 0; cpu < 8; ++cpu) {
    int core = cpu % 4, socket = core / 2;
    int core_mask = (1 << core) | (1 << (core + 4));
    int socket_mask = socket == 0 ? 0x33 : 0xcc;
    std::string base = "cpu/cpu" + std::to_string(cpu) + "/";
    dir.Write(base + "topology/core_cpus", Hex8(core_mask) + "\n");
    dir.Write(base + "topology/package_cpus", Hex8(socket_mask) + "\n");
    struct Cache {
      const char* level;
      const char* type;
      const char* size;
      int sets;
      int mask;
    };
    const Cache caches[] = {{"1", "Data", "32K", 64, core_mask},
                            {"1", "Instruction", "32K", 64, core_mask},
                            {"2", "Unified", "1024K", 2048, core_mask},
                            {"3", "Unified", "32768K", 32768, socket_mask}};
    for (int i = 0; i < 4; ++i) {
      std::string c = base + "cache/index" + std::to_string(i) + "/";
      dir.Write(c + "level", std::string(caches[i].level) + "\n");
      dir.Write(c + "type", std::string(caches[i].type) + "\n");
      dir.Write(c + "size", std::string(caches[i].size) + "\n");
      dir.Write(c + "coherency_line_size", "64\n");
      dir.Write(c + "physical_line_partition", "1\n");
      dir.Write(c + "number_of_sets", std::to_string(caches[i].sets) + "\n");
      dir.Write(c + "shared_cpu_map", Hex8(caches[i].mask) + "\n");
    }
  }
  dir.Write("cpu/cpufreq/ignored", "");
  dir.Write("node/node0/cpumap", "00000033\n");
  dir.Write("node/node1/cpumap", "000000cc\n");
}

const char kIntelCpuinfo[] =
    "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 106\n"
    "model name\t: Intel(R) Xeon(R) Platinum 8358 CPU @ 2.60GHz\n"
    "flags\t\t: fpu sse4_2 popcnt avx avx2 fma bmi2 adx avx512f avx512bw avx512cd avx512dq avx512vl "
    "avx512_vnni avx512_vbmi2 gfni vaes aes pclmulqdq\n\n"
    "processor\t: 1\nvendor_id\t: GenuineIntel\n";

TEST(Detect, ProcessorTopologyFromSysfs) {
  TempDir dir;
  WriteFakeSysfs(dir);
  Processor p = DetectProcessorFrom(kIntelCpuinfo, "x86_64", dir.path());
  EXPECT_EQ(p.arch, "icelake");
  EXPECT_EQ(p.vendor, "GenuineIntel");
  EXPECT_EQ(p.model, "Intel(R) Xeon(R) Platinum 8358 CPU @ 2.60GHz");
  EXPECT_EQ(p.platform, "x86_64");
  EXPECT_EQ(p.num_cpus, 8);
  EXPECT_EQ(p.num_cpus_per_core, 2);
  EXPECT_EQ(p.num_sockets, 2);
  EXPECT_EQ(p.num_cpus_per_socket, 4);
  EXPECT_EQ(p.topology["numa_nodes"], json({"0x00000033", "0x000000cc"}));
  EXPECT_EQ(p.topology["sockets"], json({"0x00000033", "0x000000cc"}));
  EXPECT_EQ(p.topology["cores"], json({"0x00000011", "0x00000022", "0x00000044", "0x00000088"}));
  json caches = p.topology["caches"];
  ASSERT_EQ(caches.size(), 3u);  // the L1 instruction cache is skipped, as ReFrame does
  EXPECT_EQ(caches[0], json::parse(R"({"type": "L1", "size": 32768, "linesize": 64, "associativity": 8,
      "num_cpus": 2, "cpusets": ["0x00000011", "0x00000022", "0x00000044", "0x00000088"]})"));
  EXPECT_EQ(caches[1]["type"], "L2");
  EXPECT_EQ(caches[1]["size"], 1048576);
  EXPECT_EQ(caches[2], json::parse(R"({"type": "L3", "size": 33554432, "linesize": 64, "associativity": 16,
      "num_cpus": 4, "cpusets": ["0x00000033", "0x000000cc"]})"));
}

TEST(Detect, WithoutSysfsCountsProcessorsOfCpuinfo) {
  Processor p = DetectProcessorFrom(kIntelCpuinfo, "x86_64", "/nonexistent");
  EXPECT_EQ(p.num_cpus, 2);
  EXPECT_EQ(p.num_sockets, 0);
  EXPECT_TRUE(p.topology.is_null());
}

TEST(Detect, GuessCpuArch) {
  auto amd = [](int family, int model, const std::string& flags) {
    return "vendor_id : AuthenticAMD\ncpu family : " + std::to_string(family) + "\nmodel : " + std::to_string(model) +
           "\nflags : " + flags + "\n";
  };
  EXPECT_EQ(GuessCpuArch(amd(23, 49, "avx2"), "x86_64"), "zen2");
  EXPECT_EQ(GuessCpuArch(amd(25, 1, "avx2 fma"), "x86_64"), "zen3");
  EXPECT_EQ(GuessCpuArch(amd(25, 17, "avx2 avx512f"), "x86_64"), "zen4");
  EXPECT_EQ(GuessCpuArch(amd(26, 2, "avx2 avx512f"), "x86_64"), "zen5");
  EXPECT_EQ(GuessCpuArch("vendor_id : GenuineIntel\nflags : avx2 avx512f avx512bw avx512cd\n", "x86_64"),
            "skylake_avx512");
  EXPECT_EQ(GuessCpuArch("vendor_id : GenuineIntel\nflags : avx2 fma\n", "x86_64"), "haswell");
  EXPECT_EQ(GuessCpuArch("CPU implementer\t: 0x41\nCPU part\t: 0xd4f\n", "aarch64"), "neoverse_v2");
  EXPECT_EQ(GuessCpuArch("CPU implementer\t: 0x46\nCPU part\t: 0x001\n", "aarch64"), "a64fx");
  EXPECT_EQ(GuessCpuArch("CPU implementer\t: 0x99\nCPU part\t: 0x1\n", "aarch64"), "aarch64");
  EXPECT_EQ(GuessCpuArch("cpu\t\t: POWER9 (raw), altivec supported\n", "ppc64le"), "power9le");
  EXPECT_EQ(GuessCpuArch("", "riscv64"), "riscv64");
}

TEST(Detect, ArmVendorAndModel) {
  Processor p =
      DetectProcessorFrom("processor : 0\nCPU implementer : 0x41\nCPU part : 0xd4f\n", "aarch64", "/nonexistent");
  EXPECT_EQ(p.vendor, "ARM");
  EXPECT_EQ(p.arch, "neoverse_v2");
  EXPECT_EQ(p.num_cpus, 1);
}

TEST(Detect, ProcessorOfThisHost) {
  Processor p = DetectProcessor();
  utsname u{};
  ASSERT_EQ(uname(&u), 0);
  EXPECT_EQ(p.platform, u.machine);
  EXPECT_FALSE(p.arch.empty());
  EXPECT_GE(p.num_cpus, 1);
  EXPECT_EQ(p.num_cpus, sysconf(_SC_NPROCESSORS_CONF));
  if (p.num_sockets > 0) {
    EXPECT_GE(p.num_cpus_per_core, 1);
    EXPECT_EQ(p.num_cpus_per_socket * p.num_sockets, p.num_cpus);
    EXPECT_EQ(p.topology["sockets"].size(), static_cast<size_t>(p.num_sockets));
  }
}

TEST(Detect, NvidiaComputeCapability) {
  EXPECT_EQ(NvidiaArchFromComputeCap("8.0"), "sm_80");
  EXPECT_EQ(NvidiaArchFromComputeCap(" 9.0"), "sm_90");
  EXPECT_EQ(NvidiaArchFromComputeCap("10.0"), "sm_100");
  EXPECT_EQ(NvidiaArchFromComputeCap("[N/A]"), "");
}

TEST(Detect, ParseNvidiaSmi) {
  std::vector<Device> d = ParseNvidiaSmi(
      "NVIDIA H200, 9.0\nNVIDIA H200, 9.0\nNVIDIA H200, 9.0\nNVIDIA H200, 9.0\n"
      "NVIDIA A100-SXM4-80GB, 8.0\n\n");
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].type, "gpu");
  EXPECT_EQ(d[0].model, "NVIDIA H200");
  EXPECT_EQ(d[0].arch, "sm_90");
  EXPECT_EQ(d[0].num_devices, 4);
  EXPECT_EQ(d[1].arch, "sm_80");
  EXPECT_EQ(d[1].num_devices, 1);
  EXPECT_TRUE(ParseNvidiaSmi("").empty());
}

const char kRocmProductName[] = R"(

============================ ROCm System Management Interface ============================
====================================== Product Info ======================================
GPU[0]		: Card series: 		AMD Instinct MI250X
GPU[0]		: Card model: 		0x740c
GPU[0]		: Card vendor: 		Advanced Micro Devices, Inc. [AMD/ATI]
GPU[0]		: Card SKU: 		D65209
GPU[1]		: Card series: 		AMD Instinct MI250X
GPU[1]		: Card model: 		0x740c
GPU[1]		: Card vendor: 		Advanced Micro Devices, Inc. [AMD/ATI]
GPU[1]		: Card SKU: 		D65209
==========================================================================================
================================== End of ROCm SMI Log ===================================
)";

const char kRocmAllInfo[] = R"(
GPU[0]		: GFX Version: 		gfx90a
GPU[1]		: GFX Version: 		gfx90a
)";

TEST(Detect, ParseRocmSmi) {
  std::vector<Device> d = ParseRocmSmi(std::string(kRocmProductName) + kRocmAllInfo);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].model, "AMD Instinct MI250X");
  EXPECT_EQ(d[0].arch, "gfx90a");
  EXPECT_EQ(d[0].num_devices, 2);
  EXPECT_EQ(ParseRocmSmi(kRocmProductName)[0].arch, "");
}

// rocm-smi of ROCm 4.0 on an MI100 (as posted in ROCm/legacy-rocm-build
// issue 1351): the series is a PCI id and there is no GFX version line.
const char kRocm4Mi100[] =
    "======================= ROCm System Management Interface =======================\n"
    "================================= Product Info =================================\n"
    "GPU[0]\t\t: Card series: \t\t0x738c\n"
    "GPU[0]\t\t: Card model: \t\t0xc34\n"
    "GPU[0]\t\t: Card vendor: \t\tAdvanced Micro Devices, Inc. [AMD/ATI]\n"
    "GPU[0]\t\t: Card SKU: \t\tD34314\n"
    "================================================================================\n"
    "============================= End of ROCm SMI Log ==============================\n";

TEST(Detect, ParseRocmSmiOfOlderAndNewerRocm) {
  std::vector<Device> d = ParseRocmSmi(kRocm4Mi100);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].model, "0x738c");
  EXPECT_EQ(d[0].arch, "");
  // ROCm 6 capitalises the keys and prints the GFX version in the same table.
  d = ParseRocmSmi("GPU[0]\t\t: Card Series: \t\tAMD Instinct MI210\nGPU[0]\t\t: GFX Version: \t\tgfx90a\n");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].model, "AMD Instinct MI210");
  EXPECT_EQ(d[0].arch, "gfx90a");
}

TEST(Detect, ProcessorFieldsForPlaceholders) {
  Processor p;
  p.arch = "zen3";
  p.num_cpus = 128;
  EXPECT_EQ(ProcessorField(p, "num_cpus"), std::optional<std::string>("128"));
  EXPECT_EQ(ProcessorField(p, "arch"), std::optional<std::string>("zen3"));
  EXPECT_EQ(ProcessorField(p, "num_sockets"), std::nullopt) << "unset";
  EXPECT_EQ(ProcessorField(p, "vendor"), std::nullopt) << "unset";
  EXPECT_EQ(ProcessorField(p, "topology"), std::nullopt);
  EXPECT_EQ(ProcessorField(p, "nonsense"), std::nullopt);
}

TEST(Detect, ProcessorAndDevicesFromJsonAreTheReverseOfToJson) {
  Processor p;
  p.arch = "neoverse_v2";
  p.vendor = "ARM";
  p.num_cpus = 72;
  p.num_sockets = 1;
  p.topology = {{"numa_nodes", {"0xff"}}};
  auto back = ProcessorFromJson(ProcessorToJson(p));
  ASSERT_TRUE(back.ok()) << back.status().str();
  EXPECT_EQ(ProcessorToJson(*back), ProcessorToJson(p));
  std::vector<Device> d = {{"gpu", "sm_90", "NVIDIA GH200 480GB", 1}, {"ipu", "", "", 4}};
  auto devices = DevicesFromJson(DevicesToJson(d));
  ASSERT_TRUE(devices.ok()) << devices.status().str();
  EXPECT_EQ(DevicesToJson(*devices), DevicesToJson(d));
  EXPECT_FALSE(ProcessorFromJson(json::array()).ok());
  EXPECT_FALSE(DevicesFromJson(json::object()).ok());
}

TEST(Detect, DetectDevicesThroughTheCommandSeam) {
  std::vector<std::string> ran;
  CommandRunner amd_only = [&](const std::vector<std::string>& argv) -> std::optional<std::string> {
    ran.push_back(argv[0] + " " + argv[1]);
    if (argv[0] == "nvidia-smi") return std::nullopt;
    return std::string(argv[1] == "--showproductname" ? kRocmProductName : kRocmAllInfo);
  };
  std::vector<Device> d = DetectDevices(amd_only);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].arch, "gfx90a");
  EXPECT_EQ(ran, std::vector<std::string>({"nvidia-smi --query-gpu=name,compute_cap", "nvidia-smi --query-gpu=name",
                                           "rocm-smi --showproductname", "rocm-smi --showallinfo"}));
  CommandRunner nothing = [](const std::vector<std::string>&) { return std::optional<std::string>(); };
  EXPECT_TRUE(DetectDevices(nothing).empty());
}

TEST(Detect, SystemCommandRunner) {
  CommandRunner run = SystemCommandRunner();
  EXPECT_EQ(run({"echo", "a b", "$HOME"}), std::optional<std::string>("a b $HOME\n"));
  EXPECT_EQ(run({"false"}), std::nullopt);
  EXPECT_EQ(run({"hetbench-no-such-program"}), std::nullopt);
}

TEST(Detect, DetectionToYamlPastesIntoAPartition) {
  Processor p;
  p.arch = "zen3";
  p.vendor = "AuthenticAMD";
  p.platform = "x86_64";
  p.num_cpus = 4;
  p.num_cpus_per_core = 2;
  p.num_sockets = 1;
  p.num_cpus_per_socket = 4;
  std::string yaml = DetectionToYaml(p, {{"gpu", "sm_90", "NVIDIA H200", 8}});
  EXPECT_EQ(yaml,
            "processor:\n"
            "  arch: zen3\n"
            "  num_cpus: 4\n"
            "  num_cpus_per_core: 2\n"
            "  num_cpus_per_socket: 4\n"
            "  num_sockets: 1\n"
            "  platform: x86_64\n"
            "  vendor: AuthenticAMD\n"
            "devices:\n"
            "  - arch: sm_90\n"
            "    model: NVIDIA H200\n"
            "    num_devices: 8\n"
            "    type: gpu\n");
  EXPECT_EQ(DetectionToYaml(p, {}).substr(yaml.find("devices:")), "devices: []\n");
  json back = YamlToJson(YAML::Load(DetectionToYaml(DetectProcessor(), DetectDevices())));
  EXPECT_GE(back["processor"]["num_cpus"].get<int>(), 1);
}

}  // namespace
}  // namespace hb
