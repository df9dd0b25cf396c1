#include "config/config_yaml.h"

#include <cmath>
#include <cstdlib>
#include <regex>
#include <set>

#include "util/strings.h"

namespace hb {

namespace {

const char kStrTag[] = "tag:yaml.org,2002:str";

std::optional<long long> ParseInt(std::string s) {
  s = ReplaceAll(s, "_", "");
  int base = 10;
  bool neg = !s.empty() && s[0] == '-';
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.erase(0, 1);
  if (StartsWith(s, "0x")) {
    base = 16;
    s.erase(0, 2);
  } else if (StartsWith(s, "0b")) {
    base = 2;
    s.erase(0, 2);
  } else if (s.size() > 1 && s[0] == '0') {
    base = 8;  // YAML 1.1: a leading 0 means octal
  }
  try {
    size_t used = 0;
    long long v = std::stoll(s, &used, base);
    if (used != s.size()) return std::nullopt;
    return neg ? -v : v;
  } catch (const std::exception&) {
    return std::nullopt;  // out of range: keep the text
  }
}

nlohmann::json ParseFloat(const std::string& s) {
  std::string t = ReplaceAll(s, "_", "");
  if (t.find("inf") != std::string::npos || t.find("Inf") != std::string::npos ||
      t.find("INF") != std::string::npos)
    return t[0] == '-' ? -INFINITY : INFINITY;
  if (t.find_first_of("nN") != std::string::npos) return NAN;
  try {
    return std::stod(t);
  } catch (const std::exception&) {
    return s;
  }
}

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
    case nlohmann::json::value_t::object: return EmitMap(out, v);
    case nlohmann::json::value_t::array: return EmitSeq(out, v);
    case nlohmann::json::value_t::string: return EmitString(out, v.get<std::string>());
    case nlohmann::json::value_t::boolean: out << v.get<bool>(); return;
    case nlohmann::json::value_t::number_integer: out << v.get<long long>(); return;
    case nlohmann::json::value_t::number_unsigned: out << v.get<unsigned long long>(); return;
    case nlohmann::json::value_t::number_float: out << FloatText(v.get<double>()); return;
    default: out << YAML::Null; return;
  }
}

}  // namespace

nlohmann::json PlainScalarToJson(const std::string& s) {
  static const std::set<std::string> kNull = {"", "~", "null", "Null", "NULL"};
  static const std::set<std::string> kTrue = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"};
  static const std::set<std::string> kFalse = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"};
  static const std::regex kInt(R"([-+]?(0|[1-9][0-9_]*|0x[0-9a-fA-F_]+|0b[01_]+|0[0-7_]+))");
  static const std::regex kFloat(
      R"([-+]?[0-9][0-9_]*\.[0-9_]*([eE][-+][0-9]+)?|[-+]?\.[0-9][0-9_]*([eE][-+][0-9]+)?|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))");
  if (kNull.count(s)) return nullptr;
  if (kTrue.count(s)) return true;
  if (kFalse.count(s)) return false;
  if (std::regex_match(s, kInt)) {
    if (auto v = ParseInt(s)) return *v;
    return s;
  }
  if (std::regex_match(s, kFloat)) return ParseFloat(s);
  return s;
}

nlohmann::json YamlToJson(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) {
    // A quoted empty string or '~' is a string, not a null.
    if (node.IsDefined() && node.Tag() == "!") return node.Scalar();
    return nullptr;
  }
  if (node.IsScalar()) {
    if (node.Tag() == "?") return PlainScalarToJson(node.Scalar());
    if (node.Tag() == "!" || node.Tag() == kStrTag || !StartsWith(node.Tag(), "tag:yaml.org"))
      return node.Scalar();
    return PlainScalarToJson(node.Scalar());
  }
  if (node.IsSequence()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : node) out.push_back(YamlToJson(item));
    return out;
  }
  nlohmann::json out = nlohmann::json::object();
  for (const auto& kv : node) {
    std::string key = kv.first.IsScalar() ? kv.first.Scalar() : YAML::Dump(kv.first);
    out[key] = YamlToJson(kv.second);
  }
  return out;
}

std::string JsonScalarText(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_float()) return FloatText(v.get<double>());
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
