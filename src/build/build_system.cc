#include "build/build_system.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <functional>
#include <optional>
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

std::string Jobs(int max_concurrency) {
  return max_concurrency > 0 ? std::to_string(max_concurrency) : "$(nproc)";
}

// ---- SingleSource ----------------------------------------------------------

enum class Lang { kC, kCxx, kFortran, kCuda };

// ReFrame's SingleSource._guess_language table.
std::optional<Lang> LangFromExtension(const std::string& source) {
  static const std::vector<std::pair<Lang, Words>> kTable = {
      {Lang::kC, {".c", ".upc"}},
      {Lang::kCxx, {".cc", ".cp", ".cxx", ".cpp", ".CPP", ".c++", ".C"}},
      {Lang::kFortran, {".f", ".for", ".ftn", ".F", ".FOR", ".fpp", ".FPP", ".FTN", ".f90", ".f95",
                        ".f03", ".f08", ".F90", ".F95", ".F03", ".F08", ".cuf", ".CUF"}},
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
    return Status::Error(s.mark, "cannot tell the language of '" + s.source +
                                     "' from its extension; set lang: c, c++, fortran or cuda");
  }
  std::string lower = Lower(s.lang);
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (lower == kNames[i]) return static_cast<Lang>(i);
  }
  return Status::Error(s.mark, "unknown lang '" + s.lang + "'" + DidYouMean(lower, kNames) +
                                   " (known: c, c++, fortran, cuda)");
}

Result<Words> SingleSource(const BuildSpec& s, const Environment& env) {
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

Result<Words> Make(const BuildSpec& s, const Environment& env) {
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

Result<Words> CMake(const BuildSpec& s, const Environment& env) {
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

// ---- Custom ----------------------------------------------------------------

Result<Words> Custom(const BuildSpec& s, const Environment&) {
  if (s.commands.empty()) {
    return Status::Error(s.mark, "the 'Custom' build system needs `commands`");
  }
  return s.commands;
}

using Emitter = std::function<Result<Words>(const BuildSpec&, const Environment&)>;

const std::vector<std::pair<std::string, Emitter>>& Emitters() {
  static const std::vector<std::pair<std::string, Emitter>> kEmitters = {
      {"SingleSource", SingleSource}, {"Make", Make}, {"CMake", CMake}, {"Custom", Custom}};
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

Result<std::vector<std::string>> BuildCommands(const BuildSpec& spec, const Environment& env) {
  if (spec.type.empty() || spec.type == "none") return Words{};
  for (const auto& [name, emit] : Emitters()) {
    if (name == spec.type) return emit(spec, env);
  }
  return Status::Error(spec.mark, "unknown build system '" + spec.type + "'" +
                                      Suggestion(spec.type, BuildSystemNames()) +
                                      " (known: " + Join(BuildSystemNames(), ", ") + ", none)");
}

}  // namespace hb
