#include "launch/torchrun.h"

#include <unistd.h>

#include <algorithm>
#include <set>
#include <vector>

namespace hb {

namespace {

// The flag a launcher option sets, with torchrun's dashes normalised:
// "--nproc-per-node=4" -> "nproc_per_node"; "" for a value or other word.
std::string FlagName(const std::string& word) {
  if (word.rfind("--", 0) != 0) return "";
  std::string name = word.substr(2, word.find('=') - 2);
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

// The port of `--master_port=N` or `--master_port N`, else the default.
std::string PortOf(const std::vector<std::string>& options) {
  for (size_t i = 0; i < options.size(); ++i) {
    if (FlagName(options[i]) != "master_port") continue;
    size_t eq = options[i].find('=');
    if (eq != std::string::npos) return options[i].substr(eq + 1);
    if (i + 1 < options.size()) return options[i + 1];
  }
  return std::to_string(kTorchrunPort);
}

// PyTorch's elastic launcher; see torchrun.h for the lines it writes.
class TorchrunLauncher : public Launcher {
 public:
  std::string name() const override { return "torchrun"; }

  std::vector<std::string> Command(const Job& job) const override {
    TorchrunShape sh = TorchrunShapeOf(job, !traits.node_spawn);
    std::set<std::string> given;
    for (const auto& o : options) given.insert(FlagName(o));
    auto unless_given = [&](const std::string& flag, std::vector<std::string>* words, const std::string& value) {
      if (!given.count(flag)) words->push_back("--" + flag + (value.empty() ? "" : "=" + value));
    };
    std::vector<std::string> words;
    if (sh.nnodes == 1) {
      bool own_rdzv = given.count("rdzv_backend") || given.count("rdzv_endpoint") || given.count("rdzv_id");
      if (!own_rdzv) unless_given("standalone", &words, "");
      unless_given("nnodes", &words, "1");
      unless_given("nproc_per_node", &words, std::to_string(sh.nproc_per_node));
      return Prepend({"torchrun"}, words);
    }
    unless_given("nnodes", &words, std::to_string(sh.nnodes));
    unless_given("nproc_per_node", &words, std::to_string(sh.nproc_per_node));
    const std::string port = PortOf(options);
    int cpus = sh.nproc_per_node * std::max(1, job.num_cpus_per_task);
    NodeSpawn spawn = traits.node_spawn(job, sh.nnodes, cpus);
    if (!spawn.node_rank.empty()) {
      // Each node runs the script knowing its rank and rank 0's address
      // (Kubernetes' Indexed Job): a static rendezvous, as Kubeflow's
      // PyTorchJob's.
      unless_given("node_rank", &words, spawn.node_rank);
      unless_given("master_addr", &words, spawn.head);
      unless_given("master_port", &words, port);
    } else {
      unless_given("rdzv_backend", &words, "c10d");
      unless_given("rdzv_endpoint", &words, spawn.head + ":" + port);
      unless_given("rdzv_id", &words, spawn.job_id);
    }
    spawn.spawner.push_back("torchrun");
    return Prepend(spawn.spawner, words);
  }

 private:
  static std::vector<std::string> Prepend(std::vector<std::string> head, const std::vector<std::string>& tail) {
    head.insert(head.end(), tail.begin(), tail.end());
    return head;
  }
};

}  // namespace

TorchrunShape TorchrunShapeOf(const Job& job, bool one_node) {
  int tasks = std::max(1, job.num_tasks);
  TorchrunShape sh;
  if (job.num_tasks_per_node > 0)
    sh.nproc_per_node = std::min(job.num_tasks_per_node, tasks);
  else if (job.num_gpus_per_node > 0)
    sh.nproc_per_node = job.num_gpus_per_node;
  else
    sh.nproc_per_node = tasks;
  sh.nnodes = (tasks + sh.nproc_per_node - 1) / sh.nproc_per_node;
  if (one_node) sh = {sh.nproc_per_node * sh.nnodes, 1};
  return sh;
}

std::unique_ptr<Launcher> MakeTorchrunLauncher() { return std::make_unique<TorchrunLauncher>(); }

}  // namespace hb
