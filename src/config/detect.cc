#include "config/detect.h"

#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "config/config_yaml.h"
#include "util/fs.h"
#include "util/json_field.h"
#include "util/strings.h"

namespace fs = std::filesystem;

namespace hb {

namespace {

// ---- /proc/cpuinfo ----

// The fields of the first processor block of /proc/cpuinfo.
std::map<std::string, std::string> CpuinfoFields(const std::string& cpuinfo) {
  std::map<std::string, std::string> fields;
  std::istringstream in(cpuinfo);
  std::string line;
  while (std::getline(in, line)) {
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    fields.emplace(Trim(line.substr(0, colon)), Trim(line.substr(colon + 1)));
  }
  return fields;
}

int CountProcessors(const std::string& cpuinfo) {
  static const std::regex kProc(R"((^|\n)processor\s*:)");
  return static_cast<int>(
      std::distance(std::sregex_iterator(cpuinfo.begin(), cpuinfo.end(), kProc), std::sregex_iterator()));
}

long Number(const std::map<std::string, std::string>& f, const std::string& key) {
  auto it = f.find(key);
  if (it == f.end()) return -1;
  return std::strtol(it->second.c_str(), nullptr, 0);
}

std::string Field(const std::map<std::string, std::string>& f, const std::string& key) {
  auto it = f.find(key);
  return it == f.end() ? "" : it->second;
}

// Generic x86-64 micro-architecture levels, when nothing better is known.
std::string X86Level(const std::set<std::string>& flags) {
  auto has = [&](std::initializer_list<const char*> names) {
    return std::all_of(names.begin(), names.end(), [&](const char* n) { return flags.count(n) > 0; });
  };
  if (has({"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"})) return "x86_64_v4";
  if (has({"avx2", "fma", "bmi2"})) return "x86_64_v3";
  if (has({"sse4_2", "popcnt"})) return "x86_64_v2";
  return "x86_64";
}

std::string AmdArch(long family, long model, const std::set<std::string>& flags) {
  if (family == 0x17) return model >= 0x30 ? "zen2" : "zen";
  if (family == 0x19) return flags.count("avx512f") ? "zen4" : "zen3";
  if (family == 0x1a) return "zen5";
  return X86Level(flags);
}

std::string IntelArch(const std::set<std::string>& flags) {
  // The distinguishing features archspec uses, newest first.
  static const std::vector<std::pair<std::vector<std::string>, std::string>> kTable = {
      {{"amx_tile", "avx512_fp16"}, "sapphirerapids"},
      {{"avx512_vbmi2", "gfni", "vaes"}, "icelake"},
      {{"avx512_vnni", "avx512f"}, "cascadelake"},
      {{"avx512f", "avx512bw"}, "skylake_avx512"},
      {{"avx2", "clflushopt", "xsavec"}, "skylake"},
      {{"avx2", "adx"}, "broadwell"},
      {{"avx2"}, "haswell"},
      {{"f16c"}, "ivybridge"},
      {{"avx"}, "sandybridge"},
      {{"aes", "pclmulqdq"}, "westmere"},
      {{"sse4_2"}, "nehalem"},
      {{"ssse3"}, "core2"},
  };
  for (const auto& [needed, name] : kTable)
    if (std::all_of(needed.begin(), needed.end(), [&](const std::string& n) { return flags.count(n) > 0; }))
      return name;
  return "x86_64";
}

std::string ArmArch(long implementer, long part) {
  static const std::map<std::pair<long, long>, std::string> kParts = {
      {{0x41, 0xd08}, "cortex_a72"},  {{0x41, 0xd0c}, "neoverse_n1"}, {{0x41, 0xd40}, "neoverse_v1"},
      {{0x41, 0xd49}, "neoverse_n2"}, {{0x41, 0xd4f}, "neoverse_v2"}, {{0x46, 0x001}, "a64fx"},
  };
  auto it = kParts.find({implementer, part});
  if (it != kParts.end()) return it->second;
  return implementer == 0x61 ? "m1" : "aarch64";
}

std::string ArmVendor(long implementer) {
  static const std::map<long, std::string> kVendors = {{0x41, "ARM"},    {0x46, "Fujitsu"},  {0x48, "HiSilicon"},
                                                       {0x4e, "NVIDIA"}, {0x51, "Qualcomm"}, {0x61, "Apple"}};
  auto it = kVendors.find(implementer);
  return it == kVendors.end() ? "" : it->second;
}

// ---- /sys/devices/system ----

// A sysfs cpumask ("00000000,0000000f") as ReFrame writes it ("0x000000000000000f").
std::string MaskString(std::string raw) {
  std::string hex;
  for (char c : raw)
    if (std::isxdigit(static_cast<unsigned char>(c))) hex += static_cast<char>(std::tolower(c));
  return "0x" + hex;
}

int MaskBits(const std::string& mask) {
  int bits = 0;
  for (size_t i = 2; i < mask.size(); ++i) {
    int d = std::stoi(std::string(1, mask[i]), nullptr, 16);
    bits += __builtin_popcount(d);
  }
  return bits;
}

std::optional<std::string> ReadTrimmed(const fs::path& p) {
  Result<std::string> r = ReadFile(p.string());
  if (!r.ok()) return std::nullopt;
  return Trim(*r);
}

std::vector<fs::path> NumberedDirs(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> out;
  std::error_code ec;
  static const std::regex kDigits("[0-9]+");
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    if (StartsWith(name, prefix) && std::regex_match(name.substr(prefix.size()), kDigits)) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The distinct masks of the first of `files` that exists in each cpu dir.
std::set<std::string> CpuMasks(const std::vector<fs::path>& cpus, std::initializer_list<const char*> files) {
  std::set<std::string> masks;
  for (const auto& cpu : cpus) {
    for (const char* f : files) {
      if (auto v = ReadTrimmed(cpu / "topology" / f)) {
        masks.insert(MaskString(*v));
        break;
      }
    }
  }
  return masks;
}

long ReadLong(const fs::path& p) {
  auto v = ReadTrimmed(p);
  return v ? std::strtol(v->c_str(), nullptr, 10) : 0;
}

// "32K" -> 32768
long CacheSize(const fs::path& p) {
  auto v = ReadTrimmed(p);
  if (!v || v->empty()) return 0;
  char* end = nullptr;
  long n = std::strtol(v->c_str(), &end, 10);
  std::string unit = end ? std::string(end) : "";
  if (unit == "K") return n * 1024;
  if (unit == "M") return n * 1024 * 1024;
  if (unit == "G") return n * 1024L * 1024 * 1024;
  return n;
}

struct CacheKey {
  long level, size, linesize, associativity;
  int num_cpus;
  auto operator<=>(const CacheKey&) const = default;
};

// The caches as ReFrame's _sysfs_topo reports them (L1 instruction caches
// skipped; associativity from the sizes, as some kernels put -1 or 0 in
// ways_of_associativity).
nlohmann::json Caches(const std::vector<fs::path>& cpus) {
  std::map<CacheKey, std::set<std::string>> caches;
  for (const auto& cpu : cpus) {
    for (const auto& dir : NumberedDirs(cpu / "cache", "index")) {
      CacheKey k{ReadLong(dir / "level"), CacheSize(dir / "size"), ReadLong(dir / "coherency_line_size"), 0, 0};
      if (k.level == 1 && ReadTrimmed(dir / "type").value_or("") == "Instruction") continue;
      long sets = ReadLong(dir / "number_of_sets"), part = ReadLong(dir / "physical_line_partition");
      if (k.linesize && sets && part) k.associativity = k.size / k.linesize / part / sets;
      std::string cpuset = MaskString(ReadTrimmed(dir / "shared_cpu_map").value_or(""));
      k.num_cpus = MaskBits(cpuset);
      caches[k].insert(cpuset);
    }
  }
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [k, sets] : caches)
    out.push_back({{"type", "L" + std::to_string(k.level)},
                   {"size", k.size},
                   {"linesize", k.linesize},
                   {"associativity", k.associativity},
                   {"num_cpus", k.num_cpus},
                   {"cpusets", std::vector<std::string>(sets.begin(), sets.end())}});
  return out;
}

// Fills the counts and topology of `p` from a sysfs folder; false when it
// has no cpu folders.
bool FillTopology(const fs::path& sys, Processor* p) {
  std::vector<fs::path> cpus = NumberedDirs(sys / "cpu", "cpu");
  if (cpus.empty()) return false;
  std::set<std::string> cores = CpuMasks(cpus, {"core_cpus", "thread_siblings"});
  std::set<std::string> sockets = CpuMasks(cpus, {"package_cpus", "core_siblings"});
  std::set<std::string> nodes;
  for (const auto& node : NumberedDirs(sys / "node", "node"))
    if (auto v = ReadTrimmed(node / "cpumap")) nodes.insert(MaskString(*v));
  p->num_cpus = static_cast<int>(cpus.size());
  p->num_cpus_per_core = cores.empty() ? 0 : p->num_cpus / static_cast<int>(cores.size());
  p->num_sockets = static_cast<int>(sockets.size());
  p->num_cpus_per_socket = sockets.empty() ? 0 : p->num_cpus / p->num_sockets;
  auto list = [](const std::set<std::string>& s) { return std::vector<std::string>(s.begin(), s.end()); };
  p->topology = {
      {"numa_nodes", list(nodes)}, {"sockets", list(sockets)}, {"cores", list(cores)}, {"caches", Caches(cpus)}};
  return true;
}

// ---- GPUs ----

// Adds one device of `model`/`arch`, counting repeats.
void AddDevice(std::vector<Device>* out, const std::string& model, const std::string& arch) {
  for (auto& d : *out) {
    if (d.model == model && d.arch == arch) {
      ++d.num_devices;
      return;
    }
  }
  out->push_back(Device{"gpu", arch, model, 1});
}

bool InPath(const std::string& program) {
  if (program.find('/') != std::string::npos) return ::access(program.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  if (!path) return false;
  for (const auto& dir : Split(path, ':'))
    if (!dir.empty() && ::access((dir + "/" + program).c_str(), X_OK) == 0) return true;
  return false;
}

}  // namespace

CommandRunner SystemCommandRunner() {
  return [](const std::vector<std::string>& argv) -> std::optional<std::string> {
    if (argv.empty() || !InPath(argv[0])) return std::nullopt;
    std::vector<std::string> words;
    // A GPU tool can hang on a node with a broken driver; bound it.
    if (InPath("timeout")) words = {"timeout", "30"};
    for (const auto& a : argv) words.push_back(ShellQuote(a));
    FILE* pipe = ::popen((Join(words, " ") + " 2>/dev/null").c_str(), "r");
    if (!pipe) return std::nullopt;
    std::string out;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
    int status = ::pclose(pipe);
    if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
    return out;
  };
}

std::string GuessCpuArch(const std::string& cpuinfo, const std::string& machine) {
  auto f = CpuinfoFields(cpuinfo);
  if (machine == "x86_64") {
    std::vector<std::string> words = Split(Field(f, "flags"), ' ');
    std::set<std::string> flags(words.begin(), words.end());
    std::string vendor = Field(f, "vendor_id");
    if (vendor == "AuthenticAMD") return AmdArch(Number(f, "cpu family"), Number(f, "model"), flags);
    if (vendor == "GenuineIntel") return IntelArch(flags);
    return X86Level(flags);
  }
  if (machine == "aarch64") return ArmArch(Number(f, "CPU implementer"), Number(f, "CPU part"));
  if (StartsWith(machine, "ppc64")) {
    static const std::regex kPower(R"(POWER(\d+))");
    std::smatch m;
    std::string cpu = Field(f, "cpu");
    if (std::regex_search(cpu, m, kPower)) return "power" + m[1].str() + (machine == "ppc64le" ? "le" : "");
  }
  return machine;
}

Processor DetectProcessorFrom(const std::string& cpuinfo, const std::string& machine,
                              const std::string& sysfs_system_dir) {
  auto f = CpuinfoFields(cpuinfo);
  Processor p;
  p.platform = machine;
  p.arch = GuessCpuArch(cpuinfo, machine);
  p.vendor = Field(f, "vendor_id");
  p.model = Field(f, "model name");
  if (machine == "aarch64") p.vendor = ArmVendor(Number(f, "CPU implementer"));
  if (StartsWith(machine, "ppc64")) {
    p.vendor = "IBM";
    p.model = Field(f, "cpu");
  }
  if (!FillTopology(sysfs_system_dir, &p)) p.num_cpus = CountProcessors(cpuinfo);
  return p;
}

Processor DetectProcessor() {
  utsname u{};
  std::string machine = ::uname(&u) == 0 ? u.machine : "";
  Result<std::string> cpuinfo = ReadFile("/proc/cpuinfo");
  Processor p = DetectProcessorFrom(cpuinfo.ok() ? *cpuinfo : "", machine, "/sys/devices/system");
  if (p.num_cpus <= 0) p.num_cpus = static_cast<int>(std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN)));
  return p;
}

std::string NvidiaArchFromComputeCap(const std::string& cap) {
  static const std::regex kCap(R"((\d+)\.(\d+))");
  std::smatch m;
  std::string c = Trim(cap);
  if (!std::regex_match(c, m, kCap)) return "";
  return "sm_" + m[1].str() + m[2].str();
}

std::vector<Device> ParseNvidiaSmi(const std::string& out) {
  std::vector<Device> devices;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    if (Trim(line).empty()) continue;
    std::vector<std::string> cols = Split(line, ',');
    AddDevice(&devices, Trim(cols[0]), cols.size() > 1 ? NvidiaArchFromComputeCap(cols[1]) : "");
  }
  return devices;
}

std::vector<Device> ParseRocmSmi(const std::string& out) {
  // Lines like "GPU[0]		: Card series: 		AMD Instinct MI250X".
  static const std::regex kLine(R"(^GPU\[(\d+)\]\s*:\s*([^:]+?)\s*:\s*(.*?)\s*$)");
  std::map<long, std::map<std::string, std::string>> gpus;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (!std::regex_match(line, m, kLine)) continue;
    std::string key = m[2].str();
    std::transform(key.begin(), key.end(), key.begin(), ::tolower);
    gpus[std::strtol(m[1].str().c_str(), nullptr, 10)].emplace(key, m[3].str());
  }
  std::vector<Device> devices;
  for (const auto& gpu : gpus) {
    const auto& info = gpu.second;
    auto get = [&](const char* k) {
      auto it = info.find(k);
      return it == info.end() ? "" : it->second;
    };
    std::string model = get("card series");
    if (model.empty()) model = get("marketing name");
    if (model.empty()) model = get("card model");
    std::string arch = get("gfx version");
    if (model.empty() && arch.empty()) continue;
    AddDevice(&devices, model, arch);
  }
  return devices;
}

std::vector<Device> DetectDevices(const CommandRunner& run) {
  std::vector<Device> devices;
  auto nv = run({"nvidia-smi", "--query-gpu=name,compute_cap", "--format=csv,noheader"});
  if (!nv) nv = run({"nvidia-smi", "--query-gpu=name", "--format=csv,noheader"});  // old drivers
  if (nv) devices = ParseNvidiaSmi(*nv);
  if (auto amd = run({"rocm-smi", "--showproductname"})) {
    std::string text = *amd;
    if (text.find("GFX Version") == std::string::npos)
      if (auto all = run({"rocm-smi", "--showallinfo"})) text += "\n" + *all;
    for (const auto& d : ParseRocmSmi(text)) devices.push_back(d);
  }
  return devices;
}

std::vector<Device> DetectDevices() { return DetectDevices(SystemCommandRunner()); }

nlohmann::json ProcessorToJson(const Processor& p) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] :
       {std::pair{"arch", p.arch}, {"vendor", p.vendor}, {"model", p.model}, {"platform", p.platform}})
    if (!v.empty()) j[k] = v;
  for (const auto& [k, v] : {std::pair{"num_cpus", p.num_cpus},
                             {"num_cpus_per_core", p.num_cpus_per_core},
                             {"num_cpus_per_socket", p.num_cpus_per_socket},
                             {"num_sockets", p.num_sockets}})
    if (v > 0) j[k] = v;
  if (!p.topology.is_null()) j["topology"] = p.topology;
  return j;
}

nlohmann::json DevicesToJson(const std::vector<Device>& devices) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& d : devices) {
    nlohmann::json j = {{"type", d.type}, {"num_devices", d.num_devices}};
    if (!d.arch.empty()) j["arch"] = d.arch;
    if (!d.model.empty()) j["model"] = d.model;
    out.push_back(j);
  }
  return out;
}

Result<Processor> ProcessorFromJson(const nlohmann::json& j) {
  if (!j.is_object()) return Status::Error("processor: expected an object, got " + std::string(j.type_name()));
  Processor p;
  JsonField f(j, "processor");
  for (auto [key, field] :
       {std::pair{"arch", &p.arch}, {"vendor", &p.vendor}, {"model", &p.model}, {"platform", &p.platform}}) {
    auto v = f[key].String(*field);
    if (!v.ok()) return v.status();
    *field = *v;
  }
  for (auto [key, field] : {std::pair{"num_cpus", &p.num_cpus},
                            {"num_cpus_per_core", &p.num_cpus_per_core},
                            {"num_cpus_per_socket", &p.num_cpus_per_socket},
                            {"num_sockets", &p.num_sockets}}) {
    auto v = f[key].IntOr(*field, 0, INT_MAX);
    if (!v.ok()) return v.status();
    *field = static_cast<int>(*v);
  }
  if (j.contains("topology")) p.topology = j["topology"];
  return p;
}

Result<std::vector<Device>> DevicesFromJson(const nlohmann::json& j) {
  if (!j.is_array()) return Status::Error("devices: expected a list, got " + std::string(j.type_name()));
  std::vector<Device> out;
  for (const JsonField& d : JsonField(j, "devices").Elements()) {
    auto type = d["type"].String();
    auto arch = d["arch"].String("");
    auto model = d["model"].String("");
    auto n = d["num_devices"].IntOr(1, 0, INT_MAX);
    for (const Status& st : {type.status(), arch.status(), model.status(), n.status()})
      if (!st.ok()) return st;
    out.push_back(Device{*type, *arch, *model, static_cast<int>(*n)});
  }
  return out;
}

std::optional<std::string> ProcessorField(const Processor& p, const std::string& field) {
  nlohmann::json j = ProcessorToJson(p);  // holds only the fields that are set
  auto it = j.find(field);
  if (it == j.end() || field == "topology") return std::nullopt;
  return JsonField(*it).StringOr(it->dump());
}

std::string DetectionToYaml(const Processor& p, const std::vector<Device>& devices) {
  return ConfigToYaml({{"processor", ProcessorToJson(p)}}) + ConfigToYaml({{"devices", DevicesToJson(devices)}});
}

}  // namespace hb
