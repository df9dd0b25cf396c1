#include "util/rfc3339.h"

#include <cstdlib>

#include <gtest/gtest.h>

namespace hb {
namespace {

// Expected values from GNU date: `date -u -d 2024-05-01T10:00:00Z +%s`.
constexpr double k20240501T10 = 1714557600;

TEST(Rfc3339, ParsesZonesAndFractions) {
  EXPECT_EQ(ParseRfc3339("1970-01-01T00:00:00Z"), 0.0);
  EXPECT_EQ(ParseRfc3339("2024-05-01T10:00:00Z"), k20240501T10);
  EXPECT_EQ(ParseRfc3339("2024-05-01t10:00:00z"), k20240501T10);
  EXPECT_EQ(ParseRfc3339("2024-05-01 10:00:00Z"), k20240501T10);
  EXPECT_EQ(ParseRfc3339("2024-05-01T12:30:00+02:30"), k20240501T10);
  EXPECT_EQ(ParseRfc3339("2024-05-01T08:00:00-02:00"), k20240501T10);
  EXPECT_DOUBLE_EQ(*ParseRfc3339("2024-05-01T10:00:00.25Z"), k20240501T10 + 0.25);
  EXPECT_NEAR(*ParseRfc3339("2024-05-01T10:00:00.123456789Z"), k20240501T10 + 0.123456789, 1e-6);
  EXPECT_EQ(ParseRfc3339("2016-12-31T23:59:59Z"), 1483228799.0);
  EXPECT_EQ(ParseRfc3339("2016-12-31T23:59:60Z"), 1483228800.0);  // the leap second
}

TEST(Rfc3339, RefusesWhatIsNotRfc3339) {
  for (const char* s : {"", "yesterday", "2024-05-01", "2024-05-01T10:00:00", "2024-05-01T10:00Z",
                        "2024-05-01T10:00:00+0200", "2024-05-01T10:00:00+02", "2024-5-01T10:00:00Z",
                        "2024-13-01T10:00:00Z", "2024-05-01T24:00:00Z", "2024-05-01T10:60:00Z", "2024-05-01T10:00:00.Z",
                        "2024-05-01T10:00:00Zjunk", "2024-05-01T10:00:00+25:00", "2024-05-01T10:00:00 Z"}) {
    EXPECT_EQ(ParseRfc3339(s), std::nullopt) << s;
  }
}

TEST(Rfc3339, TimestampTakesWhatPeopleType) {
  EXPECT_EQ(ParseTimestamp("2024-05-01T10:00:00Z"), k20240501T10);
  EXPECT_EQ(ParseTimestamp("2024-05-01T10:00Z"), k20240501T10);
  EXPECT_EQ(ParseTimestamp("2024-05-01T12:00:00+0200"), k20240501T10);
  EXPECT_EQ(ParseTimestamp("2024-05-01T12:00:00+02"), k20240501T10);
  EXPECT_EQ(ParseTimestamp("2024-05-01T10:00:00.5Z"), k20240501T10 + 0.5);
  // No zone: local time (`TZ=Europe/London date -d '2024-07-01 12:00' +%s`).
  const char* tz = std::getenv("TZ");
  std::string saved = tz ? tz : "";
  setenv("TZ", "Europe/London", 1);
  tzset();
  EXPECT_EQ(ParseTimestamp("2024-07-01 12:00"), 1719831600.0);
  EXPECT_EQ(ParseTimestamp("2024-07-01"), 1719831600.0 - 12 * 3600);
  if (tz)
    setenv("TZ", saved.c_str(), 1);
  else
    unsetenv("TZ");
  tzset();
  EXPECT_EQ(ParseTimestamp("2024-07-01T1200"), std::nullopt);
  EXPECT_EQ(ParseTimestamp("01/07/2024"), std::nullopt);
  EXPECT_EQ(ParseTimestamp("2024-07-01T12:00:00+2"), std::nullopt);
}

TEST(Rfc3339, FormatsUtcAndRoundTrips) {
  EXPECT_EQ(FormatRfc3339(k20240501T10), "2024-05-01T10:00:00Z");
  EXPECT_EQ(FormatRfc3339(k20240501T10 + 0.9), "2024-05-01T10:00:00Z");
  EXPECT_EQ(FormatRfc3339(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(ParseRfc3339(FormatRfc3339(1483228799)), 1483228799.0);
}

}  // namespace
}  // namespace hb
