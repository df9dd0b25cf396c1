// Small helpers shared by the benchmark programs (hetbench-train, -io,
// -comm, -compute): command-line flags, a monotonic timer, and the output
// conventions the test files in benchmarks/ parse.
//
// Output conventions (every program):
//  - one result per line, `name: value unit` (e.g. `busbw: 11.52 GB/s`),
//    easy to extract with a `(\S+)` group;
//  - errors go to stderr as `PROGRAM: error: ...` naming the file, record or
//    flag at fault, and the program exits 2 (bad usage or input) or 1
//    (the benchmark itself failed, e.g. a wrong allreduce result).
// Header-only; no state.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace hbw {

inline double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// `--name value` or `--name=value` flags, with defaults and a --help text.
// Unknown flags and bad values are errors naming the flag.
class Flags {
 public:
  Flags(std::string program, std::string summary) : program_(std::move(program)), summary_(std::move(summary)) {}

  // Declares a flag; returns *this for chaining.
  Flags& Add(const std::string& name, const std::string& def, const std::string& help) {
    values_[name] = def;
    order_.push_back(name);
    help_[name] = help;
    return *this;
  }
  // Parses argv; on --help prints usage and exits 0; on an error prints it
  // and exits 2.
  void Parse(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
      std::string a = argv[i];
      if (a == "--help" || a == "-h") {
        Usage(stdout);
        std::exit(0);
      }
      if (a.rfind("--", 0) != 0) Fail("unexpected argument '" + a + "'");
      std::string name = a.substr(2), value;
      size_t eq = name.find('=');
      if (eq != std::string::npos) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
      } else if (i + 1 < argc) {
        value = argv[++i];
      } else {
        Fail("flag --" + name + " needs a value");
      }
      if (!values_.count(name)) Fail("unknown flag --" + name + " (see --help)");
      values_[name] = value;
    }
  }
  std::string Str(const std::string& name) const { return values_.at(name); }
  long Int(const std::string& name) const {
    const std::string& v = values_.at(name);
    char* end = nullptr;
    long x = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end) Fail("--" + name + ": expected an integer, got '" + v + "'");
    return x;
  }
  double Num(const std::string& name) const {
    const std::string& v = values_.at(name);
    char* end = nullptr;
    double x = std::strtod(v.c_str(), &end);
    if (v.empty() || *end) Fail("--" + name + ": expected a number, got '" + v + "'");
    return x;
  }
  // A comma-separated list.
  std::vector<std::string> List(const std::string& name) const {
    std::vector<std::string> out;
    std::string cur;
    for (char c : values_.at(name) + ",") {
      if (c == ',') {
        if (!cur.empty()) out.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    return out;
  }
  [[noreturn]] void Fail(const std::string& msg) const {
    std::fprintf(stderr, "%s: error: %s\n", program_.c_str(), msg.c_str());
    std::exit(2);
  }
  void Usage(FILE* f) const {
    std::fprintf(f, "usage: %s [--flag value]...\n%s\n\nflags:\n", program_.c_str(), summary_.c_str());
    for (const auto& n : order_)
      std::fprintf(f, "  --%-22s %s (default: %s)\n", n.c_str(), help_.at(n).c_str(),
                   values_.at(n).empty() ? "none" : values_.at(n).c_str());
  }

 private:
  std::string program_, summary_;
  std::map<std::string, std::string> values_, help_;
  std::vector<std::string> order_;
};

// Prints one result line: `name: value unit`.
inline void Result(const std::string& name, double value, const std::string& unit) {
  std::printf("%s: %.6g %s\n", name.c_str(), value, unit.c_str());
}

}  // namespace hbw
