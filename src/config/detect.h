// Detection of the host's processor and accelerators, in ReFrame's terms:
// Processor {arch, vendor, model, platform, num_cpus, num_cpus_per_core,
// num_cpus_per_socket, num_sockets, topology} as `reframe
// --detect-host-topology` writes it (topology masks are the sysfs masks as
// "0x..." strings), and Device {type: gpu, arch: sm_90 / gfx90a, model,
// num_devices}. Used by GenericConfig() and by `hetbench detect`, which
// prints DetectionToYaml() for pasting into a partition.
//
// The parsers are pure functions over text, so tests feed them samples;
// the world is touched only through a sysfs root folder and a
// CommandRunner. Thread-safe.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/site_config.h"

namespace hb {

// Runs argv (argv[0] looked up in PATH) and returns its standard output,
// or nullopt when the program is missing, fails or runs past 30 seconds.
using CommandRunner = std::function<std::optional<std::string>(const std::vector<std::string>& argv)>;
CommandRunner SystemCommandRunner();

// The processor of this host, from /proc/cpuinfo, uname and
// /sys/devices/system.
Processor DetectProcessor();
// The same from a /proc/cpuinfo text, the machine name (uname -m) and a
// folder laid out like /sys/devices/system (with cpu/ and node/).
Processor DetectProcessorFrom(const std::string& cpuinfo, const std::string& machine,
                              const std::string& sysfs_system_dir);

// The architecture name (archspec's, as ReFrame reports it, e.g. zen3,
// skylake_avx512, neoverse_v2) best guessed from /proc/cpuinfo; the
// machine name when nothing better is known.
std::string GuessCpuArch(const std::string& cpuinfo, const std::string& machine);

// NVIDIA GPUs (nvidia-smi) and AMD GPUs (rocm-smi), when those programs
// exist; one Device per distinct model.
std::vector<Device> DetectDevices();
std::vector<Device> DetectDevices(const CommandRunner& run);

// Parses `nvidia-smi --query-gpu=name,compute_cap --format=csv,noheader`.
std::vector<Device> ParseNvidiaSmi(const std::string& out);
// Parses `rocm-smi --showproductname` (or --showallinfo) output.
std::vector<Device> ParseRocmSmi(const std::string& out);
// "8.0" -> "sm_80"; "" when cap is not a compute capability.
std::string NvidiaArchFromComputeCap(const std::string& cap);

// ReFrame's JSON forms, and the `processor:` and `devices:` blocks of a
// partition as YAML.
nlohmann::json ProcessorToJson(const Processor& p);
nlohmann::json DevicesToJson(const std::vector<Device>& devices);
// The reverse of ProcessorToJson and DevicesToJson, for files hetbench
// wrote (topology.h); keys it does not know are ignored, wrong types are
// errors.
Result<Processor> ProcessorFromJson(const nlohmann::json& j);
Result<std::vector<Device>> DevicesFromJson(const nlohmann::json& j);
// The value of `field` (arch, vendor, model, platform, num_cpus,
// num_cpus_per_core, num_cpus_per_socket, num_sockets) of p, for the
// {processor.FIELD} placeholders; nullopt when unknown or unset.
std::optional<std::string> ProcessorField(const Processor& p, const std::string& field);
std::string DetectionToYaml(const Processor& p, const std::vector<Device>& devices);

}  // namespace hb
