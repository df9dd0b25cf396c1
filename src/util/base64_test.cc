#include "util/base64.h"

#include <gtest/gtest.h>

namespace hb {
namespace {

// The test vectors of RFC 4648, section 10.
TEST(Base64, Rfc4648Vectors) {
  const std::pair<const char*, const char*> v[] = {{"", ""},
                                                   {"f", "Zg=="},
                                                   {"fo", "Zm8="},
                                                   {"foo", "Zm9v"},
                                                   {"foob", "Zm9vYg=="},
                                                   {"fooba", "Zm9vYmE="},
                                                   {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, coded] : v) {
    EXPECT_EQ(Base64Encode(plain), coded);
    EXPECT_EQ(Base64Decode(coded), std::optional<std::string>(plain)) << coded;
  }
}

TEST(Base64, BinaryRoundTrip) {
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  EXPECT_EQ(Base64Decode(Base64Encode(all)), all);
  // `base64` of coreutils for the bytes 0xff 0x00 0xfe.
  EXPECT_EQ(Base64Encode(std::string("\xff\x00\xfe", 3)), "/wD+");
}

TEST(Base64, DecodingSkipsWhitespaceAndTakesMissingPadding) {
  EXPECT_EQ(Base64Decode("Zm9v\nYmFy\n"), "foobar");
  EXPECT_EQ(Base64Decode("  Zm9vYg==\r\n"), "foob");
  EXPECT_EQ(Base64Decode("Zm9vYg"), "foob");
  EXPECT_EQ(Base64Decode("Zm8"), "fo");
}

TEST(Base64, RefusesWhatIsNotBase64) {
  EXPECT_EQ(Base64Decode("Zm9v!"), std::nullopt);
  EXPECT_EQ(Base64Decode("Zg==Zg=="), std::nullopt);  // padding in the middle
  EXPECT_EQ(Base64Decode("Zm9vY"), std::nullopt);     // one character left over
  EXPECT_EQ(Base64Decode("Zm9v-_"), std::nullopt);    // the URL alphabet is not this one
  EXPECT_EQ(Base64Decode(std::string("Zm\0v", 4)), std::nullopt);
}

}  // namespace
}  // namespace hb
