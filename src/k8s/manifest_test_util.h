// For the manifest unit tests (manifest_test.cc, manifest_payload_test.cc):
// a stage folder with a job, the options and manifests made from it, and
// the offline validation of objects with the Kubernetes client's own
// models. A header for tests only.
#pragma once

#include "k8s/manifest.h"

#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/wait.h>

#include <cstdio>
#include <regex>

#include "sched/process.h"
#include "util/fs.h"
#include "util/strings.h"
#include "util/test_temp_dir.h"

namespace hb {

using json = nlohmann::json;

inline constexpr char kScript[] = "#!/bin/bash\necho hello\n";

// A stage directory with a job script, and a job that runs it.
struct Stage {
  TempDir tmp;
  std::string dir;
  Job job;

  explicit Stage(const std::string& sub = "stage") {
    dir = tmp / sub;
    job.name = "hb_stream";
    job.workdir = dir;
    job.script_path = tmp.Write(sub + "/hb_job.sh", kScript);
    job.stdout_path = JoinPath(dir, "hb_job.out");
    job.stderr_path = JoinPath(dir, "hb_job.err");
    job.session_id = "s1";
    job.case_id = "stream %gpu @eidf:gpu+cuda";
    job.num_cpus_per_task = 4;
    job.time_limit_s = 90.5;
  }
};

inline K8sOptions Options(const std::string& extra = "{}") {
  json so = json::parse(R"({"namespace": "eidf095ns", "image": "busybox:1.36"})");
  so.merge_patch(json::parse(extra));
  auto o = ParseK8sOptions(so);
  EXPECT_TRUE(o.ok()) << o.status().str();
  return o.ok() ? *o : K8sOptions();
}

inline ManifestSet Make(const Job& job, const K8sOptions& opts) {
  auto m = MakeManifests(job, opts);
  EXPECT_TRUE(m.ok()) << m.status().str();
  return m.ok() ? *m : ManifestSet();
}

inline const json& MainJob(const ManifestSet& m) { return m.objects.at(m.main); }
inline const json& Container(const json& job) { return job["spec"]["template"]["spec"]["containers"][0]; }

// The container's env as name -> entry.
inline std::map<std::string, json> EnvOf(const json& container) {
  std::map<std::string, json> out;
  for (const auto& e : container["env"]) out[e["name"].get<std::string>()] = e;
  return out;
}

// Replaces what changes from run to run (the packed stage, the bootstrap
// with its nonce, the Service name) for golden comparisons.
inline json Masked(json obj, const std::string& service = "") {
  std::string text = obj.dump();
  if (!service.empty()) text = ReplaceAll(text, service, "<service>");
  obj = json::parse(text);
  auto mask_pod = [](json& spec) {
    for (auto& c : spec["containers"]) {
      c["command"][2] = "<bootstrap>";
      for (auto& e : c["env"])
        if (StartsWith(e["name"].get<std::string>(), "HETBENCH_STAGE_TGZ")) e["value"] = "<tgz>";
    }
  };
  if (obj["kind"] == "Job") mask_pod(obj["spec"]["template"]["spec"]);
  return obj;
}

// ------------------------------------------------ offline validation helper

inline bool HaveKubernetesClient() {
  static const bool have = std::system("/usr/bin/python3 -c 'import kubernetes.client' >/dev/null 2>&1") == 0;
  return have;
}

struct Validation {
  int rc = -1;
  std::string out;
};

// Runs tests/k8s/validate_manifest.py on the objects.
inline Validation Validate(const std::vector<json>& objects, const std::vector<std::string>& allow = {}) {
  TempDir t;
  std::string text;
  for (const auto& o : objects) text += o.dump(2) + "\n";
  std::string file = t.Write("manifests.json", text);
  std::string cmd = "/usr/bin/python3 " + ShellQuote(std::string(HB_SOURCE_DIR) + "/tests/k8s/validate_manifest.py");
  for (const auto& a : allow) cmd += " --allow " + ShellQuote(a);
  cmd += " " + ShellQuote(file) + " 2>&1";
  Validation v;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return v;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) v.out.append(buf, n);
  int status = pclose(p);
  v.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return v;
}

// Every manifest the tests make goes through the Python client.
inline void ExpectValid(const ManifestSet& m, const std::vector<std::string>& allow = {}) {
  if (!HaveKubernetesClient()) return;  // ManifestValidate tests report the skip
  Validation v = Validate(m.objects, allow);
  EXPECT_EQ(v.rc, 0) << v.out;
}

// Kubernetes' $(VAR) expansion of command, args and env values, as in
// kubernetes/third_party/forked/golang/expansion/expand.go.
inline std::string KubeExpand(const std::string& in, const std::map<std::string, std::string>& env) {
  std::string buf;
  size_t checkpoint = 0;
  for (size_t cursor = 0; cursor < in.size(); ++cursor) {
    if (in[cursor] != '$' || cursor + 1 >= in.size()) continue;
    buf += in.substr(checkpoint, cursor - checkpoint);
    std::string rest = in.substr(cursor + 1);
    size_t advance = 1;
    if (rest[0] == '$') {
      buf += "$";
    } else if (rest[0] == '(' && rest.find(')') != std::string::npos) {
      size_t close = rest.find(')');
      std::string name = rest.substr(1, close - 1);
      auto it = env.find(name);
      buf += it != env.end() ? it->second : "$(" + name + ")";
      advance = close + 1;
    } else {
      buf += rest[0] == '(' ? std::string("$(") : std::string("$") + rest[0];
    }
    cursor += advance;
    checkpoint = cursor + 1;
  }
  return buf + in.substr(std::min(checkpoint, in.size()));
}

}  // namespace hb
