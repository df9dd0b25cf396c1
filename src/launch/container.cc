#include "launch/container.h"

#include <algorithm>
#include <cctype>

#include "util/strings.h"

namespace hb {

namespace {

using Words = std::vector<std::string>;

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// "path" for the shell. As in ReFrame, $ and ` still expand in a user's
// mount points; `literal` escapes them too (the stage directory).
std::string Dq(const std::string& v, bool literal) {
  std::string out = "\"";
  for (char c : v) {
    if (c == '"' || c == '\\' || (literal && (c == '$' || c == '`'))) out += '\\';
    out += c;
  }
  return out + "\"";
}

bool IsSingularity(const std::string& t) { return t == "Singularity" || t == "Apptainer"; }
bool IsDocker(const std::string& t) { return t == "Docker" || t == "Podman"; }

std::string Tool(const std::string& type) { return Lower(type); }

// The options between the mounts and the image.
Words RunOptions(const ContainerRun& r) {
  Words opts;
  // The user's mounts, then the stage directory (ReFrame's order).
  size_t user_mounts = r.mount_points.size();
  auto mounts = r.mount_points;
  if (!r.mount_stagedir.empty()) mounts.emplace_back(r.stagedir, r.mount_stagedir);
  for (size_t i = 0; i < mounts.size(); ++i) {
    bool literal = i >= user_mounts;  // the stage directory
    const auto& [host, ctr] = mounts[i];
    if (IsSingularity(r.type))
      opts.push_back("-B" + Dq(host + ":" + ctr, literal));
    else if (IsDocker(r.type))
      opts.push_back("-v " + Dq(host, literal) + ":" + Dq(ctr, false));
    else
      opts.push_back("--mount=type=bind,source=" + Dq(host, literal) + ",destination=" + Dq(ctr, false));
  }
  if (IsSingularity(r.type) && r.gpus != GpuVendor::kNone)
    opts.push_back(r.gpus == GpuVendor::kAmd ? "--rocm" : "--nv");
  if (IsDocker(r.type) && r.gpus == GpuVendor::kNvidia) opts.push_back("--gpus all");
  if (IsDocker(r.type) && r.gpus == GpuVendor::kAmd) opts.push_back("--device=/dev/kfd --device=/dev/dri");
  bool sarus_like = !IsSingularity(r.type) && !IsDocker(r.type);
  if (sarus_like && r.with_mpi) opts.push_back("--mpi");
  if (!r.workdir.empty() && r.type != "Shifter")
    opts.push_back((IsSingularity(r.type) ? "--pwd " : "-w ") + ShellQuote(r.workdir));
  opts.insert(opts.end(), r.options.begin(), r.options.end());
  return opts;
}

}  // namespace

std::vector<std::string> ContainerPrepareCommands(const ContainerRun& r) {
  if (!r.pull_image || IsSingularity(r.type)) return {};
  // Sarus and Shifter name images loaded from a tar file load/...
  if (!IsDocker(r.type) && StartsWith(r.image, "load/")) return {};
  return {Tool(r.type) + " pull " + ShellQuote(r.image)};
}

std::string ContainerLaunchCommand(const ContainerRun& r) {
  Words cmd = {Tool(r.type)};
  if (IsSingularity(r.type))
    cmd.push_back(r.command ? "exec" : "run");
  else
    cmd.push_back("run");
  if (IsDocker(r.type)) cmd.push_back("--rm");
  Words opts = RunOptions(r);
  cmd.insert(cmd.end(), opts.begin(), opts.end());
  cmd.push_back(ShellQuote(r.image));
  if (r.command && !r.command->empty()) cmd.push_back(*r.command);
  return Join(cmd, " ");
}

GpuVendor GpuVendorOf(const Partition& p) {
  for (const auto& f : p.features) {
    std::string l = Lower(f);
    if (l == "rocm" || l == "amdgpu" || l == "hip") return GpuVendor::kAmd;
  }
  for (const auto& d : p.devices) {
    if (d.type != "gpu") continue;
    std::string arch = Lower(d.arch), model = Lower(d.model);
    if (StartsWith(arch, "gfx") || StartsWith(model, "mi") || model.find("amd") != std::string::npos ||
        model.find("instinct") != std::string::npos || model.find("radeon") != std::string::npos)
      return GpuVendor::kAmd;
  }
  return GpuVendor::kNvidia;
}

Result<ContainerLines> ContainerFor(const ContainerSpec& spec, const std::string& image, const Partition& p,
                                    const std::string& partition_label, int num_gpus_per_node,
                                    const std::string& stagedir, const std::string& command) {
  const ContainerPlatform* platform = p.FindContainerPlatform(spec.platform);
  std::string wanted =
      spec.platform.empty() ? "a default container platform" : "container platform '" + spec.platform + "'";
  if (!platform) {
    std::vector<std::string> have;
    for (const auto& c : p.container_platforms) have.push_back(c.type);
    return Status::Error(
        spec.mark, "the test asks for " + wanted + " but partition '" + partition_label + "' " +
                       (have.empty() ? "configures no container_platforms" : "configures only " + Join(have, ", ")) +
                       " (see docs/containers.md)");
  }
  if (image.empty())
    return Status::Error(spec.mark,
                         "container_platform: no image to run: set `image` in the test (or "
                         "container_platform: {image: ...}), or an `image` in its environment");
  ContainerRun run;
  run.type = platform->type;
  run.image = image;
  run.command = spec.command;
  if (!run.command && !command.empty()) run.command = command;
  run.mount_points = spec.mount_points;
  run.stagedir = stagedir;
  run.mount_stagedir = spec.mount_stagedir;
  run.workdir = spec.workdir;
  run.options = spec.options;
  run.pull_image = spec.pull_image;
  run.with_mpi = spec.with_mpi;
  if (num_gpus_per_node > 0)
    run.gpus = GpuVendorOf(p);
  else if (spec.with_cuda)
    run.gpus = GpuVendor::kNvidia;
  ContainerLines out;
  out.prepare_cmds = ContainerPrepareCommands(run);
  out.command = ContainerLaunchCommand(run);
  out.env_vars = platform->env_vars;
  out.modules = platform->modules;
  return out;
}

}  // namespace hb
