// Python's text forms of values, for formats borrowed from ReFrame that
// must stay byte-compatible (perflog.h): repr() of a float, and
// json.dumps() of strings and string maps with its defaults
// (ensure_ascii=True, separators ', ' and ': '). Pure functions.
#pragma once

#include "util/status.h"
#include "util/strings.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace hb {

// PyFloatRepr (repr(float)) lives in util/strings.h.
// How Python prints a number the user most likely wrote as an int when it
// is integral ("0", "-1"), else PyFloatRepr.
std::string PyNumber(double v);
// json.dumps(v) of a float: like repr, but NaN, Infinity, -Infinity.
std::string PyJsonFloat(double v);
// json.dumps(s): a quoted string, non-ASCII as \uXXXX.
std::string PyJsonString(std::string_view s);
// json.dumps of {key: value} in the given order.
std::string PyJsonObject(const std::vector<std::pair<std::string, std::string>>& items);
// json.dumps of {key: {key: value}} (sorted keys, as std::map holds them).
std::string PyJsonObject(const std::map<std::string, std::map<std::string, std::string>>& items);

// Python's logging formats, as ReFrame's handlers use them:
// time.strftime(datefmt) of the local time t, with ReFrame's "%:z" as
// +HH:MM and datetime's "%f" as microseconds ("null" for t <= 0).
std::string PyStrftime(double t, const std::string& datefmt);
// The names of a %-format's %(name)s placeholders, or an error naming
// `key` at the first '%' that is neither %% nor %(name)s.
Result<std::vector<std::string>> PyScanFormat(const std::string& fmt, const std::string& key);
// fmt % values: a name `values` lacks renders as null when it starts with
// check_ (ReFrame sets those to None, then formats them), else as None.
std::string PyPercentFormat(const std::string& fmt, const std::map<std::string, std::string>& values);

// json.dumps(v) of any JSON value (objects in their own key order).
std::string PyJsonDumps(const nlohmann::ordered_json& v);

}  // namespace hb
