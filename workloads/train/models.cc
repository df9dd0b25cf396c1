#include "train/models.h"

#include <cmath>
#include <string>

namespace hbw::train {

namespace F = torch::nn::functional;
using torch::nn::AnyModule;
using torch::nn::BatchNorm2d;
using torch::nn::Conv2d;
using torch::nn::Sequential;

namespace {

// A channel count times the width multiplier, at least 1.
int64_t Scaled(int64_t channels, double width) {
  return std::max<int64_t>(1, std::llround(static_cast<double>(channels) * width));
}

Conv2d Conv(int64_t in, int64_t out, int64_t k, int64_t stride = 1, int64_t pad = 0, int64_t dilation = 1,
            int64_t groups = 1, bool bias = false) {
  return Conv2d(
      torch::nn::Conv2dOptions(in, out, k).stride(stride).padding(pad).dilation(dilation).groups(groups).bias(bias));
}

// The MLPerf DeepCAM decoder's 3x3, stride-2 transposed convolution.
torch::nn::ConvTranspose2d Deconv(int64_t in, int64_t out) {
  return torch::nn::ConvTranspose2d(
      torch::nn::ConvTranspose2dOptions(in, out, 3).stride(2).padding(1).output_padding(1).bias(false));
}

AnyModule Relu(bool inplace) { return AnyModule(torch::nn::ReLU(torch::nn::ReLUOptions(inplace))); }

// ---------------------------------------------------------------- ResNet-50
// torchvision/models/resnet.py: Bottleneck (expansion 4, stride on conv2)
// and ResNet(Bottleneck, [3, 4, 6, 3]).

class BottleneckImpl : public torch::nn::Module {
 public:
  BottleneckImpl(int64_t inplanes, int64_t planes, int64_t stride) {
    conv1 = register_module("conv1", Conv(inplanes, planes, 1));
    bn1 = register_module("bn1", BatchNorm2d(planes));
    conv2 = register_module("conv2", Conv(planes, planes, 3, stride, 1));
    bn2 = register_module("bn2", BatchNorm2d(planes));
    conv3 = register_module("conv3", Conv(planes, planes * 4, 1));
    bn3 = register_module("bn3", BatchNorm2d(planes * 4));
    if (stride != 1 || inplanes != planes * 4)
      downsample =
          register_module("downsample", Sequential(Conv(inplanes, planes * 4, 1, stride), BatchNorm2d(planes * 4)));
  }

  torch::Tensor forward(torch::Tensor x) {
    torch::Tensor out = bn1(conv1(x)).relu_();
    out = bn2(conv2(out)).relu_();
    out = bn3(conv3(out));
    out += downsample.is_empty() ? x : downsample->forward(x);
    return torch::relu_(out);
  }

 private:
  Conv2d conv1{nullptr}, conv2{nullptr}, conv3{nullptr};
  BatchNorm2d bn1{nullptr}, bn2{nullptr}, bn3{nullptr};
  Sequential downsample{nullptr};
};
TORCH_MODULE(Bottleneck);

class ResNet50 : public Net {
 public:
  ResNet50(int64_t num_classes, double width) {
    int64_t inplanes = Scaled(64, width);
    conv1 = register_module("conv1", Conv(3, inplanes, 7, 2, 3));
    bn1 = register_module("bn1", BatchNorm2d(inplanes));
    const int blocks[4] = {3, 4, 6, 3};
    for (int i = 0; i < 4; ++i) {
      int64_t planes = Scaled(64 << i, width);
      Sequential layer;
      for (int b = 0; b < blocks[i]; ++b) {
        layer->push_back(Bottleneck(inplanes, planes, b == 0 && i > 0 ? 2 : 1));
        inplanes = planes * 4;
      }
      layers[i] = register_module("layer" + std::to_string(i + 1), layer);
    }
    fc = register_module("fc", torch::nn::Linear(inplanes, num_classes));
    // torchvision: kaiming_normal_(mode="fan_out", nonlinearity="relu") for
    // convolutions, BatchNorm weight 1 and bias 0 (torch's default), the
    // Linear layer keeps torch's default.
    for (auto& m : modules(false))
      if (auto* c = m->as<torch::nn::Conv2dImpl>())
        torch::nn::init::kaiming_normal_(c->weight, 0, torch::kFanOut, torch::kReLU);
  }

  torch::Tensor forward(torch::Tensor x) override {
    x = bn1(conv1(x)).relu_();
    x = torch::max_pool2d(x, 3, 2, 1);
    for (auto& layer : layers) x = layer->forward(x);
    x = torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1);
    return fc(x);
  }

 private:
  Conv2d conv1{nullptr};
  BatchNorm2d bn1{nullptr};
  Sequential layers[4] = {Sequential{nullptr}, Sequential{nullptr}, Sequential{nullptr}, Sequential{nullptr}};
  torch::nn::Linear fc{nullptr};
};

// ------------------------------------------------------------------ DeepCAM
// deeplab_xception.py: SeparableConv2d_same, Block, Xception (os=16),
// ASPP_module, GlobalAveragePool, Bottleneck, DeconvUpsampler,
// DeepLabv3_plus. Channel counts are the reference's times `width`.

// SeparableConv2d_same with a 3x3 kernel: compute_padding(3, d) pads d.
class SepConvImpl : public torch::nn::Module {
 public:
  SepConvImpl(int64_t in, int64_t out, int64_t stride, int64_t dilation) {
    conv1 = register_module("conv1", Conv(in, in, 3, stride, dilation, dilation, in));
    pointwise = register_module("pointwise", Conv(in, out, 1));
  }
  torch::Tensor forward(torch::Tensor x) { return pointwise(conv1(x)); }

 private:
  Conv2d conv1{nullptr}, pointwise{nullptr};
};
TORCH_MODULE(SepConv);

struct BlockArgs {
  int reps = 2;
  int64_t stride = 1, dilation = 1;
  bool end_with_relu = true, grow_first = true, is_last = false;
};

class XBlockImpl : public torch::nn::Module {
 public:
  XBlockImpl(int64_t in, int64_t out, BlockArgs a) : end_with_relu_(a.end_with_relu) {
    if (out != in || a.stride != 1) {
      skip = register_module("skip", Conv(in, out, 1, a.stride));
      skipbn = register_module("skipbn", BatchNorm2d(out));
    }
    std::vector<AnyModule> ops;
    auto sep_bn_relu = [&](int64_t i, int64_t o) {
      ops.emplace_back(SepConv(i, o, 1, a.dilation));
      ops.emplace_back(BatchNorm2d(o));
      ops.push_back(Relu(true));
    };
    int64_t filters = in;
    if (a.grow_first) {
      sep_bn_relu(in, out);
      filters = out;
    }
    for (int i = 0; i < a.reps - 1; ++i) sep_bn_relu(filters, filters);
    if (!a.grow_first) sep_bn_relu(in, out);
    ops.pop_back();  // "drop the last relu"
    if (a.stride != 1) ops.emplace_back(SepConv(out, out, 2, 1));
    if (a.stride == 1 && a.is_last) ops.emplace_back(SepConv(out, out, 1, 1));
    Sequential seq;
    for (auto& m : ops) seq->push_back(std::move(m));
    rep = register_module("rep", seq);
  }

  torch::Tensor forward(torch::Tensor inp) {
    torch::Tensor x = rep->forward(inp);
    x += skip.is_empty() ? inp : skipbn(skip(inp));
    return end_with_relu_ ? torch::relu_(x) : x;
  }

 private:
  bool end_with_relu_;
  Sequential rep{nullptr};
  Conv2d skip{nullptr};
  BatchNorm2d skipbn{nullptr};
};
TORCH_MODULE(XBlock);

// Xception(inplanes, os=16): entry block 3 stride 2, middle rate 1, exit
// rates (1, 2). Returns the features and the low-level features (block1's
// output after the in-place ReLU, as in the reference).
class XceptionImpl : public torch::nn::Module {
 public:
  XceptionImpl(int64_t in, double w) {
    auto c = [w](int64_t n) { return Scaled(n, w); };
    conv1 = register_module("conv1", Conv(in, c(32), 3, 2, 1));
    bn1 = register_module("bn1", BatchNorm2d(c(32)));
    conv2 = register_module("conv2", Conv(c(32), c(64), 3, 1, 1));
    bn2 = register_module("bn2", BatchNorm2d(c(64)));
    Add(c(64), c(128), {.stride = 2, .end_with_relu = false});
    Add(c(128), c(256), {.stride = 2});
    Add(c(256), c(728), {.stride = 2, .is_last = true});
    for (int i = 4; i <= 19; ++i) Add(c(728), c(728), {.reps = 3});
    Add(c(728), c(1024), {.end_with_relu = false, .grow_first = false, .is_last = true});
    conv3 = register_module("conv3", SepConv(c(1024), c(1536), 1, 2));
    bn3 = register_module("bn3", BatchNorm2d(c(1536)));
    conv4 = register_module("conv4", SepConv(c(1536), c(1536), 1, 2));
    bn4 = register_module("bn4", BatchNorm2d(c(1536)));
    conv5 = register_module("conv5", SepConv(c(1536), c(2048), 1, 2));
    bn5 = register_module("bn5", BatchNorm2d(c(2048)));
  }

  std::pair<torch::Tensor, torch::Tensor> forward(torch::Tensor x) {
    x = bn1(conv1(x)).relu_();
    x = bn2(conv2(x)).relu_();
    x = blocks_[0]->forward(x);
    torch::Tensor low_level = torch::relu_(x);
    for (size_t i = 1; i < blocks_.size(); ++i) x = blocks_[i]->forward(x);
    x = bn3(conv3(x)).relu_();
    x = bn4(conv4(x)).relu_();
    x = bn5(conv5(x)).relu_();
    return {x, low_level};
  }

 private:
  void Add(int64_t in, int64_t out, BlockArgs a) {
    blocks_.push_back(register_module("block" + std::to_string(blocks_.size() + 1), XBlock(in, out, a)));
  }
  Conv2d conv1{nullptr}, conv2{nullptr};
  BatchNorm2d bn1{nullptr}, bn2{nullptr}, bn3{nullptr}, bn4{nullptr}, bn5{nullptr};
  SepConv conv3{nullptr}, conv4{nullptr}, conv5{nullptr};
  std::vector<XBlock> blocks_;
};
TORCH_MODULE(Xception);

// The reference's Bottleneck: ASPP with rates 1, 6, 12, 18, the global
// average pool branch (conv, TrainableAffine, ReLU; broadcast back over the
// feature map as the reference's torch.tile does for 768x1152 inputs), then
// a 1x1 convolution of the concatenation.
class AsppImpl : public torch::nn::Module {
 public:
  AsppImpl(int64_t in, int64_t out) {
    const int64_t rates[4] = {1, 6, 12, 18};
    for (int i = 0; i < 4; ++i) {
      int64_t r = rates[i];
      branches_.push_back(register_module(
          "aspp" + std::to_string(i + 1),
          Sequential(r == 1 ? Conv(in, out, 1) : Conv(in, out, 3, 1, r, r), BatchNorm2d(out), torch::nn::ReLU())));
    }
    pool_conv = register_module("global_avg_pool_conv", Conv(in, out, 1));
    affine_w = register_parameter("global_avg_pool_weights", torch::ones({out, 1, 1}));
    affine_b = register_parameter("global_avg_pool_bias", torch::zeros({out, 1, 1}));
    conv = register_module("conv", Conv(5 * out, out, 1));
    bn = register_module("bn", BatchNorm2d(out));
  }

  torch::Tensor forward(torch::Tensor x) {
    std::vector<torch::Tensor> parts;
    for (auto& b : branches_) parts.push_back(b->forward(x));
    torch::Tensor g = torch::relu(affine_w * pool_conv(torch::adaptive_avg_pool2d(x, {1, 1})) + affine_b);
    parts.push_back(g.expand({-1, -1, x.size(2), x.size(3)}));
    return torch::relu(bn(conv(torch::cat(parts, 1))));
  }

  std::vector<Sequential>& branches() { return branches_; }

 private:
  std::vector<Sequential> branches_;
  Conv2d pool_conv{nullptr}, conv{nullptr};
  torch::Tensor affine_w, affine_b;
  BatchNorm2d bn{nullptr};
};
TORCH_MODULE(Aspp);

class DeepCam : public Net {
 public:
  DeepCam(int64_t in, int64_t classes, double w) {
    auto c = [w](int64_t n) { return Scaled(n, w); };
    xception = register_module("xception_features", Xception(in, w));
    bottleneck = register_module("bottleneck", Aspp(c(2048), c(256)));
    conv2 = register_module("conv2", Conv(c(128), c(48), 1));
    bn2 = register_module("bn2", BatchNorm2d(c(48)));
    deconv1 = register_module("deconv1", Sequential(Deconv(c(256), c(256)), BatchNorm2d(c(256)), torch::nn::ReLU(),
                                                    Deconv(c(256), c(256)), BatchNorm2d(c(256)), torch::nn::ReLU()));
    up_conv =
        register_module("conv1", Sequential(Conv(c(256) + c(48), c(256), 3, 1, 1), BatchNorm2d(c(256)),
                                            torch::nn::ReLU(), Conv(c(256), c(256), 3, 1, 1), BatchNorm2d(c(256)),
                                            torch::nn::ReLU(), Conv(c(256), c(256), 1, 1, 0, 1, 1, /*bias=*/true)));
    deconv2 = register_module("deconv2", Sequential(Deconv(c(256), c(256)), BatchNorm2d(c(256)), torch::nn::ReLU()));
    last_deconv = register_module("last_deconv", Deconv(c(256), classes));
    // The reference initialises the Xception and ASPP convolutions with
    // kaiming_normal_ (fan_in); the decoder keeps torch's defaults (its
    // __init_weight is never called).
    auto kaiming = [](torch::nn::Module& m) {
      for (auto& sub : m.modules())
        if (auto* conv = sub->as<torch::nn::Conv2dImpl>())
          torch::nn::init::kaiming_normal_(conv->weight, 0, torch::kFanIn, torch::kLeakyReLU);
    };
    kaiming(*xception);
    for (auto& b : bottleneck->branches()) kaiming(*b);
  }

  torch::Tensor forward(torch::Tensor input) override {
    auto [x, low_level] = xception->forward(input);
    x = bottleneck->forward(x);
    low_level = torch::relu(bn2(conv2(low_level)));
    x = deconv1->forward(x);
    x = up_conv->forward(torch::cat({x, low_level}, 1));
    x = deconv2->forward(x);
    return last_deconv(x);
  }

 private:
  Xception xception{nullptr};
  Aspp bottleneck{nullptr};
  Conv2d conv2{nullptr};
  BatchNorm2d bn2{nullptr};
  Sequential deconv1{nullptr}, up_conv{nullptr}, deconv2{nullptr};
  torch::nn::ConvTranspose2d last_deconv{nullptr};
};

// ---------------------------------------------------------------- CosmoFlow
// cosmoflow.py build_model (conv_size=32, kernel_size=3, n_conv_layers=5,
// fc1_size=128, fc2_size=64, LeakyReLU, MaxPool3D, dropout=0.5): Keras
// Conv3D/Dense have biases; LeakyReLU's default slope is 0.3; the output is
// tanh scaled by 1.2 (layers.scale_1p2). Keras initialises with
// glorot_uniform and zero biases.

class CosmoFlow : public Net {
 public:
  CosmoFlow(int64_t cube, int64_t conv_size) {
    int64_t in = 4;
    for (int i = 0; i < 5; ++i) {
      int64_t out = conv_size << i;
      convs_.push_back(register_module("conv" + std::to_string(i + 1),
                                       torch::nn::Conv3d(torch::nn::Conv3dOptions(in, out, 3).padding(1))));
      in = out;
    }
    int64_t side = cube / 32;
    fc1 = register_module("fc1", torch::nn::Linear(in * side * side * side, 128));
    fc2 = register_module("fc2", torch::nn::Linear(128, 64));
    out = register_module("output", torch::nn::Linear(64, 4));
    for (auto& p : named_parameters()) {
      if (p.key().ends_with("bias"))
        torch::nn::init::zeros_(p.value());
      else
        torch::nn::init::xavier_uniform_(p.value());
    }
  }

  torch::Tensor forward(torch::Tensor x) override {
    for (auto& conv : convs_) x = torch::max_pool3d(torch::leaky_relu(conv(x), 0.3), 2);
    x = x.flatten(1);
    x = F::dropout(torch::leaky_relu(fc1(x), 0.3), F::DropoutFuncOptions().p(0.5).training(is_training()));
    x = F::dropout(torch::leaky_relu(fc2(x), 0.3), F::DropoutFuncOptions().p(0.5).training(is_training()));
    return torch::tanh(out(x)) * 1.2;
  }

 private:
  std::vector<torch::nn::Conv3d> convs_;
  torch::nn::Linear fc1{nullptr}, fc2{nullptr}, out{nullptr};
};

constexpr int64_t kDeepCamChannels = 16;
constexpr int64_t kDeepCamClasses = 3;

}  // namespace

bool ResolveModelConfig(ModelConfig* c, std::string* err) {
  if (c->width <= 0) {
    *err = "--width-multiplier must be positive";
    return false;
  }
  if (c->name == "resnet50") {
    if (!c->image_h) c->image_h = c->image_w = 224;
    if (!c->num_classes) c->num_classes = 1000;
    if (c->image_h < 32 || c->image_w < 32) *err = "--image-size must be at least 32 for resnet50";
  } else if (c->name == "deepcam") {
    if (!c->image_h) c->image_h = 768, c->image_w = 1152;
    c->num_classes = kDeepCamClasses;
    if (c->image_h % 16 || c->image_w % 16 || c->image_h < 32 || c->image_w < 32)
      *err = "--image-size for deepcam must be multiples of 16 (output stride 16), at least 32";
  } else if (c->name == "cosmoflow") {
    if (!c->cube) c->cube = 128;
    if (!c->base_channels) c->base_channels = 32;
    if (c->cube % 32 || c->cube < 32) *err = "--cube-size must be a multiple of 32 (five 2x poolings)";
    if (c->base_channels < 1) *err = "--base-channels must be at least 1";
  } else {
    *err = "unknown model '" + c->name + "' (resnet50, deepcam, cosmoflow)";
  }
  return err->empty();
}

std::shared_ptr<Net> MakeNet(const ModelConfig& c) {
  if (c.name == "resnet50") return std::make_shared<ResNet50>(c.num_classes, c.width);
  if (c.name == "deepcam") return std::make_shared<DeepCam>(kDeepCamChannels, kDeepCamClasses, c.width);
  return std::make_shared<CosmoFlow>(c.cube, c.base_channels);
}

int64_t CountParameters(torch::nn::Module& m) {
  int64_t n = 0;
  for (const auto& p : m.parameters()) n += p.numel();
  return n;
}

std::vector<int64_t> SampleShape(const ModelConfig& c) {
  if (c.name == "resnet50") return {3, c.image_h, c.image_w};
  if (c.name == "deepcam") return {kDeepCamChannels, c.image_h, c.image_w};
  return {4, c.cube, c.cube, c.cube};
}

std::string SampleLayout(const ModelConfig& c) { return c.name == "resnet50" ? "imagenet" : c.name; }

torch::Tensor Loss(const ModelConfig& c, const torch::Tensor& output, const torch::Tensor& target) {
  if (c.name == "resnet50") return F::cross_entropy(output, target);
  if (c.name == "deepcam") {
    // train.py: loss_pow = -0.125, class weights = frequency ** loss_pow;
    // utils/losses.py CELoss: unreduced weighted cross entropy, then mean.
    const double pow = -0.125;
    static const torch::Tensor kWeights = torch::tensor(
        {std::pow(0.986267818390377, pow), std::pow(0.0004578708870701058, pow), std::pow(0.01327431072255291, pow)},
        torch::kFloat);
    auto opts = F::CrossEntropyFuncOptions().weight(kWeights.to(output.device())).reduction(torch::kNone);
    return F::cross_entropy(output, target, opts).mean();
  }
  return F::mse_loss(output, target);
}

double EvalMetric(const ModelConfig& c, const torch::Tensor& output, const torch::Tensor& target) {
  torch::NoGradGuard no_grad;
  if (c.name == "resnet50") return output.argmax(1).eq(target).to(torch::kDouble).mean().item<double>();
  if (c.name == "cosmoflow") return (output - target).abs().mean().item<double>();
  // compute_score: per sample, per class IoU = tp / ((tp + fp + fn) * classes),
  // NaN (class absent from both) counts 1/classes; summed over classes,
  // averaged over the batch.
  const int64_t batch = target.size(0), classes = output.size(1);
  torch::Tensor pred = output.argmax(1).view({batch, -1}), gt = target.view({batch, -1});
  torch::Tensor iou = torch::zeros({batch}, torch::TensorOptions().dtype(torch::kDouble).device(output.device()));
  for (int64_t j = 0; j < classes; ++j) {
    torch::Tensor p = pred.eq(j), g = gt.eq(j);
    torch::Tensor tp = (p & g).sum(1).to(torch::kDouble);
    torch::Tensor fp = (p & g.logical_not()).sum(1).to(torch::kDouble);
    torch::Tensor fn = (p.logical_not() & g).sum(1).to(torch::kDouble);
    iou += torch::nan_to_num(tp / ((tp + fp + fn) * static_cast<double>(classes)), 1.0 / static_cast<double>(classes));
  }
  return iou.mean().item<double>();
}

torch::Tensor MakeTargets(const ModelConfig& c, const torch::Tensor& flat, int64_t batch) {
  if (c.name == "resnet50") return flat.view({batch}).to(torch::kLong);
  if (c.name == "deepcam") return flat.view({batch, c.image_h, c.image_w}).to(torch::kLong);
  return flat.view({batch, 4}).to(torch::kFloat);
}

void SyntheticBatch(const ModelConfig& c, int64_t batch, torch::Generator gen, torch::Tensor* input,
                    torch::Tensor* target) {
  std::vector<int64_t> shape = SampleShape(c);
  shape.insert(shape.begin(), batch);
  *input = torch::randn(shape, gen, torch::kFloat);
  if (c.name == "resnet50")
    *target = torch::randint(c.num_classes, {batch}, gen, torch::kLong);
  else if (c.name == "deepcam")
    *target = torch::randint(kDeepCamClasses, {batch, c.image_h, c.image_w}, gen, torch::kLong);
  else
    *target = torch::rand({batch, 4}, gen, torch::kFloat) * 2 - 1;
}

}  // namespace hbw::train
