// The Kubernetes backend as the scheduler registry sees it: its names, its
// traits, which jobs share an instance, and a test's own context.
#include <gtest/gtest.h>

#include "k8s/k8s_scheduler.h"
#include "sched/scheduler_factory.h"
#include "util/fs.h"
#include "util/test_temp_dir.h"

namespace hb {
namespace {

using json = nlohmann::json;

class K8sBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    kubeconfig_ = tmp_ / "kubeconfig";
    ASSERT_TRUE(WriteFile(kubeconfig_, R"(apiVersion: v1
kind: Config
current-context: gpu
clusters:
  - {name: gpu, cluster: {server: 'https://gpu.example.invalid'}}
  - {name: ipu, cluster: {server: 'https://ipu.example.invalid:6443'}}
users:
  - {name: u, user: {token: t}}
contexts:
  - {name: gpu, context: {cluster: gpu, user: u, namespace: gpu-ns}}
  - {name: ipu, context: {cluster: ipu, user: u, namespace: ipu-ns}}
)")
                    .ok());
  }
  json Partition(const std::string& context, const std::string& ns = "") {
    json so = {{"kubeconfig", kubeconfig_}, {"context", context}};
    if (!ns.empty()) so["namespace"] = ns;
    return so;
  }
  Result<std::string> Key(const json& so, const json& spec = json::object(), bool dry = false) {
    SchedulerFlags f;
    f.dry_run = dry;
    return SchedulerInstanceKey("k8s", so, spec, f);
  }
  TempDir tmp_;
  std::string kubeconfig_;
};

TEST_F(K8sBackendTest, RegisteredWithItsAliasAndTraits) {
  auto b = FindSchedulerBackend("kubernetes");
  ASSERT_TRUE(b.ok()) << b.status().str();
  EXPECT_EQ((*b)->name, "k8s");
  EXPECT_EQ(CanonicalSchedulerName("kubernetes"), "k8s");
  EXPECT_TRUE((*b)->traits.remote_files);
  EXPECT_TRUE((*b)->traits.runs_in_container);
  EXPECT_FALSE((*b)->traits.on_this_host);
  NodeSpawn s = (*b)->traits.node_spawn(Job{}, 2, 8);
  EXPECT_TRUE(s.spawner.empty());  // every pod runs the script
  EXPECT_EQ(s.node_rank, "\"$HETBENCH_RANK\"");
  EXPECT_EQ(s.head, "\"$HETBENCH_MASTER_ADDR\"");
}

TEST_F(K8sBackendTest, PartitionsOnOneContextShareOneInstance) {
  auto a = Key(Partition("gpu", "team-a")), b = Key(Partition("gpu", "team-b")), ipu = Key(Partition("ipu"));
  ASSERT_TRUE(a.ok() && b.ok() && ipu.ok()) << a.status().str() << b.status().str() << ipu.status().str();
  EXPECT_EQ(*a, *b);  // namespaces are batched within one instance
  EXPECT_NE(*a, *ipu);
  // A test's own context is another instance; its namespace is not.
  EXPECT_EQ(*Key(Partition("gpu"), {{"context", "ipu"}}), *ipu);
  EXPECT_EQ(*Key(Partition("gpu"), {{"namespace", "other"}}), *a);
}

TEST_F(K8sBackendTest, AContextTheKubeconfigLacksIsRefusedBeforeAnythingRuns) {
  auto bad = Key(Partition("gpu"), {{"context", "ipuu"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("ipuu"), std::string::npos) << bad.status().str();
  EXPECT_NE(bad.status().str().find(kubeconfig_ + ":"), std::string::npos) << bad.status().str();  // file:line:col
  // Also offline: --dry-run checks a named context against the file.
  EXPECT_FALSE(Key(Partition("gpu"), {{"context", "ipuu"}}, true).ok());
  // A bad test block is refused too.
  auto typo = Key(Partition("gpu"), {{"namespce", "x"}});
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.status().message().find("did you mean 'namespace'"), std::string::npos) << typo.status().str();
}

// At load (list and run): a test's context must be in the kubeconfig when
// there is one; without any kubeconfig nothing can be checked, and that is
// fine offline.
TEST_F(K8sBackendTest, TheLoadTimeCheckNeedsAKubeconfigOnlyWhenThereIsOne) {
  const SchedulerBackend* b = *FindSchedulerBackend("k8s");
  ASSERT_TRUE(b->check_test_block);
  EXPECT_TRUE(b->check_test_block(Partition("gpu"), {{"context", "ipu"}}, {}).ok());
  Status bad = b->check_test_block(Partition("gpu"), {{"context", "ipuu"}}, {});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.str().find("context 'ipuu' not found"), std::string::npos) << bad.str();
  json absent = {{"kubeconfig", tmp_ / "nosuch"}, {"context", "gpu"}};
  EXPECT_TRUE(b->check_test_block(absent, {{"context", "ipuu"}}, {}).ok());
  EXPECT_FALSE(b->check_test_block(Partition("gpu"), {{"namespce", "x"}}, {}).ok());
  // The partition's own context is run's to check (with --kubeconfig).
  EXPECT_TRUE(b->check_test_block(Partition("nosuch"), {{"namespace", "x"}}, {}).ok());
  // --kubeconfig wins over the partition's file.
  SchedulerFlags flag;
  flag.kubeconfig = tmp_ / "nosuch";
  EXPECT_TRUE(b->check_test_block(Partition("gpu"), {{"context", "ipuu"}}, flag).ok());
}

TEST_F(K8sBackendTest, DryRunWritesTheTestContextsNamespace) {
  SchedulerFlags f;
  f.dry_run = true;
  json spec = {{"context", "ipu"}};
  auto s = MakeScheduler("k8s", Partition("gpu"), f, spec);
  ASSERT_TRUE(s.ok()) << s.status().str();
  Job job;
  job.name = "hb_bert";
  job.workdir = tmp_.path();
  job.script_path = tmp_ / "hb_job.sh";
  job.stdout_path = tmp_ / "hb_job.out";
  job.stderr_path = tmp_ / "hb_job.err";
  job.image = "busybox";
  job.backend_spec = spec;
  job.sched_options = Partition("gpu");
  ASSERT_TRUE(WriteFile(job.script_path, "echo hi\n").ok());
  ASSERT_TRUE((*s)->WriteDryRun(job, tmp_.path()).ok());
  std::string objects = ReadFile(tmp_ / "hb_k8s.yaml").value();
  EXPECT_NE(objects.find("/namespaces/ipu-ns/jobs"), std::string::npos) << objects;
}

}  // namespace
}  // namespace hb
