// End-to-end tests of container platforms that need no container runtime:
// the job scripts hetbench writes (--dry-run) and configuration errors.
// tests/containers/podman_test.cc runs real containers.
#include <gtest/gtest.h>

#include "e2e_util.h"

namespace {

// The launcher wraps the container command (`srun apptainer exec ...`), and
// a GPU case on an NVIDIA partition gets --nv.
TEST(ContainersE2E, SrunWrapsApptainerWithGpus) {
  std::string dir = TempDir();
  Write(dir + "/site.yaml", R"(
systems:
  - name: hpc
    hostnames: ['.*']
    partitions:
      - name: gpu
        scheduler: slurm
        launcher: srun
        environs: [gnu]
        devices: [{type: gpu, arch: sm_90, model: NVIDIA H200, num_devices: 4}]
        container_platforms:
          - {type: Apptainer, default: true}
          - {type: Docker}
environments:
  - {name: gnu, cc: gcc}
)");
  Write(dir + "/t.yaml", R"(
name: ctr
image: docker://nvcr.io/nvidia/pytorch:24.05-py3
num_gpus_per_node: 1
container_platform: {command: "python -c 'import torch'", mount_points: [[/scratch, /data]]}
prerun_cmds: [echo before]
sanity: [{exit_code: 0}]
---
name: ctr_docker
image: ubuntu:22.04
container_platform: docker
executable: cat
executable_opts: [/etc/os-release]
sanity: [{exit_code: 0}]
)");
  auto o = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml", "--dry-run"}, dir);
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  for (const auto& path : e2e::Find(dir + "/output", "hb_job.sh")) {
    std::string script = Read(path);
    std::string stage = path.substr(0, path.rfind('/'));
    stage.replace(stage.find("/output/"), 8, "/stage/");
    if (path.find("ctr_docker") != std::string::npos) {
      EXPECT_NE(script.find("\ndocker pull ubuntu:22.04\nsrun docker run --rm -v \"" + stage +
                            "\":\"/rfm_workdir\" -w /rfm_workdir ubuntu:22.04 cat /etc/os-release\n"),
                std::string::npos)
          << script;
    } else {
      EXPECT_NE(script.find("\necho before\nsrun apptainer exec -B\"/scratch:/data\" -B\"" + stage +
                            ":/rfm_workdir\" --nv --pwd /rfm_workdir docker://nvcr.io/nvidia/pytorch:24.05-py3 "
                            "python -c 'import torch'\n"),
                std::string::npos)
          << script;
    }
  }
  EXPECT_EQ(e2e::Find(dir + "/output", "hb_job.sh").size(), 2u);
}

TEST(ContainersE2E, PlatformNotOnThePartitionFailsTheCase) {
  std::string dir = TempDir();
  Write(dir + "/site.yaml", R"(
systems:
  - name: box
    hostnames: ['.*']
    partitions:
      - {name: p, scheduler: local, launcher: local, environs: [gnu], container_platforms: [{type: Podman}]}
environments:
  - {name: gnu, cc: gcc}
)");
  Write(dir + "/t.yaml", "name: c\nimage: x\ncontainer_platform: Sarus\nsanity: [{exit_code: 0}]\n");
  auto o = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml"}, dir);
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  EXPECT_NE(o.out.find("run: the test asks for container platform 'Sarus' but partition 'box:p' configures "
                       "only Podman (see docs/containers.md)"),
            std::string::npos)
      << o.out;
}

TEST(ContainersE2E, UnknownPlatformInTheConfigIsAConfigurationError) {
  std::string dir = TempDir();
  Write(dir + "/site.yaml", R"(
systems:
  - name: box
    hostnames: ['.*']
    partitions:
      - name: p
        scheduler: local
        launcher: local
        container_platforms:
          - type: Singularty
)");
  Write(dir + "/t.yaml", "name: c\nexecutable: 'true'\nsanity: [{exit_code: 0}]\n");
  auto o = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml"}, dir);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("site.yaml:10:19: container_platforms: type: unknown container platform 'Singularty', did "
                       "you mean 'Singularity'? (known: Apptainer, Docker, Podman, Sarus, Shifter, Singularity)"),
            std::string::npos)
      << o.err;
}

}  // namespace
