// The three networks hetbench-train trains, as torch::nn modules, with the
// loss, evaluation metric and synthetic data of each workload:
//
//  resnet50   torchvision.models.resnet50 (ResNet-50 v1.5: the stride sits on
//             the 3x3 convolution of the bottleneck), 25,557,032 parameters
//             at reference size; module names match torchvision's state dict.
//  deepcam    DeepLabv3+ with the modified aligned Xception encoder of the
//             MLPerf HPC reference (mlcommons/hpc,
//             deepcam/src/deepCam/architecture/deeplab_xception.py),
//             16 input channels, 3 classes, output stride 16;
//             56,454,720 parameters.
//  cosmoflow  the 3D CNN of the MLPerf HPC reference (mlcommons/hpc,
//             cosmoflow/models/cosmoflow.py), 128^3 x 4 input, 4 targets;
//             8,907,556 parameters.
// The derivations of the counts are in docs/benchmarks/train.md.
//
// Small sizes for quick runs come from ModelConfig (image size, channel
// width multiplier, cube size, base channels); the defaults are the
// reference sizes. A Net is owned by its caller (shared_ptr, as torch
// modules are) and is not thread-safe.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "train/model_config.h"

namespace hbw::train {

// A network: one input batch in, one output batch out.
class Net : public torch::nn::Module {
 public:
  virtual torch::Tensor forward(torch::Tensor x) = 0;
};

// Builds the network with its reference initialisation (from the current
// torch seed). cfg must be resolved.
std::shared_ptr<Net> MakeNet(const ModelConfig& cfg);

int64_t CountParameters(torch::nn::Module& m);

// One sample's input shape (CHW or CDHW) and the data library's layout name
// for it ("imagenet", "deepcam", "cosmoflow").
std::vector<int64_t> SampleShape(const ModelConfig& cfg);
std::string SampleLayout(const ModelConfig& cfg);

// The training loss of the workload: cross entropy (resnet50), the
// reference's class-weighted per-pixel cross entropy (deepcam), mean
// squared error (cosmoflow). target is as MakeTargets returns it.
torch::Tensor Loss(const ModelConfig& cfg, const torch::Tensor& output, const torch::Tensor& target);

// The MLPerf evaluation metric of one batch: top-1 accuracy (resnet50),
// the reference's mean IoU (deepcam, utils/metric.py compute_score), mean
// absolute error (cosmoflow).
double EvalMetric(const ModelConfig& cfg, const torch::Tensor& output, const torch::Tensor& target);

// Targets from the data library's float targets (class ids, per-pixel
// classes or regression values), shaped and typed for Loss.
torch::Tensor MakeTargets(const ModelConfig& cfg, const torch::Tensor& flat, int64_t batch);

// A synthetic batch on the CPU: normal inputs and uniform targets, from gen.
void SyntheticBatch(const ModelConfig& cfg, int64_t batch, torch::Generator gen, torch::Tensor* input,
                    torch::Tensor* target);

}  // namespace hbw::train
