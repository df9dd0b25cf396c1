// MakeK8sScheduler: options, kubeconfig and client for a Kubernetes
// partition. Kept apart from k8s_scheduler.cc so that the scheduler's unit
// tests link without the HTTP client.
#include <memory>
#include <string>
#include <vector>

#include "k8s/k8s_scheduler.h"
#include "k8s/kube_client.h"
#include "k8s/kubeconfig.h"

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

}  // namespace

Result<std::unique_ptr<Scheduler>> MakeK8sScheduler(const std::string& name, const nlohmann::json& sched_options,
                                                    const K8sRunFlags& flags) {
  auto opts = ParseK8sOptions(sched_options);
  if (!opts.ok()) return opts.status();
  if (flags.keep_failed_jobs) opts->keep_failed_jobs = true;

  KubeLoadOptions load = KubeLoadOptionsFromEnv();
  load.kubeconfig_flag = flags.kubeconfig.empty() ? opts->kubeconfig : flags.kubeconfig;
  load.context = opts->context;
  auto target = LoadKubeTarget(load);
  if (flags.dry_run) {
    // No kubeconfig at all is fine offline; one named (by --kubeconfig,
    // the partition's kubeconfig or context) must load.
    bool named = !load.kubeconfig_flag.empty() || !load.context.empty();
    if (!target.ok() && named) return target.status().Prefixed("Kubernetes");
    std::string ns = target.ok() && !target->ns.empty() ? target->ns : "default";
    return std::unique_ptr<Scheduler>(
        std::make_unique<K8sScheduler>(name, std::make_unique<OfflineKubeApi>(ns), std::move(opts.value())));
  }
  if (!target.ok()) return target.status().Prefixed("Kubernetes");

  // The client's warnings (e.g. TLS verification off) reach the user as
  // the scheduler's notices, once each.
  auto warnings = std::make_shared<std::vector<std::string>>();
  auto client = MakeKubeClient(*target, [warnings](const std::string& w) { warnings->push_back(w); });
  if (!client.ok()) return client.status().Prefixed("Kubernetes API " + target->server);

  auto sched = std::make_unique<K8sScheduler>(name, std::move(client.value()), std::move(opts.value()));
  sched->set_origin(target->source);
  sched->set_warning_source(warnings);
  return std::unique_ptr<Scheduler>(std::move(sched));
}

}  // namespace hb
