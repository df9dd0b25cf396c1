#include "train/mllog_check.h"

#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

namespace hbw::train {

namespace {

using Json = nlohmann::ordered_json;

enum class Count { kAny, kExactlyOne, kAtLeastOne };
enum class Type { kAny, kInt, kNumber, kBool, kString, kList };
// kRule always fails; kTarget and kDataset are notes unless strict.
enum class Kind { kRule, kTarget, kDataset };

// One fact about a key, from one rule file. `check` returns what was
// expected when the value does not satisfy it.
struct KeyRule {
  std::string key;
  Count count = Count::kAny;
  Type type = Type::kAny;
  std::function<std::optional<std::string>(const Json&)> check;
  std::string source;  // the rule file, e.g. "hpc_3.0.0/closed_deepcam.yaml"
  Kind kind = Kind::kRule;
};

struct Record {
  size_t line = 0;
  std::string key, event;
  int64_t time_ms = 0;
  Json value, metadata;
};

bool IsInt(const Json& v) { return v.is_number_integer() || v.is_number_unsigned(); }
double Num(const Json& v) { return v.is_number() ? v.get<double>() : std::nan(""); }

std::string Dump(const Json& v) {
  std::string s = v.dump();
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

using Check = std::function<std::optional<std::string>(const Json&)>;
Check OneOf(std::set<std::string> allowed) {
  return [allowed](const Json& v) -> std::optional<std::string> {
    if (v.is_string() && allowed.count(v.get<std::string>())) return std::nullopt;
    std::string list;
    for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
    return "one of " + list;
  };
}
Check Where(std::function<bool(double)> ok, std::string what) {
  return [ok, what](const Json& v) -> std::optional<std::string> {
    if (v.is_number() && ok(Num(v))) return std::nullopt;
    return what;
  };
}
Check NonEmpty() {
  return [](const Json& v) -> std::optional<std::string> {
    if (v.is_string() && !v.get<std::string>().empty()) return std::nullopt;
    return "a non-empty string";
  };
}
bool NearInteger(double x) { return std::abs(std::round(x) - x) < 1e-5; }

// The facts of each rule file hetbench-train's logs are checked against,
// written from the MLPerf logging rules (mlcommons/logging,
// mlperf_logging/compliance_checker); docs/benchmarks/train.md lists them.
std::vector<KeyRule> CommonRules(const std::string& dir) {
  const std::string src = dir + "/common.yaml";
  return {
      {"submission_org", Count::kExactlyOne, Type::kString, NonEmpty(), src},
      {"submission_platform", Count::kExactlyOne, Type::kString, NonEmpty(), src},
      {"submission_division", Count::kExactlyOne, Type::kString, OneOf({"closed", "open"}), src},
      {"submission_status", Count::kExactlyOne, Type::kString, OneOf({"cloud", "onprem", "preview", "research"}), src},
      {"cache_clear", Count::kAtLeastOne, Type::kBool, nullptr, src},
      {"init_start", Count::kAtLeastOne, Type::kAny, nullptr, src},
      {"init_stop", Count::kExactlyOne, Type::kAny, nullptr, src},
      {"run_start", Count::kExactlyOne, Type::kAny, nullptr, src},
      {"run_stop", Count::kExactlyOne, Type::kAny, nullptr, src},
      {"epoch_start", Count::kAtLeastOne, Type::kAny, nullptr, src},
      {"epoch_stop", Count::kAtLeastOne, Type::kAny, nullptr, src},
      {"eval_start", Count::kAtLeastOne, Type::kAny, nullptr, src},
      {"eval_stop", Count::kAtLeastOne, Type::kAny, nullptr, src},
      {"train_samples", Count::kExactlyOne, Type::kInt, Where([](double x) { return x > 0; }, "more than 0"), src},
      {"eval_samples", Count::kExactlyOne, Type::kInt, Where([](double x) { return x > 0; }, "more than 0"), src},
  };
}

Check Positive() {
  return Where([](double x) { return x > 0; }, "more than 0");
}
Check AtLeastZero() {
  return Where([](double x) { return x >= 0; }, "at least 0");
}
Check Equals(double want, std::string text) {
  return Where([want](double x) { return std::abs(x - want) <= 1e-12 * std::max(1.0, std::abs(want)); }, text);
}
// lars_opt_weight_decay and sgd_opt_weight_decay: 1e-4 times a power of two.
Check PowerOfTwoTimes1e4() {
  return Where([](double x) { return x > 0 && NearInteger(std::log2(x / 0.0001)); },
               "0.0001 times a power of two (log2(value / 0.0001) an integer)");
}

std::vector<KeyRule> ResnetRules(const std::string& opt_name) {
  const std::string c = "training_4.0.0/closed_common.yaml", r = "training_4.0.0/closed_resnet.yaml";
  std::vector<KeyRule> rules = {
      {"submission_benchmark", Count::kExactlyOne, Type::kString, OneOf({"resnet"}), c},
      {"gradient_accumulation_steps", Count::kExactlyOne, Type::kInt, Positive(), c},
      {"global_batch_size", Count::kExactlyOne, Type::kInt, Positive(), r},
      {"opt_name", Count::kExactlyOne, Type::kString, OneOf({"sgd", "lars"}), r},
      {"eval_accuracy", Count::kAtLeastOne, Type::kNumber, nullptr, r},
      {"seed", Count::kAny, Type::kInt, nullptr, r},
  };
  // closed_resnet.yaml goes on to training_3.1.0's optimizer file.
  if (opt_name == "lars") {
    const std::string l = "training_3.1.0/closed_resnet_lars.yaml";
    rules.insert(rules.end(),
                 {
                     {"lars_opt_base_learning_rate", Count::kExactlyOne, Type::kNumber, Positive(), l},
                     {"lars_opt_end_learning_rate", Count::kExactlyOne, Type::kNumber, Equals(0.0001, "0.0001"), l},
                     {"lars_opt_learning_rate_decay_poly_power", Count::kExactlyOne, Type::kInt, Equals(2, "2"), l},
                     {"lars_opt_learning_rate_decay_steps", Count::kExactlyOne, Type::kInt, AtLeastZero(), l},
                     {"lars_epsilon", Count::kExactlyOne, Type::kNumber, Equals(0, "0.0"), l},
                     {"lars_opt_learning_rate_warmup_epochs", Count::kExactlyOne, Type::kNumber, AtLeastZero(), l},
                     {"lars_opt_momentum", Count::kExactlyOne, Type::kNumber, nullptr, l},
                     {"lars_opt_weight_decay", Count::kExactlyOne, Type::kNumber, PowerOfTwoTimes1e4(), l},
                     {"model_bn_span", Count::kAny, Type::kInt, nullptr, l},
                 });
  } else if (opt_name == "sgd") {
    const std::string g = "training_3.1.0/closed_resnet_sgd.yaml";
    rules.insert(rules.end(),
                 {
                     {"sgd_opt_base_learning_rate", Count::kExactlyOne, Type::kNumber,
                      Where([](double x) { return NearInteger(x / 0.001); }, "a multiple of 0.001"), g},
                     {"sgd_opt_end_learning_rate", Count::kExactlyOne, Type::kNumber, Equals(0.0001, "0.0001"), g},
                     {"sgd_opt_learning_rate_decay_poly_power", Count::kExactlyOne, Type::kNumber, nullptr, g},
                     {"sgd_opt_learning_rate_decay_steps", Count::kExactlyOne, Type::kInt, nullptr, g},
                     {"sgd_opt_weight_decay", Count::kExactlyOne, Type::kNumber, PowerOfTwoTimes1e4(), g},
                     {"sgd_opt_momentum", Count::kExactlyOne, Type::kNumber, nullptr, g},
                     {"model_bn_span", Count::kExactlyOne, Type::kInt, nullptr, g},
                     {"opt_learning_rate_warmup_epochs", Count::kExactlyOne, Type::kNumber, nullptr, g},
                 });
  }
  return rules;
}

std::vector<KeyRule> HpcClosedCommon() {
  const std::string c = "hpc_3.0.0/closed_common.yaml";
  return {
      {"submission_benchmark", Count::kExactlyOne, Type::kString, OneOf({"deepcam", "cosmoflow"}), c},
      {"gradient_accumulation_frequency", Count::kAny, Type::kInt, Positive(), c},
      {"number_of_nodes", Count::kExactlyOne, Type::kInt, Positive(), c},
      {"accelerators_per_node", Count::kExactlyOne, Type::kInt, AtLeastZero(), c},
      {"number_of_ranks", Count::kAny, Type::kInt, Positive(), c},
  };
}

std::vector<KeyRule> DeepcamRules(const std::string& scheduler) {
  const std::string d = "hpc_3.0.0/closed_deepcam.yaml";
  std::vector<KeyRule> rules = {
      {"gradient_accumulation_frequency", Count::kExactlyOne, Type::kInt, Positive(), d},
      {"seed", Count::kExactlyOne, Type::kInt, Positive(), d},
      {"global_batch_size", Count::kExactlyOne, Type::kInt, Positive(), d},
      {"batchnorm_group_size", Count::kExactlyOne, Type::kInt, Positive(), d},
      {"opt_name", Count::kExactlyOne, Type::kString, OneOf({"Adam", "AdamW", "LAMB"}), d},
      {"opt_lr", Count::kExactlyOne, Type::kNumber, Positive(), d},
      {"opt_betas", Count::kExactlyOne, Type::kList,
       [](const Json& v) -> std::optional<std::string> {
         if (v.is_array() && v.size() == 2) return std::nullopt;
         return "a list of two numbers";
       },
       d},
      {"opt_eps", Count::kExactlyOne, Type::kNumber,
       Where([](double x) { return std::abs(x - 1e-6) <= 1e-9 * 1e-6; }, "1e-06"), d},
      {"opt_amsgrad", Count::kAny, Type::kBool, nullptr, d},
      {"scheduler_type", Count::kExactlyOne, Type::kString, OneOf({"multistep", "cosine_annealing"}), d},
      {"scheduler_lr_warmup_steps", Count::kExactlyOne, Type::kInt, AtLeastZero(), d},
      {"scheduler_lr_warmup_factor", Count::kExactlyOne, Type::kNumber,
       Where([](double x) { return x >= 1; }, "at least 1.0"), d},
      {"train_samples", Count::kExactlyOne, Type::kInt, Equals(121266, "121266, the full DeepCAM training set"), d,
       Kind::kDataset},
      {"eval_samples", Count::kExactlyOne, Type::kInt, Equals(15158, "15158, the full DeepCAM validation set"), d,
       Kind::kDataset},
      {"eval_accuracy", Count::kAtLeastOne, Type::kNumber, nullptr, d},
  };
  if (scheduler == "multistep") {
    const std::string m = "hpc_3.0.0/closed_deepcam_multistep.yaml";
    rules.insert(rules.end(), {
                                  {"scheduler_milestones", Count::kExactlyOne, Type::kList, nullptr, m},
                                  {"scheduler_decay_rate", Count::kExactlyOne, Type::kNumber,
                                   Where([](double x) { return x <= 1; }, "at most 1.0"), m},
                              });
  }
  return rules;
}

std::vector<KeyRule> CosmoflowRules() {
  const std::string c = "hpc_3.0.0/closed_cosmoflow.yaml";
  return {
      {"global_batch_size", Count::kExactlyOne, Type::kInt, Positive(), c},
      {"seed", Count::kAny, Type::kInt, nullptr, c},
      {"opt_name", Count::kExactlyOne, Type::kString, OneOf({"sgd", "SGD"}), c},
      {"opt_base_learning_rate", Count::kExactlyOne, Type::kNumber, AtLeastZero(), c},
      {"opt_momentum", Count::kAny, Type::kNumber, nullptr, c},
      {"opt_learning_rate_warmup_epochs", Count::kExactlyOne, Type::kInt, AtLeastZero(), c},
      {"opt_learning_rate_warmup_factor", Count::kExactlyOne, Type::kNumber, AtLeastZero(), c},
      {"opt_learning_rate_decay_boundary_epochs", Count::kExactlyOne, Type::kList, nullptr, c},
      {"opt_learning_rate_decay_factor", Count::kExactlyOne, Type::kAny, nullptr, c},
      {"dropout", Count::kAny, Type::kNumber, Where([](double x) { return x >= 0 && x < 1; }, "in [0, 1)"), c},
      {"opt_weight_decay", Count::kAny, Type::kNumber, AtLeastZero(), c},
      {"eval_error", Count::kAtLeastOne, Type::kNumber, nullptr, c},
  };
}

const char* TypeName(Type t) {
  switch (t) {
    case Type::kInt:
      return "an integer";
    case Type::kNumber:
      return "a number";
    case Type::kBool:
      return "true or false";
    case Type::kString:
      return "a string";
    case Type::kList:
      return "a list";
    case Type::kAny:
      return "anything";
  }
  return "";
}

bool HasType(const Json& v, Type t) {
  switch (t) {
    case Type::kInt:
      return IsInt(v);
    case Type::kNumber:
      return v.is_number();
    case Type::kBool:
      return v.is_boolean();
    case Type::kString:
      return v.is_string();
    case Type::kList:
      return v.is_array();
    case Type::kAny:
      return true;
  }
  return false;
}

class Checker {
 public:
  Checker(const std::string& file, const MllogCheckOptions& o, MllogCheckResult* r) : file_(file), opt_(o), r_(r) {}

  void Parse(std::istream& in) {
    std::string text;
    size_t n = 0;
    while (std::getline(in, text)) {
      ++n;
      const size_t at = text.find(":::MLLOG ");
      if (at == std::string::npos) continue;
      ++r_->records;
      Json j = Json::parse(text.substr(at + 9), nullptr, false);
      if (j.is_discarded() || !j.is_object()) {
        Fail(n, "the line after ':::MLLOG ' is not a JSON object");
        continue;
      }
      static const char* kFields[] = {"namespace", "time_ms", "event_type", "key", "value", "metadata"};
      size_t k = 0;
      bool fields_ok = j.size() == 6;
      for (auto it = j.begin(); fields_ok && it != j.end(); ++it, ++k) fields_ok = it.key() == kFields[k];
      if (!fields_ok) {
        Fail(n,
             "expected the fields namespace, time_ms, event_type, key, value, metadata in that order, got " + Dump(j));
        continue;
      }
      Record rec;
      rec.line = n;
      if (!j["key"].is_string() || !j["event_type"].is_string() || !IsInt(j["time_ms"])) {
        Fail(n, "key and event_type must be strings and time_ms an integer (milliseconds)");
        continue;
      }
      rec.key = j["key"].get<std::string>();
      rec.event = j["event_type"].get<std::string>();
      rec.time_ms = j["time_ms"].get<int64_t>();
      rec.value = j["value"];
      rec.metadata = j["metadata"];
      if (rec.event != "POINT_IN_TIME" && rec.event != "INTERVAL_START" && rec.event != "INTERVAL_END")
        Fail(n, "key '" + rec.key + "': event_type must be POINT_IN_TIME, INTERVAL_START or INTERVAL_END, got '" +
                    rec.event + "'");
      if (!rec.metadata.is_object() || !rec.metadata.contains("file") || !rec.metadata.contains("lineno"))
        Fail(n, "key '" + rec.key + "': metadata must be an object starting with the call site (file, lineno)");
      records_.push_back(std::move(rec));
    }
  }

  void Run() {
    std::string benchmark = ValueOf("submission_benchmark");
    r_->benchmark = benchmark;
    std::vector<KeyRule> rules;
    if (benchmark == "resnet") {
      r_->ruleset = "training 4.0.0";
      rules = CommonRules("training_4.0.0");
      Append(&rules, ResnetRules(ValueOf("opt_name")));
      target_key_ = "eval_accuracy";
      target_ = QualityTarget("resnet50");
    } else if (benchmark == "deepcam" || benchmark == "cosmoflow") {
      r_->ruleset = "hpc 3.0.0";
      rules = CommonRules("hpc_3.0.0");
      Append(&rules, HpcClosedCommon());
      Append(&rules, benchmark == "deepcam" ? DeepcamRules(ValueOf("scheduler_type")) : CosmoflowRules());
      target_key_ = benchmark == "deepcam" ? "eval_accuracy" : "eval_error";
      target_ = QualityTarget(benchmark);
    } else {
      Fail(0, benchmark.empty() ? "no submission_benchmark: the benchmark decides the rules"
                                : "submission_benchmark '" + benchmark +
                                      "': hetbench checks resnet (training 4.0.0), deepcam and cosmoflow (hpc 3.0.0)");
      return;
    }
    // A key named by several files is checked against each; the later
    // file's count requirement is the stricter one here.
    std::map<std::string, std::vector<const KeyRule*>> by_key;
    for (const auto& rule : rules) by_key[rule.key].push_back(&rule);
    std::map<std::string, size_t> seen;
    for (const Record& rec : records_) {
      ++seen[rec.key];
      auto it = by_key.find(rec.key);
      if (it == by_key.end()) continue;
      for (const KeyRule* rule : it->second) CheckValue(rec, *rule);
    }
    for (const auto& [key, list] : by_key)
      for (const KeyRule* rule : list) {
        size_t n = seen.count(key) ? seen[key] : 0;
        if (rule->count == Count::kExactlyOne && n != 1)
          Report(*rule, 0,
                 "key '" + key + "': required exactly once, found " + std::to_string(n) + " (" + rule->source + ")");
        if (rule->count == Count::kAtLeastOne && n == 0)
          Report(*rule, 0, "key '" + key + "': required at least once, not found (" + rule->source + ")");
      }
    CheckOrder();
    CheckTarget();
  }

 private:
  static void Append(std::vector<KeyRule>* to, std::vector<KeyRule> more) {
    for (auto& r : more) to->push_back(std::move(r));
  }

  std::string ValueOf(const std::string& key) const {
    for (const Record& r : records_)
      if (r.key == key && r.value.is_string()) return r.value.get<std::string>();
    return "";
  }

  void Fail(size_t line, const std::string& what) {
    r_->failures.push_back(file_ + (line ? ":" + std::to_string(line) : "") + ": " + what);
  }

  void Report(const KeyRule& rule, size_t line, const std::string& what) {
    if (rule.kind == Kind::kRule || opt_.strict) {
      Fail(line, what);
      return;
    }
    const char* why = rule.kind == Kind::kDataset ? "holds only on the full dataset" : "a closed result must reach it";
    r_->notes.push_back(file_ + (line ? ":" + std::to_string(line) : "") + ": " + what + " (" + why + ")");
  }

  void CheckValue(const Record& rec, const KeyRule& rule) {
    const std::string where = "key '" + rec.key + "': ";
    if (!HasType(rec.value, rule.type)) {
      Fail(rec.line,
           where + "expected " + TypeName(rule.type) + ", got " + Dump(rec.value) +
               (rule.type == Type::kInt && rec.value.is_number_float() ? " (mllog writes integers as integers)" : "") +
               " (" + rule.source + ")");
      return;
    }
    if (rule.check)
      if (auto want = rule.check(rec.value))
        Report(rule, rec.line, where + "expected " + *want + ", got " + Dump(rec.value) + " (" + rule.source + ")");
  }

  // The order of the run and its epochs; hyperparameters at init.
  void CheckOrder() {
    int phase = 0;  // 0 before init_stop, 1 after init_stop, 2 after run_start, 3 after run_stop
    int64_t first_init = -1;
    int epoch = 0;       // the epoch open now, 0: none
    int last_epoch = 0;  // the last epoch closed
    bool in_eval = false;
    for (const Record& r : records_) {
      const std::string& k = r.key;
      auto epoch_num = [&]() -> std::optional<int64_t> {
        if (!r.metadata.is_object() || !r.metadata.contains("epoch_num") || !IsInt(r.metadata["epoch_num"])) {
          Fail(r.line, "key '" + k + "': metadata needs an integer epoch_num");
          return std::nullopt;
        }
        return r.metadata["epoch_num"].get<int64_t>();
      };
      auto expect = [&](bool ok, const std::string& what) {
        if (!ok) Fail(r.line, "key '" + k + "': " + what);
      };
      if (k == "init_start") {
        expect(phase == 0, "init_start after init_stop or run_start");
        if (first_init < 0) first_init = r.time_ms;
        expect(r.event == "INTERVAL_START", "expected an INTERVAL_START");
      } else if (k == "init_stop") {
        expect(phase == 0 && first_init >= 0, "init_stop must follow init_start and come before run_start");
        expect(first_init < 0 || r.time_ms - first_init < 30 * 60 * 1000,
               "init took longer than the 30 minutes the rules allow");
        expect(r.event == "INTERVAL_END", "expected an INTERVAL_END");
        phase = 1;
      } else if (k == "run_start") {
        expect(phase == 1, "run_start must follow init_stop");
        expect(r.event == "INTERVAL_START", "expected an INTERVAL_START");
        phase = 2;
      } else if (k == "run_stop") {
        expect(phase == 2, "run_stop must follow run_start");
        expect(r.event == "INTERVAL_END", "expected an INTERVAL_END");
        std::string status = r.metadata.is_object() && r.metadata.contains("status") && r.metadata["status"].is_string()
                                 ? r.metadata["status"].get<std::string>()
                                 : "";
        expect(status == "success" || status == "aborted", "metadata status must be success or aborted");
        run_stop_status_ = status;
        run_stop_line_ = r.line;
        phase = 3;
      } else if (k == "epoch_start") {
        expect(phase == 2, "epochs belong between run_start and run_stop");
        if (auto n = epoch_num()) {
          expect(epoch == 0,
                 "epoch " + std::to_string(*n) + " starts before epoch " + std::to_string(epoch) + " stopped");
          expect(*n > last_epoch,
                 "epoch numbers must increase, got " + std::to_string(*n) + " after " + std::to_string(last_epoch));
          epoch = static_cast<int>(*n);
        }
      } else if (k == "epoch_stop") {
        if (auto n = epoch_num()) {
          expect(*n == epoch,
                 "epoch_stop " + std::to_string(*n) + " does not close the open epoch (" + std::to_string(epoch) + ")");
          last_epoch = static_cast<int>(*n);
          epoch = 0;
        }
      } else if (k == "eval_start" || k == "eval_stop") {
        expect(phase == 2, "evaluations belong between run_start and run_stop");
        if (epoch_num()) {
          expect(k == "eval_start" ? !in_eval : in_eval,
                 k == "eval_start" ? "eval_start while an evaluation is open" : "eval_stop without eval_start");
          in_eval = k == "eval_start";
        }
      } else if (k == "eval_accuracy" || k == "eval_error") {
        expect(phase == 2, "evaluation results belong between run_start and run_stop");
        epoch_num();
        if (k == target_key_ && r.value.is_number()) {
          const double v = Num(r.value);
          const bool reached = k == "eval_error" ? v > 0 && v <= target_ : v >= target_ && v <= 1.0;
          if (reached) reached_ = true;
          if (std::isnan(best_) || (k == "eval_error" ? v < best_ : v > best_)) best_ = v;
        }
      } else if (k.rfind("staging_", 0) != 0 && k.rfind("block_", 0) != 0) {
        expect(phase <= 1, "hyperparameters and submission fields belong to init, before run_start");
        expect(r.event == "POINT_IN_TIME", "expected a POINT_IN_TIME event");
      }
    }
    if (phase < 3) Fail(0, "the log ends before run_stop");
  }

  void CheckTarget() {
    const std::string what = target_key_ + (target_key_ == "eval_error" ? " <= " : " >= ");
    char target[32];
    std::snprintf(target, sizeof(target), "%g", target_);
    char best[48] = "no evaluation";
    if (!std::isnan(best_)) std::snprintf(best, sizeof(best), "best %g", best_);
    if (run_stop_status_ == "success" && !reached_)
      Fail(run_stop_line_, "key 'run_stop': status success, but no evaluation reached the quality target " + what +
                               target + " (" + best + "); a missed target is status aborted");
    if (!reached_) {
      KeyRule target_rule;
      target_rule.kind = Kind::kTarget;
      Report(target_rule, 0, "quality target " + what + target + " not reached (" + best + ")");
    }
  }

  std::string file_;
  MllogCheckOptions opt_;
  MllogCheckResult* r_;
  std::vector<Record> records_;
  std::string target_key_;
  double target_ = 0, best_ = std::nan("");
  bool reached_ = false;
  std::string run_stop_status_;
  size_t run_stop_line_ = 0;
};

}  // namespace

double QualityTarget(const std::string& model) {
  if (model == "resnet50" || model == "resnet") return 0.759;  // training_4.0.0 closed_resnet.yaml
  if (model == "deepcam") return 0.82;                         // hpc_3.0.0 closed_deepcam.yaml
  return 0.124;                                                // cosmoflow: hpc_3.0.0 closed_cosmoflow.yaml
}

MllogCheckResult CheckMllog(std::istream& in, const std::string& file, const MllogCheckOptions& options) {
  MllogCheckResult result;
  Checker c(file, options, &result);
  c.Parse(in);
  if (result.records == 0) {
    result.failures.push_back(file + ": no :::MLLOG lines");
    return result;
  }
  c.Run();
  return result;
}

}  // namespace hbw::train
