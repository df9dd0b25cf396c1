// Reads one ReFrame configuration document (already Jinja-rendered and
// parsed as YAML) into Systems and Environments, checking it as ReFrame's
// schema would: every key of a system, partition, environment, processor,
// resource or module object must be one ReFrame knows (or one of
// hetbench's own, such as an environment's `image`), values must have the
// right type, and each error names file:line:column. Keys hetbench does not
// act on stay in each object's `raw`.
//
// config_loader.h chains the documents of several files; this module knows
// nothing of chaining. Pure functions; thread-safe.
#pragma once

#include <functional>

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include "config/site_config.h"
#include "util/status.h"

namespace hb {

// One configuration file, parsed.
struct ConfigFragment {
  std::string file;
  std::vector<System> systems;                         // in file order
  std::vector<Environment> environments;               // in file order
  nlohmann::json sections = nlohmann::json::object();  // every top-level section as read
};

// Parses the top-level mapping of a configuration file named `file`.
Result<ConfigFragment> ParseConfigDocument(const YAML::Node& root, const std::string& file);

// A check of one `logging` entry (its handlers_perflog) that a higher
// layer supplies: src/results registers the perflog handlers' own parser,
// run in a mode that makes nothing. ParseConfigDocument runs it on every
// entry and puts the error at the handler's file:line:column ("site.yaml:
// 9:24: logging: handlers_perflog[0] (httpjson): extra_headers: ..."). None
// registered (a program without src/results): the entries' shape only.
using LoggingCheck = std::function<Status(const nlohmann::json& entry)>;
void RegisterLoggingCheck(LoggingCheck check);

// The keys ReFrame's configuration schema defines for an object of `kind`
// ("system", "partition", "environment", "processor", "resource",
// "module", "mode"), for tests and documentation.
const std::vector<std::string>& ReframeKeys(const std::string& kind);

}  // namespace hb
