// The main log's sinks for one `hetbench` command (util/log.h has the
// records): where "why hetbench did what it did" goes.
//
//  - The terminal (stderr), from -v: verbose records with -v, debug with
//    -vv, everything with -vvv, as "hetbench: <text>".
//  - The logging entry's `handlers`, ReFrame's keys and defaults
//    (reframe/schemas/config.json):
//      file:   name (required), level (info), format ('%(message)s'),
//              datefmt ('%FT%T'), append (false), timestamp (false, true
//              or a strftime format added to the name: reframe.log ->
//              reframe_2026-12-01T02:00:00.log)
//      stream: name (stdout | stderr, default stdout), level, format, datefmt
//    A relative file name is under the current folder, as ReFrame's. The
//    format may use %(asctime)s, %(levelname)s, %(message)s, %(name)s
//    ('hetbench'), %(check_info)s ('hetbench': records are not about one
//    case), %(hostname)s, %(osuser)s, %(version)s and %%; any other
//    placeholder, a `graylog` handler and an unknown key are errors that
//    name the handler and the key.
//  - Without `handlers` in the configuration: `default_file` (hetbench run
//    passes <prefix>/hetbench.log), every record from debug up, appended,
//    as "[%(asctime)s] %(levelname)s: %(message)s".
// The logging entry's `level` (default: none) applies to every handler.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/status.h"

namespace hb {

struct MainLogOptions {
  int verbosity = 0;         // how many -v
  std::string default_file;  // "" = none
  std::string hostname, user, version;
  std::vector<std::string> config_files;  // to name the file in errors
};

// Installs the sinks (after clearing any); an error names the handler.
Status SetUpMainLog(const nlohmann::json& logging, const MainLogOptions& opts);

}  // namespace hb
