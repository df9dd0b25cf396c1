#include "util/json_field.h"

#include <cmath>

#include "util/strings.h"

namespace hb {

namespace {

const nlohmann::json& Null() {
  static const nlohmann::json kNull;
  return kNull;
}

std::string Member(const std::string& label, const std::string& key) {
  return label.empty() ? key : label + ": " + key;
}

}  // namespace

std::string JsonPointerPart(const std::string& key) { return ReplaceAll(ReplaceAll(key, "~", "~0"), "/", "~1"); }

std::string JsonTypeName(nlohmann::json::value_t type) {
  switch (type) {
    case nlohmann::json::value_t::null:
      return "null";
    case nlohmann::json::value_t::object:
      return "a mapping";
    case nlohmann::json::value_t::array:
      return "a list";
    case nlohmann::json::value_t::string:
      return "a string";
    case nlohmann::json::value_t::boolean:
      return "true or false";
    case nlohmann::json::value_t::binary:
      return "binary data";
    case nlohmann::json::value_t::discarded:
      return "nothing";
    default:
      return "a number";
  }
}

std::optional<std::string> JsonScalar(const nlohmann::json& v) {
  if (const std::string* s = JsonStringPtr(v)) return *s;
  if (auto b = JsonBool(v)) return std::string(*b ? "true" : "false");
  if (auto i = JsonInt(v)) return std::to_string(*i);
  if (const auto* u = v.get_ptr<const nlohmann::json::number_unsigned_t*>()) return std::to_string(*u);
  if (auto d = JsonNumber(v)) return FormatNumber(*d, 15);
  return std::nullopt;
}

JsonField::JsonField(const nlohmann::json& v, std::string label, const JsonMarks* marks)
    : JsonField(&v, std::move(label), "", marks) {}

const nlohmann::json& JsonField::json() const { return v_ ? *v_ : Null(); }

SourceMark JsonField::mark() const {
  if (!marks_) return {};
  std::string p = pointer_;
  while (true) {
    auto it = marks_->find(p);
    if (it != marks_->end()) return it->second;
    if (p.empty()) return {};
    p = p.substr(0, p.rfind('/'));
  }
}

JsonField JsonField::operator[](const std::string& key) const {
  const nlohmann::json* child = nullptr;
  if (v_ && v_->is_object()) {
    auto it = v_->find(key);
    if (it != v_->end()) child = &*it;
  }
  return JsonField(child, Member(label_, key), pointer_ + "/" + JsonPointerPart(key), marks_);
}

JsonField JsonField::operator[](size_t index) const {
  const nlohmann::json* child = v_ && v_->is_array() && index < v_->size() ? &(*v_)[index] : nullptr;
  return JsonField(child, label_ + "[" + std::to_string(index) + "]", pointer_ + "/" + std::to_string(index), marks_);
}

std::vector<std::pair<std::string, JsonField>> JsonField::Items() const {
  std::vector<std::pair<std::string, JsonField>> out;
  if (!v_ || !v_->is_object()) return out;
  for (auto it = v_->begin(); it != v_->end(); ++it)
    out.emplace_back(it.key(),
                     JsonField(&*it, Member(label_, it.key()), pointer_ + "/" + JsonPointerPart(it.key()), marks_));
  return out;
}

std::vector<JsonField> JsonField::Elements() const {
  std::vector<JsonField> out;
  if (!v_ || !v_->is_array()) return out;
  for (size_t i = 0; i < v_->size(); ++i) out.push_back((*this)[i]);
  return out;
}

Status JsonField::Error(const std::string& message) const {
  return Placed(label_.empty() ? message : label_ + ": " + message);
}

Status JsonField::Placed(const std::string& message) const {
  SourceMark m = mark();
  return m.known() ? Status::Error(m, message) : Status::Error(message);
}

// What a message says was found: the type, and a scalar's text.
static std::string Found(const nlohmann::json* v) {
  if (!v) return "nothing";
  if (const std::string* s = JsonStringPtr(*v))
    return "a string '" + (s->size() > 60 ? s->substr(0, 60) + "..." : *s) + "'";
  if (v->is_number() || v->is_boolean()) return v->dump();
  return JsonTypeName(*v);
}

Status JsonField::Expected(const std::string& expected) const {
  return Error("expected " + expected + ", got " + Found(v_));
}

Status JsonField::Missing() const { return Error("is required"); }

Result<std::string> JsonField::String() const {
  if (!v_) return Missing();
  if (const std::string* s = JsonStringPtr(*v_)) return *s;
  return Expected("a string");
}

Result<std::string> JsonField::String(const std::string& fallback) const {
  return absent_or_null() ? Result<std::string>(fallback) : String();
}

std::string JsonField::StringOr(const std::string& fallback) const {
  const std::string* s = v_ ? JsonStringPtr(*v_) : nullptr;
  return s ? *s : fallback;
}

Result<std::string> JsonField::Scalar() const {
  if (!v_) return Missing();
  if (auto s = JsonScalar(*v_)) return *s;
  return Expected("a string, number or boolean");
}

Result<std::string> JsonField::Scalar(const std::string& fallback) const {
  return absent_or_null() ? Result<std::string>(fallback) : Scalar();
}

Result<bool> JsonField::Bool() const {
  if (!v_) return Missing();
  if (auto b = JsonBool(*v_)) return *b;
  return Expected("true or false");
}

Result<bool> JsonField::Bool(bool fallback) const { return absent_or_null() ? Result<bool>(fallback) : Bool(); }

Result<long long> JsonField::Int(long long lo, long long hi) const {
  if (!v_) return Missing();
  auto range = [&] {
    if (lo == LLONG_MIN && hi == LLONG_MAX) return std::string("an integer");
    if (hi == LLONG_MAX) return "an integer >= " + std::to_string(lo);
    if (lo == LLONG_MIN) return "an integer <= " + std::to_string(hi);
    return "an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
  };
  auto i = JsonInt(*v_);
  if (!i) {
    return Expected(range());
  }
  if (*i < lo || *i > hi) return Expected(range());
  return *i;
}

Result<long long> JsonField::IntOr(long long fallback, long long lo, long long hi) const {
  return absent_or_null() ? Result<long long>(fallback) : Int(lo, hi);
}

Result<double> JsonField::Number() const {
  if (!v_) return Missing();
  auto d = JsonNumber(*v_);
  if (d && std::isfinite(*d)) return *d;
  return Expected("a number");
}

Result<double> JsonField::Number(double fallback) const {
  return absent_or_null() ? Result<double>(fallback) : Number();
}

Result<std::vector<std::string>> JsonField::Strings() const {
  std::vector<std::string> out;
  if (absent_or_null()) return out;
  if (!v_->is_array()) return Expected("a list of strings");
  for (const JsonField& e : Elements()) {
    const std::string* s = JsonStringPtr(e.json());
    if (!s) return e.Expected("a string");
    out.push_back(*s);
  }
  return out;
}

Result<nlohmann::json> JsonField::Object(nlohmann::json fallback) const {
  if (absent_or_null()) return fallback;
  if (!v_->is_object()) return Expected("a mapping");
  return *v_;
}

Result<nlohmann::json> JsonField::List(nlohmann::json fallback) const {
  if (absent_or_null()) return fallback;
  if (!v_->is_array()) return Expected("a list");
  return *v_;
}

}  // namespace hb
