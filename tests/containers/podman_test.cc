// Real containers: hetbench runs test cases inside Podman, from an image
// the test builds itself (a root file system of a few host programs,
// `podman import`ed; no registry is reached). Skipped, with the runtime's
// exact error, only where Podman cannot run a container (see
// docs/containers.md for what this needs inside a sandbox).
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../e2e/e2e_util.h"

using e2e::Shell;

namespace {

// containers.conf settings, from none to those a sandbox needs: lower
// default ulimits (podman's exceed a hard limit that cannot be raised
// without CAP_SYS_RESOURCE), no network namespace, and runc (crun refuses
// cgroups in hybrid mode with controllers in cgroup v2).
const char* kConfs[] = {
    "",
    "[containers]\ndefault_ulimits = [\"nofile=1024:1024\", \"nproc=4096:4096\"]\nnetns = \"none\"\n",
    "[containers]\ndefault_ulimits = [\"nofile=1024:1024\", \"nproc=4096:4096\"]\nnetns = \"none\"\n"
    "[engine]\nruntime = \"runc\"\n",
};

class Podman : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (Shell("command -v podman").empty()) {
      skip_ = "podman is not installed (apt-get install podman runc)";
      return;
    }
    dir_ = TempDir();
    image_ = "localhost/hb-e2e:" + std::to_string(getpid());
    // A root file system of host programs and the libraries they load.
    std::string build = "set -e; cd " + dir_ +
                        "; mkdir -p rootfs/bin rootfs/rfm_workdir; "
                        "for b in /bin/sh /bin/cat /bin/echo /bin/ls; do cp $b rootfs/bin/; done; "
                        "for l in $(ldd /bin/sh /bin/cat /bin/ls | grep -o '/lib[^ ]*' | sort -u); do "
                        "mkdir -p rootfs$(dirname $l); cp $l rootfs$l; done; "
                        "tar -C rootfs -cf rootfs.tar . && podman import rootfs.tar " +
                        image_ +
                        " 2>&1 >/dev/null "
                        "&& echo imported";
    std::string out = Shell("(" + build + ") 2>&1");
    if (out.find("imported") == std::string::npos) {
      skip_ = "could not build the test image with podman import: " + out;
      return;
    }
    std::string errors;
    for (int i = 0; i < 3; ++i) {
      std::string conf = dir_ + "/containers" + std::to_string(i) + ".conf";
      Write(conf, kConfs[i]);
      std::string got =
          Shell("CONTAINERS_CONF=" + conf + " timeout 120 podman run --rm " + image_ + " /bin/echo podman-ok 2>&1");
      if (got.find("podman-ok") == 0) {
        conf_ = conf;
        return;
      }
      errors += "\n  with containers.conf #" + std::to_string(i) + ": " + got;
    }
    skip_ = "podman cannot run a container here:" + errors;
  }
  static void TearDownTestSuite() {
    if (!image_.empty()) Shell("podman rmi -f " + image_ + " >/dev/null 2>&1");
  }
  void SetUp() override {
    if (!skip_.empty()) GTEST_SKIP() << skip_;
  }

  // A site whose partition runs Podman with the containers.conf that works.
  static std::string Site() {
    return "systems:\n"
           "  - name: box\n"
           "    hostnames: ['.*']\n"
           "    partitions:\n"
           "      - name: p\n"
           "        scheduler: local\n"
           "        launcher: local\n"
           "        environs: [builtin]\n"
           "        container_platforms:\n"
           "          - {type: Podman, env_vars: [[CONTAINERS_CONF, '" +
           conf_ +
           "']]}\n"
           "environments:\n"
           "  - {name: builtin, cc: cc}\n";
  }

  static nlohmann::json Cases(const std::string& dir) {
    auto files = e2e::Find(dir + "/reports", "run-*.json");
    return files.size() == 1 ? nlohmann::json::parse(Read(files[0]))["cases"] : nlohmann::json::array();
  }

  static std::string dir_, image_, conf_, skip_;
};
std::string Podman::dir_, Podman::image_, Podman::conf_, Podman::skip_;

TEST_F(Podman, CaseRunsInsideTheImageWithTheStageDirectoryMounted) {
  std::string dir = TempDir();
  Write(dir + "/site.yaml", Site());
  Write(dir + "/src/input.txt", "hello-from-the-stage-directory\n");
  Write(dir + "/t.yaml",
        "name: inpodman\n"
        "sourcesdir: src\n"
        "image: " +
            image_ +
            "\n"
            "container_platform:\n"
            "  type: Podman\n"
            "  pull_image: false\n"
            "  command: /bin/sh -c 'cat input.txt; ls /; echo written-inside > made.txt'\n"
            "keep_files: [made.txt]\n"
            "sanity:\n"
            "  - {pattern: hello-from-the-stage-directory}\n"
            "  - {pattern: rfm_workdir}\n"
            "---\n"
            "name: execinpodman\n"
            "sourcesdir: src\n"
            "image: " +
            image_ +
            "\n"
            "container_platform: {pull_image: false}\n"
            "executable: cat\n"
            "executable_opts: [input.txt, /proc/1/cmdline]\n"
            "sanity: [{pattern: 'hello-from-the-stage-directory\\ncat'}]\n");
  auto o = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml"}, dir, 300);
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  for (const auto& c : Cases(dir)) {
    EXPECT_EQ(c["result"], "pass") << c.dump();
    std::string out = c["outputdir"];
    // What the command wrote in /rfm_workdir is in the stage directory.
    if (c["name"] == "inpodman") {
      EXPECT_EQ(Read(out + "/made.txt"), "written-inside\n");
    }
    EXPECT_NE(Read(out + "/hb_job.sh").find("export CONTAINERS_CONF="), std::string::npos);
  }
  EXPECT_EQ(Cases(dir).size(), 2u);
}

// An image name with shell metacharacters reaches podman as one word: it
// refuses the name, and the `touch` never runs.
TEST_F(Podman, ImageNameWithMetacharactersReachesPodmanLiterally) {
  std::string dir = TempDir();
  std::string marker = dir + "/pwned";
  Write(dir + "/site.yaml", Site());
  Write(dir + "/t.yaml",
        "name: meta\nsanity: [{exit_code: 0}]\n"
        "image: '" +
            image_ + ";touch " + marker +
            "'\n"
            "container_platform: {type: Podman, pull_image: false, command: /bin/echo hi}\n");
  auto o = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml"}, dir, 300);
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  EXPECT_FALSE(Exists(marker));
  auto cases = Cases(dir);
  ASSERT_EQ(cases.size(), 1u);
  std::string script = Read(std::string(cases[0]["outputdir"]) + "/hb_job.sh");
  EXPECT_NE(script.find(" '" + image_ + ";touch " + marker + "' /bin/echo hi\n"), std::string::npos) << script;
  EXPECT_NE(std::string(cases[0]["fail_reason"]).find("exit code 125"), std::string::npos) << cases[0].dump();
}

}  // namespace
