#include "config/module_spec.h"

#include <gtest/gtest.h>

#include "util/yaml_util.h"

// GCC 12 warns about designated initializers that leave members at their
// defaults (GCC bug 96868); these tests rely on exactly that.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace hb {
namespace {

Result<std::vector<ModuleSpec>> Parse(const std::string& yaml) {
  auto docs = LoadYamlString(yaml, "t.yaml");
  if (!docs.ok()) return docs.status();
  return ParseModuleList((*docs)[0]["modules"], "t.yaml", "test 'x'");
}

std::string ErrorOf(const std::string& yaml) {
  auto r = Parse(yaml);
  return r.ok() ? "(no error)" : r.status().str();
}

TEST(ModuleSpec, EveryForm) {
  auto r = Parse(
      "modules:\n"
      "  - gcc/12\n"
      "  - {name: cray-mpich, collection: false, path: /opt/modulefiles}\n"
      "  - {name: mine, collection: true}\n"
      "  - {name: PrgEnv-gnu, swap: PrgEnv-cray}\n"
      "  - {name: darshan, unload: true}\n"
      "  - 'foo;touch /tmp/x'\n");
  ASSERT_TRUE(r.ok()) << r.status().str();
  EXPECT_EQ(*r, std::vector<ModuleSpec>({{.name = "gcc/12"},
                                         {.name = "cray-mpich", .path = "/opt/modulefiles"},
                                         {.name = "mine", .collection = true},
                                         {.name = "PrgEnv-gnu", .swap = "PrgEnv-cray"},
                                         {.name = "darshan", .unload = true},
                                         {.name = "foo;touch /tmp/x"}}));
  EXPECT_EQ(ModuleNames(*r),
            std::vector<std::string>({"gcc/12", "cray-mpich", "mine", "PrgEnv-gnu", "foo;touch /tmp/x"}));
}

TEST(ModuleSpec, AbsentOrNullIsEmpty) {
  EXPECT_TRUE(Parse("other: 1\n")->empty());
  EXPECT_TRUE(Parse("modules: null\n")->empty());
}

TEST(ModuleSpec, MistakesNameTheirPlace) {
  EXPECT_EQ(ErrorOf("modules: gcc\n"), "t.yaml:1:10: modules: expected a list, got a scalar 'gcc'");
  EXPECT_EQ(ErrorOf("modules: [[gcc]]\n"), "t.yaml:1:11: modules: expected a module name or a mapping, got a list");
  EXPECT_EQ(ErrorOf("modules: [{path: /x}]\n"), "t.yaml:1:11: module without a name in test 'x'");
  EXPECT_EQ(ErrorOf("modules: ['']\n"), "t.yaml:1:11: modules: an empty module name in test 'x'");
  EXPECT_EQ(ErrorOf("modules: [{name: a, unlaod: true}]\n"),
            "t.yaml:1:21: unknown key 'unlaod' in module of test 'x', did you mean 'unload'?");
  EXPECT_EQ(ErrorOf("modules: [{name: a, unload: maybe}]\n").substr(0, 30), "t.yaml:1:29: modules: unload: ");
  EXPECT_EQ(ErrorOf("modules: [{name: a, unload: true, swap: b}]\n"),
            "t.yaml:1:11: module 'a': 'unload' and 'swap' cannot be used together");
  EXPECT_EQ(ErrorOf("modules: [{name: a, collection: true, swap: b}]\n"),
            "t.yaml:1:11: module 'a': 'collection' and 'swap' cannot be used together");
  EXPECT_EQ(ErrorOf("modules: [{name: a, unload: true, path: /x}]\n"),
            "t.yaml:1:11: module 'a': 'unload' and 'path' cannot be used together");
}

TEST(ModuleSpec, MappingsReplaceLoadsRecursively) {
  auto mappings = ParseModuleMappings({"gcc: gcc/12", "PrgEnv: gcc  openmpi", "self: self\textra"});
  ASSERT_TRUE(mappings.ok()) << mappings.status().str();
  auto r = ApplyModuleMappings(
      {{.name = "PrgEnv", .path = "/opt/mf"}, {.name = "self"}, {.name = "gcc", .unload = true}, {.name = "other"}},
      *mappings);
  ASSERT_TRUE(r.ok()) << r.status().str();
  EXPECT_EQ(*r, std::vector<ModuleSpec>({{.name = "gcc/12", .path = "/opt/mf"},
                                         {.name = "openmpi", .path = "/opt/mf"},
                                         {.name = "self"},
                                         {.name = "extra"},
                                         {.name = "gcc", .unload = true},
                                         {.name = "other"}}));
}

TEST(ModuleSpec, BadMappings) {
  EXPECT_EQ(ParseModuleMappings({"gcc gcc/12"}).status().str(),
            "module_mappings: 'gcc gcc/12' is not of the form 'module: module [module...]'");
  EXPECT_EQ(ParseModuleMappings({"gcc:"}).status().str(),
            "module_mappings: 'gcc:' is not of the form 'module: module [module...]'");
  auto cyclic = ParseModuleMappings({"a: b", "b: c a"});
  ASSERT_TRUE(cyclic.ok());
  EXPECT_EQ(ApplyModuleMappings({{.name = "a"}}, *cyclic).status().str(), "module_mappings: a cycle: a -> b -> a");
}

}  // namespace
}  // namespace hb
