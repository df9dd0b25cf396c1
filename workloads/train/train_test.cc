// Tests of hetbench-train: the models' parameter counts and shapes, that
// training lowers the loss, that the step breakdown adds up, the MLLOG
// lines, and (with mpirun) that two ranks keep identical weights. The
// program itself runs as a real process where its output is what is tested.
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <tuple>

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
  void StartSum(float*, size_t) override {}
  void Sum(float*, size_t) override {}
  void Progress() override {}
  void WaitAll() override {}
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

TrainReport TrainTiny(const std::string& name, double lr, int64_t steps, const std::string& optimizer = "") {
  TrainOptions o;
  o.model = Tiny(name);
  o.optimizer = optimizer;
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
  // ResNet-50 with its default LARS (base rate 10, 5 warmup epochs) and
  // with SGD.
  const std::vector<std::tuple<std::string, double, std::string>> runs = {
      {"resnet50", 0, ""}, {"resnet50", 0.02, "sgd"}, {"deepcam", 0.01, ""}, {"cosmoflow", 0.05, ""}};
  for (const auto& [name, rate, optimizer] : runs) {
    TrainReport r = TrainTiny(name, rate, 6, optimizer);
    ASSERT_EQ(r.losses.size(), 6u) << name;
    EXPECT_LT(r.losses.back(), 0.95 * r.losses.front())
        << name << ": " << r.losses.front() << " -> " << r.losses.back();
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

std::string Mpirun() {
  const std::string mpirun = HBW_MPIRUN;
  if (mpirun.empty()) return "";
  // Settings that work in containers: run as root if need be, more ranks
  // than cores, no binding, no cross-memory-attach (often blocked there).
  return mpirun + (geteuid() == 0 ? " --allow-run-as-root" : "") +
         " --oversubscribe --bind-to none --mca btl_vader_single_copy_mechanism none -np 2 ";
}

// A folder of its own under the test's temporary directory.
std::string TempDir(const std::string& name) {
  const char* base = std::getenv("TMPDIR");
  std::string dir = std::string(base ? base : "/tmp") + "/hbw_train_test_" + std::to_string(getpid()) + "_" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::map<std::string, nlohmann::json> LastByKey(const std::string& text) {
  std::map<std::string, nlohmann::json> out;
  for (const auto& j : MllogLines(text)) out[j["key"].get<std::string>()] = j;
  return out;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The tiny runs of all three models, on two ranks where MPI is built, from
// file datasets with a train and a validation split, pass the program's
// own MLLOG check; a missed target is logged as run_stop "aborted", and the
// samples logged are the sizes of the two splits.
TEST(Program, TinyRunsOfAllThreeModelsPassTheMllogSelfCheck) {
  const std::vector<std::tuple<std::string, std::string, int>> runs = {
      {"resnet50", "jpeg", 4}, {"deepcam", "hdf5", 2}, {"cosmoflow", "tfrecord-gz", 2}};
  for (const auto& [model, format, batch] : runs) {
    const std::string dir = TempDir(model), log = dir + "/mllog.txt";
    Output o = Capture(Mpirun() + HBW_TRAIN_BIN + " --model " + model + " --size tiny --epochs 2 --threads 1 " +
                       "--batch-size " + std::to_string(batch) + " --format " + format + " --data-dir " + dir +
                       "/data --generate-samples 16 --generate-eval-samples 8 --mllog-file " + log);
    ASSERT_EQ(o.code, 0) << o.text;
    Output check = RunProgram("--check-mllog " + log);
    EXPECT_EQ(check.code, 0) << model << "\n" << check.text;
    EXPECT_NE(check.text.find(log + ": passes the "), std::string::npos) << check.text;
    auto keys = LastByKey(ReadFile(log));
    EXPECT_EQ(keys["run_stop"]["metadata"]["status"], "aborted") << "a tiny run misses the target";
    EXPECT_EQ(keys["train_samples"]["value"], 16);
    EXPECT_EQ(keys["eval_samples"]["value"], 8);
    EXPECT_TRUE(keys["seed"]["value"].is_number_integer()) << keys["seed"].dump();
    EXPECT_EQ(keys["cache_clear"]["value"], true);
    EXPECT_EQ(keys.count(model == "cosmoflow" ? "eval_accuracy" : "eval_error"), 0u) << model;
    if (model == "resnet50") {
      EXPECT_EQ(keys["opt_name"]["value"], "lars");
    }
    EXPECT_EQ(Value(o.text, "eval_samples"), 8) << o.text;
    std::filesystem::remove_all(dir);
  }
}

// The run ends at the epoch whose evaluation reaches the target, with
// run_stop "success".
TEST(Program, ReachingTheTargetEndsTheRunWithSuccess) {
  const std::string dir = TempDir("target"), log = dir + "/mllog.txt";
  Output o = RunProgram(
      "--model cosmoflow --size tiny --batch-size 2 --steps 2 --epochs 3 --threads 1 --target 10 "
      "--mllog-file " +
      log);
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_EQ(Value(o.text, "target_reached_epoch"), 1) << o.text;
  const std::string text = ReadFile(log);
  auto keys = LastByKey(text);
  EXPECT_EQ(keys["run_stop"]["metadata"]["status"], "success");
  EXPECT_EQ(keys["epoch_stop"]["metadata"]["epoch_num"], 1) << "no epochs after the target";
  // Success at a target other than MLPerf's is not a closed-division
  // result, and the check says so.
  Output check = RunProgram("--check-mllog " + log);
  EXPECT_EQ(check.code, 1) << check.text;
  EXPECT_NE(check.text.find("key 'run_stop': status success, but no evaluation reached the quality target eval_error "
                            "<= 0.124"),
            std::string::npos)
      << check.text;
  // Without the target the strict check fails on it.
  o = RunProgram("--model cosmoflow --size tiny --batch-size 2 --steps 2 --epochs 1 --threads 1 --mllog-file " + log);
  ASSERT_EQ(o.code, 0) << o.text;
  check = RunProgram("--check-mllog " + log + " --check-strict on");
  EXPECT_EQ(check.code, 1) << check.text;
  EXPECT_NE(check.text.find("FAIL " + log + ": quality target eval_error <= 0.124 not reached"), std::string::npos)
      << check.text;
  check = RunProgram("--check-mllog " + dir + "/missing.txt");
  EXPECT_EQ(check.code, 2) << check.text;
  EXPECT_NE(check.text.find("--check-mllog " + dir + "/missing.txt: No such file or directory"), std::string::npos)
      << check.text;
  std::filesystem::remove_all(dir);
}

TEST(Program, AFlatDataFolderIsRefusedNamingTheSplits) {
  const std::string dir = TempDir("flat");
  Output o = RunProgram("--model cosmoflow --size tiny --format tfrecord --data-dir " + dir);
  EXPECT_EQ(o.code, 1) << o.text;
  EXPECT_NE(o.text.find("--data-dir " + dir + ": expected the folders train/ and validation/ (or val/)"),
            std::string::npos)
      << o.text;
  std::filesystem::remove_all(dir);
}

TEST(Program, PrintsEpccLinesAndABreakdownThatAddsUp) {
  Output o = RunProgram("--model cosmoflow --size tiny --batch-size 4 --steps 6 --threads 1");
  ASSERT_EQ(o.code, 0) << o.text;
  for (const char* line :
       {"Processing Speed", "Time For Epoch", "Total IO Time", "Communication Time", "Change In Train Loss at Epoch"})
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
  const std::string run =
      std::string(HBW_TRAIN_BIN) + " --model cosmoflow --size tiny --batch-size 2 --steps 2 --threads 1";
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

// Two ranks, gradients in 1 MiB buckets (several): with the exchange
// overlapped with backward and without, the weights stay identical on both
// ranks, and the two modes train to the same loss bit for bit (the same
// sums of the same buckets). The wait for the slowest rank is its own part.
TEST(Program, TwoRanksKeepIdenticalWeightsWithAndWithoutOverlap) {
  if (Mpirun().empty()) GTEST_SKIP() << "built without MPI";
  std::string loss[2];
  for (int overlap = 0; overlap < 2; ++overlap) {
    Output o = Capture(Mpirun() + HBW_TRAIN_BIN +
                       " --model resnet50 --size tiny --batch-size 2 --steps 3 --threads 1 --bucket-mb 1 --overlap " +
                       (overlap ? "on" : "off"));
    ASSERT_EQ(o.code, 0) << o.text;
    const std::string& text = o.text;
    EXPECT_EQ(Value(text, "ranks"), 2) << text;
    EXPECT_EQ(Value(text, "weights_in_sync"), 1) << text;
    EXPECT_GE(Value(text, "rank_wait"), 0) << text;
    EXPECT_GE(Value(text, "Communication Time"), 0) << text;
    size_t at = text.find("Train Loss at Epoch 1: ");
    ASSERT_NE(at, std::string::npos) << text;
    loss[overlap] = text.substr(at, text.find('\n', at) - at);
  }
  EXPECT_EQ(loss[0], loss[1]);
}

// A corrupt record on one rank's shard, with the exchange overlapped: every
// rank stops at the same step with exit code 1 and the record named; no
// rank hangs in a collective the other never joins.
TEST(Program, ACorruptRecordStopsBothRanksWithOverlap) {
  if (Mpirun().empty()) GTEST_SKIP() << "built without MPI";
  const std::string dir = TempDir("corrupt");
  Output o = Capture(Mpirun() + HBW_TRAIN_BIN + " --model cosmoflow --size tiny --batch-size 2 --steps 1 " +
                     "--threads 1 --format tfrecord --data-dir " + dir + " --generate-samples 16 --generate-files 1");
  ASSERT_EQ(o.code, 0) << o.text;
  const std::string file = dir + "/train/train-00000-of-00001.tfrecord";
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(std::filesystem::file_size(file) / 2));
    f.put('\x5a');
  }
  o = Capture("timeout 120 " + Mpirun() + HBW_TRAIN_BIN + " --model cosmoflow --size tiny --batch-size 2 " +
              "--threads 1 --workers 1 --format tfrecord --data-dir " + dir);
  EXPECT_EQ(o.code, 1) << o.text;
  EXPECT_NE(o.text.find(file + ": record"), std::string::npos) << o.text;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace hbw::train
