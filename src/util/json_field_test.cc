#include "util/json_field.h"

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include "util/yaml_util.h"

namespace hb {
namespace {

using nlohmann::json;

TEST(JsonFieldTest, TypedReadsAndDefaults) {
  json j = json::parse(R"({"s": "x", "b": true, "i": 7, "f": 2.5, "n": null, "l": ["a", "b"], "m": {"k": 1}})");
  JsonField f(j, "opts");
  EXPECT_EQ(*f["s"].String(), "x");
  EXPECT_EQ(*f["b"].Bool(), true);
  EXPECT_EQ(*f["i"].Int(0, 10), 7);
  EXPECT_EQ(*f["i"].Number(), 7.0);
  EXPECT_EQ(*f["f"].Number(), 2.5);
  EXPECT_EQ(*f["l"].Strings(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(*f["m"]["k"].Int(), 1);
  EXPECT_EQ(*f["missing"].String("dflt"), "dflt");
  EXPECT_EQ(*f["n"].String("dflt"), "dflt");
  EXPECT_EQ(*f["n"].Bool(true), true);
  EXPECT_TRUE(f["missing"]["deeper"][3].absent());
  EXPECT_TRUE(f["missing"].Strings()->empty());
  EXPECT_EQ(*f["i"].Scalar(), "7");
  EXPECT_EQ(*f["b"].Scalar(), "true");
}

TEST(JsonFieldTest, WrongTypesAreErrorsNotExceptions) {
  json j = json::parse(R"({"s": ["x"], "i": 2.5, "big": 5, "l": ["a", 3], "u": 18446744073709551615})");
  JsonField f(j, "general");
  EXPECT_EQ(f["s"].String().status().message(), "general: s: expected a string, got a list");
  EXPECT_EQ(f["i"].Int().status().message(), "general: i: expected an integer, got 2.5");
  EXPECT_EQ(f["big"].Int(0, 3).status().message(), "general: big: expected an integer from 0 to 3, got 5");
  EXPECT_EQ(f["l"].Strings().status().message(), "general: l[1]: expected a string, got 3");
  EXPECT_FALSE(f["u"].Int().ok());
  EXPECT_EQ(f["s"].Bool().status().message(), "general: s: expected true or false, got a list");
  EXPECT_EQ(f["i"].Bool().status().message(), "general: i: expected true or false, got 2.5");
  EXPECT_EQ(f["nope"].String().status().message(), "general: nope: is required");
  EXPECT_FALSE(f["s"].Object().ok());
  EXPECT_TRUE(f["s"].List().ok());
}

TEST(JsonFieldTest, ErrorsNameFileLineColumnFromYaml) {
  auto docs = LoadYamlString("a:\n  b: [1, 2]\n  c:\n    d: soon\n", "site.yaml");
  ASSERT_TRUE(docs.ok());
  JsonMarks marks;
  json j = YamlToJson((*docs)[0], "site.yaml", &marks);
  JsonField f(j, "", &marks);
  EXPECT_EQ(f["a"]["c"]["d"].Number().status().str(), "site.yaml:4:8: a: c: d: expected a number, got a string 'soon'");
  EXPECT_EQ(f["a"]["b"].String().status().str(), "site.yaml:2:6: a: b: expected a string, got a list");
  EXPECT_EQ(f["a"]["b"][1].String().status().str(), "site.yaml:2:10: a: b[1]: expected a string, got 2");
  // An absent key is placed at the mapping that lacks it.
  EXPECT_EQ(f["a"]["c"]["e"].String().status().str(), "site.yaml:4:5: a: c: e: is required");
}

TEST(JsonFieldTest, PointerPartsAreEscaped) {
  json j = json::parse(R"({"a/b": {"~x": 1}})");
  JsonField f(j);
  EXPECT_EQ(f["a/b"]["~x"].pointer(), "/a~1b/~0x");
  EXPECT_EQ(*f["a/b"]["~x"].Int(), 1);
}

// The rule this file exists for: no nlohmann::json reader that throws on a
// wrong type is called anywhere in src/ outside this module. A value that
// came from a user is read through JsonField (or the primitives above);
// one that cannot be typed wrongly is read the same way, so that the rule
// has no exceptions to argue about.
TEST(JsonFieldTest, NoUncheckedJsonReads) {
  namespace fs = std::filesystem;
  // get<T>(), get_to(x), get_ref<T>() and value(key, default).
  const std::regex unchecked(R"((\.|->)(get|get_ref)\s*<|(\.|->)get_to\s*\(|(\.|->)value\s*\(\s*[^)\s])");
  std::vector<std::string> found;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(HB_SOURCE_DIR) / "src")) {
    const std::string path = e.path().string();
    if (!e.is_regular_file()) continue;
    if (!(path.ends_with(".cc") || path.ends_with(".h")) || path.ends_with("_test.cc") ||
        path.ends_with("_test_util.h"))
      continue;
    if (path.ends_with("util/json_field.cc")) continue;
    std::ifstream in(path);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      std::string code = line.substr(0, line.find("//"));
      if (std::regex_search(code, unchecked))
        found.push_back(fs::relative(path, HB_SOURCE_DIR).string() + ":" + std::to_string(n) + ": " + line);
    }
  }
  std::ostringstream all;
  for (const auto& f : found) all << f << "\n";
  EXPECT_TRUE(found.empty()) << "unchecked JSON reads (use util/json_field.h):\n" << all.str();
}

}  // namespace
}  // namespace hb
