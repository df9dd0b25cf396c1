#include "run/session.h"

#include <gtest/gtest.h>

namespace hb {
namespace {

// A session with one system, partitions "gpu" and "cpu", and three cases:
// build@gpu, run@gpu (depends on build@gpu) and other@cpu.
struct DistFixture {
  TestSpec build, run, other;
  Session s;
  DistFixture() {
    build.name = "build";
    run.name = "run";
    other.name = "other";
    System sys;
    sys.name = "site";
    Partition gpu, cpu;
    gpu.name = "gpu";
    cpu.name = "cpu";
    sys.partitions = {gpu, cpu};
    s.config.systems = {sys};
    s.system_name = "site";
    auto add = [&](TestSpec* spec, const std::string& part, std::vector<size_t> deps) {
      TestCase c;
      c.spec = std::shared_ptr<const TestSpec>(std::shared_ptr<const TestSpec>(), spec);
      c.system = "site";
      c.partition = part;
      c.environ = "gnu";
      c.display_name = spec->name;
      c.id = spec->name + "@site:" + part + "+gnu";
      c.deps = std::move(deps);
      s.cases.push_back(c);
    };
    add(&build, "gpu", {});
    add(&run, "gpu", {0});
    add(&other, "cpu", {});
  }
};

TEST(Distribute, OneCasePerNodeWithDependenciesOnTheSameNode) {
  DistFixture f;
  std::vector<std::string> asked;
  Status st = DistributeCases(&f.s, [&](const Partition& p) -> Result<std::vector<std::string>> {
    asked.push_back(p.name);
    if (p.name == "gpu") return std::vector<std::string>{"g1", "g2"};
    return std::vector<std::string>{"c1"};
  });
  ASSERT_TRUE(st.ok()) << st.str();
  EXPECT_EQ(asked, (std::vector<std::string>{"gpu", "cpu"}));  // once per partition
  const auto& c = f.s.cases;
  ASSERT_EQ(c.size(), 5u);
  EXPECT_EQ(c[0].id, "build%$nid=g1@site:gpu+gnu");
  EXPECT_EQ(c[1].id, "build%$nid=g2@site:gpu+gnu");
  EXPECT_EQ(c[2].display_name, "run %$nid=g1");
  EXPECT_EQ(*c[2].Param(kNodeParam), "g1");
  EXPECT_EQ(c[2].deps, (std::vector<size_t>{0}));
  EXPECT_EQ(c[3].deps, (std::vector<size_t>{1}));
  EXPECT_EQ(c[4].id, "other%$nid=c1@site:cpu+gnu");
}

TEST(Distribute, ErrorsNameThePartition) {
  DistFixture f;
  Status empty = DistributeCases(
      &f.s, [](const Partition&) -> Result<std::vector<std::string>> { return std::vector<std::string>{}; });
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.message(), "--distribute: partition 'gpu' has no node in the requested state");
  DistFixture g;
  Status err = DistributeCases(&g.s, [](const Partition&) -> Result<std::vector<std::string>> {
    return Status::Error("the 'pbs' scheduler cannot list nodes");
  });
  ASSERT_FALSE(err.ok());
  EXPECT_EQ(err.message(), "--distribute: partition 'gpu': the 'pbs' scheduler cannot list nodes");
}

}  // namespace
}  // namespace hb
