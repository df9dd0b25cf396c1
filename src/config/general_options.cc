#include "config/general_options.h"

#include "util/strings.h"

namespace hb {

namespace {

// A duration: seconds as a number, or text such as '30s', '10m', '1h30m'.
Result<double> Duration(const JsonField& f) {
  if (auto n = JsonNumber(f.json()); n && *n > 0) return *n;
  if (const std::string* s = JsonStringPtr(f.json()))
    if (auto d = ParseDuration(*s); d && *d > 0) return *d;
  return f.Expected("a duration such as '30s', '10m', '1h30m' or '2d'");
}

template <typename T>
Status Set(Result<T> r, T* out) {
  if (!r.ok()) return r.status();
  *out = std::move(r).value();
  return Status::OK();
}

}  // namespace

Result<GeneralOptions> ReadGeneralOptions(const JsonField& general) {
  GeneralOptions o;
  if (!general.absent_or_null() && !general.json().is_object()) return general.Expected("a mapping");
  for (Status st : {Set(general["check_search_path"].Strings(), &o.check_search_path),
                    Set(general["check_search_recursive"].Bool(false), &o.check_search_recursive),
                    Set(general["remote_detect"].Bool(false), &o.remote_detect),
                    Set(general["remote_workdir"].String(""), &o.remote_workdir),
                    Set(general["remote_hetbench"].String(""), &o.remote_hetbench),
                    Set(general["topology_prefix"].String(""), &o.topology_prefix),
                    Set(general["module_mappings"].Strings(), &o.module_mappings)})
    if (!st.ok()) return st;
  if (JsonField f = general["remote_detect_time_limit"]; !f.absent_or_null()) {
    auto d = Duration(f);
    if (!d.ok()) return d.status();
    o.remote_detect_time_limit_s = *d;
  }
  if (JsonField f = general["regex_match_limit"]; !f.absent_or_null()) {
    auto n = f.Int(1, UINT32_MAX);
    if (!n.ok()) return f.Expected("a positive number of match steps (default 10000000)");
    o.regex_match_limit = static_cast<uint32_t>(*n);
  }
  if (JsonField f = general["max_cases"]; !f.absent_or_null()) {
    auto n = f.Int(1);
    if (!n.ok()) return f.Expected("a positive number of cases (default 1000000)");
    o.max_cases = static_cast<size_t>(*n);
  }
  if (JsonField f = general["max_output_per_case"]; !f.absent_or_null()) {
    auto text = JsonScalar(f.json());
    auto bytes = text ? ParseByteSize(*text) : std::nullopt;
    if (!bytes || *bytes == 0) return f.Expected("a size such as 1GiB, 500MiB or a number of bytes (default 1GiB)");
    o.max_output_per_case = *bytes;
  }
  return o;
}

}  // namespace hb
