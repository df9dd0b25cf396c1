// CheckMllog: hetbench-train's own MLPerf log check, `hetbench-train
// --check-mllog FILE`, which needs neither the network nor Python.
//
// It reads the `:::MLLOG {json}` lines of a log (other lines are ignored,
// as the MLPerf compliance checker's parser ignores them) and checks them
// against rule facts written from the MLPerf logging rules for the ruleset
// each benchmark follows: training 4.0.0 for ResNet-50 (the newest with a
// ResNet-50 rule file), HPC 3.0.0 for DeepCAM and CosmoFlow. The benchmark
// is the log's `submission_benchmark`. docs/benchmarks/train.md ("MLPerf
// logging") lists every fact with the rule file it comes from. Checked:
//   - every line: the six fields in mllog's order, a known event type,
//     integer time_ms, metadata with file and lineno;
//   - required keys, exactly once or at least once;
//   - value types: integers as integers, booleans as booleans (a float
//     42.0 for the seed fails), strings, lists;
//   - order: init_start < init_stop < run_start < run_stop, init within 30
//     minutes, epochs numbered and paired inside the run, evaluations
//     inside the run, hyperparameters before run_start;
//   - constant values and ranges (lars_epsilon 0, opt_eps 1e-6, ...);
//   - run_stop's status: success only when an evaluation reached the
//     quality target.
// Two kinds of rule hold only for a full-length closed run: the quality
// target itself and DeepCAM's full dataset sizes. They are notes unless
// `strict` is set.
#pragma once

#include <istream>
#include <string>
#include <vector>

namespace hbw::train {

struct MllogCheckOptions {
  bool strict = false;  // the target and full-dataset rules fail too
};

struct MllogCheckResult {
  std::string benchmark;  // resnet, deepcam, cosmoflow; empty when not found
  std::string ruleset;    // "training 4.0.0", "hpc 3.0.0"
  size_t records = 0;     // :::MLLOG lines read
  // One line per failed rule: "FILE:LINE: key 'seed': ..." or "FILE: ...".
  std::vector<std::string> failures;
  std::vector<std::string> notes;
  bool ok() const { return failures.empty(); }
};

MllogCheckResult CheckMllog(std::istream& in, const std::string& file, const MllogCheckOptions& options = {});

// MLPerf's closed-division quality target of a model (resnet50, deepcam,
// cosmoflow): top-1 accuracy 0.759, IoU 0.82, mean absolute error 0.124.
double QualityTarget(const std::string& model);

}  // namespace hbw::train
