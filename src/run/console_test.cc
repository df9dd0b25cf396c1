#include "run/console.h"

#include <gtest/gtest.h>

#include <cstdio>

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
            "case                                      variable  value    unit  reference  lower  upper  verdict\n"
            "stream %threads=2 @generic:local+builtin  triad     30624.6  MB/s       2000   -90%      -  pass\n"
            "stream %threads=2 @generic:local+builtin  triad           5  MB/s          -      -      -  none\n");
  EXPECT_EQ(PerformanceTable({}), "");
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
