// The `general` options of a site configuration that hetbench acts on,
// read from one entry through JsonField (util/json_field.h).
//
// The loader (config_parse.cc) reads every `general` entry of every file
// with ReadGeneralOptions and the entry's marks, so that a wrong type or
// value is an error at load naming file:line:column, before anything runs.
// Later readers take the entry that applies to a system and partition
// (SiteConfig::GeneralFor, SectionFor's resolution) through the same
// function; it cannot fail then on a value that loaded.
//
// ReFrame's other `general` keys are accepted as ReFrame accepts them and
// kept in SiteConfig::raw (docs/config.md lists what hetbench acts on).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "util/json_field.h"
#include "util/status.h"

namespace hb {

struct GeneralOptions {
  std::vector<std::string> check_search_path;  // as written; ~ and $VARS are expanded by the reader
  bool check_search_recursive = false;
  bool remote_detect = false;
  std::string remote_workdir;                // "": not set
  std::string remote_hetbench;               // "": not set
  double remote_detect_time_limit_s = 0;     // 0: not set
  std::string topology_prefix;               // "": not set
  std::vector<std::string> module_mappings;  // lines "name: other ..."
  // Not set: the default of whoever uses it (Regex::kDefaultMatchLimit,
  // kDefaultMaxCases, Session::max_output_per_case).
  std::optional<uint32_t> regex_match_limit;
  std::optional<size_t> max_cases;
  std::optional<uint64_t> max_output_per_case;  // bytes
};

// The options of `general` (one entry, or SectionFor's result); each
// error names the key ("general.max_cases: expected ...") and, when the
// field has marks, its file:line:column.
Result<GeneralOptions> ReadGeneralOptions(const JsonField& general);

}  // namespace hb
