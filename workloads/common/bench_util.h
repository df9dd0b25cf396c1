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
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace hbw {

inline double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// `--name value` or `--name=value` flags, with defaults and a --help text,
// parsed by CLI11 (the library hetbench's own command line uses). Unknown
// flags and bad values are errors naming the flag (exit status 2).
class Flags {
 public:
  Flags(std::string program, std::string summary)
      : program_(std::move(program)), app_(std::make_unique<CLI::App>(summary, program_)) {
    app_->get_formatter()->column_width(30);
  }

  // Declares a flag; returns *this for chaining.
  Flags& Add(const std::string& name, const std::string& def, const std::string& help) {
    auto& value = values_[name];
    value = def;
    app_->add_option("--" + name, value, help)->default_str(def.empty() ? "none" : def)->type_name("VALUE");
    return *this;
  }
  // Parses argv; on --help prints usage and exits 0; on an error prints it
  // and exits 2.
  void Parse(int argc, char** argv) {
    try {
      app_->parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
      std::fputs(app_->help().c_str(), stdout);
      std::exit(0);
    } catch (const CLI::ParseError& e) {
      Fail(std::string(e.what()) + " (see --help)");
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

 private:
  std::string program_;
  std::unique_ptr<CLI::App> app_;              // movable: the programs return their Flags
  std::map<std::string, std::string> values_;  // node-based: the options point into it, also after a move
};

// Prints one result line: `name: value unit`.
inline void Result(const std::string& name, double value, const std::string& unit) {
  std::printf("%s: %.6g %s\n", name.c_str(), value, unit.c_str());
}

}  // namespace hbw
