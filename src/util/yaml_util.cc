#include "util/yaml_util.h"

#include <fstream>
#include <sstream>

namespace hb {

namespace {
SourceMark FromYamlMark(const YAML::Mark& m, const std::string& file) {
  if (m.is_null()) return SourceMark{file, 0, 0};
  return SourceMark{file, m.line + 1, m.column + 1};
}
}  // namespace

Result<std::vector<YAML::Node>> LoadYamlString(const std::string& text, const std::string& file) {
  try {
    std::vector<YAML::Node> docs = YAML::LoadAll(text);
    std::vector<YAML::Node> out;
    for (auto& d : docs)
      if (d.IsDefined() && !d.IsNull()) out.push_back(d);
    return out;
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
  if (!n.IsScalar())
    return Status::Error(MarkOf(n, file), what + ": expected a string, got " + YamlTypeName(n));
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

Result<std::vector<std::string>> YamlStringList(const YAML::Node& n, const std::string& file,
                                                const std::string& what) {
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

}  // namespace hb
