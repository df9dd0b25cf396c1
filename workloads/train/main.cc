// hetbench-train: data-parallel training throughput of ResNet-50, DeepCAM
// and CosmoFlow on libtorch, one MPI rank per process (mpirun, srun).
// See docs/benchmarks/train.md for the flags, the output and the checks.
#include <malloc.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "common/bench_util.h"
#include "train/data_source.h"
#include "train/dist.h"
#include "train/mllog.h"
#include "train/mllog_check.h"
#include "train/trainer.h"

namespace {

using hbw::train::ModelConfig;
using hbw::train::TrainOptions;

const char kSummary[] =
    "Trains ResNet-50, DeepCAM or CosmoFlow data-parallel over MPI ranks and reports throughput, the\n"
    "per-step timing breakdown, EPCC-style epoch lines and MLPerf :::MLLOG lines.\n"
    "--no-breakdown is short for --breakdown off.";

hbw::Flags MakeFlags() {
  hbw::Flags f("hetbench-train", kSummary);
  f.Add("model", "resnet50", "resnet50, deepcam or cosmoflow")
      .Add("size", "reference", "reference, small or tiny: preset sizes (the flags below override them)")
      .Add("image-size", "", "input image, N or HxW (resnet50 224, deepcam 768x1152)")
      .Add("width-multiplier", "", "channel width multiplier (resnet50, deepcam; 1 = reference)")
      .Add("num-classes", "", "classes (resnet50; 1000)")
      .Add("cube-size", "", "input cube side (cosmoflow; 128)")
      .Add("base-channels", "", "channels of the first convolution (cosmoflow; 32)")
      .Add("batch-size", "8", "samples per rank per step")
      .Add("epochs", "1", "epochs")
      .Add("steps", "0", "steps per epoch (0: the whole dataset, or 10 for synthetic data)")
      .Add("device", "cpu", "cpu, cuda (cuda:<local rank>) or cuda:N")
      .Add("threads", "0", "torch intra-op threads (0: torch's default)")
      .Add("lr", "0", "base learning rate (0: the model's default)")
      .Add("optimizer", "", "resnet50: lars (default) or sgd")
      .Add("lr-warmup-epochs", "", "resnet50: learning-rate warmup epochs (lars 5, sgd 0)")
      .Add("target", "", "quality target ending the run (default MLPerf's: top-1 0.759, IoU 0.82, MAE 0.124)")
      .Add("seed", "42", "random seed (weights, synthetic data, shuffling)")
      .Add("format", "synthetic", "synthetic, jpeg, tfrecord, tfrecord-gz, hdf5 or lmdb")
      .Add("data-dir", "", "dataset folder (file formats)")
      .Add("workers", "2", "data loader threads per rank")
      .Add("prefetch", "2", "batches the loader keeps ready")
      .Add("generate-samples", "0", "first write this many training samples into --data-dir/train")
      .Add("generate-eval-samples", "0",
           "and this many into --data-dir/validation (val for imagenet; 0: an eighth, at least a batch per rank)")
      .Add("generate-files", "4", "files of the written dataset")
      .Add("synthetic-batches", "4", "distinct synthetic batches per rank, cycled")
      .Add("bucket-mb", "25", "gradient bucket size for the allreduce, MiB")
      .Add("overlap", "on", "on: start each bucket's allreduce during backward; off: after backward")
      .Add("breakdown", "on", "on: time the parts of each step and write MLLOG lines; off: neither")
      .Add("warmup-steps", "1", "first steps left out of the summary's means")
      .Add("eval-batches", "0", "evaluation batches per rank after each epoch (0: the whole validation split)")
      .Add("gpu-monitor", "auto", "NVML sampling: auto (the training GPU), off, or a GPU index")
      .Add("mllog-file", "", "write the :::MLLOG lines here instead of stdout")
      .Add("mlperf-org", "hetbench", "MLPerf submission_org")
      .Add("mlperf-division", "closed", "MLPerf submission_division")
      .Add("mlperf-status", "onprem", "MLPerf submission_status")
      .Add("mlperf-platform", "", "MLPerf submission_platform (default: the host name)")
      .Add("check-mllog", "", "check the :::MLLOG lines of this file against the MLPerf rules and exit")
      .Add("check-strict", "off", "on: --check-mllog also fails a missed quality target and partial datasets");
  return f;
}

// --size presets, for quick runs on small machines.
void ApplyPreset(const std::string& size, ModelConfig* m, const hbw::Flags& f) {
  if (size == "reference") return;
  if (size != "small" && size != "tiny") f.Fail("--size: expected reference, small or tiny, got '" + size + "'");
  const bool tiny = size == "tiny";
  if (m->name == "resnet50") {
    m->image_h = m->image_w = tiny ? 32 : 128;
    m->width = tiny ? 0.25 : 0.5;
    m->num_classes = tiny ? 10 : 1000;
  } else if (m->name == "deepcam") {
    m->image_h = tiny ? 64 : 192;
    m->image_w = tiny ? 96 : 288;
    m->width = tiny ? 0.0625 : 0.25;
  } else {
    m->cube = tiny ? 32 : 64;
    m->base_channels = tiny ? 4 : 16;
  }
}

void ParseImageSize(const hbw::Flags& f, ModelConfig* m) {
  std::string v = f.Str("image-size");
  if (v.empty()) return;
  size_t x = v.find('x');
  char* end = nullptr;
  m->image_h = std::strtol(v.c_str(), &end, 10);
  m->image_w = x == std::string::npos ? m->image_h : std::strtol(v.c_str() + x + 1, &end, 10);
  if (*end || m->image_h <= 0 || m->image_w <= 0) f.Fail("--image-size: expected N or HxW, got '" + v + "'");
}

ModelConfig ParseModel(const hbw::Flags& f) {
  ModelConfig m;
  m.name = f.Str("model");
  ApplyPreset(f.Str("size"), &m, f);
  ParseImageSize(f, &m);
  if (!f.Str("width-multiplier").empty()) m.width = f.Num("width-multiplier");
  if (!f.Str("num-classes").empty()) m.num_classes = f.Int("num-classes");
  if (!f.Str("cube-size").empty()) m.cube = f.Int("cube-size");
  if (!f.Str("base-channels").empty()) m.base_channels = f.Int("base-channels");
  std::string err;
  if (!hbw::train::ResolveModelConfig(&m, &err)) f.Fail(err);
  return m;
}

std::string HostName() {
  char buf[256] = {};
  return gethostname(buf, sizeof(buf) - 1) == 0 ? buf : "unknown";
}

TrainOptions ParseOptions(const hbw::Flags& f) {
  TrainOptions o;
  o.model = ParseModel(f);
  o.batch = f.Int("batch-size");
  o.epochs = static_cast<int>(f.Int("epochs"));
  o.steps = f.Int("steps");
  o.device = f.Str("device");
  o.threads = static_cast<int>(f.Int("threads"));
  o.lr = f.Num("lr");
  o.optimizer = f.Str("optimizer");
  if (!f.Str("lr-warmup-epochs").empty()) o.lr_warmup_epochs = f.Num("lr-warmup-epochs");
  if (!f.Str("target").empty()) o.target = f.Num("target");
  o.seed = static_cast<uint64_t>(f.Int("seed"));
  o.format = f.Str("format");
  o.data_dir = f.Str("data-dir");
  o.workers = static_cast<int>(f.Int("workers"));
  o.prefetch = static_cast<int>(f.Int("prefetch"));
  o.generate_samples = static_cast<size_t>(f.Int("generate-samples"));
  o.generate_files = static_cast<size_t>(f.Int("generate-files"));
  o.generate_eval_samples = static_cast<size_t>(f.Int("generate-eval-samples"));
  o.synthetic_batches = static_cast<int>(f.Int("synthetic-batches"));
  o.bucket_mb = f.Num("bucket-mb");
  o.warmup_steps = static_cast<int>(f.Int("warmup-steps"));
  o.eval_batches = static_cast<int>(f.Int("eval-batches"));
  o.mlperf_org = f.Str("mlperf-org");
  o.mlperf_division = f.Str("mlperf-division");
  o.mlperf_status = f.Str("mlperf-status");
  o.mlperf_platform = f.Str("mlperf-platform").empty() ? HostName() : f.Str("mlperf-platform");
  return o;
}

// Checks what a user can get wrong, before any rank starts work (exit 2).
void Validate(const hbw::Flags& f, TrainOptions* o) {
  const std::string b = f.Str("breakdown"), g = f.Str("gpu-monitor"), ov = f.Str("overlap");
  if (b != "on" && b != "off") f.Fail("--breakdown: expected on or off, got '" + b + "'");
  o->breakdown = b == "on";
  if (ov != "on" && ov != "off") f.Fail("--overlap: expected on or off, got '" + ov + "'");
  o->overlap = ov == "on";
  if (!o->optimizer.empty() && o->model.name != "resnet50")
    f.Fail("--optimizer: only resnet50 has a choice (lars or sgd); " + o->model.name + " uses its reference's");
  if (!o->optimizer.empty() && o->optimizer != "lars" && o->optimizer != "sgd")
    f.Fail("--optimizer: expected lars or sgd, got '" + o->optimizer + "'");
  if (!f.Str("lr-warmup-epochs").empty() && (o->model.name != "resnet50" || o->lr_warmup_epochs < 0 ||
                                             o->lr_warmup_epochs != std::floor(o->lr_warmup_epochs)))
    f.Fail("--lr-warmup-epochs: a whole number of epochs >= 0, for resnet50");
  if (!std::isnan(o->target) && !(o->target > 0)) f.Fail("--target: expected a number above 0");
  if (g == "auto" || g == "off") {
    o->gpu_monitor = g == "auto" ? -1 : -2;
  } else {
    o->gpu_monitor = static_cast<int>(f.Int("gpu-monitor"));
    if (o->gpu_monitor < 0) f.Fail("--gpu-monitor: expected auto, off or a GPU index");
  }
  if (o->batch < 1 || o->epochs < 1 || o->steps < 0 || o->eval_batches < 0 || o->workers < 1 || o->prefetch < 1 ||
      o->bucket_mb <= 0 || o->synthetic_batches < 1)
    f.Fail(
        "--batch-size, --epochs, --workers, --prefetch, --synthetic-batches and --bucket-mb "
        "must be positive, --steps and --eval-batches at least 0");
  if (o->device != "cpu" && !hbw::train::CudaAvailable())
    f.Fail("--device " + o->device +
           ": this libtorch sees no CUDA device. Debian's libtorch-dev is built without CUDA; build against "
           "PyTorch's CUDA libtorch with -DCMAKE_PREFIX_PATH=\"$(python3 -c 'import torch; "
           "print(torch.utils.cmake_prefix_path)')\" (docs/benchmarks/train.md)");
  if (o->format != "synthetic") {
    if (!hbw::train::FileFormatsAvailable())
      f.Fail("--format " + o->format + ": this build has no data library (workloads/data); use synthetic");
    if (o->data_dir.empty()) f.Fail("--format " + o->format + " needs --data-dir");
  }
}

// argv without --no-breakdown, which becomes --breakdown=off.
std::vector<char*> Normalise(int argc, char** argv) {
  static char off[] = "--breakdown=off";
  std::vector<char*> out;
  for (int i = 0; i < argc; ++i) out.push_back(std::strcmp(argv[i], "--no-breakdown") == 0 ? off : argv[i]);
  return out;
}

// Every step allocates and frees the same large tensors (activations,
// gradients). glibc returns blocks above its mmap threshold, and the free
// top of the heap, to the system, so each step faults the same memory in
// again: with glibc's dynamic threshold turned off (any library's mallopt
// turns it off) that cost ResNet-50 on 2 CPU threads 30 % of its step time
// (bench/RESULTS.md). Freed memory is kept for the next step instead, as a
// long-running PyTorch process gets it from glibc's dynamic threshold. The
// MALLOC_MMAP_THRESHOLD_ and MALLOC_TRIM_THRESHOLD_ environment variables
// still decide when set.
void KeepFreedMemory() {
  if (!std::getenv("MALLOC_MMAP_THRESHOLD_")) mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest
  if (!std::getenv("MALLOC_TRIM_THRESHOLD_")) mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

// --check-mllog FILE: exit 0 when the log passes, 1 with one line per
// failed rule, 2 when the file cannot be read.
int CheckMllogFile(const hbw::Flags& f) {
  const std::string path = f.Str("check-mllog"), strict = f.Str("check-strict");
  if (strict != "on" && strict != "off") f.Fail("--check-strict: expected on or off, got '" + strict + "'");
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "hetbench-train: error: --check-mllog %s: %s\n", path.c_str(), std::strerror(errno));
    return 2;
  }
  hbw::train::MllogCheckOptions options;
  options.strict = strict == "on";
  hbw::train::MllogCheckResult r = hbw::train::CheckMllog(in, path, options);
  for (const auto& line : r.failures) std::printf("FAIL %s\n", line.c_str());
  for (const auto& line : r.notes) std::printf("note %s\n", line.c_str());
  if (!r.ok()) {
    std::printf("%s: %zu rule(s) failed (%s rules for %s, %zu MLLOG lines; docs/benchmarks/train.md)\n", path.c_str(),
                r.failures.size(), r.ruleset.empty() ? "no" : r.ruleset.c_str(),
                r.benchmark.empty() ? "an unknown benchmark" : r.benchmark.c_str(), r.records);
    return 1;
  }
  std::printf("%s: passes the %s rules for %s (%zu MLLOG lines)\n", path.c_str(), r.ruleset.c_str(),
              r.benchmark.c_str(), r.records);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  KeepFreedMemory();
  std::vector<char*> args = Normalise(argc, argv);
  hbw::Flags flags = MakeFlags();
  flags.Parse(static_cast<int>(args.size()), args.data());
  if (!flags.Str("check-mllog").empty()) return CheckMllogFile(flags);
  TrainOptions opt = ParseOptions(flags);
  Validate(flags, &opt);

  auto comm = hbw::train::InitComm(&argc, &argv);
  const bool root = comm->rank() == 0;
  std::FILE* mllog_out = nullptr;
  if (root && opt.breakdown) {
    const std::string path = flags.Str("mllog-file");
    mllog_out = path.empty() ? stdout : std::fopen(path.c_str(), "w");
    if (!mllog_out) {
      std::fprintf(stderr, "hetbench-train: error: --mllog-file %s: %s\n", path.c_str(), std::strerror(errno));
      comm->Abort(2);
    }
  }
  hbw::train::MlLogger log(mllog_out);
  if (root)
    std::printf("hetbench-train: %s, batch %lld x %d ranks (%s), %s, %s data\n", opt.model.name.c_str(),
                static_cast<long long>(opt.batch), comm->size(), comm->name().c_str(), opt.device.c_str(),
                opt.format.c_str());

  hbw::train::TrainReport report;
  std::string err;
  bool ok = hbw::train::Train(opt, *comm, root ? stdout : nullptr, log, &report, &err);
  if (mllog_out && mllog_out != stdout) std::fclose(mllog_out);
  if (!ok) {
    std::fprintf(stderr, "hetbench-train: error: rank %d: %s\n", comm->rank(), err.c_str());
    if (report.left_ranks_behind && comm->size() > 1) comm->Abort(1);
    return 1;
  }
  return report.interrupted ? 130 : 0;
}
