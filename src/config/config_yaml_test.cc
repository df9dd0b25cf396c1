#include "config/config_yaml.h"

#include <gtest/gtest.h>

namespace hb {
namespace {

using nlohmann::json;

TEST(ConfigYaml, PlainScalarsAreTypedAsPyYamlTypesThem) {
  EXPECT_EQ(PlainScalarToJson("8"), json(8));
  EXPECT_EQ(PlainScalarToJson("-12"), json(-12));
  EXPECT_EQ(PlainScalarToJson("0x1f"), json(31));
  EXPECT_EQ(PlainScalarToJson("1.5"), json(1.5));
  EXPECT_EQ(PlainScalarToJson("1e3"), json("1e3"));  // YAML 1.1 floats need a '.'
  EXPECT_EQ(PlainScalarToJson("true"), json(true));
  EXPECT_EQ(PlainScalarToJson("yes"), json(true));
  EXPECT_EQ(PlainScalarToJson("Off"), json(false));
  EXPECT_EQ(PlainScalarToJson("~"), json(nullptr));
  EXPECT_EQ(PlainScalarToJson("null"), json(nullptr));
  EXPECT_EQ(PlainScalarToJson("10m"), json("10m"));
  EXPECT_EQ(PlainScalarToJson("sm_80"), json("sm_80"));
}

TEST(ConfigYaml, YamlToJsonKeepsTypes) {
  YAML::Node n =
      YAML::Load("a: 8\nb: '8'\nc: yes\nd: ~\ne:\nf: ''\ng: [1, x, 2.5]\nh: {k: null}\ni: !!str 12\nj: \"true\"\n");
  json j = YamlToJson(n);
  EXPECT_EQ(j["a"], json(8));
  EXPECT_TRUE(j["a"].is_number_integer());
  EXPECT_EQ(j["b"], json("8"));
  EXPECT_EQ(j["c"], json(true));
  EXPECT_TRUE(j["d"].is_null());
  EXPECT_TRUE(j["e"].is_null());
  EXPECT_EQ(j["f"], json(""));
  EXPECT_EQ(j["g"], json::parse(R"([1, "x", 2.5])"));
  EXPECT_TRUE(j["h"]["k"].is_null());
  EXPECT_EQ(j["i"], json("12"));
  EXPECT_EQ(j["j"], json("true"));
}

TEST(ConfigYaml, ConfigToYamlIsBlockStyleWithNameFirst) {
  json j = json::parse(R"({"systems": [{"hostnames": ["login\\d+"], "name": "c", "max": 8,
                            "partitions": [], "extras": {}}]})");
  EXPECT_EQ(ConfigToYaml(j),
            "systems:\n"
            "  - name: c\n"
            "    extras: {}\n"
            "    hostnames:\n"
            "      - login\\d+\n"
            "    max: 8\n"
            "    partitions: []\n");
}

TEST(ConfigYaml, ConfigToYamlRoundTripsTypes) {
  json j = json::parse(R"({"s": "8", "t": "yes", "e": "", "n": null, "b": false, "i": 3, "f": 0.25,
                           "big": 1e20, "one": 1.0, "colon": "a: b", "list": ["--gres=gpu:{n}", "#DW x"],
                           "multi": "line1\nline2"})");
  std::string text = ConfigToYaml(j);
  EXPECT_EQ(YamlToJson(YAML::Load(text)), j) << text;
  EXPECT_NE(text.find("s: '8'"), std::string::npos) << text;
  EXPECT_NE(text.find("n: null"), std::string::npos) << text;
}

}  // namespace
}  // namespace hb
