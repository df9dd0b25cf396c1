#include "model/build_fields.h"

#include <algorithm>

#include "config/site_config.h"
#include "model/test_fields.h"
#include "util/strings.h"
#include "util/yaml_util.h"

namespace hb {

namespace {

// Keys of the build_system mapping, by kind of value.
const std::map<std::string, std::string BuildSpec::*>& BuildStrings() {
  static const std::map<std::string, std::string BuildSpec::*> k = {{"source", &BuildSpec::source},
                                                                    {"executable", &BuildSpec::executable},
                                                                    {"cc", &BuildSpec::cc},
                                                                    {"cxx", &BuildSpec::cxx},
                                                                    {"ftn", &BuildSpec::ftn},
                                                                    {"nvcc", &BuildSpec::nvcc},
                                                                    {"makefile", &BuildSpec::makefile},
                                                                    {"srcdir", &BuildSpec::srcdir},
                                                                    {"builddir", &BuildSpec::builddir},
                                                                    {"configuredir", &BuildSpec::configuredir},
                                                                    {"environment", &BuildSpec::environment},
                                                                    {"install_tree", &BuildSpec::install_tree},
                                                                    {"prefix", &BuildSpec::prefix}};
  return k;
}
const std::map<std::string, std::vector<std::string> BuildSpec::*>& BuildLists() {
  static const std::map<std::string, std::vector<std::string> BuildSpec::*> k = {
      {"cppflags", &BuildSpec::cppflags},
      {"cflags", &BuildSpec::cflags},
      {"cxxflags", &BuildSpec::cxxflags},
      {"fflags", &BuildSpec::fflags},
      {"ldflags", &BuildSpec::ldflags},
      {"options", &BuildSpec::options},
      {"targets", &BuildSpec::targets},
      {"commands", &BuildSpec::commands},
      {"config_opts", &BuildSpec::config_opts},
      {"make_opts", &BuildSpec::make_opts},
      {"specs", &BuildSpec::specs},
      {"install_opts", &BuildSpec::install_opts},
      {"easyconfigs", &BuildSpec::easyconfigs}};
  return k;
}
const std::map<std::string, bool BuildSpec::*>& BuildBools() {
  static const std::map<std::string, bool BuildSpec::*> k = {{"emit_load_cmds", &BuildSpec::emit_load_cmds},
                                                             {"emit_package", &BuildSpec::emit_package}};
  return k;
}

// The build system types (those of buildsys/build_system.cc.s
// BuildSystemNames(), and none); CustomBuild, ReFrame's name, is Custom.
const std::vector<std::string>& BuildTypes() {
  static const std::vector<std::string> k = {"none",  "SingleSource", "Make",   "CMake",      "Autotools",
                                             "Spack", "EasyBuild",    "Custom", "CustomBuild"};
  return k;
}

Status ParseBuildKey(const std::string& key, const YAML::Node& v, const std::string& f, BuildSpec* b) {
  std::string what = "build_system: " + key;
  if (auto it = BuildStrings().find(key); it != BuildStrings().end()) {
    auto r = YamlString(v, f, what);
    if (r.ok()) b->*(it->second) = *r;
    return r.status();
  }
  if (auto it = BuildLists().find(key); it != BuildLists().end()) {
    auto r = YamlStringList(v, f, what);
    if (r.ok()) b->*(it->second) = *r;
    return r.status();
  }
  if (auto it = BuildBools().find(key); it != BuildBools().end()) {
    auto r = YamlBool(v, f, what);
    if (r.ok()) b->*(it->second) = *r;
    return r.status();
  }
  if (key == "type") return CheckChoice(v, f, what, BuildTypes(), &b->type);
  if (key == "lang") return CheckChoice(v, f, what, {"c", "c++", "fortran", "cuda"}, &b->lang);
  if (key == "package_opts") {
    if (!v.IsMap()) return FieldError(v, f, what + ": expected a mapping of option: value, got " + YamlTypeName(v));
    for (const auto& kv : v) b->package_opts.emplace_back(kv.first.Scalar(), kv.second.Scalar());
    return Status::OK();
  }
  auto r = YamlInt(v, f, what);  // max_concurrency
  if (r.ok()) b->max_concurrency = static_cast<int>(*r);
  return r.status();
}

}  // namespace

Status ParseBuild(const YAML::Node& n, const std::string& f, TestSpec* s) {
  static const std::vector<std::string> kKeys = [] {
    std::vector<std::string> k = {"type", "lang", "package_opts", "max_concurrency"};
    for (const auto& [name, m] : BuildStrings()) k.push_back(name);
    for (const auto& [name, m] : BuildLists()) k.push_back(name);
    for (const auto& [name, m] : BuildBools()) k.push_back(name);
    return k;
  }();
  BuildSpec& b = s->build;
  b = BuildSpec();
  b.mark = MarkOf(n, f);
  if (n.IsNull()) return Status::OK();
  if (n.IsScalar()) {  // shorthand: build_system: Make
    std::string type;
    Status st = CheckChoice(n, f, "build_system", BuildTypes(), &type);
    b.type = type == "none" ? "" : type == "CustomBuild" ? "Custom" : type;
    return st;
  }
  if (!n.IsMap()) return FieldError(n, f, "build_system: expected a mapping such as {type: SingleSource, source: x.c}");
  for (const auto& kv : n) {
    std::string key = kv.first.Scalar();
    if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end())
      return FieldError(kv.first, f, "build_system: unknown key '" + key + "'" + DidYouMean(key, kKeys));
    Status st = ParseBuildKey(key, kv.second, f, &b);
    if (!st.ok()) return st;
  }
  if (b.type == "CustomBuild") b.type = "Custom";
  if (b.type.empty())
    return FieldError(n, f, "build_system: 'type' is required (one of " + Join(BuildTypes(), ", ") + ")");
  if (b.type == "none") b.type = "";
  if (b.type == "SingleSource" && b.source.empty())
    return FieldError(n, f, "build_system: SingleSource needs 'source', the file to compile");
  if (b.type == "Custom" && b.commands.empty())
    return FieldError(n, f, "build_system: Custom needs 'commands', the shell commands that build the test");
  if (b.type == "EasyBuild" && b.easyconfigs.empty())
    return FieldError(n, f, "build_system: EasyBuild needs 'easyconfigs', the easyconfig files to build");
  return Status::OK();
}

namespace {

// A list of [host path, container path] pairs (ReFrame's mount_points).
Status ParseMountPoints(const YAML::Node& v, const std::string& f, ContainerSpec* c) {
  const std::string what = "container_platform: mount_points";
  if (!v.IsSequence())
    return FieldError(v, f, what + ": expected a list of [host path, container path], got " + YamlTypeName(v));
  for (const auto& m : v) {
    if (!m.IsSequence() || m.size() != 2 || !m[0].IsScalar() || !m[1].IsScalar())
      return FieldError(m, f, what + ": expected [host path, container path], got " + YamlTypeName(m));
    c->mount_points.emplace_back(m[0].Scalar(), m[1].Scalar());
  }
  return Status::OK();
}

// A platform name: a type of ContainerPlatformTypes() in any case, or "default".
Status ParsePlatformName(const YAML::Node& v, const std::string& f, const std::string& what, std::string* out) {
  auto r = YamlString(v, f, what);
  if (!r.ok()) return r.status();
  if (*r == "default" || r->empty()) {
    *out = "";
    return Status::OK();
  }
  *out = CanonicalContainerPlatform(*r);
  if (!out->empty()) return Status::OK();
  const auto& known = ContainerPlatformTypes();
  return FieldError(v, f,
                    what + ": unknown container platform '" + *r + "'" + DidYouMean(*r, known) +
                        " (known: " + Join(known, ", ") + ", or default for the partition's default)");
}

Status ParseContainerKey(const std::string& key, const YAML::Node& v, const std::string& f, ContainerSpec* c) {
  std::string what = "container_platform: " + key;
  auto str = [&](std::string* out) {
    auto r = v.IsNull() ? Result<std::string>(std::string()) : YamlString(v, f, what);
    if (r.ok()) *out = *r;
    return r.status();
  };
  auto flag = [&](bool* out) {
    auto r = YamlBool(v, f, what);
    if (r.ok()) *out = *r;
    return r.status();
  };
  if (key == "type") return ParsePlatformName(v, f, what, &c->platform);
  if (key == "image") return str(&c->image);
  if (key == "mount_stagedir") return str(&c->mount_stagedir);
  if (key == "workdir") return str(&c->workdir);
  if (key == "pull_image") return flag(&c->pull_image);
  if (key == "with_mpi") return flag(&c->with_mpi);
  if (key == "with_cuda") return flag(&c->with_cuda);
  if (key == "mount_points") return ParseMountPoints(v, f, c);
  if (key == "options") {
    auto r = YamlStringList(v, f, what);
    if (r.ok()) c->options = *r;
    return r.status();
  }
  std::string command;  // command
  Status st = str(&command);
  if (st.ok()) c->command = command;
  return st;
}

}  // namespace

// container_platform: a platform name ("default": the partition's), or a
// mapping {type, image, command, mount_points, mount_stagedir, workdir,
// options, pull_image, with_mpi, with_cuda}; null turns it off.
Status ParseContainer(const YAML::Node& n, const std::string& f, TestSpec* s) {
  static const std::vector<std::string> kKeys = {"type",    "image",   "command",    "mount_points", "mount_stagedir",
                                                 "workdir", "options", "pull_image", "with_mpi",     "with_cuda"};
  ContainerSpec& c = s->container;
  c = ContainerSpec();
  c.mark = MarkOf(n, f);
  if (n.IsNull()) return Status::OK();
  c.enabled = true;
  if (n.IsScalar()) return ParsePlatformName(n, f, "container_platform", &c.platform);
  if (!n.IsMap())
    return FieldError(n, f,
                      "container_platform: expected a platform name or a mapping such as {type: Apptainer, "
                      "command: ...}, got " +
                          YamlTypeName(n));
  for (const auto& kv : n) {
    std::string key = kv.first.Scalar();
    if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end())
      return FieldError(kv.first, f, "container_platform: unknown key '" + key + "'" + DidYouMean(key, kKeys));
    Status st = ParseContainerKey(key, kv.second, f, &c);
    if (!st.ok()) return st;
  }
  return Status::OK();
}

}  // namespace hb
