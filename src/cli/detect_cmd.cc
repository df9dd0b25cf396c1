// `hetbench detect`: this host's processor and devices, or those of a
// partition's compute nodes through a detection job (run/remote_detect.h),
// printed as the `processor:` and `devices:` of a partition and cached for
// `hetbench run` (config/topology.h).
#include <cstdio>
#include <ctime>

#include "cli/commands.h"
#include "config/config_loader.h"
#include "config/detect.h"
#include "config/topology.h"
#include "results/store.h"
#include "run/remote_detect.h"
#include "util/fs.h"
#include "util/strings.h"

namespace hb {

namespace {

int Error(const std::string& msg, int rc) {
  std::fprintf(stderr, "hetbench: error: %s\n", msg.c_str());
  return rc;
}

std::string When(double t) {
  std::time_t s = static_cast<std::time_t>(t);
  std::tm tm{};
  localtime_r(&s, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

// Standard output, or -o FILE.
int Emit(const DetectCommandOptions& o, const std::string& text) {
  if (o.output.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  }
  Status st = WriteFileAtomic(o.output, text);
  return st.ok() ? 0 : Error(st.str(), 2);
}

std::string Render(const DetectCommandOptions& o, const Topology& t) {
  return o.json ? TopologyToJson(t).dump(2) + "\n" : DetectionToYaml(t.processor, t.devices);
}

struct Detected {
  std::string name;  // sys:part
  Result<Topology> topology;
};

// The partitions' topologies: from the cache unless --refresh, else by
// detection jobs (all at once), which refresh the cache.
std::vector<Detected> Topologies(const DetectCommandOptions& o, const SiteConfig& cfg, const System& sys,
                                 const std::vector<const Partition*>& parts, int* interrupted) {
  std::vector<Detected> out;
  std::vector<DetectTarget> targets;
  std::vector<std::string> files;
  std::vector<bool> queued;  // out[i] waits for a detection job
  for (const Partition* p : parts) {
    auto where =
        TopologyFile(TopologyPrefix(cfg.SectionFor("general", sys.name, p->name), ProcessEnv), sys.name, p->name);
    out.push_back({sys.name + ":" + p->name, Status::Error("not detected")});
    files.push_back(where.ok() ? *where : "");
    queued.push_back(false);
    if (!where.ok()) {
      out.back().topology = where.status();
      continue;
    }
    const std::string& file = *where;
    if (!o.refresh && PathExists(file)) {
      out.back().topology = ReadTopologyFile(file);
      if (out.back().topology.ok()) {
        std::fprintf(stderr, "hetbench: partition '%s': cached in %s (detected on %s at %s); --refresh detects again\n",
                     out.back().name.c_str(), file.c_str(), out.back().topology->hostname.c_str(),
                     When(out.back().topology->time).c_str());
        continue;
      }
    }
    targets.push_back({&sys, p});
    queued.back() = true;
  }
  DetectJobOptions job;
  job.exe = o.exe;
  job.job_options = o.job_options;
  job.time_limit_s = o.time_limit_s;
  DetectOutcome detected =
      DetectPartitions(cfg, targets, job, [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); });
  *interrupted = detected.interrupt_signal;
  size_t next = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    if (!queued[i]) continue;
    out[i].topology = std::move(detected.results[next++]);
    if (!out[i].topology.ok()) continue;
    Status st = WriteTopologyFile(files[i], *out[i].topology);
    if (st.ok())
      std::fprintf(stderr, "hetbench: partition '%s': cached in %s\n", out[i].name.c_str(), files[i].c_str());
    else
      std::fprintf(stderr, "hetbench: warning: partition '%s': not cached: %s\n", out[i].name.c_str(),
                   st.str().c_str());
  }
  return out;
}

int DetectRemote(const DetectCommandOptions& o) {
  auto cfg = LoadConfiguration(o.config_files);
  if (!cfg.ok()) return Error(cfg.status().str(), 2);
  auto sel = SelectSystem(*cfg, o.partition, "");
  if (!sel.ok()) return Error(sel.status().str(), 2);
  const System& sys = *sel->first;
  std::vector<const Partition*> parts;
  if (sel->second)
    parts.push_back(sel->second);
  else
    for (const auto& p : sys.partitions) parts.push_back(&p);

  int interrupted = 0;
  std::vector<Detected> found = Topologies(o, *cfg, sys, parts, &interrupted);
  std::string text;
  nlohmann::json all = nlohmann::json::object();
  int rc = 0;
  for (const auto& d : found) {
    if (!d.topology.ok()) {
      rc = Error(d.topology.status().str(), 1);
      continue;
    }
    if (found.size() == 1)
      text = Render(o, *d.topology);
    else if (o.json)
      all[d.name] = TopologyToJson(*d.topology);
    else
      text += "# " + d.name + "\n" + Render(o, *d.topology) + "\n";
  }
  if (found.size() > 1 && o.json) text = all.dump(2) + "\n";
  if (!text.empty() && Emit(o, text) != 0) return 2;
  return interrupted ? 130 : rc;
}

}  // namespace

int DetectCommand(const DetectCommandOptions& o) {
  if (!o.partition.empty()) return DetectRemote(o);
  // This host needs no configuration, but one that was named must load:
  // an error in it is exit 2 here as in every command.
  if (!o.config_files.empty()) {
    auto cfg = LoadConfiguration(o.config_files);
    if (!cfg.ok()) return Error(cfg.status().str(), 2);
  }
  Topology t = DetectLocalTopology();
  return Emit(o, Render(o, t));
}

}  // namespace hb
