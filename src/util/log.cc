#include "util/log.h"

#include <chrono>
#include <climits>
#include <mutex>
#include <utility>
#include <vector>

namespace hb {

namespace {

struct Sinks {
  std::mutex mu;
  std::vector<std::pair<int, LogSink>> sinks;
  int lowest = INT_MAX;  // the lowest level any sink takes
};

Sinks& Global() {
  static Sinks* s = new Sinks;  // never destroyed: records may come late in exit
  return *s;
}

}  // namespace

const char* LogLevelName(int level) {
  if (level >= kLogError) return "error";
  if (level >= kLogWarning) return "warning";
  if (level >= kLogInfo) return "info";
  if (level >= kLogVerbose) return "verbose";
  if (level >= kLogDebug) return "debug";
  return "debug2";
}

void AddLogSink(int level, LogSink sink) {
  Sinks& g = Global();
  std::lock_guard<std::mutex> lock(g.mu);
  g.sinks.emplace_back(level, std::move(sink));
  if (level < g.lowest) g.lowest = level;
}

void ClearLogSinks() {
  Sinks& g = Global();
  std::lock_guard<std::mutex> lock(g.mu);
  g.sinks.clear();
  g.lowest = INT_MAX;
}

bool LogEnabled(int level) {
  Sinks& g = Global();
  std::lock_guard<std::mutex> lock(g.mu);
  return level >= g.lowest;
}

void LogRecord(int level, const std::string& text) {
  Sinks& g = Global();
  std::lock_guard<std::mutex> lock(g.mu);
  if (level < g.lowest) return;
  using namespace std::chrono;
  double now = duration<double>(system_clock::now().time_since_epoch()).count();
  for (auto& [min, sink] : g.sinks)
    if (level >= min) sink(level, now, text);
}

}  // namespace hb
