#include "compute/cpu_peak.h"

#include <sched.h>
#include <sys/utsname.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace hbcompute {

namespace {

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// A cpulist such as "0,64" or "0-1": how many CPUs it names.
int CountCpuList(const std::string& list) {
  int n = 0;
  std::stringstream ss(list);
  std::string part;
  while (std::getline(ss, part, ',')) {
    int a = 0, b = 0;
    if (std::sscanf(part.c_str(), "%d-%d", &a, &b) == 2)
      n += b - a + 1;
    else if (!Trim(part).empty())
      n += 1;
  }
  return n;
}

}  // namespace

CpuInfo ParseCpuInfo(const std::string& text, const std::string& arch) {
  CpuInfo cpu;
  cpu.arch = arch;
  std::stringstream ss(text);
  std::string line;
  bool seen_processor = false;
  while (std::getline(ss, line)) {
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = Trim(line.substr(0, colon)), value = Trim(line.substr(colon + 1));
    if (key == "processor") {
      if (seen_processor) break;  // the first block is enough
      seen_processor = true;
    } else if (key == "vendor_id") {
      cpu.vendor = value;
    } else if (key == "model name") {
      cpu.model_name = value;
    } else if (key == "cpu family") {
      cpu.family = std::atoi(value.c_str());
    } else if (key == "cpu MHz") {
      cpu.mhz = std::atof(value.c_str());
    } else if (key == "flags" || key == "Features") {
      std::stringstream fs(value);
      std::string flag;
      while (fs >> flag) cpu.flags.insert(flag);
    }
  }
  return cpu;
}

// FMA units x SIMD lanes x 2 (an FMA is two FLOPs). Sources: the vendors'
// optimisation manuals (Intel: two 512-bit FMA units on Skylake-SP Gold and
// Platinum and later server cores; AMD: Zen 4 executes 512-bit operations
// on two 256-bit FMA units, Zen 5 has full 512-bit FMA units).
SimdRule Fp32FlopsPerCycle(const CpuInfo& cpu) {
  auto has = [&](const char* f) { return cpu.flags.count(f) > 0; };
  if (cpu.arch == "aarch64") {
    if (has("sve")) return {32, "sve (guess): 2 FMA units x 8 lanes (256-bit) x 2"};
    return {16, "asimd: 2 FMA units x 4 lanes x 2"};
  }
  if (has("avx512f")) {
    if (cpu.vendor == "AuthenticAMD" && cpu.family < 0x1A)
      return {32, "avx512 on AMD Zen 4: 2 FMA units x 8 lanes (256-bit) x 2"};
    return {64, "avx512: 2 FMA units x 16 lanes x 2"};
  }
  if (has("avx2") && has("fma")) return {32, "avx2+fma: 2 FMA units x 8 lanes x 2"};
  if (has("avx")) return {16, "avx: 1 add + 1 multiply unit x 8 lanes"};
  if (has("sse2")) return {8, "sse2: 1 add + 1 multiply unit x 4 lanes"};
  return {2, "unknown SIMD (guess): 1 FMA x 1 lane x 2"};
}

bool HasBf16(const CpuInfo& cpu) {
  return cpu.flags.count("avx512_bf16") || cpu.flags.count("amx_bf16") || cpu.flags.count("bf16");
}

Peak CpuPeak(const CpuInfo& cpu, int cores, double ghz, const std::string& clock_source) {
  SimdRule rule = Fp32FlopsPerCycle(cpu);
  Peak p;
  p.gflops = cores * ghz * rule.flops_per_cycle;
  char buf[512];
  std::snprintf(buf, sizeof buf, "%d cores x %.3f GHz (%s) x %d FLOP/cycle (%s); an estimate, pass --peak", cores, ghz,
                clock_source.c_str(), rule.flops_per_cycle, rule.rule.c_str());
  p.basis = buf;
  return p;
}

CpuInfo ReadCpuInfo() {
  struct utsname u;
  std::string arch = uname(&u) == 0 ? u.machine : "";
  return ParseCpuInfo(ReadFile("/proc/cpuinfo"), arch);
}

double ReadClockGhz(const CpuInfo& cpu, std::string* source) {
  const std::string dir = "/sys/devices/system/cpu/cpu0/cpufreq/";
  for (const char* file : {"base_frequency", "cpuinfo_max_freq"}) {
    double khz = std::atof(ReadFile(dir + file).c_str());
    if (khz > 0) {
      *source = std::string("cpufreq ") + file;
      return khz / 1e6;
    }
  }
  *source = "/proc/cpuinfo cpu MHz";
  return cpu.mhz / 1e3;
}

int CoresForThreads(int threads) {
  cpu_set_t set;
  int cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
  int siblings = CountCpuList(ReadFile("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list"));
  int cores = std::max(1, cpus / std::max(1, siblings));
  return std::max(1, std::min(threads, cores));
}

}  // namespace hbcompute
