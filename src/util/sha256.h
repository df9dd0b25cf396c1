// SHA-256 (FIPS 180-4, OpenSSL's EVP): file digests in the results store,
// object names on Kubernetes, and ReFrame's test hashcode. Pure functions.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hb {

// Lower-case hex digest of `data`.
std::string Sha256Hex(std::string_view data);

// ReFrame's hashcode of a test variant: the first 8 hex digits of
// sha256(base name + the sorted "param=value" strings). It names a
// parameterised test's short_name ("stream_1a2b3c4d") in perflogs, is
// printed by `hetbench list` after the display name (" /1a2b3c4d") and
// selects a case with `-n /1a2b3c4d`. The same for every partition and
// environment the variant runs in.
std::string TestHashcode(const std::string& name, const std::vector<std::pair<std::string, std::string>>& params);

}  // namespace hb
