#include "sched/ssh.h"

#include <gtest/gtest.h>

#include <string>

namespace hb {
namespace {

std::string ErrorOf(const nlohmann::json& so) {
  auto o = ReadSshOptions(JsonField(so));
  return o.ok() ? "no error" : o.status().message();
}

TEST(SshOptions, HostsAreRequiredAndChecked) {
  auto o = ReadSshOptions(
      JsonField(nlohmann::json{{"ssh_hosts", {"n1", "n2.example.org", "n1"}}, {"unqualified_hostnames", true}}));
  ASSERT_TRUE(o.ok()) << o.status().str();
  EXPECT_EQ(o->hosts, (std::vector<std::string>{"n1", "n2.example.org"}));
  EXPECT_TRUE(o->unqualified_hostnames);
  EXPECT_EQ(ReadSshOptions(JsonField(nlohmann::json{{"hosts", {"a"}}}))->hosts, std::vector<std::string>{"a"});
  const std::string need =
      "sched_options: the ssh scheduler needs ssh_hosts: the hosts to run on, e.g. {ssh_hosts: [node1, node2]}";
  EXPECT_EQ(ErrorOf(nullptr), need);
  EXPECT_EQ(ErrorOf({{"ssh_hosts", nlohmann::json::array()}}), need);
  EXPECT_EQ(ErrorOf({{"ssh_hosts", "n1"}}), "sched_options: 'ssh_hosts' must be a list of host names");
  EXPECT_EQ(ErrorOf({{"ssh_hosts", {"n1; rm -rf ~"}}}),
            "sched_options: 'ssh_hosts': 'n1; rm -rf ~' is not a host name");
  EXPECT_EQ(ErrorOf({{"ssh_hosts", {"-oProxyCommand=x"}}}),
            "sched_options: 'ssh_hosts': '-oProxyCommand=x' is not a host name");
  EXPECT_EQ(ErrorOf({{"ssh_hosts", {"a"}}, {"ssh_host", 1}}),
            "sched_options: unknown key 'ssh_host' for the ssh scheduler, did you mean 'ssh_hosts'? (known: "
            "ssh_hosts, hosts, unqualified_hostnames)");
}

// The wrapper leaves the job's own output files out of both copies (they
// are being written here while the job runs there), and quotes the paths.
TEST(SshWrapper, CopiesAroundTheOutputsAndQuotes) {
  Job j;
  j.workdir = "/st/it's here";
  j.script_path = "/st/it's here/hb_job.sh";
  j.stdout_path = "/st/it's here/hb_job.out";
  j.stderr_path = "/st/it's here/hb_job.err";
  std::string w = SshWrapperScript("n1", {"-p 2222"}, j);
  EXPECT_NE(w.find("ssh_opts=(-o BatchMode=yes -o ControlMaster=auto -o \"ControlPath=$ctl\" -o ControlPersist=yes "
                   "-p 2222)\nssh_cmd=(ssh \"${ssh_opts[@]}\" n1)\n"),
            std::string::npos)
      << w;
  EXPECT_NE(w.find("dir='/st/it'\\''s here'\n"), std::string::npos) << w;
  const std::string excl = " --exclude=./hb_job.out --exclude=./hb_job.err --exclude=./hb_ssh.sh";
  size_t first = w.find(excl);
  ASSERT_NE(first, std::string::npos) << w;
  EXPECT_NE(w.find(excl, first + 1), std::string::npos) << "the copy back leaves them out too";
  EXPECT_NE(w.find("exec bash -l hb_job.sh"), std::string::npos) << w;
}

}  // namespace
}  // namespace hb
