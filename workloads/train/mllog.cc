#include "train/mllog.h"

#include <chrono>
#include <cstring>

namespace hbw::train {

namespace {

int64_t SystemClockMs() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

// The call site as mllog's get_caller reports it; hetbench trims the
// directories as mllog does with root_dir.
std::string FileName(const std::source_location& at) {
  const char* slash = std::strrchr(at.file_name(), '/');
  return slash ? slash + 1 : at.file_name();
}

}  // namespace

std::string PythonJsonDump(const nlohmann::ordered_json& j) {
  std::string out;
  if (j.is_object()) {
    out += '{';
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it != j.begin()) out += ", ";
      out += nlohmann::ordered_json(it.key()).dump(-1, ' ', true);
      out += ": ";
      out += PythonJsonDump(it.value());
    }
    return out + '}';
  }
  if (j.is_array()) {
    out += '[';
    for (size_t i = 0; i < j.size(); ++i) out += (i ? ", " : "") + PythonJsonDump(j[i]);
    return out + ']';
  }
  return j.dump(-1, ' ', true);
}

MlLogger::MlLogger(std::FILE* out, Clock clock) : out_(out), clock_(clock ? std::move(clock) : SystemClockMs) {}

std::string MlLogger::Format(const char* event_type, const std::string& key, const Json& value, const Json& metadata,
                             const std::source_location& at) const {
  Json meta = {{"file", FileName(at)}, {"lineno", at.line()}};
  if (metadata.is_object())
    for (auto it = metadata.begin(); it != metadata.end(); ++it) meta[it.key()] = it.value();
  Json line = {{"namespace", ""}, {"time_ms", clock_()}, {"event_type", event_type},
               {"key", key},      {"value", value},      {"metadata", meta}};
  return ":::MLLOG " + PythonJsonDump(line);
}

void MlLogger::Write(const char* event_type, const std::string& key, const Json& value, const Json& metadata,
                     const std::source_location& at) {
  if (!out_) return;
  std::string line = Format(event_type, key, value, metadata, at);
  std::fprintf(out_, "%s\n", line.c_str());
  std::fflush(out_);
}

void MlLogger::Event(const std::string& key, const Json& value, const Json& metadata, std::source_location at) {
  Write("POINT_IN_TIME", key, value, metadata, at);
}

void MlLogger::Start(const std::string& key, const Json& metadata, std::source_location at) {
  Write("INTERVAL_START", key, nullptr, metadata, at);
}

void MlLogger::End(const std::string& key, const Json& metadata, std::source_location at) {
  Write("INTERVAL_END", key, nullptr, metadata, at);
}

}  // namespace hbw::train
