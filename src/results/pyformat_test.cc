#include "results/pyformat.h"

#include <gtest/gtest.h>

#include <cmath>

namespace hb {
namespace {

TEST(PyFormat, FloatReprMatchesPython) {
  // Expected values printed by CPython's repr().
  EXPECT_EQ(PyFloatRepr(14813.0), "14813.0");
  EXPECT_EQ(PyFloatRepr(21116.7), "21116.7");
  EXPECT_EQ(PyFloatRepr(1708555876.746763), "1708555876.746763");
  EXPECT_EQ(PyFloatRepr(1708555874.6122677), "1708555874.6122677");
  EXPECT_EQ(PyFloatRepr(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(PyFloatRepr(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(PyFloatRepr(1e16), "1e+16");
  EXPECT_EQ(PyFloatRepr(1e15), "1000000000000000.0");
  EXPECT_EQ(PyFloatRepr(0.0001), "0.0001");
  EXPECT_EQ(PyFloatRepr(1.5e-5), "1.5e-05");
  EXPECT_EQ(PyFloatRepr(-1e-7), "-1e-07");
  EXPECT_EQ(PyFloatRepr(5e-324), "5e-324");
  EXPECT_EQ(PyFloatRepr(1.7976931348623157e308), "1.7976931348623157e+308");
  EXPECT_EQ(PyFloatRepr(123456789012345678.0), "1.2345678901234568e+17");
  EXPECT_EQ(PyFloatRepr(0.0), "0.0");
  EXPECT_EQ(PyFloatRepr(-0.0), "-0.0");
  EXPECT_EQ(PyFloatRepr(std::nan("")), "nan");
  EXPECT_EQ(PyFloatRepr(-INFINITY), "-inf");
}

TEST(PyFormat, NumbersAndJson) {
  EXPECT_EQ(PyNumber(0), "0");
  EXPECT_EQ(PyNumber(-1), "-1");
  EXPECT_EQ(PyNumber(-0.05), "-0.05");
  EXPECT_EQ(PyJsonFloat(INFINITY), "Infinity");
  EXPECT_EQ(PyJsonFloat(std::nan("")), "NaN");
  EXPECT_EQ(PyJsonFloat(2.5), "2.5");
}

TEST(PyFormat, JsonDumpsWithEnsureAscii) {
  // json.dumps({'A': 'é"\n\x01\x7f😀'})
  EXPECT_EQ(PyJsonObject({{"A", "\xc3\xa9\"\n\x01\x7f\xf0\x9f\x98\x80"}}),
            R"({"A": "\u00e9\"\n\u0001\u007f\ud83d\ude00"})");
  EXPECT_EQ(PyJsonObject(std::vector<std::pair<std::string, std::string>>{}), "{}");
  EXPECT_EQ(PyJsonObject({{"OMP_NUM_THREADS", "2"}, {"A", "b"}}), R"({"OMP_NUM_THREADS": "2", "A": "b"})");
  std::map<std::string, std::map<std::string, std::string>> extra = {{"gpu", {{"n", "2"}}}, {"a", {}}};
  EXPECT_EQ(PyJsonObject(extra), R"({"a": {}, "gpu": {"n": "2"}})");
  EXPECT_EQ(PyJsonString("\xff"), R"("\ufffd")");  // malformed UTF-8
}

TEST(PyFormat, Utf8RoundTrip) {
  std::string s = "a\xc3\xa9\xf0\x9f\x98\x80";
  std::string out;
  for (size_t i = 0; i < s.size();) AppendUtf8(out, DecodeUtf8(s, i));
  EXPECT_EQ(out, s);
}

}  // namespace
}  // namespace hb
