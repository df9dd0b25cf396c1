// Container platforms: the command line that runs a test's command inside
// a container image, as ReFrame's container platforms write it
// (reframe/core/containers.py, ReFrame 4.8), with hetbench's GPU flags and
// Podman. The launcher's words go in front of it (`srun apptainer exec
// ...`), as in ReFrame, so every task of a parallel job runs in the image.
//
//   Apptainer, Singularity:
//     TOOL exec -B"HOST:CTR"... -B"STAGEDIR:/rfm_workdir" [--nv|--rocm]
//          [--pwd WORKDIR] OPTIONS IMAGE COMMAND
//     (`TOOL run ...  IMAGE` when there is no command); no pull command.
//   Docker, Podman:
//     TOOL run --rm -v "HOST":"CTR"... -v "STAGEDIR":"/rfm_workdir"
//          [--gpus all | --device=/dev/kfd --device=/dev/dri]
//          [-w WORKDIR] OPTIONS IMAGE [COMMAND]
//     after `TOOL pull IMAGE` when pull_image.
//   Sarus, Shifter (the Shifter-NG interface, as in ReFrame):
//     TOOL run --mount=type=bind,source="HOST",destination="CTR"...
//          [--mpi] [-w WORKDIR (Sarus only)] OPTIONS IMAGE [COMMAND]
//     after `TOOL pull IMAGE` when pull_image and IMAGE is not load/...
//
// Quoting: mount paths are double-quoted as in ReFrame (a user's `$SCRATCH`
// still expands; the stage directory is made fully literal); the image and
// work directory are ShellQuote'd, so an image name with shell
// metacharacters reaches the runtime as one literal word; COMMAND and
// OPTIONS are shell text as the test wrote them.
//
// GPUs: when the case asks for GPUs (num_gpus_per_node > 0), Apptainer and
// Singularity get --nv (NVIDIA) or --rocm (AMD), Docker and Podman get
// --gpus all or the ROCm devices; the vendor comes from the partition's
// devices and features (GpuVendorOf).
//
// Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/site_config.h"
#include "model/test_spec.h"
#include "util/status.h"

namespace hb {

enum class GpuVendor { kNone, kNvidia, kAmd };

// Everything one container command line depends on.
struct ContainerRun {
  std::string type;  // a ContainerPlatformTypes() name
  std::string image;
  std::optional<std::string> command;  // nullopt: the image's own command
  std::vector<std::pair<std::string, std::string>> mount_points;
  std::string stagedir;                         // host side of the stage mount
  std::string mount_stagedir = "/rfm_workdir";  // "" = no stage mount
  std::string workdir = "/rfm_workdir";         // "" = the image's
  std::vector<std::string> options;
  bool pull_image = true;
  bool with_mpi = false;
  GpuVendor gpus = GpuVendor::kNone;
};

// The commands to run before the launch line (image pulls).
std::vector<std::string> ContainerPrepareCommands(const ContainerRun& run);
// The launch line (what replaces the executable and its options).
std::string ContainerLaunchCommand(const ContainerRun& run);

// The GPU vendor of a partition: AMD when a gpu device's arch or model
// says so (gfx*, AMD, Instinct, Radeon, MI*) or its features include rocm,
// amdgpu or hip; otherwise NVIDIA.
GpuVendor GpuVendorOf(const Partition& p);

// The lines a case's run script gets for its container.
struct ContainerLines {
  std::vector<std::string> prepare_cmds;  // pulls
  std::string command;                    // the launch line
  EnvVars env_vars;                       // the platform's env_vars
  std::vector<ModuleSpec> modules;        // the platform's modules
};

// For a test with container_platform set, on partition `p` (not a
// Kubernetes one): the container lines. `image` is the resolved image
// (the container's, the test's or the environment's); `command` the
// test's expanded executable and options, used when the spec has no
// command ("" for none). Errors name the partition and what to change.
Result<ContainerLines> ContainerFor(const ContainerSpec& spec, const std::string& image, const Partition& p,
                                    const std::string& partition_label, int num_gpus_per_node,
                                    const std::string& stagedir, const std::string& command);

}  // namespace hb
