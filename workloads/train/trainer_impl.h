// The trainer's insides, shared by trainer.cc (setup, the step loop,
// evaluation) and trainer_log.cc (the MLPerf hyperparameter records and
// the lines the benchmark prints). Internal to hetbench-train: only
// trainer.h is its interface.
#pragma once

#include "train/trainer.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/csrc/autograd/utils/lambda_post_hook.h>
#include <torch/cuda.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>

#include "common/bench_util.h"
#include "train/data_source.h"
#include "train/dist.h"
#include "train/mllog.h"
#include "train/mllog_check.h"
#include "train/models.h"
#include "train/nvml.h"
#include "train/phase_clock.h"

namespace hbw::train {

struct Bucket {
  std::vector<torch::Tensor> params;
  std::vector<int64_t> offsets;
  torch::Tensor flat;        // CPU float, the MPI buffer, reused every step
  std::vector<bool> filled;  // this step: params[i]'s gradient is in flat
  size_t unfilled = 0;
};

// Layer-wise adaptive rate scaling (You, Gitman, Ginsburg 2017) as MLPerf
// ResNet-50's reference and submissions use it: for every parameter with
// more than one dimension, the step is scaled by the trust ratio
// eta * |w| / (|g| + wd * |w| + eps) (1 where |w| or |g| is 0) and weight
// decay is added to the gradient; biases and BatchNorm scales and shifts
// (the 1-D parameters, the reference's skip list) take the plain learning
// rate without weight decay. Heavy-ball momentum, v = m * v + lr' * g,
// w -= v.
class Lars {
 public:
  static constexpr double kEta = 0.001, kEpsilon = 0.0;
  Lars(std::vector<torch::Tensor> params, double momentum, double weight_decay)
      : params_(std::move(params)), momentum_(momentum), weight_decay_(weight_decay) {
    for (auto& p : params_) velocity_.push_back(torch::zeros_like(p));
  }
  void Step(double lr) {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < params_.size(); ++i) {
      torch::Tensor& w = params_[i];
      if (!w.grad().defined()) continue;
      torch::Tensor g = w.grad();
      if (w.dim() > 1) {
        torch::Tensor wn = w.norm(), gn = g.norm();
        torch::Tensor trust =
            torch::where(wn.gt(0) & gn.gt(0), kEta * wn / (gn + weight_decay_ * wn + kEpsilon), torch::ones_like(wn));
        velocity_[i].mul_(momentum_).add_((g + weight_decay_ * w) * (trust * lr));
      } else {
        velocity_[i].mul_(momentum_).add_(g, lr);
      }
      w.sub_(velocity_[i]);
    }
  }
  void ZeroGrad() {
    for (auto& p : params_)
      if (p.grad().defined()) p.mutable_grad().zero_();
  }

 private:
  std::vector<torch::Tensor> params_, velocity_;
  double momentum_, weight_decay_;
};

// One run of the benchmark: builds the model, optimiser, buckets and data
// from the options, then runs the epochs and reports. Owned by Train() for
// the length of the run; used only from the thread that owns the Comm.
class Trainer {
 public:
  Trainer(const TrainOptions& o, Comm& comm, std::FILE* out, MlLogger& log)
      : opt_(o), cfg_(o.model), comm_(comm), out_(out), log_(log) {}

  bool Run(TrainReport* r, std::string* err);

 private:
  enum class StepResult { kOk, kStop, kFailed };

  bool Setup(std::string* err);
  bool ChooseDevice(std::string* err);
  void BroadcastState();
  void MakeOptimizer();
  bool OpenValidation(DataSpec spec, std::string* err);
  void BuildBuckets();
  bool SetupData(std::string* err);
  bool SetupFileData(std::string* err);
  void LogHyperparameters();
  void LogModelHyperparameters();
  bool Agree(bool ok);
  bool RunEpoch(int epoch, TrainReport* r, std::string* err);
  StepResult Step(int64_t global_step, StepTimes* t, double* loss, std::string* err);
  bool NextBatch(int64_t global_step, HostBatch* hb, torch::Tensor* x, torch::Tensor* y, std::string* err);
  void OnGradient(size_t bucket, size_t index, const torch::Tensor* grad);
  void StartReadyBuckets();
  void StartRemainingBuckets();
  void FinishGradients();
  double LearningRate(int64_t global_step) const;
  void OptimizerStep(int64_t global_step);
  bool Reached(double metric) const;
  void SyncBuffers();
  bool Evaluate(int epoch, double* metric, std::string* err);
  bool CheckSync(TrainReport* r, std::string* err);
  void ReportEpoch(int epoch, size_t first_step, const TrainReport& r);
  void ReportSummary(const TrainReport& r, const GpuSample& gpu);
  void Print(const char* name, double value, const char* unit);

  const TrainOptions& opt_;
  ModelConfig cfg_;
  Comm& comm_;
  std::FILE* out_;
  MlLogger& log_;

  torch::Device device_ = torch::kCPU;
  bool cuda_ = false;
  std::shared_ptr<Net> net_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;  // or lars_
  std::unique_ptr<Lars> lars_;
  std::string opt_name_;  // as logged: lars, sgd, AdamW
  double base_lr_ = 0, end_lr_ = 0, momentum_ = 0, weight_decay_ = 0;
  int64_t warmup_epochs_ = 0, warmup_steps_ = 0, decay_steps_ = 0;  // the learning-rate schedule
  bool decays_ = false;  // polynomial decay (power 2) to end_lr_ after the warmup
  double target_ = 0;
  std::vector<Bucket> buckets_;
  bool overlap_ = false;                                              // buckets start from the gradient hooks
  bool views_ = false;                                                // the gradients are views into the buckets (CPU)
  std::vector<std::shared_ptr<torch::autograd::Node>> accumulators_;  // kept for their hooks
  size_t next_bucket_ = 0;                                            // this step: the buckets before it are started

  int64_t steps_ = 0;                            // per epoch
  size_t train_samples_ = 0, eval_samples_ = 0;  // the splits, for the MLPerf log
  std::unique_ptr<DataSource> source_;
  DataSpec eval_spec_;                                                     // the validation split (file formats)
  std::vector<std::pair<torch::Tensor, torch::Tensor>> pool_, eval_pool_;  // CPU tensors (synthetic)
};

}  // namespace hbw::train
