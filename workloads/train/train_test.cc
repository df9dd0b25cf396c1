// Tests of hetbench-train: the models' parameter counts and shapes, that
// training lowers the loss, that the step breakdown adds up, the MLLOG
// lines, and (with mpirun) that two ranks keep identical weights. The
// program itself runs as a real process where its output is what is tested.
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "train/dist.h"
#include "train/mllog.h"
#include "train/models.h"
#include "train/trainer.h"

namespace hbw::train {
namespace {

// One rank, in process: the tests never start MPI themselves.
class SingleRank : public Comm {
 public:
  std::string name() const override { return "test"; }
  void AllreduceSum(const std::vector<std::pair<float*, size_t>>&) override {}
  void AllreduceSum(double*, size_t) override {}
  void AllreduceMax(double*, size_t) override {}
  void Broadcast(void*, size_t) override {}
  std::vector<uint64_t> Allgather(uint64_t v) override { return {v}; }
  void Barrier() override {}
  [[noreturn]] void Abort(int code) override { std::exit(code); }
};

ModelConfig Tiny(const std::string& name) {
  ModelConfig c;
  c.name = name;
  if (name == "resnet50") {
    c.image_h = c.image_w = 32, c.width = 0.25, c.num_classes = 10;
  } else if (name == "deepcam") {
    c.image_h = 64, c.image_w = 96, c.width = 0.0625;
  } else {
    c.cube = 32, c.base_channels = 4;
  }
  std::string err;
  EXPECT_TRUE(ResolveModelConfig(&c, &err)) << err;
  return c;
}

int64_t ReferenceCount(const std::string& name) {
  ModelConfig c;
  c.name = name;
  std::string err;
  EXPECT_TRUE(ResolveModelConfig(&c, &err)) << err;
  torch::manual_seed(1);
  return CountParameters(*MakeNet(c));  // construction only, no forward pass
}

TEST(Models, ResNet50HasTorchvisionsParameterCount) {
  EXPECT_EQ(ReferenceCount("resnet50"), 25557032);  // torchvision.models.resnet50()
}

// Derivations: docs/benchmarks/train.md, "Parameter counts".
TEST(Models, DeepCamHasTheReferencesParameterCount) { EXPECT_EQ(ReferenceCount("deepcam"), 56454720); }

TEST(Models, CosmoFlowHasTheReferencesParameterCount) { EXPECT_EQ(ReferenceCount("cosmoflow"), 8907556); }

TEST(Models, TinyOutputsHaveTheTargetsShape) {
  for (std::string name : {"resnet50", "deepcam", "cosmoflow"}) {
    ModelConfig c = Tiny(name);
    torch::manual_seed(1);
    auto net = MakeNet(c);
    torch::Tensor x, y;
    SyntheticBatch(c, 2, at::detail::getDefaultCPUGenerator(), &x, &y);
    torch::Tensor out = net->forward(x);
    EXPECT_TRUE(Loss(c, out, y).isfinite().item<bool>()) << name;
    std::vector<int64_t> want = {2, 4};
    if (name == "resnet50") want = {2, 10};
    if (name == "deepcam") want = {2, 3, 64, 96};
    EXPECT_EQ(out.sizes().vec(), want) << name;
  }
}

TEST(Models, BadSizesAreRefusedWithTheFlag) {
  ModelConfig c;
  c.name = "deepcam";
  c.image_h = 100, c.image_w = 96;
  std::string err;
  EXPECT_FALSE(ResolveModelConfig(&c, &err));
  EXPECT_NE(err.find("--image-size"), std::string::npos) << err;
  c = ModelConfig();
  c.name = "cosmoflow", c.cube = 48;
  err.clear();
  EXPECT_FALSE(ResolveModelConfig(&c, &err));
  EXPECT_NE(err.find("--cube-size"), std::string::npos) << err;
}

TrainReport TrainTiny(const std::string& name, double lr, int64_t steps) {
  TrainOptions o;
  o.model = Tiny(name);
  o.batch = 4;
  o.steps = steps;
  o.lr = lr;
  o.seed = 7;
  o.threads = 1;
  o.synthetic_batches = 1;  // the same batch every step: the loss must fall
  SingleRank comm;
  MlLogger log(nullptr);
  TrainReport r;
  std::string err;
  EXPECT_TRUE(Train(o, comm, nullptr, log, &r, &err)) << err;
  return r;
}

TEST(Train, LossFallsWithAFixedSeed) {
  const std::map<std::string, double> lr = {{"resnet50", 0.02}, {"deepcam", 0.01}, {"cosmoflow", 0.05}};
  for (const auto& [name, rate] : lr) {
    TrainReport r = TrainTiny(name, rate, 6);
    ASSERT_EQ(r.losses.size(), 6u) << name;
    EXPECT_LT(r.losses.back(), 0.95 * r.losses.front()) << name << ": " << r.losses.front() << " -> "
                                                        << r.losses.back();
  }
}

TEST(Train, BreakdownAddsUpToTheStepTime) {
  TrainReport r = TrainTiny("resnet50", 0.02, 5);
  double parts = 0, walls = 0;
  for (const StepTimes& t : r.steps) {
    parts += t.Sum();
    walls += t.wall;
    EXPECT_GT(t.forward, 0);
    EXPECT_GT(t.backward, 0);
    EXPECT_GT(t.optimizer, 0);
  }
  ASSERT_EQ(r.epoch_seconds.size(), 1u);
  EXPECT_NEAR(parts, r.epoch_seconds[0], 0.05 * r.epoch_seconds[0]);
  EXPECT_NEAR(parts, walls, 0.05 * walls);
}

// ------------------------------------------------- the program, as a process

struct Output {
  int code = -1;
  std::string text;  // stdout and stderr
};

Output Capture(const std::string& command) {
  Output o;
  std::string cmd = command + " 2>&1";
  std::FILE* p = popen(cmd.c_str(), "r");
  if (!p) return o;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) o.text.append(buf, n);
  int status = pclose(p);
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return o;
}

Output RunProgram(const std::string& args) { return Capture(std::string(HBW_TRAIN_BIN) + " " + args); }

std::vector<nlohmann::json> MllogLines(const std::string& text) {
  std::vector<nlohmann::json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(":::MLLOG ", 0) != 0) continue;
    nlohmann::json j = nlohmann::json::parse(line.substr(9), nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << "not JSON: " << line;
    out.push_back(j);
  }
  return out;
}

double Value(const std::string& text, const std::string& name) {
  size_t at = text.find("\n" + name + ": ");
  return at == std::string::npos ? -1 : std::stod(text.substr(at + name.size() + 3));
}

// The keys each ruleset requires exactly once (docs/benchmarks/train.md,
// "MLPerf logging"); the interval keys are checked separately.
std::vector<std::string> RequiredOnce(const std::string& model) {
  std::vector<std::string> keys = {"submission_benchmark", "submission_org", "submission_division",
                                   "submission_status", "submission_platform", "init_stop", "run_start",
                                   "run_stop", "seed", "global_batch_size", "train_samples", "eval_samples",
                                   "opt_name"};
  std::vector<std::string> more;
  if (model == "resnet50")
    more = {"gradient_accumulation_steps", "sgd_opt_base_learning_rate", "sgd_opt_end_learning_rate",
            "sgd_opt_learning_rate_decay_poly_power", "sgd_opt_learning_rate_decay_steps", "model_bn_span",
            "opt_learning_rate_warmup_epochs"};
  if (model == "deepcam")
    more = {"gradient_accumulation_frequency", "number_of_nodes", "accelerators_per_node", "number_of_ranks",
            "batchnorm_group_size", "opt_lr", "opt_betas", "opt_eps", "scheduler_type",
            "scheduler_lr_warmup_steps", "scheduler_lr_warmup_factor"};
  if (model == "cosmoflow")
    more = {"gradient_accumulation_frequency", "number_of_nodes", "accelerators_per_node", "number_of_ranks",
            "opt_base_learning_rate", "opt_learning_rate_warmup_epochs", "opt_learning_rate_warmup_factor",
            "opt_learning_rate_decay_boundary_epochs", "opt_learning_rate_decay_factor"};
  keys.insert(keys.end(), more.begin(), more.end());
  return keys;
}

void CheckMllog(const std::string& model, const std::string& text, int epochs) {
  std::map<std::string, int> count;
  const std::set<std::string> types = {"POINT_IN_TIME", "INTERVAL_START", "INTERVAL_END"};
  for (const auto& j : MllogLines(text)) {
    for (const char* field : {"namespace", "time_ms", "event_type", "key", "value", "metadata"})
      ASSERT_TRUE(j.contains(field)) << field << " missing: " << j.dump();
    EXPECT_TRUE(j["time_ms"].is_number_integer());
    EXPECT_TRUE(types.count(j["event_type"].get<std::string>())) << j.dump();
    EXPECT_TRUE(j["metadata"].contains("file") && j["metadata"]["lineno"].is_number_integer()) << j.dump();
    const std::string key = j["key"];
    ++count[key];
    static const std::set<std::string> per_epoch = {"epoch_start", "epoch_stop", "eval_start", "eval_stop",
                                                    "eval_accuracy", "eval_error"};
    if (per_epoch.count(key)) {
      EXPECT_TRUE(j["metadata"].contains("epoch_num")) << j.dump();
    }
    if (key == "run_stop") {
      EXPECT_EQ(j["metadata"]["status"], "success");
    }
  }
  for (const auto& key : RequiredOnce(model)) EXPECT_EQ(count[key], 1) << model << ": " << key;
  for (const char* key : {"epoch_start", "epoch_stop", "eval_start", "eval_stop", "eval_accuracy"})
    EXPECT_EQ(count[key], epochs) << model << ": " << key;
  EXPECT_GE(count["init_start"], 1);
  EXPECT_GE(count["cache_clear"], 1);
}

TEST(Program, MllogLinesAreJsonWithTheRequiredKeys) {
  for (std::string model : {"resnet50", "deepcam", "cosmoflow"}) {
    Output o = RunProgram("--model " + model + " --size tiny --batch-size 2 --steps 2 --epochs 2 --threads 1");
    ASSERT_EQ(o.code, 0) << o.text;
    CheckMllog(model, o.text, 2);
  }
}

TEST(Program, PrintsEpccLinesAndABreakdownThatAddsUp) {
  Output o = RunProgram("--model cosmoflow --size tiny --batch-size 4 --steps 6 --threads 1");
  ASSERT_EQ(o.code, 0) << o.text;
  for (const char* line : {"Processing Speed", "Time For Epoch", "Total IO Time", "Communication Time",
                           "Change In Train Loss at Epoch"})
    EXPECT_NE(o.text.find(std::string("\n") + line + ": "), std::string::npos) << line << "\n" << o.text;
  EXPECT_GT(Value(o.text, "compute_throughput"), 0) << o.text;
  double error = Value(o.text, "breakdown_error");
  EXPECT_GE(error, 0) << o.text;
  EXPECT_LT(error, 5) << o.text;
}

TEST(Program, NoBreakdownDropsThePartsAndTheLog) {
  Output o = RunProgram("--model cosmoflow --size tiny --batch-size 2 --steps 2 --threads 1 --no-breakdown");
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_EQ(o.text.find(":::MLLOG"), std::string::npos);
  EXPECT_EQ(o.text.find("forward: "), std::string::npos);
  EXPECT_GT(Value(o.text, "throughput"), 0) << o.text;
}

TEST(Program, CudaOnACpuOnlyLibtorchFailsClearly) {
  if (CudaAvailable()) GTEST_SKIP() << "this libtorch has CUDA";
  Output o = RunProgram("--model resnet50 --size tiny --device cuda");
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_NE(o.text.find("CMAKE_PREFIX_PATH"), std::string::npos) << o.text;
}

// The GPU monitor against a stand-in libnvidia-ml.so.1 (testdata/
// nvml_standin.cc: one device drawing 250 W at 87 %): NVML is found at run
// time on the library path, sampled during the run, and its errors are
// reported in NVML's words. --gpu-monitor N samples GPU N even on --device cpu.
TEST(Program, GpuMonitorSamplesNvmlFoundAtRunTime) {
  const std::string env = std::string("LD_LIBRARY_PATH=") + HBW_NVML_STANDIN_DIR + " ";
  const std::string run = std::string(HBW_TRAIN_BIN) + " --model cosmoflow --size tiny --batch-size 2 --steps 2 --threads 1";
  Output o = Capture(env + run + " --gpu-monitor 0");
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_EQ(Value(o.text, "gpu_power_avg"), 250) << o.text;
  EXPECT_EQ(Value(o.text, "gpu_util_avg"), 87) << o.text;
  EXPECT_NE(o.text.find("\ngpu_power_avg: 250 W\n"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("\ngpu_util_avg: 87 %\n"), std::string::npos) << o.text;

  o = Capture(env + run + " --gpu-monitor 1");
  ASSERT_EQ(o.code, 0) << o.text;  // the run goes on without the figures
  EXPECT_NE(o.text.find("nvml: not available (nvmlDeviceGetHandleByIndex(1): Invalid Argument)"), std::string::npos)
      << o.text;
  EXPECT_EQ(o.text.find("gpu_power_avg"), std::string::npos) << o.text;

  o = Capture("HBW_NVML_STANDIN_NO_DRIVER=1 " + env + run + " --gpu-monitor 0");
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_NE(o.text.find("nvml: not available (nvmlInit: Driver Not Loaded)"), std::string::npos) << o.text;
}

TEST(Program, GpuMonitorWithoutNvmlSaysWhy) {
  Output o = RunProgram("--model cosmoflow --size tiny --batch-size 2 --steps 2 --threads 1 --gpu-monitor 0");
  ASSERT_EQ(o.code, 0) << o.text;
  if (o.text.find("gpu_power_avg") != std::string::npos) GTEST_SKIP() << "this machine has NVML";
  EXPECT_NE(o.text.find("nvml: not available (libnvidia-ml.so.1: cannot open shared object file"), std::string::npos)
      << o.text;
  // On --device cpu nothing is sampled unless asked for.
  o = RunProgram("--model cosmoflow --size tiny --batch-size 2 --steps 2 --threads 1");
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_NE(o.text.find("nvml: not available (--device cpu (use --gpu-monitor N to sample a GPU))"), std::string::npos)
      << o.text;
}

TEST(Program, TwoRanksKeepIdenticalWeights) {
  const std::string mpirun = HBW_MPIRUN;
  if (mpirun.empty()) GTEST_SKIP() << "built without MPI";
  // Settings that work in containers: run as root if need be, more ranks
  // than cores, no binding, no cross-memory-attach (often blocked there).
  Output o = Capture(mpirun + (geteuid() == 0 ? " --allow-run-as-root" : "") +
                     " --oversubscribe --bind-to none --mca btl_vader_single_copy_mechanism none -np 2 " +
                     HBW_TRAIN_BIN + " --model resnet50 --size tiny --batch-size 2 --steps 1 --threads 1 --bucket-mb 1");
  ASSERT_EQ(o.code, 0) << o.text;
  const std::string& text = o.text;
  EXPECT_EQ(Value(text, "ranks"), 2) << text;
  EXPECT_EQ(Value(text, "weights_in_sync"), 1) << text;
  EXPECT_GE(Value(text, "Communication Time"), 0) << text;
}

}  // namespace
}  // namespace hbw::train
