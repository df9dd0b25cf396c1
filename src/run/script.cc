#include "run/script.h"

#include "util/strings.h"

namespace hb {

namespace {

void Header(std::string* s, const std::string& shell) { *s += "#!" + shell + "\n"; }

void Env(std::string* s, const std::vector<std::pair<std::string, std::string>>& env) {
  for (const auto& [k, v] : env) *s += "export " + k + "=" + v + "\n";
}

void Lines(std::string* s, const std::vector<std::string>& lines) {
  for (const auto& l : lines) *s += l + "\n";
}

}  // namespace

std::string RunScript(const ScriptParts& p) {
  std::string s;
  Header(&s, p.shell);
  Lines(&s, p.directives);
  if (!p.directives.empty()) s += "\n";
  s += "cd " + ShellQuote(p.workdir) + " || exit 125\n";
  Env(&s, p.env);
  Lines(&s, p.prepare_cmds);
  Lines(&s, p.environ);
  Lines(&s, p.build_setup);
  Lines(&s, p.prerun_cmds);
  // No executable (a manifest whose containers run their own command):
  // no run line.
  if (!p.executable.empty()) {
    std::vector<std::string> cmd = p.launcher;
    cmd.push_back(p.executable);
    cmd.insert(cmd.end(), p.executable_opts.begin(), p.executable_opts.end());
    s += Join(cmd, " ") + "\n";
  }
  if (!p.postrun_cmds.empty()) {
    s += "_hb_status=$?\n";
    Lines(&s, p.postrun_cmds);
    s += "exit $_hb_status\n";
  }
  return s;
}

std::string BuildScript(const std::string& workdir, const std::vector<std::pair<std::string, std::string>>& env,
                        const std::vector<std::string>& prepare_cmds, const std::vector<std::string>& environ,
                        const std::vector<std::string>& commands, const std::vector<std::string>& directives) {
  std::string s;
  Header(&s, "/bin/bash");
  Lines(&s, directives);
  if (!directives.empty()) s += "\n";
  s += "_hb_onerror() {\n"
       "  _hb_status=$?\n"
       "  echo \"hetbench: build command failed with exit code $_hb_status: $BASH_COMMAND\" >&2\n"
       "  exit $_hb_status\n"
       "}\n"
       "trap _hb_onerror ERR\n";
  s += "cd " + ShellQuote(workdir) + "\n";
  Env(&s, env);
  Lines(&s, prepare_cmds);
  Lines(&s, environ);
  Lines(&s, commands);
  return s;
}

}  // namespace hb
