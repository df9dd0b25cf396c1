#include "util/yaml_util.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "util/strings.h"

namespace hb {

namespace {
SourceMark FromYamlMark(const YAML::Mark& m, const std::string& file) {
  if (m.is_null()) return SourceMark{file, 0, 0};
  return SourceMark{file, m.line + 1, m.column + 1};
}
}  // namespace

namespace {
// YAML requires the keys of a mapping to be unique; yaml-cpp keeps one of
// two equal keys silently (which one a user meant is anyone's guess).
Status CheckUniqueKeys(const YAML::Node& n, const std::string& file, int depth = 0) {
  if (depth > 1000) return Status::Error(FromYamlMark(n.Mark(), file), "YAML nested more than 1000 levels deep");
  if (n.IsSequence()) {
    for (const auto& item : n) {
      Status st = CheckUniqueKeys(item, file, depth + 1);
      if (!st.ok()) return st;
    }
  } else if (n.IsMap()) {
    std::map<std::string, YAML::Mark> seen;
    for (const auto& kv : n) {
      if (kv.first.IsScalar()) {
        auto [it, fresh] = seen.emplace(kv.first.Scalar(), kv.first.Mark());
        if (!fresh)
          return Status::Error(FromYamlMark(kv.first.Mark(), file),
                               "duplicate key '" + kv.first.Scalar() + "' (first at line " +
                                   std::to_string(it->second.line + 1) + ", column " +
                                   std::to_string(it->second.column + 1) + "): keys of a mapping must be unique");
      }
      Status st = CheckUniqueKeys(kv.second, file, depth + 1);
      if (!st.ok()) return st;
    }
  }
  return Status::OK();
}
}  // namespace

namespace {

// Notes where each document starts, and nothing else.
class DocumentStarts : public YAML::EventHandler {
 public:
  YAML::Mark start;
  void OnDocumentStart(const YAML::Mark& m) override { start = m; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

// yaml-cpp 0.7's LoadAll never returns on a stray ',' (or similar) where
// a document should start: every call makes another empty document there,
// until memory runs out (found by fuzz/fuzz_test_loader.cc). One pass with
// the event parser first finds such a place: two documents that start at
// the same byte.
Status CheckDocumentsProgress(const std::string& text, const std::string& file) {
  std::stringstream in(text);
  YAML::Parser parser(in);
  int last = -1;
  while (true) {
    DocumentStarts doc;
    if (!parser.HandleNextDocument(doc)) return Status::OK();
    if (doc.start.pos == last) {
      char c = doc.start.pos >= 0 && static_cast<size_t>(doc.start.pos) < text.size() ? text[doc.start.pos] : '?';
      return Status::Error(FromYamlMark(doc.start, file),
                           std::string("invalid YAML: unexpected '") + c +
                               "' where a document should start (a flow list or mapping without its '[' or '{'?)");
    }
    last = doc.start.pos;
  }
}

}  // namespace

Result<std::vector<YAML::Node>> LoadYamlString(const std::string& text, const std::string& file) {
  try {
    Status progress = CheckDocumentsProgress(text, file);
    if (!progress.ok()) return progress;
    std::vector<YAML::Node> docs = YAML::LoadAll(text);
    std::vector<YAML::Node> out;
    for (auto& d : docs) {
      if (!d.IsDefined() || d.IsNull()) continue;
      Status st = CheckUniqueKeys(d, file);
      if (!st.ok()) return st;
      out.push_back(d);
    }
    return out;
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's message for this is "bad file".
    return Status::Error(FromYamlMark(e.mark, file), "invalid YAML: lists or mappings nested more than " +
                                                         std::to_string(e.depth()) +
                                                         " deep; hetbench reads at most that many levels");
  } catch (const YAML::Exception& e) {
    return Status::Error(FromYamlMark(e.mark, file), "invalid YAML: " + e.msg);
  }
}

Result<std::vector<YAML::Node>> LoadYamlFile(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return Status::Error("cannot read '" + file + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  return LoadYamlString(ss.str(), file);
}

}  // namespace hb

// yaml-cpp offers no public way to set a node's mark. YAML::Node befriends
// every YAML::as_if<T, S>; this specialisation, used only by
// CloneWithMarks below, is that friend.
namespace hb {
struct MarkCopy {};
}  // namespace hb
template <>
struct YAML::as_if<hb::MarkCopy, hb::MarkCopy> {
  static void Set(const YAML::Node& to, const YAML::Node& from) {
    if (to.m_pNode && from.m_pNode) to.m_pNode->set_mark(from.m_pNode->mark());
  }
};

namespace hb {

namespace {
void CopyMarks(const YAML::Node& to, const YAML::Node& from) {
  YAML::as_if<MarkCopy, MarkCopy>::Set(to, from);
  if (from.IsMap() && to.IsMap()) {
    auto t = to.begin();
    for (auto f = from.begin(); f != from.end() && t != to.end(); ++f, ++t) {
      CopyMarks(t->first, f->first);
      CopyMarks(t->second, f->second);
    }
  } else if (from.IsSequence() && to.IsSequence()) {
    for (size_t i = 0; i < from.size() && i < to.size(); ++i) CopyMarks(to[i], from[i]);
  }
}
}  // namespace

YAML::Node CloneWithMarks(const YAML::Node& node) {
  YAML::Node copy = YAML::Clone(node);
  CopyMarks(copy, node);
  return copy;
}

SourceMark MarkOf(const YAML::Node& node, const std::string& file) {
  try {
    return FromYamlMark(node.Mark(), file);
  } catch (const YAML::Exception&) {
    return SourceMark{file, 0, 0};
  }
}

std::string YamlTypeName(const YAML::Node& n) {
  if (!n.IsDefined() || n.IsNull()) return "null";
  if (n.IsSequence()) return "a list";
  if (n.IsMap()) return "a mapping";
  return "a scalar '" + n.Scalar() + "'";
}

Result<std::string> YamlString(const YAML::Node& n, const std::string& file, const std::string& what) {
  if (!n.IsScalar()) return Status::Error(MarkOf(n, file), what + ": expected a string, got " + YamlTypeName(n));
  return n.Scalar();
}

Result<double> YamlNumber(const YAML::Node& n, const std::string& file, const std::string& what) {
  if (n.IsScalar()) {
    try {
      return n.as<double>();
    } catch (const YAML::Exception&) {
    }
  }
  return Status::Error(MarkOf(n, file), what + ": expected a number, got " + YamlTypeName(n));
}

Result<long long> YamlInt(const YAML::Node& n, const std::string& file, const std::string& what) {
  if (n.IsScalar()) {
    try {
      return n.as<long long>();
    } catch (const YAML::Exception&) {
    }
  }
  return Status::Error(MarkOf(n, file), what + ": expected an integer, got " + YamlTypeName(n));
}

Result<bool> YamlBool(const YAML::Node& n, const std::string& file, const std::string& what) {
  if (n.IsScalar()) {
    try {
      return n.as<bool>();
    } catch (const YAML::Exception&) {
    }
  }
  return Status::Error(MarkOf(n, file), what + ": expected true or false, got " + YamlTypeName(n));
}

Result<std::vector<std::string>> YamlStringList(const YAML::Node& n, const std::string& file, const std::string& what) {
  std::vector<std::string> out;
  if (n.IsNull()) return out;
  if (n.IsScalar()) {
    out.push_back(n.Scalar());
    return out;
  }
  if (!n.IsSequence())
    return Status::Error(MarkOf(n, file), what + ": expected a list of strings, got " + YamlTypeName(n));
  for (const auto& item : n) {
    if (!item.IsScalar())
      return Status::Error(MarkOf(item, file),
                           what + ": expected a list of strings, but an item is " + YamlTypeName(item));
    out.push_back(item.Scalar());
  }
  return out;
}

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
  if (t.find("inf") != std::string::npos || t.find("Inf") != std::string::npos || t.find("INF") != std::string::npos)
    return t[0] == '-' ? -INFINITY : INFINITY;
  if (t.find_first_of("nN") != std::string::npos) return NAN;
  try {
    return std::stod(t);
  } catch (const std::exception&) {
    return s;
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

nlohmann::json YamlToJson(const YAML::Node& node) { return YamlToJson(node, "", nullptr); }

nlohmann::json YamlToJson(const YAML::Node& node, const std::string& file, JsonMarks* marks, const std::string& at) {
  if (marks && node.IsDefined()) (*marks)[at] = MarkOf(node, file);
  if (!node.IsDefined() || node.IsNull()) {
    // A quoted empty string or '~' is a string, not a null.
    if (node.IsDefined() && node.Tag() == "!") return node.Scalar();
    return nullptr;
  }
  if (node.IsScalar()) {
    if (node.Tag() == "?") return PlainScalarToJson(node.Scalar());
    if (node.Tag() == "!" || node.Tag() == kStrTag || !StartsWith(node.Tag(), "tag:yaml.org")) return node.Scalar();
    return PlainScalarToJson(node.Scalar());
  }
  if (node.IsSequence()) {
    nlohmann::json out = nlohmann::json::array();
    size_t i = 0;
    for (const auto& item : node) out.push_back(YamlToJson(item, file, marks, at + "/" + std::to_string(i++)));
    return out;
  }
  nlohmann::json out = nlohmann::json::object();
  for (const auto& kv : node) {
    std::string key = kv.first.IsScalar() ? kv.first.Scalar() : YAML::Dump(kv.first);
    out[key] = YamlToJson(kv.second, file, marks, at + "/" + JsonPointerPart(key));
  }
  return out;
}

}  // namespace hb
