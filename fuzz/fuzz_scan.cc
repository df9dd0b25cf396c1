// The sanity and performance extractors' search (Regex::Scan) on random
// patterns and outputs. The input is PATTERN, a NUL, then the output; the
// byte after the NUL picks how the output is cut up. Two searches must
// agree: the whole output as one segment, and the output handed over a
// few bytes at a time with one-line segments (partial matches across
// every kind of edge). The values found go through the converters and
// reducers a check would use.
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "check/extract.h"
#include "fuzz_target.h"
#include "util/regex.h"

namespace {

struct Found {
  hb::Status status;
  std::vector<hb::RegexMatch> matches;
};

Found Search(const hb::Regex& re, hb::Regex::ScanSource& src, size_t first_segment) {
  Found f;
  hb::Regex::ScanOptions opts;
  opts.first_segment = first_segment;
  opts.max_match_span = 1 << 16;
  f.status = re.Scan(src, opts, [&](const hb::RegexMatch& m, const hb::Regex::MatchPlace& at) {
    (void)at.Line();
    (void)at.LineText(40);
    f.matches.push_back(m);
    return f.matches.size() < 10000;
  });
  return f;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static bool once = (hb::Regex::SetMatchLimit(20000), true);
  (void)once;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  size_t nul = in.find('\0');
  if (nul == std::string_view::npos || nul > 200 || nul + 1 >= in.size()) return 0;
  auto re = hb::Regex::Compile(std::string(in.substr(0, nul)));
  if (!re.ok()) return 0;
  size_t block = 1 + static_cast<uint8_t>(in[nul + 1]) % 17;
  std::string_view text = in.substr(nul + 2);
  hb::StringScanSource whole_src(text);
  Found whole = Search(*re, whole_src, size_t{1} << 30);
  hb::StringScanSource pieces_src(text, block);
  Found pieces = Search(*re, pieces_src, 1);
  // A search PCRE2 gave up on may give up elsewhere when cut differently;
  // otherwise both must find the same matches.
  if (whole.status.ok() && pieces.status.ok()) {
    if (whole.matches.size() != pieces.matches.size()) std::abort();
    for (size_t i = 0; i < whole.matches.size(); ++i)
      if (whole.matches[i].offset != pieces.matches[i].offset || whole.matches[i].groups != pieces.matches[i].groups)
        std::abort();
  }
  for (const char* type : {"str", "int", "float"}) {
    for (const char* reduce : {"first", "last", "min", "max", "mean", "median", "sum"}) {
      hb::ValueReducer r(type, reduce);
      for (const auto& m : whole.matches)
        if (m.groups.back()) (void)r.Add(*m.groups.back());
      (void)r.Value();
    }
  }
  return 0;
}
