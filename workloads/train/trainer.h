// The training benchmark: data-parallel training of one model over the
// ranks of a Comm, with the step split into timed parts, per-epoch lines in
// the form EPCC's MLPerf ReFrame tests parse, a summary, and MLPerf logging.
//
// One step on every rank:
//   data       wait for the next batch (the loader's worker threads, or a
//              pool of synthetic tensors)
//   h2d        copy it to the device
//   forward    forward pass and loss
//   backward   backward pass; with --overlap on, each bucket of --bucket-mb
//              MiB of gradients starts its MPI_Iallreduce from the gradient
//              hooks as soon as it is full, while backward goes on
//   wait       waiting for the slowest rank: the step's agreement (an
//              8-byte allreduce every rank joins after backward)
//   allreduce  the rest of the gradient exchange (--overlap off: all of
//              it, a blocking MPI_Allreduce per bucket): the buckets' sums
//              finished, divided by the ranks
//   optimizer  optimizer step and zero_grad
// With the breakdown on, the device is synchronised between the parts (a
// no-op on the CPU) so each part is charged its own time; the parts are
// then checked against the epoch's wall time.
//
// Weights start equal on every rank (broadcast from rank 0) and stay equal
// because every rank applies the same averaged gradients; a hash of the
// parameters is compared across ranks after every epoch.
//
// Train() owns everything it builds; it is called once per process from
// the thread that created the Comm. Torch stays inside trainer.cc.
#pragma once

#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "train/model_config.h"

namespace hbw::train {

class Comm;
class MlLogger;

struct TrainOptions {
  ModelConfig model;
  int64_t batch = 8;  // per rank
  int epochs = 1;
  int64_t steps = 0;             // per epoch; 0: the whole dataset (file formats) or 10 (synthetic)
  std::string device = "cpu";    // cpu | cuda | cuda:N
  int threads = 0;               // torch intra-op threads; 0: torch's default
  double lr = 0;                 // 0: the model's default
  std::string optimizer;         // resnet50: lars (default) or sgd; empty: the model's reference optimiser
  double lr_warmup_epochs = -1;  // -1: the reference's (LARS: 5 epochs below a global batch of 32768)
  // The quality target that makes run_stop "success" and ends the run:
  // top-1 accuracy (resnet50) or IoU (deepcam) at least this, mean
  // absolute error (cosmoflow) at most this. NaN: MLPerf's closed target.
  double target = std::numeric_limits<double>::quiet_NaN();
  uint64_t seed = 42;

  std::string format = "synthetic";  // or a data library format
  std::string data_dir;
  int workers = 2, prefetch = 2;
  // Rank 0 first writes a dataset: generate_samples into data_dir/train and
  // generate_eval_samples (0: an eighth, at least one batch per rank) into
  // data_dir/validation (val for ImageNet JPEG folders).
  size_t generate_samples = 0, generate_files = 1, generate_eval_samples = 0;
  int synthetic_batches = 4;  // distinct synthetic batches, cycled

  double bucket_mb = 25;  // DDP's default bucket_cap_mb
  bool overlap = true;    // start each bucket's sum during backward
  bool breakdown = true;  // time the parts of each step (and write MLLOG)
  int warmup_steps = 1;   // left out of the summary's means
  int eval_batches = 0;   // per rank, after every epoch; 0: the whole validation split (synthetic: 1)
  int gpu_monitor = -1;   // NVML device to sample; -1: the training GPU, -2: off

  // MLPerf submission fields for the log.
  std::string mlperf_org = "hetbench", mlperf_division = "closed", mlperf_status = "onprem",
              mlperf_platform = "unknown";
};

// The time of each part of one step on this rank, in seconds; `wall` is the
// step measured separately, from before the data wait to after the loss is
// read back.
struct StepTimes {
  double data = 0, h2d = 0, forward = 0, backward = 0, wait = 0, allreduce = 0, optimizer = 0;
  double wall = 0;
  double Sum() const { return data + h2d + forward + backward + wait + allreduce + optimizer; }
};

struct TrainReport {
  int64_t parameters = 0;
  std::vector<double> losses;         // every step, this rank
  std::vector<StepTimes> steps;       // every step, this rank
  std::vector<double> epoch_seconds;  // wall time of each epoch's steps, this rank
  std::vector<double> eval_metric;    // after each epoch, averaged over ranks
  bool weights_in_sync = true;
  int target_epoch = 0;                        // the epoch whose evaluation reached the target; 0: not reached
  size_t train_samples = 0, eval_samples = 0;  // the sizes of the two splits, as logged
  bool interrupted = false;                    // SIGINT/SIGTERM: stopped early, run_stop "aborted"
  // The failure was this rank's alone (a libtorch exception): the other
  // ranks may wait in a collective, so the job must be aborted.
  bool left_ranks_behind = false;
};

// Runs the benchmark. Result lines go to `out` (null: none; pass null on
// ranks other than 0), MLLOG lines through `log`. Returns false with *err
// on a failure (bad data, no CUDA, ranks out of sync); run_stop is then
// logged as "aborted".
bool Train(const TrainOptions& opt, Comm& comm, std::FILE* out, MlLogger& log, TrainReport* report, std::string* err);

// Whether this libtorch can use CUDA devices (false for Debian's CPU-only
// libtorch-dev, or where no GPU is visible).
bool CudaAvailable();

}  // namespace hbw::train
