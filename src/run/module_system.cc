#include "run/module_system.h"

#include "util/fs.h"
#include "util/strings.h"

namespace hb {

namespace {

// What precedes the message in the line the helper writes on failure.
constexpr std::string_view kFailurePrefix = "hetbench: ";
constexpr std::string_view kFailureInfix = " failed: ";
// Failure messages are cut to this length in the case's reason.
constexpr size_t kMaxReason = 600;

enum class Tool { kNone, kModule, kSpack };

Tool ToolOf(const std::string& modules_system) {
  if (modules_system == "spack") return Tool::kSpack;
  if (modules_system == "nomod" || modules_system.empty()) return Tool::kNone;
  return Tool::kModule;
}

// Tcl modules 3.x (ReFrame's tmod, tmod31, tmod32) have no collections.
bool HasCollections(const std::string& modules_system) {
  return modules_system == "lmod" || modules_system == "tmod4" || modules_system == "envmod";
}

// Runs one module command. Its stderr is kept aside so that, when it
// fails, the module system's message can be repeated on one line that
// names the command; then the script stops. A shell without the command
// at all fails the same way.
const char* const kHelper[] = {
    "_hb_module() {",
    "  if ! type \"$1\" >/dev/null 2>&1; then",
    "    echo \"hetbench: $1 $2 failed: the job's shell has no '$1' command; source the module system's shell "
    "set-up in the partition's prepare_cmds\" >&2",
    "    exit 1",
    "  fi",
    "  \"$@\" 2>.hb_module.err",
    "  local _hb_rc=$? _hb_msg",
    "  cat .hb_module.err >&2",
    "  if [ \"$_hb_rc\" -ne 0 ]; then",
    "    _hb_msg=$(tr -s '[:space:]' ' ' <.hb_module.err)",
    "    echo \"hetbench: $1 $2 failed: ${_hb_msg:-exit status $_hb_rc}\" >&2",
    "    rm -f .hb_module.err",
    "    exit 1",
    "  fi",
    "  rm -f .hb_module.err",
    "}",
};

// Where a job's shell finds the module system's shell functions when it
// has not inherited them (a batch job's shell is not a login shell). The
// first readable file is sourced; a site with its own place sources it in
// the partition's prepare_cmds, which run before any module command.
std::vector<std::string> InitLines(const std::string& modules_system) {
  std::string test = "type module >/dev/null 2>&1";
  std::string files;
  if (modules_system == "spack") {
    test = "[ \"$(type -t spack)\" = function ]";
    files = "\"${SPACK_ROOT:+$SPACK_ROOT/share/spack/setup-env.sh}\"";
  } else if (modules_system == "lmod") {
    files =
        "\"${LMOD_PKG:+$LMOD_PKG/init/bash}\" /usr/share/lmod/lmod/init/bash /etc/profile.d/z00_lmod.sh "
        "/etc/profile.d/lmod.sh";
  } else {
    files = "\"${MODULESHOME:+$MODULESHOME/init/bash}\" /usr/share/modules/init/bash /etc/profile.d/modules.sh";
  }
  return {"if ! " + test + "; then", "  for _hb_init in " + files + "; do",
          "    if [ -r \"$_hb_init\" ]; then . \"$_hb_init\"; break; fi", "  done", "fi"};
}

std::string Command(const std::string& tool, const std::string& verb, const std::vector<std::string>& args) {
  std::string line = "_hb_module " + tool + " " + verb;
  for (const auto& a : args) line += " " + ShellQuote(a);
  return line;
}

Status Unsupported(const std::string& modules_system, const ModuleSpec& m, const std::string& what) {
  return Status::Error("module '" + m.name + "' asks for " + what + ", which modules_system '" + modules_system +
                       "' does not have");
}

Status ModuleCommands(const std::string& sys, const ModuleSpec& m, std::vector<std::string>* out) {
  if (m.collection && !HasCollections(sys)) return Unsupported(sys, m, "a module collection");
  if (!m.path.empty()) out->push_back(Command("module", "use", {m.path}));
  if (m.collection)
    out->push_back(Command("module", "restore", {m.name}));
  else if (m.unload)
    out->push_back(Command("module", "unload", {m.name}));
  else if (!m.swap.empty())
    out->push_back(Command("module", "swap", {m.swap, m.name}));
  else
    out->push_back(Command("module", "load", {m.name}));
  return Status::OK();
}

// Spack has no module paths or collections; a swap is an unload and a load.
Status SpackCommands(const ModuleSpec& m, std::vector<std::string>* out) {
  if (m.collection) return Unsupported("spack", m, "a module collection");
  if (!m.path.empty()) return Unsupported("spack", m, "a module path");
  if (!m.swap.empty()) out->push_back(Command("spack", "unload", {m.swap}));
  out->push_back(Command("spack", m.unload ? "unload" : "load", {m.name}));
  return Status::OK();
}

}  // namespace

Result<std::vector<std::string>> EnvironmentLines(const std::string& modules_system,
                                                  const std::vector<EnvLevel>& levels, const ModuleMappings& mappings) {
  Tool tool = ToolOf(modules_system);
  std::vector<std::string> body;
  bool any_module = false;
  for (const auto& level : levels) {
    if (tool != Tool::kNone) {
      auto modules = ApplyModuleMappings(level.modules, mappings);
      if (!modules.ok()) return modules.status();
      for (const auto& m : *modules) {
        Status s = tool == Tool::kSpack ? SpackCommands(m, &body) : ModuleCommands(modules_system, m, &body);
        if (!s.ok()) return s;
        any_module = true;
      }
    }
    for (const auto& [k, v] : level.env_vars) body.push_back("export " + k + "=" + v);
  }
  if (!any_module) return body;
  std::vector<std::string> lines(std::begin(kHelper), std::end(kHelper));
  auto init = InitLines(modules_system);
  lines.insert(lines.end(), init.begin(), init.end());
  lines.insert(lines.end(), body.begin(), body.end());
  return lines;
}

std::optional<std::string> ModuleFailure(const std::string& stderr_path) {
  auto content = ReadFile(stderr_path);
  if (!content.ok()) return std::nullopt;
  for (const auto& line : Split(*content, '\n')) {
    if (!StartsWith(line, kFailurePrefix)) continue;
    auto words = Split(line.substr(kFailurePrefix.size()), ' ');
    bool tool = !words.empty() && (words[0] == "module" || words[0] == "spack");
    if (!tool || line.find(kFailureInfix) == std::string::npos) continue;
    std::string reason = Trim(line.substr(kFailurePrefix.size()));
    return reason.size() > kMaxReason ? reason.substr(0, kMaxReason) + "..." : reason;
  }
  return std::nullopt;
}

}  // namespace hb
