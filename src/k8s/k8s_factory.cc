// The Kubernetes backend's registration (scheduler_factory.h) and
// MakeK8sScheduler: options, kubeconfig and client for a Kubernetes
// partition. Kept apart from k8s_scheduler.cc so that the scheduler's unit
// tests link without the HTTP client.
#include <memory>
#include <string>
#include <vector>

#include "k8s/k8s_scheduler.h"
#include "k8s/kube_client.h"
#include "k8s/kubeconfig.h"
#include "sched/scheduler_factory.h"
#include "util/fs.h"
#include "util/json_field.h"
#include "util/strings.h"

namespace hb {

namespace {

// The API of a --dry-run: knows the namespace, sends nothing.
class OfflineKubeApi : public KubeApi {
 public:
  explicit OfflineKubeApi(std::string ns) : ns_(std::move(ns)) {}
  Result<KubeResponse> Send(const KubeRequest& req) override {
    return Status::Error("--dry-run sends no request (" + req.method + " " + req.path + ")");
  }
  std::string DefaultNamespace() const override { return ns_; }
  std::string Server() const override { return "(no server: --dry-run)"; }

 private:
  std::string ns_;
};

// The kubeconfig rules of one partition's options with a test's block
// (whose `context` wins).
KubeLoadOptions LoadOptionsFor(const K8sOptions& opts, const SchedulerFlags& flags) {
  KubeLoadOptions load = KubeLoadOptionsFromEnv();
  load.kubeconfig_flag = flags.kubeconfig.empty() ? opts.kubeconfig : flags.kubeconfig;
  load.context = opts.context;
  return load;
}

// The partition's options with the test's block applied (errors name the
// block: "k8s: ...").
Result<K8sOptions> OptionsFor(const nlohmann::json& sched_options, const nlohmann::json& backend_spec) {
  auto opts = ParseK8sOptions(sched_options);
  if (!opts.ok() || backend_spec.is_null() || (backend_spec.is_object() && backend_spec.empty())) return opts;
  return ApplyTestK8s(*opts, backend_spec, "");
}

// One instance per kubeconfig, context and API server: every partition and
// test on it shares its batched lists. A context named by the partition or
// the test must exist in the kubeconfig (checked before anything runs; in
// a --dry-run only when there is a kubeconfig to check against).
Result<std::string> K8sInstanceKey(const nlohmann::json& sched_options, const nlohmann::json& backend_spec,
                                   const SchedulerFlags& flags) {
  auto opts = OptionsFor(sched_options, backend_spec);
  if (!opts.ok()) return opts.status();
  KubeLoadOptions load = LoadOptionsFor(*opts, flags);
  auto target = LoadKubeTarget(load);
  bool named = !load.kubeconfig_flag.empty() || !load.context.empty();
  if (!target.ok() && (!flags.dry_run || named)) return target.status().Prefixed("Kubernetes");
  return load.kubeconfig_flag + "|" + load.context + "|" + (target.ok() ? target->server : "");
}

// At load: the test's block must apply, and a context it names must be in
// the kubeconfig when a kubeconfig is present (none at all is fine here:
// `list` and `--dry-run` work anywhere; `run` needs one, and checks the
// partition's own context before anything runs).
Status K8sCheckTestBlock(const nlohmann::json& sched_options, const nlohmann::json& backend_spec,
                         const SchedulerFlags& flags) {
  auto opts = OptionsFor(sched_options, backend_spec);
  if (!opts.ok()) return opts.status();
  if (!backend_spec.is_object() || !backend_spec.contains("context")) return Status::OK();
  KubeLoadOptions load = LoadOptionsFor(*opts, flags);
  bool present = false;
  if (!load.kubeconfig_flag.empty()) {
    present = PathExists(load.kubeconfig_flag);
  } else if (!load.kubeconfig_env.empty()) {
    for (const auto& f : Split(load.kubeconfig_env, ':')) present |= !f.empty() && PathExists(f);
  } else {
    present = !load.home.empty() && PathExists(load.home + "/.kube/config");
  }
  if (!present) return Status::OK();
  auto target = LoadKubeTarget(load);
  return target.ok() ? Status::OK() : target.status().Prefixed("Kubernetes");
}

SchedulerBackend K8sBackend() {
  SchedulerBackend b;
  b.name = "k8s";
  b.aliases = {"kubernetes"};
  b.traits.remote_files = true;
  b.traits.runs_in_container = true;
  // Each pod of the Indexed Job runs the script, knowing its rank (the
  // completion index) and rank 0's address: Kubeflow's PyTorchJob's static
  // rendezvous.
  b.traits.node_spawn = [](const Job&, int, int) {
    return NodeSpawn{{}, "\"$HETBENCH_MASTER_ADDR\"", "", "\"$HETBENCH_RANK\""};
  };
  b.instance_key = K8sInstanceKey;
  b.check_test_block = K8sCheckTestBlock;
  // At load: the partition's sched_options, the error at the key it names.
  b.check_options = [](const JsonField& so) {
    Status st = ParseK8sOptions(so.json()).status();
    if (st.ok()) return st;
    for (const auto& [key, field] : so.Items())
      if (st.message().find("'" + key + "'") != std::string::npos ||
          st.message().find(": " + key + ".") != std::string::npos ||
          st.message().find(": " + key + ":") != std::string::npos)
        return field.Placed(st.message());
    return st;
  };
  b.make = [](const nlohmann::json& so, const nlohmann::json& spec, const SchedulerFlags& flags) {
    return MakeK8sScheduler(so, spec, flags);
  };
  return b;
}

}  // namespace

Result<std::unique_ptr<Scheduler>> MakeK8sScheduler(const nlohmann::json& sched_options,
                                                    const nlohmann::json& backend_spec, const SchedulerFlags& flags) {
  auto opts = ParseK8sOptions(sched_options);
  if (!opts.ok()) return opts.status();
  if (flags.keep_failed_jobs) opts->keep_failed_jobs = true;
  // The test's context (if any) chooses the API server; the rest of its
  // block is applied per job, at Submit.
  auto with_test = OptionsFor(sched_options, backend_spec);
  if (!with_test.ok()) return with_test.status();
  KubeLoadOptions load = LoadOptionsFor(*with_test, flags);
  auto target = LoadKubeTarget(load);
  if (flags.dry_run) {
    // No kubeconfig at all is fine offline; one named (by --kubeconfig,
    // the partition's kubeconfig or context) must load.
    bool named = !load.kubeconfig_flag.empty() || !load.context.empty();
    if (!target.ok() && named) return target.status().Prefixed("Kubernetes");
    std::string ns = target.ok() && !target->ns.empty() ? target->ns : "default";
    auto sched = std::make_unique<K8sScheduler>("k8s", std::make_unique<OfflineKubeApi>(ns), std::move(opts.value()),
                                                flags.clock);
    sched->set_keep_failed_jobs(flags.keep_failed_jobs);
    return std::unique_ptr<Scheduler>(std::move(sched));
  }
  if (!target.ok()) return target.status().Prefixed("Kubernetes");

  // The client's warnings (e.g. TLS verification off) reach the user as
  // the scheduler's notices, once each.
  auto warnings = std::make_shared<std::vector<std::string>>();
  auto client = MakeKubeClient(*target, [warnings](const std::string& w) { warnings->push_back(w); });
  if (!client.ok()) return client.status().Prefixed("Kubernetes API " + target->server);

  auto sched = std::make_unique<K8sScheduler>("k8s", std::move(client.value()), std::move(opts.value()), flags.clock);
  sched->set_origin(target->source);
  sched->set_warning_source(warnings);
  sched->set_keep_failed_jobs(flags.keep_failed_jobs);
  return std::unique_ptr<Scheduler>(std::move(sched));
}

}  // namespace hb

// The backend registers itself (scheduler_factory.h). The executables link
// this object with -Wl,--undefined=hb_k8s_backend_registered (CMakeLists.txt),
// so that the static library's member is never dropped.
extern "C" {
extern const bool hb_k8s_backend_registered;
const bool hb_k8s_backend_registered = hb::RegisterSchedulerBackend(hb::K8sBackend());
}
