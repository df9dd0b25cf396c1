#include "config/config_yaml.h"

#include <cmath>
#include <cstdlib>
#include <regex>
#include <set>

#include "util/json_field.h"
#include "util/strings.h"

namespace hb {

namespace {

// Formats a float so that it reads back as a float under YAML 1.1 rules,
// which need a '.' ("1e+20" would be a string there).
std::string FloatText(double v) {
  if (std::isnan(v)) return ".nan";
  if (std::isinf(v)) return v < 0 ? "-.inf" : ".inf";
  std::string s = FormatNumber(v, 15);
  if (std::strtod(s.c_str(), nullptr) != v) s = FormatNumber(v, 17);
  if (s.find('.') != std::string::npos) return s;
  size_t e = s.find('e');
  return e == std::string::npos ? s + ".0" : s.insert(e, ".0");
}

void Emit(YAML::Emitter& out, const nlohmann::json& v);

void EmitMap(YAML::Emitter& out, const nlohmann::json& v) {
  if (v.empty()) {
    out << YAML::Flow << YAML::BeginMap << YAML::EndMap;
    return;
  }
  out << YAML::BeginMap;
  if (v.contains("name")) {
    out << YAML::Key << "name" << YAML::Value;
    Emit(out, v["name"]);
  }
  for (const auto& [k, item] : v.items()) {
    if (k == "name") continue;
    out << YAML::Key;
    Emit(out, k);
    out << YAML::Value;
    Emit(out, item);
  }
  out << YAML::EndMap;
}

void EmitSeq(YAML::Emitter& out, const nlohmann::json& v) {
  if (v.empty()) {
    out << YAML::Flow << YAML::BeginSeq << YAML::EndSeq;
    return;
  }
  out << YAML::BeginSeq;
  for (const auto& item : v) Emit(out, item);
  out << YAML::EndSeq;
}

void EmitString(YAML::Emitter& out, const std::string& s) {
  nlohmann::json back = PlainScalarToJson(s);
  if (!back.is_string() || back != s)
    out << YAML::SingleQuoted << s;
  else
    out << s;
}

void Emit(YAML::Emitter& out, const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::object:
      return EmitMap(out, v);
    case nlohmann::json::value_t::array:
      return EmitSeq(out, v);
    case nlohmann::json::value_t::string:
      return EmitString(out, *JsonStringPtr(v));
    case nlohmann::json::value_t::boolean:
      out << *JsonBool(v);
      return;
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
      out << v.dump();
      return;
    case nlohmann::json::value_t::number_float:
      out << FloatText(*JsonNumber(v));
      return;
    default:
      out << YAML::Null;
      return;
  }
}

}  // namespace

std::string JsonScalarText(const nlohmann::json& v) {
  if (const std::string* s = JsonStringPtr(v)) return *s;
  if (auto b = JsonBool(v)) return *b ? "true" : "false";
  if (v.is_number_float()) return FloatText(*JsonNumber(v));
  if (v.is_number()) return v.dump();
  return "";
}

std::vector<std::string> JsonTextList(const nlohmann::json& v) {
  std::vector<std::string> out;
  if (v.is_array())
    for (const auto& item : v) out.push_back(JsonScalarText(item));
  return out;
}

std::string ConfigToYaml(const nlohmann::json& value) {
  YAML::Emitter out;
  out.SetNullFormat(YAML::LowerNull);
  out.SetIndent(2);
  Emit(out, value);
  std::string s = out.c_str();
  if (!s.empty() && s.back() != '\n') s += '\n';
  return s;
}

}  // namespace hb
