// Perflog: the performance log ReFrame's `filelog` handler writes, byte for
// byte, so that tools reading ReFrame perflogs read ours.
//
// Layout (reframe/core/logging.py, MultiFileHandler, ReFrame 4.3+): one
// file per test, <basedir>/<system>/<partition>/<test base name>.log, the
// base name being the test's name without parameters (every variant appends
// to the same file). The first line is a header derived from the format;
// then one line per test case. When the header a case needs differs from
// the first line of the existing file (new parameters, new performance
// variables), the old file is renamed <name>.log.h<N>, N the first free
// number, and a new file is started.
//
// Format (reframe/core/settings.py, ReFrame 4.x builtin configuration;
// datefmt from reframe/schemas/config.json "logging/handlers*/*_datefmt"):
//   format:          %(check_result)s|%(check_job_completion_time)s|%(check_#ALL)s
//   format_perfvars: %(check_perf_value)s|%(check_perf_unit)s|%(check_perf_ref)s|
//                    %(check_perf_lower_thres)s|%(check_perf_upper_thres)s|
//   datefmt:         %FT%T
// %(check_#ALL)s stands for every loggable attribute of the test, sorted,
// less `ignore_keys`; %(check_perfvalues)s for one format_perfvars group
// per variable. An example from ReFrame's tutorial (docs/tutorial.rst):
//   result|job_completion_time|descr|env_vars|environ|exclusive_access|...
//   pass|2024-02-21T22:51:16||{}|gnu|false|{}|1708555876.746763|null|...
// Values render as ReFrame renders them: strings as is, lists joined with
// ',', other values as json.dumps (null, false, {}); performance fields as
// Python's %s (None, 0, 21116.7).
//
// A line is written only for a case that reached the performance stage
// (passed, or failed there), as ReFrame logs performance only then.
// Appends are safe across processes: each record is one write() under an
// flock, and a new file appears atomically with its header (link(2)).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/case_result.h"
#include "util/status.h"

namespace hb {

// The filelog handler's settings; the defaults are ReFrame 4's builtin ones.
struct PerflogFormat {
  std::string format = "%(check_result)s|%(check_job_completion_time)s|%(check_#ALL)s";
  std::string format_perfvars =
      "%(check_perf_value)s|%(check_perf_unit)s|%(check_perf_ref)s|"
      "%(check_perf_lower_thres)s|%(check_perf_upper_thres)s|";
  std::string datefmt = "%FT%T";
  std::vector<std::string> ignore_keys = {
      "check_build_locally", "check_build_time_limit", "check_display_name", "check_executable",
      "check_executable_opts", "check_hashcode", "check_keep_files", "check_local",
      "check_maintainers", "check_max_pending_time", "check_outputdir", "check_prebuild_cmds",
      "check_prefix", "check_prerun_cmds", "check_postbuild_cmds", "check_postrun_cmds",
      "check_readonly_files", "check_sourcepath", "check_sourcesdir", "check_stagedir",
      "check_strict_check", "check_tags", "check_time_limit", "check_valid_prog_environs",
      "check_valid_systems", "check_variables"};
};

// Every attribute of the case's log record by name, typed as ReFrame has
// them (numbers, booleans, lists, null): the loggable attributes, the
// parameters (check_<name>), check_result, check_info,
// check_job_completion_time (as '%FT%T%:z'), version, hostname, osuser and
// message ("sent by <user>"). check_perfvalues is "": each handler renders
// the performance values its own way. The filelog and syslog handlers
// render these with ReFrame's _xfmt; httpjson sends them as JSON.
using PerflogAttrs = std::map<std::string, nlohmann::ordered_json>;
PerflogAttrs PerflogAttributes(const SessionInfo& session, const CaseResult& c);

// True when ReFrame would log the case: it has performance values and it
// passed, or failed in the performance stage.
bool ShouldLogPerformance(const CaseResult& c);

// <basedir>/<system>/<partition>/<name>.log
std::string PerflogPath(const std::string& basedir, const CaseResult& c);
// The header line and the record line for `c`, without the newline.
std::string PerflogHeader(const PerflogFormat& fmt, const CaseResult& c);
std::string PerflogRecord(const PerflogFormat& fmt, const SessionInfo& session, const CaseResult& c);

// Appends c's record (creating or rotating the file as described above);
// does nothing for a case that should not be logged.
Status AppendPerflog(const std::string& basedir, const SessionInfo& session, const CaseResult& c);
Status AppendPerflog(const std::string& basedir, const SessionInfo& session, const CaseResult& c,
                     const PerflogFormat& fmt);

}  // namespace hb
