#include "launch/container.h"

#include <gtest/gtest.h>

namespace hb {
namespace {

// ReFrame's own test fixture (unittests/test_containers.py): two mounts,
// stage directory /foo, options --foo --bar, image image:tag, command cmd.
ContainerRun Fixture(const std::string& type) {
  ContainerRun r;
  r.type = type;
  r.image = "image:tag";
  r.command = "cmd";
  r.mount_points = {{"/path/one", "/one"}, {"/path/two", "/two"}};
  r.stagedir = "/foo";
  return r;
}

TEST(Container, MountPointsAsReframeWritesThem) {
  EXPECT_EQ(ContainerLaunchCommand(Fixture("Singularity")),
            "singularity exec -B\"/path/one:/one\" -B\"/path/two:/two\" -B\"/foo:/rfm_workdir\" "
            "--pwd /rfm_workdir image:tag cmd");
  EXPECT_EQ(ContainerLaunchCommand(Fixture("Apptainer")),
            "apptainer exec -B\"/path/one:/one\" -B\"/path/two:/two\" -B\"/foo:/rfm_workdir\" "
            "--pwd /rfm_workdir image:tag cmd");
  EXPECT_EQ(ContainerLaunchCommand(Fixture("Docker")),
            "docker run --rm -v \"/path/one\":\"/one\" -v \"/path/two\":\"/two\" -v \"/foo\":\"/rfm_workdir\" "
            "-w /rfm_workdir image:tag cmd");
  EXPECT_EQ(ContainerLaunchCommand(Fixture("Podman")),
            "podman run --rm -v \"/path/one\":\"/one\" -v \"/path/two\":\"/two\" -v \"/foo\":\"/rfm_workdir\" "
            "-w /rfm_workdir image:tag cmd");
  EXPECT_EQ(ContainerLaunchCommand(Fixture("Sarus")),
            "sarus run --mount=type=bind,source=\"/path/one\",destination=\"/one\" "
            "--mount=type=bind,source=\"/path/two\",destination=\"/two\" "
            "--mount=type=bind,source=\"/foo\",destination=\"/rfm_workdir\" -w /rfm_workdir image:tag cmd");
  // Shifter takes no working directory option (ReFrame drops it).
  EXPECT_EQ(ContainerLaunchCommand(Fixture("Shifter")),
            "shifter run --mount=type=bind,source=\"/path/one\",destination=\"/one\" "
            "--mount=type=bind,source=\"/path/two\",destination=\"/two\" "
            "--mount=type=bind,source=\"/foo\",destination=\"/rfm_workdir\" image:tag cmd");
}

TEST(Container, RunOptionsWithoutWorkdirAsReframe) {
  for (const char* type : {"Singularity", "Docker", "Sarus"}) {
    ContainerRun r = Fixture(type);
    r.mount_points = {{"/path/one", "/one"}};
    r.options = {"--foo", "--bar"};
    r.workdir = "";
    std::string got = ContainerLaunchCommand(r);
    if (std::string(type) == "Singularity")
      EXPECT_EQ(got, "singularity exec -B\"/path/one:/one\" -B\"/foo:/rfm_workdir\" --foo --bar image:tag cmd");
    else if (std::string(type) == "Docker")
      EXPECT_EQ(got,
                "docker run --rm -v \"/path/one\":\"/one\" -v \"/foo\":\"/rfm_workdir\" --foo --bar image:tag cmd");
    else
      EXPECT_EQ(got,
                "sarus run --mount=type=bind,source=\"/path/one\",destination=\"/one\" "
                "--mount=type=bind,source=\"/foo\",destination=\"/rfm_workdir\" --foo --bar image:tag cmd");
  }
}

TEST(Container, NoCommandRunsTheImagesOwn) {
  ContainerRun r = Fixture("Apptainer");
  r.command.reset();
  r.mount_points.clear();
  EXPECT_EQ(ContainerLaunchCommand(r), "apptainer run -B\"/foo:/rfm_workdir\" --pwd /rfm_workdir image:tag");
  r.type = "Docker";
  EXPECT_EQ(ContainerLaunchCommand(r), "docker run --rm -v \"/foo\":\"/rfm_workdir\" -w /rfm_workdir image:tag");
}

TEST(Container, NoStageMountAndCustomWorkdir) {
  ContainerRun r = Fixture("Podman");
  r.mount_points.clear();
  r.mount_stagedir = "";
  r.workdir = "/work dir";
  EXPECT_EQ(ContainerLaunchCommand(r), "podman run --rm -w '/work dir' image:tag cmd");
}

TEST(Container, GpuFlagsPerVendor) {
  ContainerRun r = Fixture("Apptainer");
  r.mount_points.clear();
  r.workdir = "";
  r.gpus = GpuVendor::kNvidia;
  EXPECT_EQ(ContainerLaunchCommand(r), "apptainer exec -B\"/foo:/rfm_workdir\" --nv image:tag cmd");
  r.gpus = GpuVendor::kAmd;
  EXPECT_EQ(ContainerLaunchCommand(r), "apptainer exec -B\"/foo:/rfm_workdir\" --rocm image:tag cmd");
  r.type = "Singularity";
  EXPECT_EQ(ContainerLaunchCommand(r), "singularity exec -B\"/foo:/rfm_workdir\" --rocm image:tag cmd");
  r.type = "Docker";
  r.gpus = GpuVendor::kNvidia;
  EXPECT_EQ(ContainerLaunchCommand(r), "docker run --rm -v \"/foo\":\"/rfm_workdir\" --gpus all image:tag cmd");
  r.type = "Podman";
  r.gpus = GpuVendor::kAmd;
  EXPECT_EQ(ContainerLaunchCommand(r),
            "podman run --rm -v \"/foo\":\"/rfm_workdir\" --device=/dev/kfd --device=/dev/dri image:tag cmd");
  r.type = "Sarus";  // Sarus' hooks give it the GPUs; no flag
  r.gpus = GpuVendor::kNvidia;
  EXPECT_EQ(ContainerLaunchCommand(r),
            "sarus run --mount=type=bind,source=\"/foo\",destination=\"/rfm_workdir\" image:tag cmd");
}

TEST(Container, SarusAndShifterMpi) {
  ContainerRun r = Fixture("Sarus");
  r.mount_points = {{"/path/one", "/one"}};
  r.with_mpi = true;
  r.options = {"--foo"};
  EXPECT_EQ(ContainerLaunchCommand(r),
            "sarus run --mount=type=bind,source=\"/path/one\",destination=\"/one\" "
            "--mount=type=bind,source=\"/foo\",destination=\"/rfm_workdir\" --mpi -w /rfm_workdir --foo image:tag cmd");
  r.type = "Shifter";
  EXPECT_EQ(ContainerLaunchCommand(r),
            "shifter run --mount=type=bind,source=\"/path/one\",destination=\"/one\" "
            "--mount=type=bind,source=\"/foo\",destination=\"/rfm_workdir\" --mpi --foo image:tag cmd");
}

TEST(Container, PullCommands) {
  ContainerRun r = Fixture("Docker");
  EXPECT_EQ(ContainerPrepareCommands(r), std::vector<std::string>{"docker pull image:tag"});
  r.type = "Podman";
  EXPECT_EQ(ContainerPrepareCommands(r), std::vector<std::string>{"podman pull image:tag"});
  r.type = "Sarus";
  EXPECT_EQ(ContainerPrepareCommands(r), std::vector<std::string>{"sarus pull image:tag"});
  r.type = "Shifter";
  EXPECT_EQ(ContainerPrepareCommands(r), std::vector<std::string>{"shifter pull image:tag"});
  r.image = "load/library/image:tag";  // loaded from a tar file: nothing to pull
  EXPECT_TRUE(ContainerPrepareCommands(r).empty());
  r.type = "Singularity";
  r.image = "image:tag";
  EXPECT_TRUE(ContainerPrepareCommands(r).empty());
  r.type = "Docker";
  r.pull_image = false;
  EXPECT_TRUE(ContainerPrepareCommands(r).empty());
}

TEST(Container, ShellMetacharactersStayLiteral) {
  ContainerRun r = Fixture("Podman");
  r.mount_points.clear();
  r.image = "img;touch /tmp/x";
  r.stagedir = "/st$age/`x`";
  EXPECT_EQ(ContainerLaunchCommand(r),
            "podman run --rm -v \"/st\\$age/\\`x\\`\":\"/rfm_workdir\" -w /rfm_workdir 'img;touch /tmp/x' cmd");
  EXPECT_EQ(ContainerPrepareCommands(r), std::vector<std::string>{"podman pull 'img;touch /tmp/x'"});
  // A user's mount point may use the job's environment, as in ReFrame.
  r.mount_points = {{"$SCRATCH/data", "/data"}};
  r.type = "Apptainer";
  r.workdir = "";
  EXPECT_EQ(ContainerLaunchCommand(r),
            "apptainer exec -B\"$SCRATCH/data:/data\" -B\"/st\\$age/\\`x\\`:/rfm_workdir\" 'img;touch /tmp/x' cmd");
}

ModuleSpec Module(const std::string& name) {
  ModuleSpec m;
  m.name = name;
  return m;
}

Partition WithPlatforms() {
  Partition p;
  p.name = "gpu";
  ContainerPlatform a{"Apptainer", false, {Module("apptainer")}, {{"APPTAINER_CACHEDIR", "/tmp/c"}}, {}};
  ContainerPlatform d{"Docker", true, {}, {}, {}};
  p.container_platforms = {a, d};
  return p;
}

TEST(Container, DefaultAndNamedPlatform) {
  Partition p = WithPlatforms();
  ContainerSpec spec;
  spec.enabled = true;
  auto lines = ContainerFor(spec, "ubuntu:22.04", p, "sys:gpu", 0, "/st", "./hello -n 2");
  ASSERT_TRUE(lines.ok()) << lines.status().str();
  EXPECT_EQ(lines->command, "docker run --rm -v \"/st\":\"/rfm_workdir\" -w /rfm_workdir ubuntu:22.04 ./hello -n 2");
  EXPECT_EQ(lines->prepare_cmds, std::vector<std::string>{"docker pull ubuntu:22.04"});

  spec.platform = "Apptainer";
  spec.command = "bash -c 'cat /etc/os-release'";
  lines = ContainerFor(spec, "ubuntu:22.04", p, "sys:gpu", 2, "/st", "./hello");
  ASSERT_TRUE(lines.ok());
  EXPECT_EQ(lines->command,
            "apptainer exec -B\"/st:/rfm_workdir\" --nv --pwd /rfm_workdir ubuntu:22.04 bash -c 'cat /etc/os-release'");
  EXPECT_TRUE(lines->prepare_cmds.empty());
  EXPECT_EQ(lines->modules, std::vector<ModuleSpec>({Module("apptainer")}));
  ASSERT_EQ(lines->env_vars.size(), 1u);
  EXPECT_EQ(lines->env_vars[0].first, "APPTAINER_CACHEDIR");
}

TEST(Container, DefaultIsFirstOrContainerRuntime) {
  Partition p = WithPlatforms();
  p.container_platforms[1].is_default = false;
  EXPECT_EQ(p.FindContainerPlatform("default")->type, "Apptainer");
  p.container_runtime = "Docker";
  EXPECT_EQ(p.FindContainerPlatform("")->type, "Docker");
  EXPECT_EQ(p.FindContainerPlatform("docker")->type, "Docker");  // any case, as ReFrame's create()
  EXPECT_EQ(p.FindContainerPlatform("Sarus"), nullptr);
}

TEST(Container, AmdPartitionGetsRocm) {
  Partition p = WithPlatforms();
  p.devices = {Device{"gpu", "gfx90a", "AMD Instinct MI250X", 8}};
  ContainerSpec spec;
  spec.enabled = true;
  spec.platform = "Apptainer";
  spec.workdir = "";
  auto lines = ContainerFor(spec, "rocm/dev", p, "sys:gpu", 1, "/st", "./a");
  ASSERT_TRUE(lines.ok());
  EXPECT_EQ(lines->command, "apptainer exec -B\"/st:/rfm_workdir\" --rocm rocm/dev ./a");
  EXPECT_EQ(GpuVendorOf(p), GpuVendor::kAmd);
  p.devices = {Device{"gpu", "sm_90", "NVIDIA H200", 8}};
  EXPECT_EQ(GpuVendorOf(p), GpuVendor::kNvidia);
  p.devices.clear();
  p.features = {"gpu", "rocm"};
  EXPECT_EQ(GpuVendorOf(p), GpuVendor::kAmd);
}

TEST(Container, ErrorsSayWhatToChange) {
  Partition p = WithPlatforms();
  ContainerSpec spec;
  spec.enabled = true;
  spec.platform = "Sarus";
  auto lines = ContainerFor(spec, "img", p, "sys:gpu", 0, "/st", "./a");
  ASSERT_FALSE(lines.ok());
  EXPECT_EQ(lines.status().message(),
            "the test asks for container platform 'Sarus' but partition 'sys:gpu' configures only Apptainer, Docker "
            "(see docs/containers.md)");
  p.container_platforms.clear();
  spec.platform = "";
  lines = ContainerFor(spec, "img", p, "sys:cpu", 0, "/st", "./a");
  ASSERT_FALSE(lines.ok());
  EXPECT_EQ(lines.status().message(),
            "the test asks for a default container platform but partition 'sys:cpu' configures no "
            "container_platforms (see docs/containers.md)");
  lines = ContainerFor(spec, "", WithPlatforms(), "sys:gpu", 0, "/st", "./a");
  ASSERT_FALSE(lines.ok());
  EXPECT_NE(lines.status().message().find("no image to run"), std::string::npos);
}

}  // namespace
}  // namespace hb
