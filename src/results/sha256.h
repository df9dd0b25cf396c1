// SHA-256 (FIPS 180-4), for ReFrame's test hashcode: the first 8 hex
// digits of sha256(base name + sorted "param=value" strings), which names
// a parameterised test's short_name ("stream_1a2b3c4d") in perflogs.
// Pure function.
#pragma once

#include <string>
#include <string_view>

namespace hb {

// Lower-case hex digest of `data`.
std::string Sha256Hex(std::string_view data);

}  // namespace hb
