#include "k8s/manifest.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <optional>
#include <random>

#include "k8s/tar_gz.h"
#include "util/base64.h"
#include "util/fs.h"
#include "util/json_field.h"
#include "util/sha256.h"
#include "util/strings.h"

namespace hb {

namespace {

using nlohmann::json;

constexpr size_t kMaxPackedStage = 512 * 1024;
// Linux refuses one environment string over MAX_ARG_STRLEN (128 KiB).
constexpr size_t kEnvChunk = 96 * 1024;
constexpr int kRendezvousPort = 29500;
constexpr char kStageEnv[] = "HETBENCH_STAGE_TGZ";
constexpr char kDefaultErr[] = "hb_job.err";

// ---------------------------------------------------------------- encoding

std::string RandomHex(size_t n) {
  static const char hex[] = "0123456789abcdef";
  std::random_device rd;
  std::string out;
  while (out.size() < n) {
    unsigned v = rd();
    for (int i = 0; i < 8 && out.size() < n; ++i, v >>= 4) out += hex[v & 15];
  }
  return out;
}

// ------------------------------------------------------------------- names

// Lowercase [a-z0-9-], no leading, trailing or doubled '-', at most max.
std::string DnsLabel(const std::string& s, size_t max) {
  std::string out;
  for (char ch : s) {
    char c = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
      out += c;
    else if (!out.empty() && out.back() != '-')
      out += '-';
  }
  if (out.size() > max) out.resize(max);
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

// metadata.generateName for a job: the API server adds 5 characters, and an
// Indexed Job's pods are named NAME-INDEX, which must stay a DNS label.
std::string GenerateName(const std::string& job_name, int pods) {
  size_t digits = pods > 1 ? std::to_string(pods - 1).size() + 1 : 0;
  std::string base = DnsLabel(job_name, 56 - digits);
  return (base.empty() ? std::string("hb") : base) + "-";
}

// A label value: [A-Za-z0-9-_.], at most 63, starting and ending with an
// alphanumeric.
std::string LabelValue(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '-';
  if (out.size() > 63) out.resize(63);
  auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  while (!out.empty() && !alnum(out.back())) out.pop_back();
  size_t b = 0;
  while (b < out.size() && !alnum(out[b])) ++b;
  return out.substr(b);
}

std::string CaseHash(const std::string& case_id) { return Sha256Hex(case_id).substr(0, 16); }

// The headless Service of a multi-pod case: known before the Job is
// created (its pods name it as their subdomain); the nonce keeps a retry
// of the same case in the same session from colliding with a leftover.
std::string ServiceName(const Job& job, const std::string& nonce) {
  return "hb-" + Sha256Hex(job.session_id + "\n" + job.case_id).substr(0, 12) + "-" + nonce.substr(0, 8);
}

json CommonLabels(const Job& job, const K8sOptions& opts) {
  json l = json::object();
  for (const auto& [k, v] : opts.labels) l[k] = v;
  l[kLabelManagedBy] = "hetbench";
  l[kLabelSession] = LabelValue(job.session_id);
  l[kLabelCase] = CaseHash(job.case_id);
  return l;
}

json CommonAnnotations(const Job& job, const K8sOptions& opts) {
  json a = json::object();
  for (const auto& [k, v] : opts.annotations) a[k] = v;
  a[kAnnotationCase] = job.case_id;
  return a;
}

// ------------------------------------------------------------------- paths

// p (absolute, or relative to dir) relative to dir; nullopt when outside.
std::optional<std::string> RelativeTo(const std::string& dir, const std::string& p) {
  std::string a = AbsPath(dir), b = AbsPath(JoinPath(a, p));
  if (a == b) return std::string(".");
  std::string prefix = a == "/" ? a : a + "/";
  if (!StartsWith(b, prefix)) return std::nullopt;
  return b.substr(prefix.size());
}

bool HasDotDot(const std::string& p) {
  for (const auto& part : Split(p, '/'))
    if (part == "..") return true;
  return false;
}

// A glob pattern as one sh word: literal runs quoted, * ? [ ] left to the
// shell.
std::string GlobWord(const std::string& pattern) {
  std::string out, lit;
  auto flush = [&] {
    if (!lit.empty()) out += ShellQuote(lit);
    lit.clear();
  };
  for (char c : pattern) {
    if (c == '*' || c == '?' || c == '[' || c == ']') {
      flush();
      out += c;
    } else {
      lit += c;
    }
  }
  flush();
  return out;
}

// "hb_build.sh" -> "hb_build" + ext.
std::string SiblingName(const std::string& script, const std::string& ext) {
  std::string base = EndsWith(script, ".sh") ? script.substr(0, script.size() - 3) : script;
  return base + ext;
}

std::string StagingPodPath(const K8sOptions& opts) {
  if (!opts.staging_pod_path.empty()) return opts.staging_pod_path;
  for (const auto& v : opts.volumes)
    if (v.name == opts.staging_volume) return v.mount_path;
  return opts.staging_host_path;
}

// Where everything is, relative to the stage directory.
struct StageLayout {
  std::string host_dir;  // job.workdir, absolute: the job script cds there
  std::string pod_dir;   // where the stage really is in the pod (differs only on a staging volume)
  std::string script, build, build_out, build_err, err;
  std::vector<std::string> fetch;  // glob patterns
  bool on_volume = false;
  int chunks = 0;  // HETBENCH_STAGE_TGZ chunks
};

Result<StageLayout> Layout(const Job& job, const K8sOptions& opts) {
  StageLayout s;
  if (job.workdir.empty()) return Status::Error("job '" + job.name + "' has no stage directory");
  s.host_dir = AbsPath(job.workdir);
  s.pod_dir = s.host_dir;
  auto inside = [&](const std::string& p, const std::string& what) -> Result<std::string> {
    auto r = RelativeTo(s.host_dir, p);
    if (!r || *r == ".") return Status::Error(what + " '" + p + "' is not in the stage directory " + s.host_dir);
    return *r;
  };
  auto script = inside(job.script_path, "the job script");
  if (!script.ok()) return script.status();
  s.script = *script;
  if (!job.build_script_path.empty()) {
    auto build = inside(job.build_script_path, "the build script");
    if (!build.ok()) return build.status();
    s.build = *build;
    s.build_out = SiblingName(s.build, ".out");
    s.build_err = SiblingName(s.build, ".err");
  }
  // The job's stderr file: where job.stderr_path says in the stage
  // directory, else its base name there.
  auto err = job.stderr_path.empty() ? std::nullopt : RelativeTo(s.host_dir, job.stderr_path);
  if (err && *err != ".")
    s.err = *err;
  else if (!job.stderr_path.empty() && job.stderr_path.back() != '/')
    s.err = job.stderr_path.substr(job.stderr_path.rfind('/') + 1);
  else
    s.err = kDefaultErr;
  for (const auto& f : job.fetch_files) {
    std::string pat = f;
    if (StartsWith(pat, "/")) {
      auto r = RelativeTo(s.host_dir, pat);
      if (!r) return Status::Error("fetch file '" + f + "' is not in the stage directory " + s.host_dir);
      pat = *r;
    }
    if (pat.empty() || HasDotDot(pat))
      return Status::Error("fetch file '" + f + "': give a path in the stage directory");
    s.fetch.push_back(pat);
  }
  if (!opts.staging_volume.empty()) {
    auto rel = RelativeTo(opts.staging_host_path, s.host_dir);
    if (!rel)
      return Status::Error("the stage directory " + s.host_dir + " is not under staging_host_path " +
                           opts.staging_host_path +
                           ": set the stage prefix (--prefix) to a folder on the staging volume");
    s.on_volume = true;
    s.pod_dir = AbsPath(JoinPath(StagingPodPath(opts), *rel));
  }
  return s;
}

// ------------------------------------------------------------------ payload

std::string BootstrapFunctions(const StageLayout& s, const std::string& nonce) {
  std::string b;
  b += "hb_nonce=" + nonce + "\n";
  b += "hb_err=" + ShellQuote(s.err) + "\n";
  // printf, not echo: dash's echo would interpret backslashes in paths.
  b += "hb_fail() {\n"
       "  printf 'hetbench: %s\\n' \"$1\"\n"
       "  printf '@@hetbench-files %s begin@@\\n' \"$hb_nonce\"\n"
       "  printf '@@hetbench-files %s end %s@@\\n' \"$hb_nonce\" \"$2\"\n"
       "  exit \"$2\"\n"
       "}\n";
  // hb_finish: the result files between the markers, then the status.
  b += "hb_finish() {\n  hb_status=$1\n";
  if (!s.on_volume) {
    std::vector<std::string> words;
    for (const auto& f : s.fetch) words.push_back(GlobWord(f));
    words.push_back("\"$hb_err\"");
    if (!s.build.empty()) {
      words.push_back(ShellQuote(s.build_out));
      words.push_back(ShellQuote(s.build_err));
    }
    b += "  set --\n"
         "  for hb_f in " +
         Join(words, " ") +
         "; do\n"
         "    case $hb_f in -*) hb_f=./$hb_f ;; esac\n"
         "    [ -e \"$hb_f\" ] && set -- \"$@\" \"$hb_f\"\n"
         "  done\n";
  }
  b += "  printf '@@hetbench-files %s begin@@\\n' \"$hb_nonce\"\n";
  if (!s.on_volume) b += "  [ $# -gt 0 ] && tar -c -z -h -f - \"$@\" 2>/dev/null | base64\n";
  b += "  printf '@@hetbench-files %s end %s@@\\n' \"$hb_nonce\" \"$hb_status\"\n"
       "  exit \"$hb_status\"\n"
       "}\n";
  return b;
}

// Recreates the stage directory and enters it.
std::string BootstrapStage(const StageLayout& s) {
  std::string b;
  std::string host = ShellQuote(s.host_dir);
  if (!s.on_volume) {
    b += "for hb_t in tar gzip base64; do\n"
         "  command -v \"$hb_t\" >/dev/null 2>&1 || hb_fail \"the image has no $hb_t: the payload needs /bin/sh, "
         "tar, gzip and base64 (busybox has them)\" 127\n"
         "done\n";
    b += "mkdir -p " + host + " 2>/dev/null && cd " + host + " || hb_fail \"cannot create the stage directory \"" +
         host + "\" in the pod (the job script runs there): run the pod as a user who may create it\" 1\n";
    std::vector<std::string> parts;
    for (int i = 0; i < s.chunks; ++i)
      parts.push_back("\"$" + std::string(kStageEnv) + (i ? "_" + std::to_string(i) : "") + "\"");
    b += "printf '%s' " + Join(parts, " ") +
         " | base64 -d | tar -x -z -o -f - 2>.hb_unpack.err || hb_fail \"cannot unpack the stage directory: "
         "$(cat .hb_unpack.err)\" 1\n"
         "rm -f .hb_unpack.err\n";
  } else {
    std::string pod = ShellQuote(s.pod_dir);
    if (s.pod_dir != s.host_dir) {
      b += "if [ ! -e " + host + " ]; then mkdir -p " + ShellQuote(DirName(s.host_dir)) + " && ln -s " + pod + " " +
           host + " || hb_fail \"cannot link \"" + host + "\" to \"" + pod + "\" in the pod\" 1; fi\n";
    }
    b += "cd " + host + " || hb_fail \"the stage directory \"" + pod +
         "\" is not on the staging volume in the pod\" 1\n";
  }
  return b;
}

std::string BootstrapRun(const StageLayout& s) {
  std::string b;
  b += "hb_sh=/bin/sh\n"
       "for hb_b in /bin/bash /usr/bin/bash /usr/local/bin/bash; do\n"
       "  if [ -x \"$hb_b\" ]; then hb_sh=$hb_b; break; fi\n"
       "done\n";
  if (!s.build.empty()) {
    std::string build = ShellQuote(s.build);
    b += "\"$hb_sh\" " + build + " </dev/null >" + ShellQuote(s.build_out) + " 2>" + ShellQuote(s.build_err) + "\n";
    b += "hb_s=$?\n"
         "if [ \"$hb_s\" -ne 0 ]; then\n"
         "  printf 'hetbench: %s\\n' \"the build script \"" +
         build + "\" failed with exit status $hb_s (see \"" + ShellQuote(s.build_err) +
         "\")\" >\"$hb_err\"\n"
         "  hb_finish \"$hb_s\"\n"
         "fi\n";
  }
  b += "\"$hb_sh\" " + ShellQuote(s.script) + " </dev/null 2>\"$hb_err\"\n";
  b += "hb_finish $?\n";
  return b;
}

// ---------------------------------------------------------------- objects

json EnvValue(const std::string& name, const std::string& value) {
  return {{"name", name}, {"value", EscapeKubeExpansion(value)}};
}

json EnvField(const std::string& name, const std::string& path) {
  return {{"name", name}, {"valueFrom", {{"fieldRef", {{"fieldPath", path}}}}}};
}

json EscapedCommand(const Payload& p) {
  json cmd = json::array();
  for (const auto& a : p.command) cmd.push_back(EscapeKubeExpansion(a));
  return cmd;
}

// The payload's and the job's environment.
json PayloadEnv(const Job& job, const Payload& p) {
  json env = json::array();
  for (const auto& [k, v] : p.env) env.push_back(EnvValue(k, v));
  for (const auto& [k, v] : job.env) env.push_back(EnvValue(k, v));
  return env;
}

struct Shape {
  int tasks = 1, per_pod = 1, pods = 1;
};

Shape ShapeOf(const Job& job) {
  Shape s;
  s.tasks = std::max(1, job.num_tasks);
  s.per_pod = job.num_tasks_per_node > 0 && job.num_tasks_per_node < s.tasks ? job.num_tasks_per_node : s.tasks;
  s.pods = (s.tasks + s.per_pod - 1) / s.per_pod;
  return s;
}

// Ranks and rendezvous: HETBENCH_* for hetbench's launchers, and the
// variables torch.distributed reads.
void AddRankEnv(const Shape& sh, const std::string& service, json* env) {
  std::string world = std::to_string(sh.pods);
  env->push_back(EnvValue("HETBENCH_NTASKS", std::to_string(sh.tasks)));
  env->push_back(EnvValue("HETBENCH_NTASKS_PER_POD", std::to_string(sh.per_pod)));
  env->push_back(EnvValue("HETBENCH_WORLD_SIZE", world));
  env->push_back(EnvValue("WORLD_SIZE", world));
  if (sh.pods > 1) {
    const std::string index = "metadata.annotations['batch.kubernetes.io/job-completion-index']";
    env->push_back(EnvField("HETBENCH_RANK", index));
    env->push_back(EnvField("RANK", index));
    env->push_back(EnvField("HETBENCH_JOB_NAME", "metadata.labels['job-name']"));
    // Pods of an Indexed Job are JOBNAME-INDEX in the Service's subdomain.
    std::string master = "$(HETBENCH_JOB_NAME)-0." + service;  // expanded by Kubernetes
    env->push_back({{"name", "HETBENCH_MASTER_ADDR"}, {"value", master}});
    env->push_back({{"name", "MASTER_ADDR"}, {"value", master}});
  } else {
    env->push_back(EnvValue("HETBENCH_RANK", "0"));
    env->push_back(EnvValue("RANK", "0"));
    env->push_back(EnvValue("HETBENCH_MASTER_ADDR", "127.0.0.1"));
    env->push_back(EnvValue("MASTER_ADDR", "127.0.0.1"));
  }
  env->push_back(EnvValue("MASTER_PORT", std::to_string(kRendezvousPort)));
}

// requests and limits: CPUs, memory, devices. A limit given alone is also
// the request (as Kubernetes does); "none" leaves a limit out.
Result<json> Resources(const Job& job, const K8sOptions& opts, const Shape& sh) {
  json req = json::object(), lim = json::object();
  auto pair = [&](const char* name, const std::string& request, const std::string& limit, const std::string& dflt) {
    std::string r = !request.empty() ? request : (!limit.empty() && limit != "none") ? limit : dflt;
    std::string l = !limit.empty() ? limit : r;
    req[name] = r;
    if (l != "none") lim[name] = l;
  };
  pair("cpu", opts.cpu_request, opts.cpu_limit, std::to_string(std::max(1, job.num_cpus_per_task) * sh.per_pod));
  pair("memory", opts.memory_request, opts.memory_limit, opts.memory_default);
  std::map<std::string, int> devices;
  auto add = [&](const std::string& type, int n) -> Status {
    if (n <= 0) return Status::OK();
    auto it = opts.device_resources.find(type);
    if (it == opts.device_resources.end())
      return Status::Error("no Kubernetes resource for device type '" + type +
                           "': add it to device_resources in the partition's sched_options (e.g. " + type +
                           ": vendor.com/" + type + ")");
    devices[it->second] = std::max(devices[it->second], n);
    return Status::OK();
  };
  Status st = add("gpu", job.num_gpus_per_node);
  if (!st.ok()) return st;
  for (const auto& [type, n] : job.num_devices_per_node) {
    st = add(type, n);
    if (!st.ok()) return st;
  }
  for (const auto& [name, n] : devices) req[name] = lim[name] = std::to_string(n);
  json out = {{"requests", req}};
  if (!lim.empty()) out["limits"] = lim;
  return out;
}

json VolumeOf(const K8sVolume& v) {
  json vol = {{"name", v.name}};
  if (!v.claim_name.empty()) {
    vol["persistentVolumeClaim"] = {{"claimName", v.claim_name}};
    if (v.read_only) vol["persistentVolumeClaim"]["readOnly"] = true;
  } else {
    for (auto it = v.source.begin(); it != v.source.end(); ++it) vol[it.key()] = it.value();
  }
  return vol;
}

json MountOf(const std::string& name, const std::string& path, bool read_only) {
  json m = {{"name", name}, {"mountPath", path}};
  if (read_only) m["readOnly"] = true;
  return m;
}

bool HasVolume(const K8sOptions& opts, const std::string& name) {
  return std::any_of(opts.volumes.begin(), opts.volumes.end(), [&](const K8sVolume& v) { return v.name == name; });
}

// The staging volume, when it is not one of `volumes` already.
void AddStagingVolume(const K8sOptions& opts, json* volumes, json* mounts) {
  if (opts.staging_volume.empty() || HasVolume(opts, opts.staging_volume)) return;
  volumes->push_back({{"name", "hb-staging"}, {"persistentVolumeClaim", {{"claimName", opts.staging_volume}}}});
  mounts->push_back(MountOf("hb-staging", StagingPodPath(opts), false));
}

void AddVolumes(const K8sOptions& opts, json* pod_spec, json* container) {
  json volumes = json::array(), mounts = json::array();
  for (const auto& v : opts.volumes) {
    volumes.push_back(VolumeOf(v));
    mounts.push_back(MountOf(v.name, v.mount_path, v.read_only));
  }
  if (!opts.shm_size.empty()) {
    volumes.push_back({{"name", "hb-dshm"}, {"emptyDir", {{"medium", "Memory"}, {"sizeLimit", opts.shm_size}}}});
    mounts.push_back(MountOf("hb-dshm", "/dev/shm", false));
  }
  AddStagingVolume(opts, &volumes, &mounts);
  if (!volumes.empty()) (*pod_spec)["volumes"] = volumes;
  if (!mounts.empty()) (*container)["volumeMounts"] = mounts;
}

json Metadata(const K8sOptions& opts, const json& labels, const json& annotations) {
  json m = json::object();
  if (!opts.ns.empty()) m["namespace"] = opts.ns;
  m["labels"] = labels;
  m["annotations"] = annotations;
  return m;
}

json MakeService(const Job& job, const K8sOptions& opts, const std::string& name) {
  json md = Metadata(opts, CommonLabels(job, opts), CommonAnnotations(job, opts));
  md["name"] = name;
  json selector = {{kLabelCase, CaseHash(job.case_id)}, {kLabelSession, LabelValue(job.session_id)}};
  return {{"apiVersion", "v1"},
          {"kind", "Service"},
          {"metadata", md},
          {"spec",
           {{"clusterIP", "None"},
            {"selector", selector},
            {"publishNotReadyAddresses", true},
            {"ports", json::array({{{"name", "rendezvous"}, {"port", kRendezvousPort}, {"protocol", "TCP"}}})}}}};
}

json PodSpec(const K8sOptions& opts, const std::string& service, json container) {
  json spec = {{"restartPolicy", "Never"}, {"enableServiceLinks", false}};
  if (!service.empty()) spec["subdomain"] = service;
  if (!opts.service_account_name.empty()) spec["serviceAccountName"] = opts.service_account_name;
  if (!opts.priority_class_name.empty()) spec["priorityClassName"] = opts.priority_class_name;
  if (!opts.node_selector.empty()) spec["nodeSelector"] = opts.node_selector;
  if (!opts.tolerations.empty()) spec["tolerations"] = opts.tolerations;
  if (!opts.affinity.empty()) spec["affinity"] = opts.affinity;
  if (!opts.image_pull_secrets.empty()) {
    json secrets = json::array();
    for (const auto& s : opts.image_pull_secrets) secrets.push_back({{"name", s}});
    spec["imagePullSecrets"] = secrets;
  }
  if (!opts.pod_security_context.empty()) spec["securityContext"] = opts.pod_security_context;
  AddVolumes(opts, &spec, &container);
  if (!opts.security_context.empty()) container["securityContext"] = opts.security_context;
  spec["containers"] = json::array({container});
  return spec;
}

Result<ManifestSet> GeneratedJob(const Job& job, const K8sOptions& opts) {
  std::string image = !job.image.empty() ? job.image : opts.image;
  if (image.empty())
    return Status::Error(
        "no container image: set `image` in the test or in its environment, or `image` in the "
        "partition's sched_options");
  Shape sh = ShapeOf(job);
  auto resources = Resources(job, opts, sh);
  if (!resources.ok()) return resources.status();
  auto payload = MakePayload(job, opts);
  if (!payload.ok()) return payload.status();

  ManifestSet set;
  set.nonce = payload->nonce;
  std::string service = sh.pods > 1 ? ServiceName(job, payload->nonce) : "";
  if (sh.pods > 1) {
    set.objects.push_back(MakeService(job, opts, service));
    set.api_prefixes.push_back("/api/v1");
    set.plurals.push_back("services");
  }
  json env = PayloadEnv(job, *payload);
  AddRankEnv(sh, service, &env);
  json container = {{"name", "hetbench"},
                    {"image", image},
                    {"command", EscapedCommand(*payload)},
                    {"env", env},
                    {"resources", *resources}};
  json labels = CommonLabels(job, opts), annotations = CommonAnnotations(job, opts);
  json spec = {{"backoffLimit", 0},
               {"completions", sh.pods},
               {"parallelism", sh.pods},
               {"template",
                {{"metadata", {{"labels", labels}, {"annotations", annotations}}},
                 {"spec", PodSpec(opts, service, container)}}}};
  if (sh.pods > 1) spec["completionMode"] = "Indexed";
  if (job.time_limit_s > 0) spec["activeDeadlineSeconds"] = static_cast<long long>(std::ceil(job.time_limit_s));
  if (opts.ttl_seconds_after_finished >= 0 && !opts.keep_failed_jobs)
    spec["ttlSecondsAfterFinished"] = opts.ttl_seconds_after_finished;
  json job_labels = labels;
  if (!opts.queue_name.empty()) {
    job_labels[kLabelQueue] = opts.queue_name;
    spec["suspend"] = true;  // Kueue admits it
  }
  spec.merge_patch(opts.job_spec_extra);
  json md = Metadata(opts, job_labels, annotations);
  md["generateName"] = GenerateName(job.name, sh.pods);
  set.main = set.objects.size();
  set.objects.push_back({{"apiVersion", "batch/v1"}, {"kind", "Job"}, {"metadata", md}, {"spec", spec}});
  set.api_prefixes.push_back("/apis/batch/v1");
  set.plurals.push_back("jobs");
  set.main_kind = "jobs";
  set.pods_expected = sh.pods;
  return set;
}

// ----------------------------------------------------------- user manifests

bool IsPodSpec(const json& j) {
  return j.is_object() && j.contains("containers") && j["containers"].is_array() && !j["containers"].empty() &&
         j["containers"][0].is_object();
}

// A container that runs the image's own entrypoint gets the payload.
bool WantsPayload(const json& c) { return !c.contains("command") && !c.contains("args"); }

bool AnyWantsPayload(const json& j) {
  if (IsPodSpec(j) && WantsPayload(j["containers"][0])) return true;
  if (j.is_structured())
    for (const auto& x : j)
      if (AnyWantsPayload(x)) return true;
  return false;
}

struct Injection {
  const Job* job;
  const K8sOptions* opts;
  const json* labels;
  const Payload* payload;  // null when no pod needs it
  std::string image;
};

Status InjectPodSpec(json* spec, const Injection& in) {
  json& c = (*spec)["containers"][0];
  if (!in.payload || !WantsPayload(c)) return Status::OK();
  c["command"] = EscapedCommand(*in.payload);
  if (!c.contains("env") || !c["env"].is_array()) c["env"] = json::array();
  for (const auto& e : PayloadEnv(*in.job, *in.payload)) c["env"].push_back(e);
  if (!c.contains("image")) {
    if (in.image.empty())
      return Status::Error(
          "manifest: the first container has no image: set `image` in the test or in its "
          "environment, or `image` in the partition's sched_options");
    c["image"] = in.image;
  }
  json volumes = json::array(), mounts = json::array();
  AddStagingVolume(*in.opts, &volumes, &mounts);
  for (const auto& v : volumes) (*spec)["volumes"].push_back(v);
  for (const auto& m : mounts) c["volumeMounts"].push_back(m);
  return Status::OK();
}

// Gives every pod template hetbench's labels and every pod spec the payload.
Status Inject(json* j, const Injection& in) {
  if (!j->is_structured()) return Status::OK();
  if (j->is_object() && j->contains("spec") && IsPodSpec((*j)["spec"])) {
    json& md = (*j)["metadata"];
    if (!md.is_object()) md = json::object();
    for (auto it = in.labels->begin(); it != in.labels->end(); ++it) md["labels"][it.key()] = it.value();
  }
  if (IsPodSpec(*j)) {
    Status st = InjectPodSpec(j, in);
    if (!st.ok()) return st;
  }
  for (auto& x : *j) {
    Status st = Inject(&x, in);
    if (!st.ok()) return st;
  }
  return Status::OK();
}

// Where the object lives in the API and what to follow.
Status Classify(const json& obj, const K8sOptions& opts, ManifestSet* set) {
  const JsonField manifest(obj, "manifest");
  Result<std::string> api_field = manifest["apiVersion"].String(), kind_field = manifest["kind"].String();
  if (!api_field.ok()) return api_field.status();
  if (!kind_field.ok()) return kind_field.status();
  const std::string api = *api_field, kind = *kind_field;
  std::string what = "manifest of kind " + kind + " (apiVersion " + api + ")";
  if (api == "v1" && kind == "Pod") {
    set->main_kind = "pods";
    set->api_prefixes = {"/api/v1"};
  } else if (api == "batch/v1" && kind == "Job") {
    set->main_kind = "jobs";
    set->api_prefixes = {"/apis/batch/v1"};
    const json& spec = obj.contains("spec") ? obj["spec"] : json::object();
    for (const char* k : {"completions", "parallelism"}) {
      if (auto n = spec.contains(k) ? JsonInt(spec[k]) : std::nullopt) {
        set->pods_expected = static_cast<int>(std::clamp<long long>(*n, 1, 1000000));
        break;
      }
    }
  } else if (api.find('/') == std::string::npos || api == "batch/v1") {
    return Status::Error(what + ": hetbench runs a Pod, a batch/v1 Job or a custom resource");
  } else {
    CustomResourceSpec cr = CustomResourceDefaults(opts.custom_resource, api, kind);
    if (cr.plural.empty())
      return Status::Error(what + " is a custom resource: set custom_resource.plural (e.g. " + DnsLabel(kind, 60) +
                           "s) in the partition's sched_options or the test's k8s block");
    if (!cr.api_version.empty() && cr.api_version != api)
      return Status::Error(what + ": custom_resource.api_version says " + cr.api_version);
    set->main_kind = cr.plural;
    set->api_prefixes = {"/apis/" + api};
  }
  set->plurals = {set->main_kind};
  return Status::OK();
}

Result<ManifestSet> UserManifest(const Job& job, const K8sOptions& opts) {
  json obj = opts.manifest;
  ManifestSet set;
  Status st = Classify(obj, opts, &set);
  if (!st.ok()) return st;
  json labels = CommonLabels(job, opts);
  json& md = obj["metadata"];
  if (!md.is_object()) md = json::object();
  for (auto it = labels.begin(); it != labels.end(); ++it) md["labels"][it.key()] = it.value();
  if (!opts.queue_name.empty()) {
    md["labels"][kLabelQueue] = opts.queue_name;
    if (set.main_kind == "jobs") obj["spec"]["suspend"] = true;
  }
  json annotations = CommonAnnotations(job, opts);
  for (auto it = annotations.begin(); it != annotations.end(); ++it) md["annotations"][it.key()] = it.value();
  if (!(opts.keep_name && md.contains("name"))) {
    md.erase("name");
    if (!md.contains("generateName")) md["generateName"] = GenerateName(job.name, set.pods_expected);
  }
  if (opts.ns.empty())
    md.erase("namespace");
  else
    md["namespace"] = opts.ns;
  if (set.main_kind == "pods" && obj.contains("spec") && !obj["spec"].contains("restartPolicy"))
    obj["spec"]["restartPolicy"] = "Never";
  // A user's Pod or Job runs under the test's time limit, as hetbench's own
  // Jobs do, and a Job is not retried by Kubernetes (its default
  // backoffLimit, 6, would run 7 pods for one failing case), unless the
  // manifest says otherwise.
  if ((set.main_kind == "pods" || set.main_kind == "jobs") && obj.contains("spec") && obj["spec"].is_object()) {
    json& spec = obj["spec"];
    if (job.time_limit_s > 0 && !spec.contains("activeDeadlineSeconds"))
      spec["activeDeadlineSeconds"] = static_cast<long long>(std::ceil(job.time_limit_s));
    if (set.main_kind == "jobs" && !spec.contains("backoffLimit")) spec["backoffLimit"] = 0;
    // The partition's TTL, as on hetbench's own Jobs: a Job hetbench could
    // not delete (it was killed) goes away by itself; none with
    // --keep-failed-jobs, which keeps failed ones for inspection.
    if (set.main_kind == "jobs" && !spec.contains("ttlSecondsAfterFinished") && opts.ttl_seconds_after_finished >= 0 &&
        !opts.keep_failed_jobs)
      spec["ttlSecondsAfterFinished"] = opts.ttl_seconds_after_finished;
  }

  std::optional<Payload> payload;
  if (AnyWantsPayload(obj)) {
    auto p = MakePayload(job, opts);
    if (!p.ok()) return p.status();
    payload = *p;
    set.nonce = p->nonce;
  }
  Injection in{&job, &opts, &labels, payload ? &*payload : nullptr, !job.image.empty() ? job.image : opts.image};
  st = Inject(&obj, in);
  if (!st.ok()) return st;
  set.objects.push_back(obj);
  set.main = 0;
  return set;
}

}  // namespace

std::string EscapeKubeExpansion(const std::string& s) { return ReplaceAll(s, "$", "$$"); }

std::string CollectionPath(const ManifestSet& set, size_t i, const std::string& ns) {
  return set.api_prefixes.at(i) + "/namespaces/" + ns + "/" + set.plurals.at(i);
}

Result<Payload> MakePayload(const Job& job, const K8sOptions& opts) {
  auto layout = Layout(job, opts);
  if (!layout.ok()) return layout.status();
  StageLayout& s = *layout;
  Payload p;
  p.nonce = RandomHex(16);
  if (!s.on_volume) {
    auto packed = PackDirectoryTarGz(s.host_dir);
    if (!packed.ok()) return packed.status().Prefixed("cannot pack the stage directory " + s.host_dir);
    if (packed->size() > kMaxPackedStage)
      return Status::Error("the stage directory " + s.host_dir + " packs to " +
                           FormatNumber(packed->size() / 1024.0, 4) +
                           " KiB, more than the 512 KiB that can travel in a Job manifest: set `staging_volume` "
                           "in the partition's sched_options (a volume this host and the pods both mount), or "
                           "keep fewer files in the stage directory");
    std::string b64 = Base64Encode(*packed);
    for (size_t off = 0; off < b64.size() || off == 0; off += kEnvChunk) {
      std::string name = std::string(kStageEnv) + (s.chunks ? "_" + std::to_string(s.chunks) : "");
      p.env.emplace_back(name, b64.substr(off, kEnvChunk));
      ++s.chunks;
    }
  }
  std::string script = BootstrapFunctions(s, p.nonce) + BootstrapStage(s) + BootstrapRun(s);
  p.command = {"/bin/sh", "-c", script};
  return p;
}

Result<ManifestSet> MakeManifests(const Job& job, const K8sOptions& opts) {
  if (!opts.manifest.is_null()) return UserManifest(job, opts);
  return GeneratedJob(job, opts);
}

Result<PodOutput> ParsePodLog(const std::string& log, const std::string& nonce, const std::string& pod_name) {
  PodOutput out;
  const std::string begin = "@@hetbench-files " + nonce + " begin@@";
  const std::string end = "@@hetbench-files " + nonce + " end ";
  size_t b = nonce.empty() ? std::string::npos : log.find(begin);
  if (b == std::string::npos) {
    out.stdout_text = log;
    return out;
  }
  out.stdout_text = log.substr(0, b);
  size_t data = b + begin.size();
  size_t e = log.find(end, data);
  if (e == std::string::npos) return out;  // killed while writing the files
  size_t num = e + end.size();
  size_t close = log.find("@@", num);
  if (close == std::string::npos) return out;
  try {
    out.exit_status = std::stoi(log.substr(num, close - num));
  } catch (const std::exception&) {
    return Status::Error("pod " + pod_name + ": bad exit status in the end marker: '" + log.substr(num, close - num) +
                         "'");
  }
  auto archive = Base64Decode(std::string_view(log).substr(data, e - data));
  if (!archive) return Status::Error("pod " + pod_name + ": the result files in the log are not valid base64");
  out.archive = std::move(*archive);
  return out;
}

Status ExtractArchive(const std::string& archive, const std::string& dir) {
  if (archive.empty()) return Status::OK();
  Status st = ExtractTarGz(archive, dir);
  return st.ok() ? st : st.Prefixed("the result files");
}

}  // namespace hb
