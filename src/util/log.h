// The main log: records of why hetbench did what it did, for `-v` and the
// log file (ReFrame's `logging/handlers`): the configuration files read,
// the system chosen, the cases each filter dropped, the test files
// skipped, every scheduler command with its exit status and duration.
//
// Any layer writes a record with LogRecord(level, text); where records go
// is set once by the command (results/main_log.h installs the sinks: the
// terminal at the -v level, <prefix>/hetbench.log, the configuration's
// `file` and `stream` handlers). With no sink a record costs one check.
// Levels are ReFrame's numbers: error 40, warning 30, info 20, verbose 19,
// debug 10, debug2 9; a sink takes the records at or above its level.
// Thread-safe.
#pragma once

#include <functional>
#include <string>

namespace hb {

enum LogLevel : int {
  kLogError = 40,
  kLogWarning = 30,
  kLogInfo = 20,
  kLogVerbose = 19,
  kLogDebug = 10,
  kLogDebug2 = 9,
};

// "error", "warning", "info", "verbose", "debug", "debug2".
const char* LogLevelName(int level);

// One record: its level, the time (seconds since the epoch) and the text.
using LogSink = std::function<void(int level, double time, const std::string& text)>;

// Adds a sink for the records at or above `level`.
void AddLogSink(int level, LogSink sink);
// Removes every sink (tests; the end of a command).
void ClearLogSinks();
// True when some sink takes records of `level` (to skip building text).
bool LogEnabled(int level);
void LogRecord(int level, const std::string& text);

}  // namespace hb
