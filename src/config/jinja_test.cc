#include "config/jinja.h"

#include <gtest/gtest.h>

#include <map>

namespace hb {
namespace {

JinjaContext FakeContext() {
  JinjaContext ctx;
  ctx.hostname = "login01";
  ctx.user = "alice";
  ctx.group = "hpc";
  ctx.uid = 1001;
  ctx.gid = 2002;
  ctx.getenv = [](const std::string& name) -> std::optional<std::string> {
    static const std::map<std::string, std::string> env = {{"SCRATCH", "/scratch/alice"}, {"EMPTY", ""}};
    auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
  return ctx;
}

std::string Render(const std::string& text) {
  Result<std::string> r = RenderJinja(text, "site.yaml", FakeContext());
  return r.ok() ? *r : "ERROR: " + r.status().str();
}

TEST(Jinja, Variables) {
  EXPECT_EQ(Render("{{ hostname }}"), "login01");
  EXPECT_EQ(Render("{{user}}:{{ group }}"), "alice:hpc");
  EXPECT_EQ(Render("{{ uid }}/{{  gid  }}"), "1001/2002");
  EXPECT_EQ(Render("{{ username }}/{{ groupname }}"), "alice/hpc");
}

TEST(Jinja, GetenvWithEitherQuotesAndAnySpacing) {
  EXPECT_EQ(Render(R"(prefix: {{ getenv("SCRATCH") }}/rfm)"), "prefix: /scratch/alice/rfm");
  EXPECT_EQ(Render("{{getenv('SCRATCH')}}"), "/scratch/alice");
  EXPECT_EQ(Render("{{   getenv ( \"SCRATCH\" )   }}"), "/scratch/alice");
  EXPECT_EQ(Render("{{ getenv(\"EMPTY\") }}x"), "x");
}

TEST(Jinja, UnsetVariableRendersNoneUnlessDefaulted) {
  EXPECT_EQ(Render("{{ getenv('NOPE') }}"), "None");  // as Jinja2 prints os.getenv's None
  EXPECT_EQ(Render("{{ getenv('NOPE', '/tmp') }}"), "/tmp");
  EXPECT_EQ(Render("{{ getenv(\"SCRATCH\", \"/tmp\") }}"), "/scratch/alice");
}

TEST(Jinja, LeavesOtherBracesAlone) {
  EXPECT_EQ(Render("options: ['--gres=gpu:{num_gpus_per_node}']"), "options: ['--gres=gpu:{num_gpus_per_node}']");
  EXPECT_EQ(Render("extras: {a: 1}\nx: {"), "extras: {a: 1}\nx: {");
}

TEST(Jinja, CommentsAndWhitespaceControl) {
  EXPECT_EQ(Render("a: 1 {# a note #}\nb: 2"), "a: 1 \nb: 2");
  EXPECT_EQ(Render("name:   {{- hostname -}}   !"), "name:login01!");
}

TEST(Jinja, UnknownExpressionNamesFileLineColumn) {
  EXPECT_EQ(Render("systems:\n  - name: {{ hostname | upper }}\n"),
            "ERROR: site.yaml:2:11: unsupported Jinja expression '{{ hostname | upper }}': hetbench "
            "knows hostname, user, group, uid, gid and getenv(\"VAR\")");
  EXPECT_EQ(Render("a: b\n{% if x %}\n"),
            "ERROR: site.yaml:2:1: Jinja statements ('{% ... %}') are not supported in configuration files");
  EXPECT_EQ(Render("a: {{ hostname\n"), "ERROR: site.yaml:1:4: unterminated Jinja '{{': no closing '}}'");
}

TEST(Jinja, HostContextHasTheProcessIdentity) {
  JinjaContext ctx = HostJinjaContext();
  EXPECT_FALSE(ctx.hostname.empty());
  EXPECT_FALSE(ctx.user.empty());
  EXPECT_FALSE(ctx.group.empty());
  setenv("HB_JINJA_TEST_VAR", "value42", 1);
  EXPECT_EQ(*RenderJinja("{{ getenv('HB_JINJA_TEST_VAR') }}", "f", ctx), "value42");
  unsetenv("HB_JINJA_TEST_VAR");
}

}  // namespace
}  // namespace hb
