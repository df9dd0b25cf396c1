// Console: what a person sees while a session runs. ReFrame's familiar
// lines (`[ RUN      ]`, `[       OK ]`, `[     FAIL ]`), a ninja-style
// `[done/total]` status line when stdout is a terminal (plain lines when
// piped or in CI), and the final table of performance values against their
// references. Colours are a separate choice (`--color`, NO_COLOR: see
// ColorChoice); the status line is cut to the terminal's width. The executor
// calls it from its single thread; not thread-safe.
#pragma once

#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "results/case_result.h"
#include "util/status.h"

namespace hb {

// A case's variable's value in the latest earlier session that has it
// (`hetbench run --performance-report`), keyed by PreviousKey.
struct PreviousValue {
  double value = 0;
  std::string session;
};
using PreviousValues = std::map<std::string, PreviousValue>;
// "stream %threads=2 @generic:default+builtin\ttriad"
std::string PreviousKey(const std::string& label, const std::string& var);

class Console {
 public:
  // `out` is usually stdout; `tty` decides the status line, `color` the
  // colour sequences (default: as tty).
  Console(FILE* out, bool tty);
  Console(FILE* out, bool tty, bool color);

  void SessionStart(const std::string& banner, size_t total);
  void CaseStart(const std::string& label);
  void CaseRetry(const std::string& label, int attempt, const std::string& why);
  // `started`: the case had a [ RUN ] line (skipped cases never start).
  void CaseEnd(const CaseResult& r, size_t done, size_t total, bool started);
  void Note(const std::string& line);
  // The failure list, the performance table and the closing summary.
  void Summary(const std::vector<CaseResult>& results, bool interrupted);
  // --performance-report: the table shows the previous values too.
  void SetPreviousValues(PreviousValues previous) { previous_ = std::move(previous); }

  // "stream %threads=2 @generic:local+builtin"
  static std::string Label(const CaseResult& r);

 private:
  void ClearStatus();
  void DrawStatus();
  std::string Paint(const std::string& text, const char* colour) const;

  FILE* out_;
  bool tty_, color_;
  size_t done_ = 0, total_ = 0;
  std::vector<std::string> running_;  // labels of the cases in flight, oldest first
  std::optional<PreviousValues> previous_;
};

// The performance table as plain text (also used by `hetbench run` when
// piped). One row per performance value. With `previous`, two more
// columns: the value of the latest earlier session ("-" when none) and the
// change from it in percent.
// Values are written with 4 significant digits; a value in seconds gets the
// SI prefix that suits it (575 ns, 12.5 ms, not 5.75e-07 s), with its
// reference and previous value in the same unit. With --repeat, a `rep`
// column says which repetition a row is from. A case's figure of merit is
// its first row, marked with a star.
std::string PerformanceTable(const std::vector<CaseResult>& results, const PreviousValues* previous = nullptr);

// One line per training case (a case that reports at least two parts of a
// training step, results/step_breakdown.h): its figure of merit, the step
// time (`step_time`, else the sum of the parts) and each group's share:
//   "  train %ranks=2 @s:p+e  throughput 121.2 samples/s · step 1.41 s ·
//    I/O 1.2% · h2d 0.0% · compute 6.5% · comm 92.3%"
// Summary prints these instead of the cases' rows in the performance
// table; rows with a reference stay in the table.
std::string TrainingLines(const std::vector<CaseResult>& results);
bool IsTrainingCase(const CaseResult& r);

// A value and its unit as the table shows them: `unit` "s" becomes ns, µs,
// ms or s by the size of `value` (0 stays "0 s"); other units are left as
// they are. `scale` gets the factor the value was multiplied by.
std::pair<std::string, std::string> ScaledValue(double value, const std::string& unit, double* scale = nullptr);

// `--color=auto|always|never` with the NO_COLOR convention (no-color.org):
// auto is colour on a terminal unless NO_COLOR is set to anything
// non-empty; always and never are what they say. Nothing else is valid.
Result<bool> ColorChoice(const std::string& flag, bool tty, const char* no_color_env);

// Columns of the terminal `out` is (TIOCGWINSZ), else $COLUMNS, else 80.
int TerminalColumns(FILE* out);

}  // namespace hb
