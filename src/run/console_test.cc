#include "run/console.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

namespace hb {
namespace {

CaseResult Perf(double value, std::optional<Reference> ref, const std::string& verdict) {
  CaseResult r;
  r.display_name = "stream %threads=2";
  r.system = "generic";
  r.partition = "local";
  r.environ = "builtin";
  PerfResult p;
  p.name = "triad";
  p.value = value;
  p.unit = "MB/s";
  p.reference = ref;
  p.verdict = verdict;
  r.perf.push_back(p);
  return r;
}

TEST(Console, PerformanceTableAlignsColumns) {
  Reference ref;
  ref.value = 2000;
  ref.lower = -0.9;
  std::string t = PerformanceTable({Perf(30624.6, ref, "pass"), Perf(5, std::nullopt, "none")});
  EXPECT_EQ(t,
            "case                                      variable  value  unit  reference  lower  upper  verdict\n"
            "stream %threads=2 @generic:local+builtin  triad     30625  MB/s       2000   -90%      -  pass\n"
            "stream %threads=2 @generic:local+builtin  triad         5  MB/s          -      -      -  none\n");
  EXPECT_EQ(PerformanceTable({}), "");
}

// issue 17, item 7: seconds get the SI prefix that suits them, with the
// reference in the same unit; 4 significant digits; repetitions a column.
TEST(Console, PerformanceTableScalesSecondsAndShowsRepetitions) {
  EXPECT_EQ(ScaledValue(5.75143e-07, "s"), (std::pair<std::string, std::string>{"575.1", "ns"}));
  EXPECT_EQ(ScaledValue(3.2e-05, "s"), (std::pair<std::string, std::string>{"32", "\u00b5s"}));
  EXPECT_EQ(ScaledValue(0.0125, "s"), (std::pair<std::string, std::string>{"12.5", "ms"}));
  EXPECT_EQ(ScaledValue(1.41234, "s"), (std::pair<std::string, std::string>{"1.412", "s"}));
  EXPECT_EQ(ScaledValue(0, "s"), (std::pair<std::string, std::string>{"0", "s"}));
  EXPECT_EQ(ScaledValue(5.75143e-07, "GB/s"), (std::pair<std::string, std::string>{"5.751e-07", "GB/s"}));
  CaseResult a = Perf(0.00125, std::nullopt, "pass"), b = a;
  a.perf[0].unit = b.perf[0].unit = "s";
  Reference ref;
  ref.value = 0.001;
  ref.upper = 0.5;
  a.perf[0].reference = ref;
  b.repetition = 1;
  b.perf[0].value = 0.00131;
  std::string t = PerformanceTable({a, b});
  EXPECT_EQ(t,
            "case                                      rep  variable  value  unit  reference  lower  upper  verdict\n"
            "stream %threads=2 @generic:local+builtin    0  triad      1.25  ms            1      -   +50%  pass\n"
            "stream %threads=2 @generic:local+builtin    1  triad      1.31  ms            -      -      -  pass\n");
}

// What a console on a terminal without colours shows after a session of
// `total` cases starts one.
std::string Shown(size_t total, const std::string& label) {
  char* buf = nullptr;
  size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  Console c(f, /*tty=*/true, /*color=*/false);
  c.SessionStart("banner", total);
  c.CaseStart(label);
  std::fclose(f);
  std::string out(buf, len);
  free(buf);
  return out;
}

// issue 17, item 7: a training case is one line, not 14 rows.
TEST(Console, ATrainingCaseIsOneLine) {
  CaseResult r = Perf(121.2, std::nullopt, "none");
  r.display_name = "train %ranks=2";
  r.perf[0].name = "throughput";
  r.perf[0].unit = "samples/s";
  r.perf[0].figure_of_merit = true;
  for (auto [name, value] : {std::pair{"step_time", 1.41},
                             {"data_wait", 0.01},
                             {"h2d_copy", 0.0},
                             {"forward", 0.2},
                             {"backward", 0.4},
                             {"rank_wait", 0.1},
                             {"allreduce", 0.2},
                             {"optimizer", 0.09}}) {
    PerfResult p;
    p.name = name;
    p.value = value;
    p.unit = "s";
    r.perf.push_back(p);
  }
  EXPECT_TRUE(IsTrainingCase(r));
  EXPECT_FALSE(IsTrainingCase(Perf(1, std::nullopt, "none")));
  // The parts sum to a step of 1 s: 1 % I/O, 69 % compute, 10 % waiting for
  // the slowest rank, 20 % communication.
  EXPECT_EQ(TrainingLines({r, Perf(1, std::nullopt, "none")}),
            "train %ranks=2 @generic:local+builtin  throughput 121.2 samples/s \u00b7 step 1.41 s \u00b7 I/O 1.0% "
            "\u00b7 h2d 0.0% \u00b7 compute 69.0% \u00b7 wait 10.0% \u00b7 comm 20.0%\n");
  // In the summary the case's rows give way to its line.
  char* buf = nullptr;
  size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  Console c(f, /*tty=*/false);
  r.result = "pass";
  c.Summary({r}, false);
  std::fclose(f);
  std::string out(buf, len);
  free(buf);
  EXPECT_EQ(out.find("PERFORMANCE"), std::string::npos) << out;
  EXPECT_NE(out.find("TRAINING\ntrain %ranks=2"), std::string::npos) << out;
}

TEST(Console, TheFigureOfMeritLeadsItsCase) {
  CaseResult r = Perf(5, std::nullopt, "none");
  PerfResult fom = r.perf[0];
  fom.name = "tput";
  fom.value = 7;
  fom.figure_of_merit = true;
  r.perf.push_back(fom);
  std::string t = PerformanceTable({r});
  EXPECT_LT(t.find("\u2605 tput"), t.find("triad")) << t;
}

TEST(Console, ColorFollowsTheFlagAndNoColor) {
  EXPECT_TRUE(*ColorChoice("auto", true, nullptr));
  EXPECT_TRUE(*ColorChoice("auto", true, ""));  // NO_COLOR= (empty) does not count
  EXPECT_FALSE(*ColorChoice("auto", true, "1"));
  EXPECT_FALSE(*ColorChoice("auto", false, nullptr));
  EXPECT_TRUE(*ColorChoice("always", false, "1"));
  EXPECT_FALSE(*ColorChoice("never", true, nullptr));
  EXPECT_EQ(ColorChoice("yes", true, nullptr).status().message(), "--color: expected auto, always or never, got 'yes'");
  // A terminal without colour: the status line redraws, no colour sequence.
  std::string out = Shown(1, "a @s:p+e");
  EXPECT_EQ(out.find("\033[1m"), std::string::npos) << out;
  EXPECT_EQ(out.find("\033[3"), std::string::npos) << out;
  EXPECT_NE(out.find("[0/1] 1 running: a @s:p+e"), std::string::npos) << out;
}

TEST(Console, TheStatusLineFitsTheTerminal) {
  setenv("COLUMNS", "40", 1);  // a memory stream is not a terminal: COLUMNS decides
  std::string out = Shown(3, "a_very_long_case_name %p=1 @system:partition+environment");
  unsetenv("COLUMNS");
  std::string status = out.substr(out.rfind('\n') + 1);
  EXPECT_EQ(status, "[0/3] 1 running: a_very_long_case_na...") << out;
  EXPECT_EQ(status.size(), 39u);
}

TEST(Console, PlainLinesWhenPiped) {
  char* buf = nullptr;
  size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  Console c(f, /*tty=*/false);
  c.SessionStart("banner", 1);
  c.CaseStart("a @s:p+e");
  CaseResult r;
  r.display_name = "a";
  r.system = "s";
  r.partition = "p";
  r.environ = "e";
  r.result = "fail";
  r.fail_stage = "sanity";
  r.fail_reason = "pattern 'x' not found in stdout";
  c.CaseEnd(r, 1, 1, true);
  c.Summary({r}, false);
  std::fclose(f);
  std::string out(buf, len);
  free(buf);
  EXPECT_EQ(out.find('\033'), std::string::npos) << "no colours or status line when piped";
  EXPECT_NE(out.find("[ RUN      ] a @s:p+e\n"), std::string::npos);
  EXPECT_NE(out.find("[     FAIL ] (1/1) a @s:p+e: sanity: pattern 'x' not found in stdout\n"), std::string::npos);
  EXPECT_NE(out.find("[  FAILED  ] 0 passed, 1 failed, 0 skipped, 0 cancelled (1 case(s))\n"), std::string::npos);
}

}  // namespace
}  // namespace hb
