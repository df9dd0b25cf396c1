// MlLogger writes MLPerf logging lines, byte-compatible with the reference
// logger (mlcommons/logging, mlperf_logging/mllog/mllog.py):
//
//   :::MLLOG {"namespace": "", "time_ms": 1700000000000, "event_type": "POINT_IN_TIME",
//             "key": "seed", "value": 42, "metadata": {"file": "trainer.cc", "lineno": 120}}
//
// (one line). As there, the keys come in that order, the separators are
// Python json.dumps's (", " and ": "), the call site comes first in the
// metadata, and the value is written as json.dumps writes it: integers as
// integers, booleans as true/false, floats with Python's repr (1.0,
// 1e-06). The compliance checker (mlperf_logging/compliance_checker,
// mlp_parser) reads exactly this.
//
// The logger is owned by the training loop and is not thread-safe. A logger
// made with a null FILE* writes nothing (ranks other than 0, --no-breakdown).
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <source_location>
#include <string>

#include <nlohmann/json.hpp>

namespace hbw::train {

class MlLogger {
 public:
  using Json = nlohmann::ordered_json;
  using Clock = std::function<int64_t()>;  // milliseconds since the Unix epoch

  explicit MlLogger(std::FILE* out, Clock clock = {});

  bool enabled() const { return out_ != nullptr; }

  // POINT_IN_TIME, INTERVAL_START and INTERVAL_END events. metadata is an
  // object (e.g. {"epoch_num": 1}) or null.
  void Event(const std::string& key, const Json& value = nullptr, const Json& metadata = nullptr,
             std::source_location at = std::source_location::current());
  void Start(const std::string& key, const Json& metadata = nullptr,
             std::source_location at = std::source_location::current());
  void End(const std::string& key, const Json& metadata = nullptr,
           std::source_location at = std::source_location::current());

  // The line (without the newline) for one event; the logger's clock.
  std::string Format(const char* event_type, const std::string& key, const Json& value, const Json& metadata,
                     const std::source_location& at) const;

 private:
  void Write(const char* event_type, const std::string& key, const Json& value, const Json& metadata,
             const std::source_location& at);

  std::FILE* out_;
  Clock clock_;
};

// JSON as Python's json.dumps writes it (", " and ": " separators, ASCII).
std::string PythonJsonDump(const nlohmann::ordered_json& j);

}  // namespace hbw::train
