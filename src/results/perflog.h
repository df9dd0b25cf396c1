// Perflog: the performance log ReFrame's `filelog` handler writes, byte for
// byte, so that tools reading ReFrame perflogs read ours, in the format the
// configuration gives (FilelogConfig) or ReFrame's builtin one.
//
// Layout (reframe/core/logging.py, MultiFileHandler, ReFrame 4.3+): one
// file per test, <basedir>/<prefix>/<test base name>.log, the prefix a
// folder template (builtin '%(check_system)s/%(check_partition)s') and the
// base name the test's name without parameters (every variant appends to
// the same file). The first line is a header derived from the format; then
// one line per record. When the header a record needs differs from the
// first line of the existing file (new parameters, new performance
// variables, another format), the old file is renamed <name>.log.h<N>, N
// the first free number, and a new file is started. `append: false` starts
// each file afresh the first time a handler writes to it in a run (ReFrame
// opens it with 'w+'; where ReFrame then leaves a file of the same header
// without its header line, hetbench writes the header).
//
// Format (reframe/core/settings.py, ReFrame 4.x builtin configuration;
// datefmt from reframe/schemas/config.json "logging/handlers*/*_datefmt"):
//   format:          %(check_result)s|%(check_job_completion_time)s|%(check_#ALL)s
//   format_perfvars: %(check_perf_value)s|%(check_perf_unit)s|%(check_perf_ref)s|
//                    %(check_perf_lower_thres)s|%(check_perf_upper_thres)s|
//   datefmt:         %FT%T   (strftime, with ReFrame's %:z and datetime's %f)
// %(check_#ALL)s stands for every loggable attribute of the test, sorted,
// less `ignore_keys`; %(check_perfvalues)s for one format_perfvars group
// per variable. An example from ReFrame's tutorial (docs/tutorial.rst):
//   result|job_completion_time|descr|env_vars|environ|exclusive_access|...
//   pass|2024-02-21T22:51:16||{}|gnu|false|{}|1708555876.746763|null|...
// Values render as ReFrame's CheckFieldFormatter renders them: check_*
// attributes with _xfmt (strings as is, lists joined with ',', other values
// as json.dumps: null, false, {}), other attributes and the format_perfvars
// fields as Python's %s (None, 0, 21116.7); a name the record lacks is
// null (check_*) or None. With `multiline` (logging.perflog_multiline, or
// the older perflog_compat) each performance variable is a record of its
// own, with check_perf_var, check_perf_value, ... set (ReFrame before 4.0).
//
// A record is written only for a case that reached the performance stage
// (passed, or failed there). Appends are safe across processes: each record
// is one write() under an flock, and a new file appears atomically with its
// header (link(2)).
//
// Functions of their arguments (and of the clock and the process's group,
// for asctime, created and osgroup), but for FilelogHandler (one per
// configured handler, owned by PerflogHandlers; one thread) and
// AppendPerflog, which write files.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/case_result.h"
#include "util/status.h"

namespace hb {

// How a handler formats records; the defaults are ReFrame 4's builtin ones.
struct PerflogFormat {
  std::string format = "%(check_result)s|%(check_job_completion_time)s|%(check_#ALL)s";
  std::string format_perfvars =
      "%(check_perf_value)s|%(check_perf_unit)s|%(check_perf_ref)s|"
      "%(check_perf_lower_thres)s|%(check_perf_upper_thres)s|";
  std::string datefmt = "%FT%T";
  std::vector<std::string> ignore_keys = {"check_build_locally",   "check_build_time_limit",
                                          "check_display_name",    "check_executable",
                                          "check_executable_opts", "check_hashcode",
                                          "check_keep_files",      "check_local",
                                          "check_maintainers",     "check_max_pending_time",
                                          "check_outputdir",       "check_prebuild_cmds",
                                          "check_prefix",          "check_prerun_cmds",
                                          "check_postbuild_cmds",  "check_postrun_cmds",
                                          "check_readonly_files",  "check_sourcepath",
                                          "check_sourcesdir",      "check_stagedir",
                                          "check_strict_check",    "check_tags",
                                          "check_time_limit",      "check_valid_prog_environs",
                                          "check_valid_systems",   "check_variables"};
  bool multiline = false;  // one record per performance variable
};

// An error naming what `fmt` asks for that hetbench cannot write as ReFrame
// would: a placeholder other than %(name)s or %%; an attribute hetbench
// does not record (check_executable, lineno, ...), named or within
// %(check_#ALL)s and not in ignore_keys; a format_perfvars name other than
// check_perf_*. Messages start with the key ("format: ...").
Status CheckPerflogFormat(const PerflogFormat& fmt);

// Every attribute of the case's log record by name, typed as ReFrame has
// them (numbers, booleans, lists, null): the loggable attributes, the
// parameters and loggable variables (check_<name>), check_result,
// check_info, check_fail_phase, check_fail_reason,
// check_job_completion_time (as '%FT%T%:z'), version, hostname, osuser,
// osgroup and message ("sent by <user>"). check_perfvalues is "": each
// handler renders the performance values its own way. The filelog and
// syslog handlers render these with ReFrame's _xfmt; httpjson sends them
// as JSON.
using PerflogAttrs = std::map<std::string, nlohmann::ordered_json>;
PerflogAttrs PerflogAttributes(const SessionInfo& session, const CaseResult& c);

// True when ReFrame would log the case: it has performance values and it
// passed, or failed in the performance stage.
bool ShouldLogPerformance(const CaseResult& c);

// <basedir>/<system>/<partition>/<name>.log: the builtin prefix's file.
std::string PerflogPath(const std::string& basedir, const CaseResult& c);
// The header line and the record lines for `c`, without newlines: one
// record, or one per performance variable when fmt.multiline.
std::string PerflogHeader(const PerflogFormat& fmt, const CaseResult& c);
std::vector<std::string> PerflogRecords(const PerflogFormat& fmt, const SessionInfo& session, const CaseResult& c);
// The one record of a format without `multiline`.
std::string PerflogRecord(const PerflogFormat& fmt, const SessionInfo& session, const CaseResult& c);

// One `filelog` handler as configured (logging/handlers_perflog); the
// defaults are ReFrame's builtin handler.
struct FilelogConfig {
  PerflogFormat fmt;
  std::string basedir = "perflogs";  // absolute in use; PerflogHandlers resolves it
  std::string prefix = "%(check_system)s/%(check_partition)s";
  bool append = true;
};

// CheckPerflogFormat, and for `prefix`: only %(name)s of a text or number
// attribute known before the record is formatted (so not message, asctime,
// check_tags, ...), as ReFrame fills it from the raw record ("prefix: ...").
Status CheckFilelogConfig(const FilelogConfig& cfg);

// Writes the records of one filelog handler. Not thread-safe.
class FilelogHandler {
 public:
  explicit FilelogHandler(FilelogConfig cfg) : cfg_(std::move(cfg)) {}
  // Appends c's records (creating or rotating the file as described above);
  // does nothing for a case that should not be logged. A prefix naming a
  // check_ attribute this case lacks is an error, as in ReFrame.
  Status Log(const SessionInfo& session, const CaseResult& c);
  const FilelogConfig& config() const { return cfg_; }

 private:
  FilelogConfig cfg_;
  std::set<std::string> started_;  // files begun afresh (append: false)
};

// Appends with the builtin handler at `basedir` (or with `fmt`).
Status AppendPerflog(const std::string& basedir, const SessionInfo& session, const CaseResult& c);
Status AppendPerflog(const std::string& basedir, const SessionInfo& session, const CaseResult& c,
                     const PerflogFormat& fmt);

}  // namespace hb
