#include "train/mllog.h"

#include <gtest/gtest.h>

namespace hbw::train {
namespace {

MlLogger FixedClock() {
  return MlLogger(nullptr, [] { return int64_t{1700000000123}; });
}

TEST(MlLogger, LineIsByteCompatibleWithMllogPy) {
  // As mllog.py writes `mllogger.event(key="seed", value=42, metadata={"epoch_num": 1})`:
  // the integer stays an integer, the call site comes first in the metadata.
  auto at = std::source_location::current();
  std::string line = FixedClock().Format("POINT_IN_TIME", "seed", 42, {{"epoch_num", 1}}, at);
  EXPECT_EQ(line,
            ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1700000000123, \"event_type\": \"POINT_IN_TIME\", "
            "\"key\": \"seed\", \"value\": 42, \"metadata\": {\"file\": \"mllog_test.cc\", \"lineno\": " +
                std::to_string(at.line()) + ", \"epoch_num\": 1}}");
}

TEST(MlLogger, ValuesKeepTheirJsonTypes) {
  auto at = std::source_location::current();
  MlLogger log = FixedClock();
  auto value_of = [&](const MlLogger::Json& v) {
    std::string line = log.Format("POINT_IN_TIME", "k", v, nullptr, at);
    size_t a = line.find("\"value\": ") + 9, b = line.find(", \"metadata\"");
    return line.substr(a, b - a);
  };
  EXPECT_EQ(value_of(true), "true");     // json.dumps(True)
  EXPECT_EQ(value_of(int64_t{4}), "4");  // json.dumps(4)
  EXPECT_EQ(value_of(size_t{121266}), "121266");
  EXPECT_EQ(value_of(1.0), "1.0");  // json.dumps(1.0)
  EXPECT_EQ(value_of(0.0001), "0.0001");
  EXPECT_EQ(value_of(nullptr), "null");
  EXPECT_EQ(value_of("resnet"), "\"resnet\"");  // strings stay
  EXPECT_EQ(value_of(1e-6), "1e-06");           // Python's repr
  EXPECT_EQ(value_of(MlLogger::Json::array({0.9, 0.999})), "[0.9, 0.999]");
}

TEST(MlLogger, PythonJsonDumpSeparatorsAndEscapes) {
  MlLogger::Json j = {{"a", MlLogger::Json::array({1, "x"})}, {"b", {{"c", nullptr}}}, {"d", "\xc3\xa9\""}};
  EXPECT_EQ(PythonJsonDump(j), "{\"a\": [1, \"x\"], \"b\": {\"c\": null}, \"d\": \"\\u00e9\\\"\"}");
}

TEST(MlLogger, NullFileWritesNothing) {
  MlLogger log(nullptr);
  EXPECT_FALSE(log.enabled());
  log.Event("seed", 1);  // must not crash
}

}  // namespace
}  // namespace hbw::train
