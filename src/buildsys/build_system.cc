#include "buildsys/build_system.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <functional>
#include <optional>
#include <regex>
#include <utility>

#include "util/fs.h"
#include "util/strings.h"

namespace hb {

namespace {

using Words = std::vector<std::string>;

// Compilers and flags after combining the environment and the spec.
struct Tools {
  std::string cc, cxx, ftn, nvcc;
  Words cppflags, cflags, cxxflags, fflags, ldflags;
};

Words Concat(Words a, const Words& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

Tools Resolve(const BuildSpec& s, const Environment& e) {
  auto pick = [](const std::string& spec, const std::string& env) { return spec.empty() ? env : spec; };
  return Tools{pick(s.cc, e.cc),
               pick(s.cxx, e.cxx),
               pick(s.ftn, e.ftn),
               pick(s.nvcc, e.nvcc),
               Concat(e.cppflags, s.cppflags),
               Concat(e.cflags, s.cflags),
               Concat(e.cxxflags, s.cxxflags),
               Concat(e.fflags, s.fflags),
               Concat(e.ldflags, s.ldflags)};
}

// "value" for the shell: $ and ` still expand (as in ReFrame), " and \ are
// kept literal.
std::string DoubleQuoted(const std::string& v) {
  std::string out = "\"";
  for (char c : v) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// Appends NAME="value" when value is not empty.
void AddVar(Words* cmd, const std::string& name, const std::string& value) {
  if (!value.empty()) cmd->push_back(name + "=" + DoubleQuoted(value));
}

std::string Jobs(int max_concurrency) { return max_concurrency > 0 ? std::to_string(max_concurrency) : "$(nproc)"; }

// ---- SingleSource ----------------------------------------------------------

enum class Lang { kC, kCxx, kFortran, kCuda };

// ReFrame's SingleSource._guess_language table.
std::optional<Lang> LangFromExtension(const std::string& source) {
  static const std::vector<std::pair<Lang, Words>> kTable = {
      {Lang::kC, {".c", ".upc"}},
      {Lang::kCxx, {".cc", ".cp", ".cxx", ".cpp", ".CPP", ".c++", ".C"}},
      {Lang::kFortran,
       {".f", ".for", ".ftn", ".F", ".FOR", ".fpp", ".FPP", ".FTN", ".f90", ".f95", ".f03", ".f08", ".F90", ".F95",
        ".F03", ".F08", ".cuf", ".CUF"}},
      {Lang::kCuda, {".cu"}},
  };
  std::string ext = std::filesystem::path(source).extension().string();
  for (const auto& [lang, exts] : kTable) {
    if (std::find(exts.begin(), exts.end(), ext) != exts.end()) return lang;
  }
  return std::nullopt;
}

Result<Lang> LangOf(const BuildSpec& s) {
  static const Words kNames = {"c", "c++", "fortran", "cuda"};
  if (s.lang.empty()) {
    if (auto lang = LangFromExtension(s.source)) return *lang;
    return Status::Error(
        s.mark, "cannot tell the language of '" + s.source + "' from its extension; set lang: c, c++, fortran or cuda");
  }
  std::string lower = Lower(s.lang);
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (lower == kNames[i]) return static_cast<Lang>(i);
  }
  return Status::Error(s.mark,
                       "unknown lang '" + s.lang + "'" + DidYouMean(lower, kNames) + " (known: c, c++, fortran, cuda)");
}

Result<Words> SingleSource(const BuildSpec& s, const Environment& env, const std::string&) {
  if (s.source.empty()) {
    return Status::Error(s.mark, "a source file is required when using the 'SingleSource' build system");
  }
  Result<Lang> lang = LangOf(s);
  if (!lang.ok()) return lang.status();
  Tools t = Resolve(s, env);
  struct Choice {
    const std::string* compiler;
    const Words* flags;
    const char* what;
    const char* key;
  };
  const Choice choices[] = {{&t.cc, &t.cflags, "C", "cc"},
                            {&t.cxx, &t.cxxflags, "C++", "cxx"},
                            {&t.ftn, &t.fflags, "Fortran", "ftn"},
                            {&t.nvcc, &t.cxxflags, "CUDA", "nvcc"}};
  const Choice& c = choices[static_cast<int>(*lang)];
  if (c.compiler->empty()) {
    return Status::Error(s.mark, std::string("no ") + c.what + " compiler: set " + c.key +
                                     " in build_system or in environment '" + env.name + "'");
  }
  Words cmd = {*c.compiler};
  cmd.insert(cmd.end(), t.cppflags.begin(), t.cppflags.end());
  cmd.insert(cmd.end(), c.flags->begin(), c.flags->end());
  cmd.push_back(ShellQuote(s.srcdir.empty() ? s.source : JoinPath(s.srcdir, s.source)));
  cmd.push_back("-o");
  cmd.push_back(ShellQuote(SingleSourceExecutable(s)));
  cmd.insert(cmd.end(), t.ldflags.begin(), t.ldflags.end());
  return Words{Join(cmd, " ")};
}

// ---- Make ------------------------------------------------------------------

Result<Words> Make(const BuildSpec& s, const Environment& env, const std::string&) {
  Tools t = Resolve(s, env);
  Words cmd = {"make"};
  if (!s.makefile.empty()) cmd.insert(cmd.end(), {"-f", ShellQuote(s.makefile)});
  if (!s.srcdir.empty()) cmd.insert(cmd.end(), {"-C", ShellQuote(s.srcdir)});
  cmd.insert(cmd.end(), {"-j", Jobs(s.max_concurrency)});
  AddVar(&cmd, "CC", t.cc);
  AddVar(&cmd, "CXX", t.cxx);
  AddVar(&cmd, "FC", t.ftn);
  AddVar(&cmd, "NVCC", t.nvcc);
  AddVar(&cmd, "CPPFLAGS", Join(t.cppflags, " "));
  AddVar(&cmd, "CFLAGS", Join(t.cflags, " "));
  AddVar(&cmd, "CXXFLAGS", Join(t.cxxflags, " "));
  AddVar(&cmd, "FCFLAGS", Join(t.fflags, " "));
  AddVar(&cmd, "LDFLAGS", Join(t.ldflags, " "));
  cmd.insert(cmd.end(), s.options.begin(), s.options.end());
  cmd.insert(cmd.end(), s.targets.begin(), s.targets.end());
  return Words{Join(cmd, " ")};
}

// ---- CMake -----------------------------------------------------------------

Result<Words> CMake(const BuildSpec& s, const Environment& env, const std::string&) {
  Tools t = Resolve(s, env);
  std::string src = s.srcdir.empty() ? "." : s.srcdir;
  std::string build = JoinPath(s.srcdir, s.builddir.empty() ? "build" : s.builddir);
  Words configure = {"cmake", "-S", ShellQuote(src), "-B", ShellQuote(build)};
  AddVar(&configure, "-DCMAKE_C_COMPILER", t.cc);
  AddVar(&configure, "-DCMAKE_CXX_COMPILER", t.cxx);
  AddVar(&configure, "-DCMAKE_Fortran_COMPILER", t.ftn);
  AddVar(&configure, "-DCMAKE_CUDA_COMPILER", t.nvcc);
  // ReFrame's CMake._combine_flags: preprocessor flags go with each language's.
  AddVar(&configure, "-DCMAKE_C_FLAGS", Join(Concat(t.cppflags, t.cflags), " "));
  AddVar(&configure, "-DCMAKE_CXX_FLAGS", Join(Concat(t.cppflags, t.cxxflags), " "));
  AddVar(&configure, "-DCMAKE_Fortran_FLAGS", Join(Concat(t.cppflags, t.fflags), " "));
  AddVar(&configure, "-DCMAKE_EXE_LINKER_FLAGS", Join(t.ldflags, " "));
  configure.insert(configure.end(), s.options.begin(), s.options.end());
  Words compile = {"cmake", "--build", ShellQuote(build), "-j", Jobs(s.max_concurrency)};
  if (!s.targets.empty()) {
    compile.push_back("--target");
    compile.insert(compile.end(), s.targets.begin(), s.targets.end());
  }
  return Words{Join(configure, " "), Join(compile, " ")};
}

// ---- Autotools -------------------------------------------------------------

// ReFrame's Autotools (ConfigureBasedBuildSystem): cd into srcdir, make and
// enter builddir, run configure with the compilers and flags, then make.
Result<Words> Autotools(const BuildSpec& s, const Environment& env, const std::string&) {
  Tools t = Resolve(s, env);
  Words out;
  if (!s.srcdir.empty()) out.push_back("cd " + ShellQuote(s.srcdir));
  std::string configuredir = s.configuredir.empty() ? "." : s.configuredir;
  std::string configure = JoinPath(configuredir, "configure");
  if (!s.builddir.empty()) {
    out.push_back("mkdir -p " + ShellQuote(s.builddir));
    out.push_back("cd " + ShellQuote(s.builddir));
    // os.path.relpath(configuredir, builddir) in ReFrame.
    std::filesystem::path rel = std::filesystem::path(configuredir).lexically_relative(s.builddir);
    configure = (rel / "configure").lexically_normal().string();
  } else if (configure.find('/') == std::string::npos) {
    configure = "./" + configure;
  }
  Words cmd = {ShellQuote(configure)};
  AddVar(&cmd, "CC", t.cc);
  AddVar(&cmd, "CXX", t.cxx);
  AddVar(&cmd, "FC", t.ftn);
  AddVar(&cmd, "CPPFLAGS", Join(t.cppflags, " "));
  AddVar(&cmd, "CFLAGS", Join(t.cflags, " "));
  AddVar(&cmd, "CXXFLAGS", Join(t.cxxflags, " "));
  AddVar(&cmd, "FCFLAGS", Join(t.fflags, " "));
  AddVar(&cmd, "LDFLAGS", Join(t.ldflags, " "));
  cmd.insert(cmd.end(), s.config_opts.begin(), s.config_opts.end());
  out.push_back(Join(cmd, " "));
  Words make = {"make", "-j", Jobs(s.max_concurrency)};
  make.insert(make.end(), s.make_opts.begin(), s.make_opts.end());
  out.push_back(Join(make, " "));
  return out;
}

// ---- Spack -----------------------------------------------------------------

constexpr const char* kSpackEnv = "rfm_spack_env";  // ReFrame's name

std::string SpackEnv(const BuildSpec& s) { return ShellQuote(s.environment.empty() ? kSpackEnv : s.environment); }

// ReFrame's Spack: create an environment in the stage directory unless the
// test brings one, point its install tree into the stage directory, add
// the specs, install.
Result<Words> Spack(const BuildSpec& s, const Environment&, const std::string&) {
  Words out;
  std::string e = SpackEnv(s);
  bool created = s.environment.empty();
  if (created) out.push_back("spack env create -d " + e);
  if (created || !s.install_tree.empty()) {
    std::string tree = s.install_tree.empty() ? "opt/spack" : s.install_tree;
    out.push_back("spack -e " + e + " config add " + DoubleQuoted("config:install_tree:root:" + tree));
  }
  if (!s.specs.empty()) out.push_back("spack -e " + e + " add " + Join(s.specs, " "));
  Words install = {"spack", "-e", e, "install"};
  install.insert(install.end(), s.install_opts.begin(), s.install_opts.end());
  out.push_back(Join(install, " "));
  return out;
}

// ---- EasyBuild -------------------------------------------------------------

std::string EasyBuildPrefix(const BuildSpec& s, const std::string& stagedir) {
  std::string prefix = s.prefix.empty() ? "easybuild" : s.prefix;
  return stagedir.empty() || prefix[0] == '/' ? prefix : JoinPath(stagedir, prefix);
}

// ReFrame's EasyBuild: everything under PREFIX in the stage directory.
Result<Words> EasyBuild(const BuildSpec& s, const Environment&, const std::string& stagedir) {
  if (s.easyconfigs.empty()) return Status::Error(s.mark, "the 'EasyBuild' build system needs `easyconfigs`");
  std::string prefix = ShellQuote(EasyBuildPrefix(s, stagedir));
  Words eb = {"eb"};
  eb.insert(eb.end(), s.easyconfigs.begin(), s.easyconfigs.end());
  eb.insert(eb.end(), s.options.begin(), s.options.end());
  if (s.emit_package) {
    eb.push_back("--package");
    for (const auto& [k, v] : s.package_opts) eb.push_back("--package-" + k + "=" + ShellQuote(v));
  }
  return Words{"export EASYBUILD_BUILDPATH=" + prefix + "/build", "export EASYBUILD_INSTALLPATH=" + prefix,
               "export EASYBUILD_PREFIX=" + prefix, "export EASYBUILD_SOURCEPATH=" + prefix, Join(eb, " ")};
}

// ---- Custom ----------------------------------------------------------------

Result<Words> Custom(const BuildSpec& s, const Environment&, const std::string&) {
  if (s.commands.empty()) {
    return Status::Error(s.mark, "the 'Custom' build system needs `commands`");
  }
  return s.commands;
}

using Emitter = std::function<Result<Words>(const BuildSpec&, const Environment&, const std::string&)>;

const std::vector<std::pair<std::string, Emitter>>& Emitters() {
  static const std::vector<std::pair<std::string, Emitter>> kEmitters = {
      {"SingleSource", SingleSource}, {"Make", Make},    {"CMake", CMake}, {"Autotools", Autotools}, {"Spack", Spack},
      {"EasyBuild", EasyBuild},       {"Custom", Custom}};
  return kEmitters;
}

// "cmake" is closer to "Make" than to "CMake" by edit distance; a name that
// differs only in case is the better guess.
std::string Suggestion(const std::string& type, const Words& names) {
  for (const auto& n : names) {
    if (Lower(n) == Lower(type)) return ", did you mean '" + n + "'?";
  }
  return DidYouMean(type, names);
}

}  // namespace

const std::vector<std::string>& BuildSystemNames() {
  static const Words kNames = [] {
    Words names;
    for (const auto& [name, emit] : Emitters()) names.push_back(name);
    return names;
  }();
  return kNames;
}

std::string SingleSourceExecutable(const BuildSpec& spec) {
  if (!spec.executable.empty()) return spec.executable;
  return "./" + std::filesystem::path(spec.source).stem().string();
}

Result<std::vector<std::string>> BuildCommands(const BuildSpec& spec, const Environment& env,
                                               const std::string& stagedir) {
  if (spec.type.empty() || spec.type == "none") return Words{};
  for (const auto& [name, emit] : Emitters()) {
    if (name == spec.type) return emit(spec, env, stagedir);
  }
  return Status::Error(spec.mark, "unknown build system '" + spec.type + "'" +
                                      Suggestion(spec.type, BuildSystemNames()) +
                                      " (known: " + Join(BuildSystemNames(), ", ") + ", none)");
}

}  // namespace hb

namespace hb {

std::vector<std::string> RunPrepareCommands(const BuildSpec& spec, const std::string& stagedir,
                                            const std::string& build_stdout) {
  Words out;
  if (spec.type == "Spack" && spec.emit_load_cmds) {
    std::string e = SpackEnv(spec);
    if (!spec.specs.empty())
      out.push_back("eval `spack -e " + e + " load --sh " + Join(spec.specs, " ") + "`");
    else
      out.push_back("eval `spack env activate --sh -d " + e + "`");
  }
  if (spec.type == "EasyBuild") {
    // ReFrame's EasyBuild.post_build: the modules eb says it built.
    static const std::regex kBuilt(R"(building and installing (\S+)\.\.\.)");
    Words modules;
    for (auto it = std::sregex_iterator(build_stdout.begin(), build_stdout.end(), kBuilt); it != std::sregex_iterator();
         ++it)
      modules.push_back((*it)[1].str());
    if (!modules.empty()) {
      out.push_back("module use " + ShellQuote(JoinPath(EasyBuildPrefix(spec, stagedir), "modules/all")));
      for (const auto& m : modules) out.push_back("module load " + ShellQuote(m));
    }
  }
  return out;
}

std::string BuildFailureReason(const std::string& build_stderr) {
  static const std::string kTrap = "hetbench: build command failed with exit code ";
  auto lines = Split(build_stderr, '\n');
  std::string command, reason, last;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string t = Trim(lines[i]);
    if (t.empty()) continue;
    if (StartsWith(t, kTrap)) {
      size_t colon = t.find(": ", kTrap.size());
      if (colon != std::string::npos) command = t.substr(colon + 2);
      continue;
    }
    last = t;
    // The first error line a tool is known to print: Spack's "==> Error:"
    // (with the numbered reasons that follow it), EasyBuild's "ERROR:",
    // configure's "configure: error:".
    if (!reason.empty()) continue;
    if (StartsWith(t, "==> Error:") || StartsWith(t, "ERROR:") || t.find("configure: error:") != std::string::npos) {
      reason = t;
      // Spack lists numbered reasons, each followed by "required
      // because ..." lines: keep the first three reasons.
      int kept = 0;
      for (size_t j = i + 1; j < lines.size() && kept < 3; ++j) {
        std::string next = Trim(lines[j]);
        if (StartsWith(next, "==>") || StartsWith(next, kTrap)) break;
        if (next.empty() || !std::isdigit(static_cast<unsigned char>(next[0]))) continue;
        reason += " " + next;
        ++kept;
      }
    }
  }
  if (reason.empty()) reason = last;
  if (reason.size() > 300) reason = reason.substr(0, 300) + "...";
  if (command.empty()) return reason;
  return reason.empty() ? "`" + command + "` failed" : reason + " (in `" + command + "`)";
}

}  // namespace hb
