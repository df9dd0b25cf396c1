// End to end, for real: examples/site-hetero/site.yaml (Slurm GPU, Slurm
// CPU, CS-2 behind Slurm, a Kubernetes GPU service and a Graphcore IPU pod
// in another context) in ONE `hetbench run`, on the real Slurm cluster of
// scripts/slurm-up (its slurm.conf declares GresTypes=gpu,cs and
// Gres=gpu:4,cs:1, so the GPU and CS-2 jobs are accepted) and two fake
// Kubernetes API servers over real HTTPS, one per context of one
// kubeconfig (tests/k8s/fake_apiserver.py; the graphcore one runs its
// IPUJob operator mode).
//
// The site file is the example's, with what only a real EPCC machine has
// taken out (hostnames, modules, the Cerebras venv) and the kubeconfig
// pointed at the two servers. The tests are small programs that run here,
// one per partition, plus a Pod that outlives its 5 s time limit.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "../e2e/e2e_util.h"
#include "../k8s/fake_apiserver_process.h"

using e2e::Shell;
using k8s_e2e::FakeApiServer;

namespace {

const std::string kSource = HB_SOURCE_DIR;
const std::string kPython = "/usr/bin/python3";

void EnsureSlurm() {
  int rc = std::system((kSource + "/scripts/slurm-up >/tmp/hb_slurm_up.log 2>&1").c_str());
  ASSERT_EQ(rc, 0) << "scripts/slurm-up failed:\n" << Read("/tmp/hb_slurm_up.log");
}

// The example's site.yaml, made runnable here: any hostname, no modules
// system or modules, no Cerebras venv, the combined kubeconfig, and quick
// polling.
const char* kAdapt = R"(
import json, sys, yaml
site = yaml.safe_load(open(sys.argv[1]))
sysm = site["systems"][0]
sysm["hostnames"] = [".*"]
sysm.pop("modules_system", None)
for p in sysm["partitions"]:
    so = p.setdefault("sched_options", {})
    so.update({"min_poll_interval": 0.1, "max_poll_interval": 0.5})
    if p["scheduler"] == "k8s":
        so["kubeconfig"] = sys.argv[2]
        so["waiting_grace_s"] = 5
for e in site["environments"]:
    e.pop("modules", None)
    e.pop("prepare_cmds", None)
print(json.dumps(site, indent=1))
)";

const char* kTests = R"(
name: gemm
descr: GPUs on the Slurm GPU partition (--gres=gpu:2)
valid_systems: ['epcc:cirrus-gpu']
valid_prog_environs: [gnu]
num_gpus_per_node: 2
time_limit: 2m
executable: sh
executable_opts: ['-c', "'echo gpus=$SLURM_JOB_GPUS; echo TFLOPS: 12.5'"]
sanity: [{pattern: 'gpus=0,1'}]
performance: {tflops: {pattern: 'TFLOPS: (\S+)', unit: TFLOP/s}}
---
name: triad
descr: CPU nodes
valid_systems: ['epcc:archer2']
valid_prog_environs: [gnu]
time_limit: 2m
executable: echo
executable_opts: ['"Triad: 100.5 MB/s"']
sanity: [{pattern: 'Triad'}]
performance: {triad: {pattern: 'Triad: (\S+)', unit: MB/s}}
---
name: csx
descr: The CS-2, asked for with --gres=cs:1 from extra_resources
valid_systems: ['epcc:cs2']
valid_prog_environs: [cerebras]
extra_resources: {cs: {num_csx: 1}}
time_limit: 2m
executable: sh
executable_opts: ['-c', "'scontrol show job $SLURM_JOB_ID | tr \" \" \"\\n\" | grep -i gres; echo samples/s: 80'"]
sanity: [{pattern: 'cs:1'}]
performance: {rate: {pattern: 'samples/s: (\S+)', unit: samples/s}}
---
name: gpu_service
descr: A generated Job on the Kubernetes GPU service (Kueue queue, PVC)
valid_systems: ['epcc:eidf-gpu']
valid_prog_environs: [pytorch]
time_limit: 2m
executable: echo
executable_opts: ['"bandwidth: 42 GB/s"']
sanity: [{pattern: 'bandwidth'}]
performance: {bw: {pattern: 'bandwidth: (\S+)', unit: GB/s}}
---
name: forever_pod
descr: A Pod of the user's own that outlives its time limit
valid_systems: ['epcc:eidf-gpu']
valid_prog_environs: [pytorch]
time_limit: 5s
k8s:
  manifest:
    apiVersion: v1
    kind: Pod
    spec:
      containers:
        - {name: sleeper, image: busybox, command: [sleep, '40']}
sanity: [{exit_code: 0}]
---
name: bert_ipu
descr: An IPUJob on the Graphcore partition; its worker runs its own command
valid_systems: ['epcc:graphcore']
valid_prog_environs: [poplar]
time_limit: 2m
k8s:
  manifest:
    apiVersion: graphcore.ai/v1alpha1
    kind: IPUJob
    spec:
      jobInstances: 1
      ipusPerJobInstance: '4'
      workers:
        template:
          spec:
            containers:
              - name: bert
                image: graphcore/pytorch:3.3.0
                command: [sh, -c, 'sleep 1; echo Training Finished; echo "throughput: 250.5 samples/sec"']
sanity: [{pattern: 'Training Finished'}]
performance: {throughput: {pattern: 'throughput: (\S+) samples/sec', unit: samples/s}}
)";

// Every request a fake server received: "METHOD path".
std::vector<std::string> Requests(const FakeApiServer& api) {
  std::vector<std::string> out;
  std::istringstream in(Read(api.dir() + "/requests.log"));
  for (std::string line; std::getline(in, line);) {
    auto r = nlohmann::json::parse(line, nullptr, false);
    if (r.is_object()) out.push_back(r.value("method", "") + " " + r.value("path", ""));
  }
  return out;
}

TEST(HeteroSite, SlurmAndTwoKubernetesContextsInOneRun) {
  EnsureSlurm();
  std::string dir = e2e::TempDir();
  std::filesystem::create_directories(dir + "/eidf");
  std::filesystem::create_directories(dir + "/graphcore");
  FakeApiServer eidf(dir + "/eidf"), graphcore(dir + "/graphcore");
  eidf.Start();
  graphcore.Start({"--ipujob-queue-delay", "1"});
  auto port = [](const FakeApiServer& a) {
    std::string p = Read(a.dir() + "/port");
    while (!p.empty() && (p.back() == '\n' || p.back() == ' ')) p.pop_back();
    return p;
  };
  // One kubeconfig, two contexts, as examples/site-hetero/kubeconfig.yaml
  // has them, each on its own server.
  Write(dir + "/kubeconfig",
        "apiVersion: v1\nkind: Config\ncurrent-context: eidf-gpu\nclusters:\n"
        "  - name: eidf\n    cluster: {server: 'https://127.0.0.1:" +
            port(eidf) + "', certificate-authority: '" + eidf.dir() +
            "/pki/ca.crt'}\n"
            "  - name: graphcore\n    cluster: {server: 'https://127.0.0.1:" +
            port(graphcore) + "', certificate-authority: '" + graphcore.dir() +
            "/pki/ca.crt'}\n"
            "users:\n  - name: u\n    user: {token: hb-test-token}\n"
            "contexts:\n  - name: eidf-gpu\n    context: {cluster: eidf, user: u, namespace: eidf095ns}\n"
            "  - name: graphcore\n    context: {cluster: graphcore, user: u, namespace: graphcore-users}\n");
  Write(dir + "/adapt.py", kAdapt);
  std::string site = Shell(kPython + " " + dir + "/adapt.py " + kSource + "/examples/site-hetero/site.yaml " + dir +
                           "/kubeconfig 2>&1");
  ASSERT_EQ(site.rfind("{", 0), 0u) << site;
  Write(dir + "/site.json", site);
  Write(dir + "/tests.yaml", kTests);

  auto t0 = std::chrono::steady_clock::now();
  Output o = Hetbench({"run", "-C", "site.json", "--system", "epcc", "-c", "tests.yaml", "--prefix", "out"}, dir, 400);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::string all = o.out + o.err;
  EXPECT_EQ(o.exit_code, 1) << all;  // the Pod past its time limit fails, the rest pass
  EXPECT_LT(took, 300) << all;

  nlohmann::json report = e2e::LatestReport(dir + "/out");
  std::map<std::string, nlohmann::json> by_name;
  for (const auto& c : report.at("cases")) by_name[c.at("name").get<std::string>()] = c;
  ASSERT_EQ(by_name.size(), 6u) << report.dump(1);
  const std::map<std::string, std::string> where = {
      {"gemm", "cirrus-gpu"},      {"triad", "archer2"},        {"csx", "cs2"},
      {"gpu_service", "eidf-gpu"}, {"forever_pod", "eidf-gpu"}, {"bert_ipu", "graphcore"}};
  for (const auto& [name, part] : where) {
    const nlohmann::json& c = by_name[name];
    EXPECT_EQ(c.value("partition", ""), part) << name;
    if (name == "forever_pod") continue;
    EXPECT_EQ(c.value("result", ""), "pass") << name << ": " << c.dump(1) << "\n" << all;
  }
  // The IPUJob's worker log came back for sanity and performance.
  EXPECT_NE(by_name["bert_ipu"].dump().find("250.5"), std::string::npos) << by_name["bert_ipu"].dump(1);
  EXPECT_NE(by_name["gemm"].dump().find("12.5"), std::string::npos);

  // The Pod was stopped at its 5 s limit, in the run stage, as a timeout.
  const nlohmann::json& pod = by_name["forever_pod"];
  EXPECT_EQ(pod.value("result", ""), "fail");
  EXPECT_EQ(pod.value("fail_stage", ""), "run") << pod.dump(1);
  EXPECT_EQ(pod.at("job").value("state", "").rfind("timeout", 0), 0u) << pod.dump(1);
  std::string reason = pod.value("fail_reason", "");
  EXPECT_TRUE(reason.find("time limit of 5s exceeded") != std::string::npos ||
              reason.find("DeadlineExceeded") != std::string::npos)
      << pod.dump(1);
  double run_s = -1;
  for (const auto& t : pod.value("timings", nlohmann::json::array()))
    if (t.value("stage", "") == "run") run_s = t.value("seconds", -1.0);
  EXPECT_GT(run_s, 4) << pod.dump(1);
  EXPECT_LT(run_s, 15) << pod.dump(1);  // not the 40 s it would sleep

  // Each object in its own partition's context (server) and namespace.
  std::vector<std::string> e = Requests(eidf), g = Requests(graphcore);
  auto any = [](const std::vector<std::string>& rs, const std::string& what) {
    return std::any_of(rs.begin(), rs.end(), [&](const std::string& r) { return r.find(what) != std::string::npos; });
  };
  for (const auto& r : e) {
    if (r.find("/namespaces/") != std::string::npos) {
      EXPECT_NE(r.find("/namespaces/eidf095ns/"), std::string::npos) << r;
    }
  }
  for (const auto& r : g) {
    if (r.find("/namespaces/") != std::string::npos) {
      EXPECT_NE(r.find("/namespaces/graphcore-users/"), std::string::npos) << r;
    }
  }
  EXPECT_TRUE(any(e, "POST /apis/batch/v1/namespaces/eidf095ns/jobs"));
  EXPECT_TRUE(any(e, "POST /api/v1/namespaces/eidf095ns/pods"));
  EXPECT_TRUE(any(g, "POST /apis/graphcore.ai/v1alpha1/namespaces/graphcore-users/ipujobs"));
  EXPECT_TRUE(any(g, "DELETE /apis/graphcore.ai/v1alpha1/namespaces/graphcore-users/ipujobs/"));
  EXPECT_FALSE(any(e, "ipujobs"));
  EXPECT_FALSE(any(g, "POST /apis/batch/v1"));
  EXPECT_TRUE(any(e, "DELETE /api/v1/namespaces/eidf095ns/pods/"));  // the Pod deleted at its limit

  // The IPUJob went through the operator's states, as the main log records.
  std::string log = Read(dir + "/out/hetbench.log");
  std::regex queued("bert_ipu on epcc:graphcore\\): [a-z()]+ -> queued\\(status\\.launcherStatus: Pending\\)");
  EXPECT_TRUE(std::regex_search(log, queued)) << log;
  EXPECT_TRUE(std::regex_search(log, std::regex("bert_ipu on epcc:graphcore\\): .* -> running")));
  EXPECT_TRUE(std::regex_search(log, std::regex("bert_ipu on epcc:graphcore\\): .* -> completed")));
  // Nothing is left on either server.
  EXPECT_TRUE(eidf.Objects("Pod").empty());
  EXPECT_TRUE(graphcore.Objects("IPUJob").empty());
}

}  // namespace
