#include "train/trainer_impl.h"

namespace hbw::train {

void Trainer::LogHyperparameters() {
  const bool hpc = cfg_.name != "resnet50";
  const int64_t global_batch = opt_.batch * comm_.size();
  log_.Event("submission_benchmark", hpc ? cfg_.name : "resnet");
  log_.Event("submission_org", opt_.mlperf_org);
  log_.Event("submission_division", opt_.mlperf_division);
  log_.Event("submission_status", opt_.mlperf_status);
  log_.Event("submission_platform", opt_.mlperf_platform);
  log_.Event("seed", opt_.seed);
  log_.Event("global_batch_size", global_batch);
  log_.Event("train_samples", train_samples_);
  log_.Event("eval_samples", eval_samples_);
  if (hpc) {
    log_.Event("gradient_accumulation_frequency", 1);
    log_.Event("number_of_ranks", comm_.size());
    log_.Event("number_of_nodes", comm_.nodes());
    log_.Event("accelerators_per_node", cuda_ ? comm_.local_size() : 0);
  } else {
    log_.Event("gradient_accumulation_steps", 1);
  }
  LogModelHyperparameters();
}

void Trainer::LogModelHyperparameters() {
  using Json = MlLogger::Json;
  log_.Event("opt_name", opt_name_);
  if (cfg_.name == "resnet50" && lars_) {  // training_4.0.0 closed_resnet.yaml -> closed_resnet_lars.yaml
    log_.Event("lars_opt_base_learning_rate", base_lr_);
    log_.Event("lars_opt_end_learning_rate", end_lr_);
    log_.Event("lars_opt_learning_rate_decay_poly_power", 2);
    log_.Event("lars_opt_learning_rate_decay_steps", decay_steps_);
    log_.Event("lars_epsilon", Lars::kEpsilon);
    log_.Event("lars_opt_learning_rate_warmup_epochs", warmup_epochs_);
    log_.Event("lars_opt_momentum", momentum_);
    log_.Event("lars_opt_weight_decay", weight_decay_);
    log_.Event("model_bn_span", opt_.batch);
  } else if (cfg_.name == "resnet50") {  // closed_resnet_sgd.yaml
    log_.Event("sgd_opt_base_learning_rate", base_lr_);
    log_.Event("sgd_opt_end_learning_rate", end_lr_);
    log_.Event("sgd_opt_learning_rate_decay_poly_power", 2);
    log_.Event("sgd_opt_learning_rate_decay_steps", decay_steps_);
    log_.Event("sgd_opt_weight_decay", weight_decay_);
    log_.Event("sgd_opt_momentum", momentum_);
    log_.Event("opt_learning_rate_warmup_epochs", warmup_epochs_);
    log_.Event("model_bn_span", opt_.batch);
  } else if (cfg_.name == "deepcam") {  // hpc_3.0.0 closed_deepcam.yaml, closed_deepcam_multistep.yaml
    log_.Event("batchnorm_group_size", 1);
    log_.Event("opt_lr", base_lr_);
    log_.Event("opt_betas", Json::array({0.9, 0.999}));
    log_.Event("opt_eps", 1e-6);
    log_.Event("opt_weight_decay", weight_decay_);
    log_.Event("opt_amsgrad", false);
    log_.Event("scheduler_type", "multistep");
    log_.Event("scheduler_milestones", Json::array());
    log_.Event("scheduler_decay_rate", 0.1);
    log_.Event("scheduler_lr_warmup_steps", 0);
    log_.Event("scheduler_lr_warmup_factor", 1.0);
  } else {  // hpc_3.0.0 closed_cosmoflow.yaml
    log_.Event("opt_base_learning_rate", base_lr_);
    log_.Event("opt_momentum", momentum_);
    log_.Event("opt_learning_rate_warmup_epochs", 0);
    log_.Event("opt_learning_rate_warmup_factor", 1.0);
    log_.Event("opt_learning_rate_decay_boundary_epochs", Json::array());
    log_.Event("opt_learning_rate_decay_factor", Json::array());
    log_.Event("dropout", 0.5);
    log_.Event("opt_weight_decay", weight_decay_);
  }
}

void Trainer::Print(const char* name, double value, const char* unit) {
  if (!out_) return;
  if (value == std::floor(value) && std::abs(value) < 1e15)
    std::fprintf(out_, "%s: %.0f%s%s\n", name, value, *unit ? " " : "", unit);
  else
    std::fprintf(out_, "%s: %.6g%s%s\n", name, value, *unit ? " " : "", unit);
}

// The lines EPCC's MLPerf ReFrame tests parse (tests/mlperf/*/base.py in
// EPCCed/epcc-reframe; regexes `Processing Speed: (.*)` etc. read with
// float conversion, so no unit follows the number). Times are the mean
// over ranks, the epoch time the slowest rank's; "Total IO Time" includes
// the host-to-device copy, as EPCC's train.py times it.
void Trainer::ReportEpoch(int epoch, size_t first, const TrainReport& r) {
  double io = 0, comm = 0;
  for (size_t i = first; i < r.steps.size(); ++i) {
    io += r.steps[i].data + r.steps[i].h2d;
    comm += r.steps[i].wait + r.steps[i].allreduce;
  }
  double sums[4] = {io, comm, r.losses[first], r.losses.back()};
  double seconds = r.epoch_seconds.back();
  comm_.AllreduceSum(sums, 4);
  comm_.AllreduceMax(&seconds, 1);
  for (double& s : sums) s /= comm_.size();
  const double samples = static_cast<double>((r.steps.size() - first) * opt_.batch * comm_.size());
  if (!out_) return;
  if (epoch == 1) std::fprintf(out_, "Change In Train Loss at Epoch: %.6g\n", sums[2] - sums[3]);
  std::fprintf(out_, "Train Loss at Epoch %d: %.6g\n", epoch, sums[3]);
  std::fprintf(out_, "Processing Speed: %.6g\n", samples / seconds);
  std::fprintf(out_, "Time For Epoch: %.6g\n", seconds);
  std::fprintf(out_, "Communication Time: %.6g\n", sums[1]);
  std::fprintf(out_, "Total IO Time: %.6g\n", sums[0]);
  std::fflush(out_);
}

// Means per step over the ranks, leaving out the first --warmup-steps.
void Trainer::ReportSummary(const TrainReport& r, const GpuSample& gpu) {
  const size_t n = r.steps.size();
  const size_t skip = std::min(static_cast<size_t>(std::max(0, opt_.warmup_steps)), n - 1);
  double m[10] = {};  // 8 means, then sums of parts and of epoch times over the whole run
  for (size_t i = skip; i < n; ++i) {
    const StepTimes& t = r.steps[i];
    double parts[8] = {t.data, t.h2d, t.forward, t.backward, t.wait, t.allreduce, t.optimizer, t.wall};
    for (int k = 0; k < 8; ++k) m[k] += parts[k] / static_cast<double>(n - skip);
  }
  for (const StepTimes& t : r.steps) m[8] += t.Sum();
  for (double s : r.epoch_seconds) m[9] += s;
  double fastest = r.steps[skip].wall;  // the least disturbed step, robust on a shared machine
  for (size_t i = skip; i < n; ++i) fastest = std::min(fastest, r.steps[i].wall);
  comm_.AllreduceMax(&fastest, 1);
  double error = m[9] > 0 ? std::abs(m[9] - m[8]) / m[9] * 100 : 0,
         g[3] = {gpu.power_avg_w, gpu.util_avg, gpu.available ? 1.0 : 0};
  comm_.AllreduceSum(m, 10);
  comm_.AllreduceMax(&error, 1);
  comm_.AllreduceSum(g, 3);
  for (double& x : m) x /= comm_.size();
  const double global_batch = static_cast<double>(opt_.batch * comm_.size());
  Print("parameters", static_cast<double>(r.parameters), "");
  Print("ranks", comm_.size(), "");
  Print("global_batch_size", global_batch, "samples");
  Print("throughput", global_batch / m[7], "samples/s");
  Print("step_time", m[7], "s");
  Print("step_time_min", fastest, "s");
  if (opt_.breakdown) {
    const char* names[7] = {"data_wait", "h2d_copy", "forward", "backward", "rank_wait", "allreduce", "optimizer"};
    for (int k = 0; k < 7; ++k) Print(names[k], m[k], "s");
    Print("compute_throughput", global_batch / (m[2] + m[3] + m[6]), "samples/s");
    Print("breakdown_error", error, "%");
  }
  const char* metric = cfg_.name == "resnet50" ? "eval_top1" : cfg_.name == "deepcam" ? "eval_iou" : "eval_mae";
  if (!r.eval_metric.empty()) Print(metric, r.eval_metric.back(), "");
  Print("quality_target", target_, "");
  Print("target_reached_epoch", r.target_epoch, "");
  Print("train_samples", static_cast<double>(train_samples_), "");
  Print("eval_samples", static_cast<double>(eval_samples_), "");
  Print("weights_in_sync", r.weights_in_sync ? 1 : 0, "");
  if (g[2] > 0) {
    Print("gpu_power_avg", g[0] / g[2], "W");
    Print("gpu_util_avg", g[1] / g[2], "%");
  } else if (out_) {
    std::fprintf(out_, "nvml: not available (%s)\n", gpu.why.c_str());
  }
  if (out_) std::fflush(out_);
}

}  // namespace hbw::train
