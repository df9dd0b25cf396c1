#include "run/console.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include "results/step_breakdown.h"
#include "util/strings.h"
#include "util/text_table.h"

namespace hb {

namespace {
const char* kGreen = "\033[32m";
const char* kRed = "\033[31m";
const char* kYellow = "\033[33m";
const char* kBold = "\033[1m";
}  // namespace

Console::Console(FILE* out, bool tty) : Console(out, tty, tty) {}
Console::Console(FILE* out, bool tty, bool color) : out_(out), tty_(tty), color_(color) {}

Result<bool> ColorChoice(const std::string& flag, bool tty, const char* no_color_env) {
  if (flag == "always") return true;
  if (flag == "never") return false;
  if (flag == "auto" || flag.empty()) return tty && !(no_color_env && *no_color_env);
  return Status::Error("--color: expected auto, always or never, got '" + flag + "'");
}

int TerminalColumns(FILE* out) {
  struct winsize ws {};
  if (out && ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  if (const char* cols = std::getenv("COLUMNS")) {
    int n = std::atoi(cols);
    if (n > 0) return n;
  }
  return 80;
}

std::string Console::Paint(const std::string& text, const char* colour) const {
  if (!color_) return text;
  return std::string(colour) + text + "\033[0m";
}

std::string Console::Label(const CaseResult& r) {
  return r.display_name + " @" + r.system + ":" + r.partition + "+" + r.environ;
}

void Console::ClearStatus() {
  if (tty_) std::fputs("\r\033[K", out_);
}

void Console::DrawStatus() {
  if (!tty_) {
    std::fflush(out_);  // line by line when piped, so logs follow progress
    return;
  }
  std::string line =
      "[" + std::to_string(done_) + "/" + std::to_string(total_) + "] " + std::to_string(running_.size()) + " running";
  if (!running_.empty()) line += ": " + running_.front();
  // One line of the terminal, whatever its width (a wrapped status line
  // cannot be redrawn).
  size_t width = static_cast<size_t>(std::max(20, TerminalColumns(out_) - 1));
  if (line.size() > width) {
    line = line.substr(0, width - 3);
    while (!line.empty() && (static_cast<unsigned char>(line.back()) & 0xC0) == 0x80) line.pop_back();  // whole UTF-8
    if (!line.empty() && static_cast<unsigned char>(line.back()) >= 0xC0) line.pop_back();
    line += "...";
  }
  std::fputs(line.c_str(), out_);
  std::fflush(out_);
}

void Console::SessionStart(const std::string& banner, size_t total) {
  total_ = total;
  std::fprintf(out_, "%s\n", banner.c_str());
  std::fprintf(out_, "%s Running %zu test case(s)\n", Paint("[==========]", kBold).c_str(), total);
  std::fflush(out_);
}

void Console::CaseStart(const std::string& label) {
  ClearStatus();
  running_.push_back(label);
  std::fprintf(out_, "[ RUN      ] %s\n", label.c_str());
  DrawStatus();
}

void Console::CaseRetry(const std::string& label, int attempt, const std::string& why) {
  ClearStatus();
  std::fprintf(out_, "%s %s: %s (retry %d)\n", Paint("[   RETRY  ]", kYellow).c_str(), label.c_str(), why.c_str(),
               attempt);
  DrawStatus();
}

void Console::Note(const std::string& line) {
  ClearStatus();
  std::fprintf(out_, "%s\n", line.c_str());
  DrawStatus();
}

void Console::CaseEnd(const CaseResult& r, size_t done, size_t total, bool started) {
  ClearStatus();
  done_ = done;
  if (started) {
    auto it = std::find(running_.begin(), running_.end(), Label(r));
    if (it != running_.end()) running_.erase(it);
  }
  char counter[64];
  std::snprintf(counter, sizeof counter, "(%*zu/%zu)", static_cast<int>(std::to_string(total).size()), done, total);
  double secs = r.end_time > r.start_time ? r.end_time - r.start_time : 0;
  std::string label = Label(r);
  if (r.result == "pass") {
    std::fprintf(out_, "%s %s %s [%.2fs]\n", Paint("[       OK ]", kGreen).c_str(), counter, label.c_str(), secs);
  } else if (r.result == "skip") {
    std::fprintf(out_, "%s %s %s: %s\n", Paint("[     SKIP ]", kYellow).c_str(), counter, label.c_str(),
                 r.fail_reason.c_str());
  } else if (r.result == "dry-run") {
    std::fprintf(out_, "%s %s %s: %s\n", Paint("[  DRY-RUN ]", kYellow).c_str(), counter, label.c_str(),
                 r.fail_reason.c_str());
  } else if (r.result == "cancelled") {
    std::fprintf(out_, "%s %s %s: %s\n", Paint("[ CANCELLED]", kYellow).c_str(), counter, label.c_str(),
                 r.fail_reason.c_str());
  } else {
    std::fprintf(out_, "%s %s %s: %s: %s\n", Paint("[     FAIL ]", kRed).c_str(), counter, label.c_str(),
                 r.fail_stage.c_str(), r.fail_reason.c_str());
  }
  DrawStatus();
}

std::string PreviousKey(const std::string& label, const std::string& var) { return label + "\t" + var; }

namespace {

// 4 significant digits, without an exponent from 1e-3 to 1e9: 30625, not
// 3.062e+04; 0.01234; 1.5e-05.
std::string Short(double v) {
  double a = std::fabs(v);
  if (std::isfinite(v) && a >= 1000 && a < 1e9) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  return FormatNumber(v, 4);
}

}  // namespace

std::pair<std::string, std::string> ScaledValue(double value, const std::string& unit, double* scale) {
  double f = 1;
  std::string u = unit;
  if (unit == "s" && std::isfinite(value) && value != 0) {
    double a = std::fabs(value);
    if (a < 1e-6)
      f = 1e9, u = "ns";
    else if (a < 1e-3)
      f = 1e6, u = "\u00b5s";
    else if (a < 1)
      f = 1e3, u = "ms";
  }
  if (scale) *scale = f;
  return {Short(value * f), u};
}

std::string PerformanceTable(const std::vector<CaseResult>& results, const PreviousValues* previous) {
  bool repeated = false;
  for (const auto& r : results) repeated |= r.repetition > 0 && !r.perf.empty();
  std::vector<std::string> header = {"case"};
  if (repeated) header.push_back("rep");
  header.insert(header.end(), {"variable", "value", "unit", "reference", "lower", "upper", "verdict"});
  if (previous) header.insert(header.end(), {"previous", "change"});
  static const std::vector<std::string> kNumeric = {"rep",   "value",    "reference", "lower",
                                                    "upper", "previous", "change"};
  std::vector<std::vector<std::string>> rows = {header};
  for (const auto& r : results) {
    // A case's figure of merit leads its rows, marked with a star.
    std::vector<const PerfResult*> perf;
    for (const auto& p : r.perf) perf.push_back(&p);
    std::stable_partition(perf.begin(), perf.end(), [](const PerfResult* p) { return p->figure_of_merit; });
    for (const PerfResult* pp : perf) {
      const PerfResult& p = *pp;
      double scale = 1;
      auto [value, unit] = ScaledValue(p.value, p.unit, &scale);
      std::vector<std::string> row = {Console::Label(r)};
      if (repeated) row.push_back(std::to_string(r.repetition));
      row.insert(row.end(), {(p.figure_of_merit ? "\u2605 " : "") + p.name, value, unit});
      if (p.reference) {
        const Reference& ref = *p.reference;
        auto pct = [](const std::optional<double>& t) {
          if (!t) return std::string("-");
          return (*t >= 0 ? "+" : "") + FormatNumber(*t * 100, 4) + "%";
        };
        row.push_back(Short(ref.value * scale));
        row.push_back(pct(ref.lower));
        row.push_back(pct(ref.upper));
      } else {
        row.insert(row.end(), {"-", "-", "-"});
      }
      row.push_back(p.verdict);
      if (previous) {
        auto it = previous->find(PreviousKey(Console::Label(r), p.name));
        if (it == previous->end()) {
          row.insert(row.end(), {"-", "-"});
        } else {
          double before = it->second.value;
          row.push_back(Short(before * scale));
          row.push_back(before == 0 ? "-"
                                    : ((p.value >= before ? "+" : "") +
                                       FormatNumber((p.value - before) / std::abs(before) * 100, 3) + "%"));
        }
      }
      rows.push_back(std::move(row));
    }
  }
  if (rows.size() == 1) return "";
  std::vector<bool> right;
  for (const auto& h : header) right.push_back(std::find(kNumeric.begin(), kNumeric.end(), h) != kNumeric.end());
  return TextTable(rows, right);
}

bool IsTrainingCase(const CaseResult& r) {
  int parts = 0;
  for (const auto& p : r.perf) parts += !StepGroupOf(p.name).empty();
  return parts >= 2;
}

std::string TrainingLines(const std::vector<CaseResult>& results) {
  std::vector<std::pair<std::string, std::string>> lines;  // label, the rest
  for (const auto& r : results) {
    if (!IsTrainingCase(r)) continue;
    std::vector<std::pair<std::string, double>> parts;
    std::string fom;
    std::optional<double> step_time;
    for (const auto& p : r.perf) {
      parts.emplace_back(p.name, p.value);
      if (p.figure_of_merit) {
        auto [value, unit] = ScaledValue(p.value, p.unit);
        fom = p.name + " " + value + (unit.empty() ? "" : " " + unit) + " \u00b7 ";
      }
      if (p.name == "step_time" && (p.unit == "s" || p.unit.empty())) step_time = p.value;
    }
    double sum = 0;
    std::vector<StepShare> shares = GroupStep(parts, &sum);
    auto [step, unit] = ScaledValue(step_time.value_or(sum), "s");
    std::string rest = fom + "step " + step + " " + unit;
    static const std::map<std::string, std::string> kShort = {{"host-to-device", "h2d"}, {"communication", "comm"}};
    for (const auto& s : shares) {
      char pct[32];
      std::snprintf(pct, sizeof pct, "%.1f%%", s.percent);
      auto it = kShort.find(s.group);
      rest += " \u00b7 " + (it == kShort.end() ? s.group : it->second) + " " + pct;
    }
    lines.emplace_back(Console::Label(r) + (r.repetition > 0 ? " (rep " + std::to_string(r.repetition) + ")" : ""),
                       rest);
  }
  size_t width = 0;
  for (const auto& [label, rest] : lines) width = std::max(width, label.size());
  std::string out;
  for (const auto& [label, rest] : lines) out += label + std::string(width - label.size() + 2, ' ') + rest + "\n";
  return out;
}

void Console::Summary(const std::vector<CaseResult>& results, bool interrupted) {
  ClearStatus();
  size_t passed = 0, failed = 0, skipped = 0, cancelled = 0, dry = 0;
  for (const auto& r : results) {
    if (r.result == "pass")
      ++passed;
    else if (r.result == "skip")
      ++skipped;
    else if (r.result == "dry-run")
      ++dry;
    else if (r.result == "cancelled")
      ++cancelled;
    else
      ++failed;
  }
  if (failed > 0) {
    std::fprintf(out_, "\n%s\n", Paint("FAILURES", kRed).c_str());
    for (const auto& r : results) {
      if (r.result != "fail") continue;
      std::fprintf(out_, "  * %s\n      %s: %s\n", Label(r).c_str(), r.fail_stage.c_str(), r.fail_reason.c_str());
      if (!r.outputdir.empty()) std::fprintf(out_, "      output: %s\n", r.outputdir.c_str());
      if (!r.stagedir.empty()) std::fprintf(out_, "      stage:  %s\n", r.stagedir.c_str());
    }
  }
  // Training cases get one line each; their values with a reference stay
  // in the table, the rest are in the run report and `hetbench results`.
  std::vector<CaseResult> tabled = results;
  for (auto& r : tabled) {
    if (!IsTrainingCase(r)) continue;
    r.perf.erase(std::remove_if(r.perf.begin(), r.perf.end(), [](const PerfResult& p) { return !p.reference; }),
                 r.perf.end());
  }
  std::string table = PerformanceTable(tabled, previous_ ? &*previous_ : nullptr);
  if (!table.empty()) std::fprintf(out_, "\n%s\n%s", Paint("PERFORMANCE", kBold).c_str(), table.c_str());
  std::string training = TrainingLines(results);
  if (!training.empty())
    std::fprintf(out_, "\n%s\n%s(every value: the run report, or `hetbench results cases -n NAME`)\n",
                 Paint("TRAINING", kBold).c_str(), training.c_str());
  const char* tag = failed || interrupted ? "[  FAILED  ]" : "[  PASSED  ]";
  std::string dry_run = dry ? ", " + std::to_string(dry) + " dry-run" : "";
  std::fprintf(out_, "\n%s %zu passed, %zu failed, %zu skipped, %zu cancelled%s (%zu case(s))%s\n",
               Paint(tag, failed || interrupted ? kRed : kGreen).c_str(), passed, failed, skipped, cancelled,
               dry_run.c_str(), results.size(), interrupted ? " - interrupted" : "");
  std::fflush(out_);
}

}  // namespace hb
