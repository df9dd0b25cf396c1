// Console: what a person sees while a session runs. ReFrame's familiar
// lines (`[ RUN      ]`, `[       OK ]`, `[     FAIL ]`), a ninja-style
// `[done/total]` status line when stdout is a terminal (plain lines when
// piped or in CI), and the final table of performance values against their
// references. Colours only on a terminal. The executor calls it from its
// single thread; not thread-safe.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "results/case_result.h"

namespace hb {

class Console {
 public:
  // `out` is usually stdout; tty decides colours and the status line.
  Console(FILE* out, bool tty);

  void SessionStart(const std::string& banner, size_t total);
  void CaseStart(const std::string& label);
  void CaseRetry(const std::string& label, int attempt, const std::string& why);
  // `started`: the case had a [ RUN ] line (skipped cases never start).
  void CaseEnd(const CaseResult& r, size_t done, size_t total, bool started);
  void Note(const std::string& line);
  // The failure list, the performance table and the closing summary.
  void Summary(const std::vector<CaseResult>& results, bool interrupted);

  // "stream %threads=2 @generic:local+builtin"
  static std::string Label(const CaseResult& r);

 private:
  void ClearStatus();
  void DrawStatus();
  std::string Paint(const std::string& text, const char* colour) const;

  FILE* out_;
  bool tty_;
  size_t done_ = 0, total_ = 0;
  std::vector<std::string> running_;  // labels of the cases in flight, oldest first
};

// The performance table as plain text (also used by `hetbench run` when
// piped). One row per performance value.
std::string PerformanceTable(const std::vector<CaseResult>& results);

}  // namespace hb
