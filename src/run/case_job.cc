#include "run/case_job.h"

#include <unistd.h>

#include <set>

#include "buildsys/build_system.h"
#include "launch/container.h"
#include "launch/launcher.h"
#include "model/placeholder.h"
#include "run/script.h"
#include "sched/scheduler_factory.h"
#include "util/fs.h"
#include "util/strings.h"

namespace hb {

namespace {

const SchedulerTraits& TraitsOf(const Partition& part) {
  static const SchedulerTraits kNone;
  auto b = FindSchedulerBackend(part.scheduler);
  return b.ok() ? (*b)->traits : kNone;
}

// The folder of the running hetbench binary, where the benchmark programs
// (hetbench-train, -io, -comm, -compute) are built and installed next to it.
const std::string& HetbenchBinDir() {
  static const std::string dir = [] {
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return std::string();
    std::string exe(buf, static_cast<size_t>(n));
    size_t slash = exe.rfind('/');
    return slash == std::string::npos ? std::string() : exe.substr(0, slash);
  }();
  return dir;
}

std::vector<std::string> PrepareCmds(const CaseJobInput& in) {
  std::vector<std::string> prepare = in.part->prepare_cmds;
  if (in.env) prepare.insert(prepare.end(), in.env->prepare_cmds.begin(), in.env->prepare_cmds.end());
  return prepare;
}

// A test with container_platform set runs its command inside the image on
// this partition's container platform (docs/containers.md); on Kubernetes
// the image is the pod's and nothing is wrapped.
Status AddContainer(const CaseJobInput& in, const std::string& image, ScriptParts* p) {
  const TestSpec& s = *in.spec;
  if (!s.container.enabled || TraitsOf(*in.part).remote_files) return Status::OK();
  std::vector<std::string> words = {p->executable};
  if (!p->executable.empty()) words.insert(words.end(), p->executable_opts.begin(), p->executable_opts.end());
  auto lines = ContainerFor(s.container, image, *in.part, in.tc->system + ":" + in.tc->partition, s.num_gpus_per_node,
                            in.stagedir, Join(words, " "));
  if (!lines.ok()) return lines.status();
  // ReFrame: the launch command replaces the executable and its options;
  // image pulls follow the test's prerun_cmds; the platform's modules and
  // env_vars come before the test's.
  p->executable = lines->command;
  p->executable_opts.clear();
  p->prerun_cmds.insert(p->prerun_cmds.end(), lines->prepare_cmds.begin(), lines->prepare_cmds.end());
  if (!lines->modules.empty() || !lines->env_vars.empty()) {
    EnvLevel platform;
    platform.modules = lines->modules;
    platform.env_vars = lines->env_vars;
    auto environ = EnvironLines(in, &platform);
    if (!environ.ok()) return environ.status();
    p->environ = std::move(environ).value();
  }
  return Status::OK();
}

}  // namespace

const Partition& LocalPartition() {
  static const Partition kLocal;
  return kLocal;
}

const Partition& RunPartition(const CaseJobInput& in) { return in.spec->local ? LocalPartition() : *in.part; }

BuildPlace WhereBuildRuns(const CaseJobInput& in) {
  if (TraitsOf(*in.part).remote_files) return BuildPlace::kInJob;
  return in.spec->build_locally ? BuildPlace::kHere : BuildPlace::kPartition;
}

const Partition& BuildPartition(const CaseJobInput& in) {
  return WhereBuildRuns(in) == BuildPlace::kPartition ? *in.part : LocalPartition();
}

std::vector<std::pair<std::string, std::string>> HetbenchEnv() {
  std::vector<std::pair<std::string, std::string>> env;
  if (!HetbenchBinDir().empty()) {
    env.emplace_back("HETBENCH_BIN_DIR", ShellQuote(HetbenchBinDir()));
    env.emplace_back("PATH", "\"$HETBENCH_BIN_DIR:$PATH\"");
  }
  return env;
}

std::vector<std::string> FilesChecksRead(const TestSpec& s) {
  std::set<std::string> files;
  auto add = [&](const std::string& f) {
    if (f != "stdout" && f != "stderr" && !f.empty()) files.insert(f);
  };
  for (const auto& x : s.sanity) add(x.in);
  for (const auto& x : s.performance) add(x.in);
  for (const auto& k : s.keep_files) add(k);
  return {files.begin(), files.end()};
}

Result<JobPlan> MakeBuildJob(const CaseJobInput& in, const Scheduler& sched) {
  const TestSpec& s = *in.spec;
  if (!in.env) return Status::Error("environment '" + in.tc->environ + "' is not defined for " + in.tc->system);
  auto built = BuildCommands(s.build, *in.env, in.stagedir);
  if (!built.ok()) return built.status();
  std::vector<std::string> cmds = s.prebuild_cmds;
  cmds.insert(cmds.end(), built->begin(), built->end());
  cmds.insert(cmds.end(), s.postbuild_cmds.begin(), s.postbuild_cmds.end());
  auto environ = EnvironLines(in);
  if (!environ.ok()) return environ.status();

  bool on_partition = WhereBuildRuns(in) == BuildPlace::kPartition;
  JobPlan plan;
  Job& job = plan.job;
  job.name = "hb_build_" + s.name;
  job.workdir = in.stagedir;
  job.script_path = JoinPath(in.stagedir, kBuildScript);
  job.stdout_path = JoinPath(in.stagedir, kBuildOut);
  job.stderr_path = JoinPath(in.stagedir, kBuildErr);
  job.time_limit_s = s.build_time_limit_s.value_or(0);
  if (on_partition) {
    job.sched_options = in.part->sched_options;
    job.access = in.part->access;
    job.options = in.cli_job_options;
  }
  plan.script = BuildScript(in.stagedir, HetbenchEnv(), PrepareCmds(in), *environ, cmds,
                            on_partition ? sched.Directives(job) : std::vector<std::string>());
  return plan;
}

Result<JobPlan> MakeRunJob(const CaseJobInput& in, const Scheduler& sched, const std::string& build_output,
                           const std::string& build_in_job) {
  const TestCase& c = *in.tc;
  const TestSpec& s = *in.spec;
  const Partition& part = RunPartition(in);
  // The test's launcher replaces the partition's. The partition's
  // launcher_options belong to the partition's launcher: a test with
  // another launcher gets only its own.
  std::string launcher_name = !s.launcher.empty() ? s.launcher : in.part->launcher;
  std::vector<std::string> launcher_options;
  if (launcher_name == in.part->launcher) launcher_options = in.part->launcher_options;
  launcher_options.insert(launcher_options.end(), s.launcher_options.begin(), s.launcher_options.end());
  auto backend = FindSchedulerBackend(part.scheduler);
  if (!backend.ok()) return backend.status();
  auto launcher = MakeLauncher(launcher_name, std::move(launcher_options), *backend);
  if (!launcher.ok()) return launcher.status();

  JobPlan plan;
  plan.launcher = launcher_name;
  Job& job = plan.job;
  job.name = "hb_" + s.name;
  job.workdir = in.stagedir;
  job.script_path = JoinPath(in.stagedir, kJobScript);
  job.stdout_path = JoinPath(in.stagedir, kJobOut);
  job.stderr_path = JoinPath(in.stagedir, kJobErr);
  job.time_limit_s = s.time_limit_s ? *s.time_limit_s : in.part->time_limit_s;
  job.num_tasks = s.num_tasks;
  job.num_tasks_per_node = s.num_tasks_per_node;
  job.num_cpus_per_task = s.num_cpus_per_task;
  job.num_tasks_per_core = s.num_tasks_per_core;
  job.num_tasks_per_socket = s.num_tasks_per_socket;
  job.use_smt = s.use_multithreading ? (*s.use_multithreading ? 1 : 0) : -1;
  job.num_gpus_per_node = s.num_gpus_per_node;
  job.exclusive = s.exclusive_access;
  job.max_pending_time_s = s.max_pending_time_s;
  job.num_devices_per_node = s.num_devices_per_node;
  if (const std::string* node = c.Param(kNodeParam)) job.pin_nodes = *node;
  // The container image: container_platform's, the test's, the
  // environment's. Kubernetes runs the job in it as the pod's image.
  std::string image = !s.container.image.empty() ? s.container.image : s.image;
  job.image = !image.empty() ? image : (in.env ? in.env->image : "");
  job.build_script_path = build_in_job;
  job.fetch_files = FilesChecksRead(s);
  job.session_id = in.session->id;
  job.case_id = c.id;
  job.backend_spec = s.k8s;
  job.sched_options = part.sched_options;
  if (!s.local) {  // scheduler options mean nothing to a local job
    job.access = in.part->access;
    auto resources = ResourceOptions(s, *in.part);
    if (!resources.ok()) return resources.status();
    job.options.insert(job.options.end(), resources->begin(), resources->end());
    job.options.insert(job.options.end(), s.job_options.begin(), s.job_options.end());
    job.options.insert(job.options.end(), in.cli_job_options.begin(), in.cli_job_options.end());
  }

  ScriptParts p;
  p.directives = sched.Directives(job);
  p.workdir = in.stagedir;
  p.env = HetbenchEnv();
  for (auto& kv : (*launcher)->Env()) p.env.push_back(kv);
  auto environ = EnvironLines(in);
  if (!environ.ok()) return environ.status();
  p.environ = std::move(environ).value();
  p.prepare_cmds = PrepareCmds(in);
  p.build_setup = RunPrepareCommands(s.build, in.stagedir, build_output);
  p.prerun_cmds = s.prerun_cmds;
  std::string prefix = (*launcher)->Prefix(job);
  if (!prefix.empty()) p.launcher = {prefix};
  p.executable = s.executable;
  p.executable_opts = s.executable_opts;
  p.postrun_cmds = s.postrun_cmds;
  Status st = AddContainer(in, job.image, &p);
  if (!st.ok()) return st;
  plan.script = RunScript(p);
  return plan;
}

Result<std::vector<std::string>> EnvironLines(const CaseJobInput& in, const EnvLevel* extra) {
  const System& sys = in.session->system();
  std::vector<EnvLevel> levels = {{sys.modules, sys.env_vars}, {in.part->modules, in.part->env_vars}};
  if (in.env) levels.push_back({in.env->modules, in.env->env_vars});
  // ReFrame (pipeline.py, run()): the container platform's environment
  // goes between the programming environment's and the test's.
  if (extra) levels.push_back(*extra);
  EnvLevel test{in.spec->modules, {}};
  for (const auto& [k, v] : in.spec->env_vars) test.env_vars.emplace_back(k, v);
  levels.push_back(std::move(test));
  auto general = in.session->config.GeneralFor(sys.name, in.part->name);
  if (!general.ok()) return general.status();
  auto mappings = ParseModuleMappings(general->module_mappings);
  if (!mappings.ok()) return mappings.status();
  return EnvironmentLines(sys.modules_system, levels, *mappings);
}

Result<std::vector<std::string>> ResourceOptions(const TestSpec& s, const Partition& part) {
  std::vector<std::string> out;
  for (const auto& res : part.resources) {
    std::map<std::string, std::string> values;
    auto it = s.extra_resources.find(res.name);
    bool gpu = (res.name == "gpu" || res.name == "_rfm_gpu") && s.num_gpus_per_node > 0;
    if (it == s.extra_resources.end() && !gpu) continue;
    if (it != s.extra_resources.end()) values = it->second;
    if (gpu) values.emplace("num_gpus_per_node", std::to_string(s.num_gpus_per_node));
    for (const auto& tmpl : res.options) {
      std::string missing;
      std::string filled = ExpandPlaceholders(
          tmpl,
          [&](const std::string& k) -> std::optional<std::string> {
            auto v = values.find(k);
            if (v != values.end()) return v->second;
            if (missing.empty()) missing = k;
            return std::nullopt;
          },
          false);
      if (!missing.empty())
        return Status::Error("resource '" + res.name + "' of partition '" + part.name + "' needs a value for {" +
                             missing + "}: set extra_resources: {" + res.name + ": {" + missing + ": ...}}");
      out.push_back(filled);
    }
  }
  return out;
}

}  // namespace hb
