// Tests of the MLLOG self-check: a log written by MlLogger passes, and each
// kind of rule fails with one line naming the line, the key and the rule.
#include "train/mllog_check.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "train/mllog.h"

namespace hbw::train {
namespace {

using Json = MlLogger::Json;

// A CosmoFlow log as hetbench-train writes it, through the real logger;
// `edit` may change an event before it is written (key, value, metadata).
struct Event {
  std::string type, key;
  Json value, metadata;
};

std::vector<Event> CosmoflowEvents(double eval_error, const std::string& status) {
  Json e1 = {{"epoch_num", 1}};
  return {
      {"INTERVAL_START", "init_start", nullptr, nullptr},
      {"POINT_IN_TIME", "cache_clear", true, nullptr},
      {"POINT_IN_TIME", "submission_benchmark", "cosmoflow", nullptr},
      {"POINT_IN_TIME", "submission_org", "hetbench", nullptr},
      {"POINT_IN_TIME", "submission_division", "closed", nullptr},
      {"POINT_IN_TIME", "submission_status", "onprem", nullptr},
      {"POINT_IN_TIME", "submission_platform", "host", nullptr},
      {"POINT_IN_TIME", "seed", 42, nullptr},
      {"POINT_IN_TIME", "global_batch_size", 4, nullptr},
      {"POINT_IN_TIME", "train_samples", 64, nullptr},
      {"POINT_IN_TIME", "eval_samples", 8, nullptr},
      {"POINT_IN_TIME", "gradient_accumulation_frequency", 1, nullptr},
      {"POINT_IN_TIME", "number_of_ranks", 2, nullptr},
      {"POINT_IN_TIME", "number_of_nodes", 1, nullptr},
      {"POINT_IN_TIME", "accelerators_per_node", 0, nullptr},
      {"POINT_IN_TIME", "opt_name", "sgd", nullptr},
      {"POINT_IN_TIME", "opt_base_learning_rate", 0.0000625, nullptr},
      {"POINT_IN_TIME", "opt_momentum", 0.9, nullptr},
      {"POINT_IN_TIME", "opt_learning_rate_warmup_epochs", 0, nullptr},
      {"POINT_IN_TIME", "opt_learning_rate_warmup_factor", 1.0, nullptr},
      {"POINT_IN_TIME", "opt_learning_rate_decay_boundary_epochs", Json::array(), nullptr},
      {"POINT_IN_TIME", "opt_learning_rate_decay_factor", Json::array(), nullptr},
      {"POINT_IN_TIME", "dropout", 0.5, nullptr},
      {"POINT_IN_TIME", "opt_weight_decay", 0.0, nullptr},
      {"INTERVAL_END", "init_stop", nullptr, nullptr},
      {"INTERVAL_START", "run_start", nullptr, nullptr},
      {"INTERVAL_START", "epoch_start", nullptr, e1},
      {"INTERVAL_START", "eval_start", nullptr, e1},
      {"INTERVAL_END", "eval_stop", nullptr, e1},
      {"POINT_IN_TIME", "eval_error", eval_error, e1},
      {"INTERVAL_END", "epoch_stop", nullptr, e1},
      {"INTERVAL_END", "run_stop", nullptr, {{"status", status}}},
  };
}

std::string Write(const std::vector<Event>& events) {
  MlLogger log(nullptr, [] { return int64_t{1700000000000}; });
  std::string text = "hetbench-train: cosmoflow, batch 2 x 2 ranks (mpi), cpu, synthetic data\n";
  for (const Event& e : events)
    text += log.Format(e.type.c_str(), e.key, e.value, e.metadata, std::source_location::current()) + "\n";
  return text;
}

MllogCheckResult Check(const std::string& text, bool strict = false) {
  std::istringstream in(text);
  MllogCheckOptions o;
  o.strict = strict;
  return CheckMllog(in, "log.txt", o);
}

std::string Failures(const MllogCheckResult& r) {
  std::string s;
  for (const auto& f : r.failures) s += f + "\n";
  return s;
}

TEST(MllogCheck, ATinyRunThatMissedTheTargetAndSaysAbortedPasses) {
  MllogCheckResult r = Check(Write(CosmoflowEvents(0.3, "aborted")));
  EXPECT_TRUE(r.ok()) << Failures(r);
  EXPECT_EQ(r.benchmark, "cosmoflow");
  EXPECT_EQ(r.ruleset, "hpc 3.0.0");
  EXPECT_EQ(r.records, 32u);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_EQ(r.notes[0],
            "log.txt: quality target eval_error <= 0.124 not reached (best 0.3) (a closed result must reach it)");
  // --check-strict: the missed target fails.
  EXPECT_FALSE(Check(Write(CosmoflowEvents(0.3, "aborted")), true).ok());
  EXPECT_TRUE(Check(Write(CosmoflowEvents(0.1, "success")), true).ok());
}

TEST(MllogCheck, SuccessWithoutTheTargetFails) {
  MllogCheckResult r = Check(Write(CosmoflowEvents(0.3, "success")));
  ASSERT_EQ(r.failures.size(), 1u) << Failures(r);
  EXPECT_EQ(r.failures[0],
            "log.txt:33: key 'run_stop': status success, but no evaluation reached the quality target eval_error "
            "<= 0.124 (best 0.3); a missed target is status aborted");
}

TEST(MllogCheck, AFloatWhereTheRulesMeanAnIntegerFails) {
  auto events = CosmoflowEvents(0.1, "success");
  events[7].value = 42.0;  // seed, as mllog's old _try_float wrote it
  MllogCheckResult r = Check(Write(events));
  ASSERT_EQ(r.failures.size(), 1u) << Failures(r);
  EXPECT_EQ(r.failures[0],
            "log.txt:9: key 'seed': expected an integer, got 42.0 (mllog writes integers as integers) "
            "(hpc_3.0.0/closed_cosmoflow.yaml)");
}

TEST(MllogCheck, MissingDuplicatedAndOutOfRangeKeysFail) {
  auto events = CosmoflowEvents(0.1, "success");
  events.erase(events.begin() + 15);             // opt_name
  events[21].value = 1.5;                        // dropout (index shifted by one)
  events.insert(events.begin() + 3, events[3]);  // submission_org twice
  std::string f = Failures(Check(Write(events)));
  EXPECT_NE(f.find("log.txt: key 'opt_name': required exactly once, found 0 (hpc_3.0.0/closed_cosmoflow.yaml)"),
            std::string::npos)
      << f;
  EXPECT_NE(f.find("key 'submission_org': required exactly once, found 2 (hpc_3.0.0/common.yaml)"), std::string::npos)
      << f;
  EXPECT_NE(f.find("key 'dropout': expected in [0, 1), got 1.5"), std::string::npos) << f;
}

TEST(MllogCheck, OrderAndEpochPairingAreChecked) {
  auto events = CosmoflowEvents(0.1, "success");
  std::swap(events[24], events[25]);  // run_start before init_stop
  std::string f = Failures(Check(Write(events)));
  EXPECT_NE(f.find("key 'run_start': run_start must follow init_stop"), std::string::npos) << f;

  events = CosmoflowEvents(0.1, "success");
  events[30].metadata = {{"epoch_num", 2}};  // epoch_stop 2 closes epoch 1
  f = Failures(Check(Write(events)));
  EXPECT_NE(f.find("log.txt:32: key 'epoch_stop': epoch_stop 2 does not close the open epoch (1)"), std::string::npos)
      << f;

  events = CosmoflowEvents(0.1, "success");
  events.insert(events.begin() + 27, {"POINT_IN_TIME", "opt_momentum", 0.8, nullptr});  // after run_start
  f = Failures(Check(Write(events)));
  EXPECT_NE(f.find("key 'opt_momentum': hyperparameters and submission fields belong to init, before run_start"),
            std::string::npos)
      << f;
}

TEST(MllogCheck, BadLinesAndUnknownBenchmarksFailClearly) {
  std::string f = Failures(Check(":::MLLOG {not json\n"));
  EXPECT_NE(f.find("log.txt:1: the line after ':::MLLOG ' is not a JSON object"), std::string::npos) << f;
  EXPECT_EQ(Failures(Check("no log here\n")), "log.txt: no :::MLLOG lines\n");
  auto events = CosmoflowEvents(0.1, "success");
  events[2].value = "bert";
  f = Failures(Check(Write(events)));
  EXPECT_NE(f.find("submission_benchmark 'bert': hetbench checks resnet (training 4.0.0), deepcam and cosmoflow"),
            std::string::npos)
      << f;
}

// Hostile logs: bytes that are not UTF-8, a 1 MiB line, a value of the
// wrong kind where metadata belongs. Each is a FAIL line, never a crash.
TEST(MllogCheck, HostileLinesAreFailuresNotCrashes) {
  std::string bad =
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1, \"event_type\": \"POINT_IN_TIME\", "
      "\"key\": \"submission_org\", \"value\": \"\xff\xfe\", \"metadata\": {}}\n";
  std::string f = Failures(Check(bad));
  EXPECT_NE(f.find("log.txt:1: the line after ':::MLLOG ' is not a JSON object"), std::string::npos) << f;
  std::string huge = ":::MLLOG {\"namespace\": \"" + std::string(1 << 20, 'a') + "\"}\n";
  f = Failures(Check(huge));
  EXPECT_NE(f.find("log.txt:1: expected the fields namespace, time_ms, event_type, key, value, metadata in that order"),
            std::string::npos)
      << f.substr(0, 300);
  EXPECT_LT(f.size(), 2000u) << "the message quotes at most a short prefix";
  auto events = CosmoflowEvents(0.1, "success");
  events[26].metadata = Json::array({1, 2});  // epoch_start's metadata not an object
  f = Failures(Check(Write(events)));
  EXPECT_NE(f.find("key 'epoch_start': metadata needs an integer epoch_num"), std::string::npos) << f;
}

TEST(MllogCheck, ResnetLarsConstantsAreChecked) {
  std::vector<Event> events = CosmoflowEvents(0.1, "success");
  // Turn it into a ResNet-50 log with LARS.
  std::vector<Event> resnet;
  Json e1 = {{"epoch_num", 1}};
  for (const Event& e : events) {
    if (e.key == "submission_benchmark") {
      resnet.push_back({e.type, e.key, "resnet", nullptr});
    } else if (e.key == "gradient_accumulation_frequency") {
      resnet.push_back({e.type, "gradient_accumulation_steps", 1, nullptr});
    } else if (e.key == "opt_name") {
      resnet.push_back({e.type, e.key, "lars", nullptr});
      resnet.push_back({e.type, "lars_opt_base_learning_rate", 10.0, nullptr});
      resnet.push_back({e.type, "lars_opt_end_learning_rate", 0.0001, nullptr});
      resnet.push_back({e.type, "lars_opt_learning_rate_decay_poly_power", 2, nullptr});
      resnet.push_back({e.type, "lars_opt_learning_rate_decay_steps", 20, nullptr});
      resnet.push_back({e.type, "lars_epsilon", 0.0, nullptr});
      resnet.push_back({e.type, "lars_opt_learning_rate_warmup_epochs", 5, nullptr});
      resnet.push_back({e.type, "lars_opt_momentum", 0.9, nullptr});
      resnet.push_back({e.type, "lars_opt_weight_decay", 3e-5, nullptr});  // not 1e-4 x 2^k
    } else if (e.key == "eval_error") {
      resnet.push_back({e.type, "eval_accuracy", 0.2, e1});
    } else if (e.key.rfind("opt_", 0) == 0 || e.key == "dropout" || e.key.rfind("number_of", 0) == 0 ||
               e.key == "accelerators_per_node") {
      continue;
    } else if (e.key == "run_stop") {
      resnet.push_back({e.type, e.key, nullptr, {{"status", "aborted"}}});
    } else {
      resnet.push_back(e);
    }
  }
  MllogCheckResult r = Check(Write(resnet));
  EXPECT_EQ(r.ruleset, "training 4.0.0");
  ASSERT_EQ(r.failures.size(), 1u) << Failures(r);
  EXPECT_NE(r.failures[0].find("key 'lars_opt_weight_decay': expected 0.0001 times a power of two"), std::string::npos);
  EXPECT_NE(r.failures[0].find("(training_3.1.0/closed_resnet_lars.yaml)"), std::string::npos);
}

}  // namespace
}  // namespace hbw::train
