// The fields of a test file that say how a case is built and what it runs
// in: `build_system` (SingleSource, Make, CMake, Autotools, Spack,
// EasyBuild, Custom, with their keys; buildsys/build_system.h makes the
// commands) and `container_platform` (a platform name, or a mapping of
// ReFrame's ContainerPlatform fields). Internal to the loader
// (model/test_fields.h parses the other fields). Every error names
// file:line:column.
#pragma once

#include <string>

#include <yaml-cpp/yaml.h>

#include "model/test_spec.h"
#include "util/status.h"

namespace hb {

Status ParseBuild(const YAML::Node& n, const std::string& file, TestSpec* spec);
Status ParseContainer(const YAML::Node& n, const std::string& file, TestSpec* spec);

}  // namespace hb
