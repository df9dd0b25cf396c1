#include "config/site_config.h"

#include <gtest/gtest.h>

namespace hb {
namespace {

Environment Env(const std::string& name, const std::string& cc, std::vector<std::string> targets) {
  Environment e;
  e.name = name;
  e.cc = cc;
  e.target_systems = std::move(targets);
  return e;
}

SiteConfig TwoSystems() {
  SiteConfig cfg;
  System daint;
  daint.name = "daint";
  daint.partitions.resize(2);
  daint.partitions[0].name = "mc";
  daint.partitions[1].name = "gpu";
  cfg.systems.push_back(daint);
  System dom;
  dom.name = "dom";
  cfg.systems.push_back(dom);
  return cfg;
}

TEST(SiteConfig, FindSystemAndPartition) {
  SiteConfig cfg = TwoSystems();
  ASSERT_NE(cfg.FindSystem("daint"), nullptr);
  EXPECT_EQ(cfg.FindSystem("daint")->FindPartition("gpu")->name, "gpu");
  EXPECT_EQ(cfg.FindSystem("daint")->FindPartition("login"), nullptr);
  EXPECT_EQ(cfg.FindSystem("nope"), nullptr);
}

// The example of ReFrame's docs for environments.target_systems.
TEST(SiteConfig, FindEnvironmentPicksTheMostSpecificDefinition) {
  SiteConfig cfg = TwoSystems();
  cfg.environments = {Env("PrgEnv-gnu", "cc", {}), Env("PrgEnv-gnu", "mpicc", {"daint:mc"}),
                      Env("PrgEnv-cray", "craycc", {"daint"}), Env("PrgEnv-gnu", "dom-cc", {"dom", "*"})};
  EXPECT_EQ(cfg.FindEnvironment("PrgEnv-gnu", "daint", "mc")->cc, "mpicc");
  EXPECT_EQ(cfg.FindEnvironment("PrgEnv-gnu", "dom", "x")->cc, "dom-cc");
  EXPECT_EQ(cfg.FindEnvironment("PrgEnv-cray", "daint", "gpu")->cc, "craycc");
  EXPECT_EQ(cfg.FindEnvironment("PrgEnv-cray", "dom", "x"), nullptr);
  EXPECT_EQ(cfg.FindEnvironment("nope", "daint", "mc"), nullptr);
}

TEST(SiteConfig, FindEnvironmentLaterDefinitionWinsAmongEquals) {
  SiteConfig cfg = TwoSystems();
  cfg.environments = {Env("gnu", "gcc-11", {"*"}), Env("gnu", "gcc-13", {})};
  EXPECT_EQ(cfg.FindEnvironment("gnu", "daint", "gpu")->cc, "gcc-13");
  // "daint:gpu" outranks the later global entry.
  cfg.environments.insert(cfg.environments.begin(), Env("gnu", "gpu-gcc", {"daint:gpu"}));
  EXPECT_EQ(cfg.FindEnvironment("gnu", "daint", "gpu")->cc, "gpu-gcc");
  EXPECT_EQ(cfg.FindEnvironment("gnu", "daint", "mc")->cc, "gcc-13");
}

TEST(SiteConfig, SectionForResolvesTargetSystems) {
  SiteConfig cfg;
  cfg.raw["general"] = nlohmann::json::parse(R"([
    {"check_search_recursive": true, "colorize": true},
    {"colorize": false, "target_systems": ["daint"]},
    {"keep_stage_files": true, "target_systems": ["daint:gpu"]}])");
  EXPECT_EQ(cfg.SectionFor("general", "dom"),
            nlohmann::json::parse(R"({"check_search_recursive": true, "colorize": true})"));
  EXPECT_EQ(cfg.SectionFor("general", "daint", "mc"), nlohmann::json::parse(R"({"colorize": false})"));
  EXPECT_EQ(cfg.SectionFor("general", "daint", "gpu"), nlohmann::json::parse(R"({"keep_stage_files": true})"));
  EXPECT_EQ(cfg.SectionFor("storage", "daint"), nlohmann::json::object());
}

TEST(SiteConfig, FindModeHonoursTargetSystems) {
  SiteConfig cfg;
  cfg.raw["modes"] = nlohmann::json::parse(R"([
    {"name": "nightly", "options": ["--tag=nightly"]},
    {"name": "nightly", "options": ["--tag=nightly", "-p", "gnu"], "target_systems": ["daint"]}])");
  EXPECT_EQ(cfg.FindMode("nightly", "dom"), std::vector<std::string>({"--tag=nightly"}));
  EXPECT_EQ(cfg.FindMode("nightly", "daint"), std::vector<std::string>({"--tag=nightly", "-p", "gnu"}));
  EXPECT_EQ(cfg.FindMode("weekly", "daint"), std::nullopt);
}

}  // namespace
}  // namespace hb
