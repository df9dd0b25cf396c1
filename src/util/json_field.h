// Checked, typed reads of JSON that came from outside hetbench: a site
// configuration's sections (general, logging, storage, sched_options), a
// test's backend block, a topology cache, a run report being imported.
//
// nlohmann::json's own readers (get<T>(), value(key, default), get_ref,
// get_to) throw on a wrong type, and an exception there used to end the
// whole session. Nothing outside this file calls them (JsonFieldTest.
// NoUncheckedJsonReads greps src/ for it). Instead:
//
//   JsonField opts(part.sched_options, "sched_options", &part.sched_marks);
//   auto limit = opts["time_limit"].Number(0);  // Result<double>; 0 when absent
//   if (!limit.ok()) return limit.status();   // "site.yaml:12:19: sched_options:
//                                             //  time_limit: expected a number, got a list"
//
// A JsonField is a view: the JSON it points into must outlive it. A key
// that is absent gives an absent field (absent() is true; typed reads with
// a default give the default, those without say "is required"). When the
// JSON was read from YAML with YamlToJson(node, file, &marks), errors name
// the value's file:line:column; otherwise they name its path.
//
// The free functions below are the non-throwing primitives for code that
// has already dispatched on a value's type (a serializer, say).
#pragma once

#include <climits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/status.h"

namespace hb {

// Where each value of a JSON document was written: JSON pointer ("/a/0/b",
// RFC 6901) -> place. "" is the document itself.
using JsonMarks = std::map<std::string, SourceMark>;

// `key` as one part of a JSON pointer: '~' is "~0" and '/' is "~1" (RFC 6901).
std::string JsonPointerPart(const std::string& key);

// "a string", "a number", "a list", "a mapping", "true or false", "null".
std::string JsonTypeName(nlohmann::json::value_t type);
template <class J>
std::string JsonTypeName(const J& v) {
  return JsonTypeName(v.type());
}

// The value when `v` has that type, else nothing (never throws). JsonInt
// accepts integers only, and unsigned ones that fit in long long. They take
// nlohmann::json and nlohmann::ordered_json alike.
template <class J>
const std::string* JsonStringPtr(const J& v) {
  return v.template get_ptr<const typename J::string_t*>();
}
template <class J>
std::optional<bool> JsonBool(const J& v) {
  const bool* b = v.template get_ptr<const typename J::boolean_t*>();
  return b ? std::optional<bool>(*b) : std::nullopt;
}
// (nlohmann's get_ptr for the signed type also answers for an unsigned
// value, reading the union as signed: the unsigned case comes first.)
template <class J>
std::optional<long long> JsonInt(const J& v) {
  if (const auto* u = v.template get_ptr<const typename J::number_unsigned_t*>())
    return *u <= static_cast<unsigned long long>(LLONG_MAX) ? std::optional<long long>(static_cast<long long>(*u))
                                                            : std::nullopt;
  if (const auto* i = v.template get_ptr<const typename J::number_integer_t*>()) return static_cast<long long>(*i);
  return std::nullopt;
}
template <class J>
std::optional<double> JsonNumber(const J& v) {
  if (const auto* f = v.template get_ptr<const typename J::number_float_t*>()) return *f;
  if (const auto* u = v.template get_ptr<const typename J::number_unsigned_t*>()) return static_cast<double>(*u);
  if (const auto* i = v.template get_ptr<const typename J::number_integer_t*>()) return static_cast<double>(*i);
  return std::nullopt;
}
// A scalar (string, number, boolean) as text; 3 is "3", 1.5 is "1.5",
// true is "true". Nothing for null, a list or a mapping.
std::optional<std::string> JsonScalar(const nlohmann::json& v);
// A string as it is, anything else as its JSON text (dump()).
template <class J>
std::string JsonStringOrDump(const J& v) {
  const std::string* s = JsonStringPtr(v);
  return s ? *s : v.dump();
}

// A member of an object; null when `j` is not an object or lacks `key`.
// For reading answers (a Kubernetes object); a configuration is read with
// JsonField, whose errors name the place.
template <class J>
const J& JsonMember(const J& j, const char* key) {
  static const J kNull;
  if (!j.is_object()) return kNull;
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}
// A string member of an object; "" when absent or not a string.
template <class J>
std::string JsonMemberString(const J& j, const char* key) {
  const std::string* s = JsonStringPtr(JsonMember(j, key));
  return s ? *s : "";
}

class JsonField {
 public:
  // The whole of `v`, called `label` in messages ("sched_options").
  explicit JsonField(const nlohmann::json& v, std::string label = "", const JsonMarks* marks = nullptr);

  bool absent() const { return v_ == nullptr; }
  // Absent, or written as null (`key:` or `key: ~` in YAML).
  bool absent_or_null() const { return v_ == nullptr || v_->is_null(); }
  // The value itself; null when absent.
  const nlohmann::json& json() const;
  const std::string& label() const { return label_; }
  const std::string& pointer() const { return pointer_; }
  // Where the value (or, when it is absent, its nearest enclosing value)
  // was written; unknown when there are no marks.
  SourceMark mark() const;

  // Members and elements. A key or index that is not there, or a lookup
  // in a value that is not a mapping (or list), gives an absent field.
  JsonField operator[](const std::string& key) const;
  JsonField operator[](size_t index) const;
  // The members of a mapping (empty for anything else), in key order.
  std::vector<std::pair<std::string, JsonField>> Items() const;
  // The elements of a list (empty for anything else).
  std::vector<JsonField> Elements() const;

  // Typed reads. Without a default an absent value is an error ("is
  // required"); with one, absent or null gives the default. A value of
  // another type is an error naming what was expected and what was found.
  Result<std::string> String() const;
  Result<std::string> String(const std::string& fallback) const;
  // A string, number or boolean, as text (JsonScalar).
  // The string, or `fallback` for anything else: only for JSON that was
  // checked already (at load) or that hetbench wrote itself.
  std::string StringOr(const std::string& fallback) const;
  Result<std::string> Scalar() const;
  Result<std::string> Scalar(const std::string& fallback) const;
  Result<bool> Bool() const;
  Result<bool> Bool(bool fallback) const;
  // An integer in [lo, hi]; 2.0 is not an integer.
  Result<long long> Int(long long lo = LLONG_MIN, long long hi = LLONG_MAX) const;
  Result<long long> IntOr(long long fallback, long long lo = LLONG_MIN, long long hi = LLONG_MAX) const;
  Result<double> Number() const;
  Result<double> Number(double fallback) const;
  // A list of strings; absent or null is an empty list.
  Result<std::vector<std::string>> Strings() const;
  // A mapping or a list, as is; absent or null gives `fallback`.
  Result<nlohmann::json> Object(nlohmann::json fallback = nlohmann::json::object()) const;
  Result<nlohmann::json> List(nlohmann::json fallback = nlohmann::json::array()) const;

  // "<label>: expected <expected>, got <what>" at mark(), where <what> is
  // the type and, for a scalar, its value ("a string 'soon'", "2.5"). `expected`
  // describes the value: "a number of seconds >= 0".
  Status Expected(const std::string& expected) const;
  // "<label>: <message>" at mark().
  Status Error(const std::string& message) const;
  // `message` as it is, at mark().
  Status Placed(const std::string& message) const;

 private:
  JsonField(const nlohmann::json* v, std::string label, std::string pointer, const JsonMarks* marks)
      : v_(v), label_(std::move(label)), pointer_(std::move(pointer)), marks_(marks) {}
  Status Missing() const;

  const nlohmann::json* v_;
  std::string label_;
  std::string pointer_;
  const JsonMarks* marks_;
};

}  // namespace hb
