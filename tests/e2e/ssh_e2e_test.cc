// End-to-end tests of the `ssh` scheduler and launcher against a real
// OpenSSH server (Debian's openssh-server, installed by scripts/deps): the
// test makes a host key and a user key, starts /usr/sbin/sshd on a free
// loopback port and runs hetbench against it.
//
// As root the server runs in a mount namespace of its own with an empty
// tmpfs over the test's stage folder, so the "remote host" does not see
// hetbench's files and the scheduler must copy the stage folder there and
// back. Without root (no namespace) the host shares this file system and
// the scheduler copies nothing; both paths are tested.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "e2e_util.h"

namespace {

int FreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    ::close(fd);
    return 0;
  }
  ::close(fd);
  return ntohs(a.sin_port);
}

bool Accepts(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return ok;
}

// One sshd for the test, in its own folder; stopped by the destructor.
class SshServer {
 public:
  // `hidden`: a folder the server's sessions see empty (root only).
  explicit SshServer(const std::string& hidden) {
    if (e2e::Shell("test -x /usr/sbin/sshd && command -v ssh-keygen").empty()) {
      why_ = "no /usr/sbin/sshd or ssh-keygen (scripts/deps installs openssh-server)";
      return;
    }
    dir_ = e2e::TempDir();
    port_ = FreePort();
    e2e::Shell("ssh-keygen -q -t ed25519 -N '' -f " + dir_ + "/host_key && ssh-keygen -q -t ed25519 -N '' -f " + dir_ +
               "/user_key && cp " + dir_ + "/user_key.pub " + dir_ + "/authorized_keys && chmod 600 " + dir_ +
               "/authorized_keys");
    Write(dir_ + "/sshd_config", "Port " + std::to_string(port_) + "\nListenAddress 127.0.0.1\nHostKey " + dir_ +
                                     "/host_key\nPidFile " + dir_ + "/sshd.pid\nAuthorizedKeysFile " + dir_ +
                                     "/authorized_keys\nStrictModes no\nUsePAM no\nPasswordAuthentication no\n"
                                     "KbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\n"
                                     "LogLevel ERROR\n");
    if (::geteuid() == 0) ::mkdir("/run/sshd", 0755);  // sshd's privilege separation folder
    namespaced_ = ::geteuid() == 0 && !hidden.empty() &&
                  e2e::Shell("unshare -m sh -c 'mount -t tmpfs tmpfs " + dir_ + " && echo ok' 2>/dev/null") == "ok\n";
    std::string cmd = "/usr/sbin/sshd -D -e -f " + dir_ + "/sshd_config";
    if (namespaced_)
      cmd =
          "mkdir -p " + hidden + " && exec unshare -m sh -c 'mount -t tmpfs tmpfs " + hidden + " && exec " + cmd + "'";
    pid_ = ::fork();
    if (pid_ == 0) {
      ::setpgid(0, 0);
      execl("/bin/sh", "sh", "-c", (cmd + " 2>" + dir_ + "/sshd.log").c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    if (!e2e::WaitFor([&] { return Accepts(port_); }, 10)) why_ = "sshd did not start: " + Read(dir_ + "/sshd.log");
  }
  ~SshServer() {
    if (pid_ > 0) {
      ::kill(-pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  const std::string& why() const { return why_; }
  bool namespaced() const { return namespaced_; }
  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  // The partition's access words: ssh options for this server.
  std::string Access() const {
    return "['-p " + std::to_string(port_) + "', '-i " + dir_ +
           "/user_key', '-o StrictHostKeyChecking=no', '-o UserKnownHostsFile=/dev/null', '-o LogLevel=ERROR']";
  }

 private:
  std::string dir_, why_;
  int port_ = 0;
  pid_t pid_ = -1;
  bool namespaced_ = false;
};

std::string Site(const std::string& partition) { return e2e::OnePartitionSite(partition); }

struct Run {
  Output out;
  std::string stage;  // the case's stage folder
  nlohmann::json report;
};

Run RunIn(const std::string& dir, const std::string& site, const std::string& test,
          const std::vector<std::string>& more = {}) {
  Write(dir + "/site.yaml", site);
  Write(dir + "/t.yaml", test);
  Run r;
  std::vector<std::string> args = {"run", "-C", "site.yaml", "-c", "t.yaml", "--keep-stage-files"};
  args.insert(args.end(), more.begin(), more.end());
  r.out = Hetbench(args, dir, 120);
  auto scripts = e2e::Find(dir + "/stage", "hb_job.sh");
  if (scripts.size() == 1) r.stage = scripts[0].substr(0, scripts[0].rfind('/'));
  r.report = e2e::ReportOf(r.out);
  return r;
}

// The test reads a file of its sources folder, writes a file in its stage
// folder there, and prints where it ran.
const char kTest[] = R"(name: remote
sourcesdir: src
executable: sh
executable_opts: ['-c', "'cat input.txt; echo made there > made_there.txt; echo in $PWD'"]
sanity:
  - {pattern: '^the input$'}
  - {pattern: '^in /'}
)";

class SshE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = e2e::TempDir();
    server_ = std::make_unique<SshServer>(dir_ + "/stage");
    if (!server_->why().empty()) GTEST_SKIP() << server_->why();
    e2e::Shell("mkdir -p " + dir_ + "/src && echo 'the input' > " + dir_ + "/src/input.txt");
  }
  std::string Partition(const std::string& hosts = "[localhost]") const {
    return "scheduler: ssh, launcher: local, access: " + server_->Access() + ", sched_options: {ssh_hosts: " + hosts +
           "}";
  }
  std::string dir_;
  std::unique_ptr<SshServer> server_;
};

// ReFrame's ssh scheduler: the stage folder goes to the host, the job runs
// there, and what it wrote comes back; the remote copy is removed.
TEST_F(SshE2E, RunsOnTheHostAndBringsTheStageFolderBack) {
  if (::geteuid() == 0) {
    EXPECT_TRUE(server_->namespaced()) << "as root the host must not share the stage folder";
  }
  auto r = RunIn(dir_, Site(Partition()), kTest);
  ASSERT_EQ(r.out.exit_code, 0) << r.out.out << r.out.err;
  ASSERT_FALSE(r.stage.empty());
  EXPECT_EQ(Read(r.stage + "/made_there.txt"), "made there\n");
  EXPECT_NE(Read(r.stage + "/hb_job.out").find("in " + r.stage + "\n"), std::string::npos)
      << Read(r.stage + "/hb_job.out");
  EXPECT_EQ(r.report["cases"][0]["job"]["nodelist"], nlohmann::json::array({"localhost"}))
      << r.report["cases"][0].dump();
  EXPECT_FALSE(Exists(r.stage + "/.hb_ssh_pid"));
  EXPECT_FALSE(Exists(r.stage + "/.hb_ssh_token"));
  if (server_->namespaced()) {
    // The host did not see this folder: the copy there is gone again.
    // (The server's process became sshd inside its namespace: sh, unshare
    // and sh exec one another.)
    std::string there = e2e::Shell("nsenter -t " + std::to_string(server_->pid()) + " -m test -e " + r.stage +
                                   " && echo there || echo gone");
    EXPECT_EQ(there, "gone\n");
  }
}

// The job's exit code is the case's; its stderr comes back.
TEST_F(SshE2E, AFailingJobFailsWithItsExitCodeAndStderr) {
  auto r = RunIn(dir_, Site(Partition()), R"(name: fails
executable: sh
executable_opts: ['-c', "'echo broken there >&2; exit 3'"]
sanity: [{pattern: never}]
)");
  EXPECT_EQ(r.out.exit_code, 1) << r.out.out;
  EXPECT_NE(r.out.out.find("exit code 3 (stderr: broken there)"), std::string::npos) << r.out.out;
}

// A time limit stops the job on the host too, not only the local ssh.
TEST_F(SshE2E, ATimeLimitStopsTheRemoteJob) {
  auto r = RunIn(dir_, Site(Partition()), R"(name: slow
executable: sleep
executable_opts: ['47.5']
time_limit: 2s
sanity: [{exit_code: 0}]
)");
  EXPECT_EQ(r.out.exit_code, 1) << r.out.out;
  EXPECT_NE(r.out.out.find("time limit"), std::string::npos) << r.out.out;
  EXPECT_TRUE(e2e::WaitFor([] { return e2e::Shell("pgrep -f 'slee[p] 47.5'").empty(); }, 5))
      << "the remote sleep is still running";
}

// A host that does not answer fails the case and says which host and why.
TEST_F(SshE2E, AnUnreachableHostIsAClearFailure) {
  std::string partition = Partition();
  partition.replace(partition.find("-p " + std::to_string(server_->port())), 3 + std::to_string(server_->port()).size(),
                    "-p 1");
  auto r = RunIn(dir_, Site(partition), kTest);
  EXPECT_EQ(r.out.exit_code, 1) << r.out.out;
  EXPECT_NE(r.out.out.find("hetbench ssh: localhost: ssh failed (exit 255): is the host up and does it take this "
                           "user's key?"),
            std::string::npos)
      << r.out.out;
}

// ReFrame's ssh launcher on a local partition: `ssh -o BatchMode=yes
// <access but the last word> <host> <command>`, here on the same files.
TEST_F(SshE2E, TheSshLauncherRunsTheCommandOnTheLastAccessWord) {
  std::string access = server_->Access();
  access.insert(access.size() - 1, ", '127.0.0.1'");
  auto r = RunIn(dir_, Site("scheduler: local, launcher: ssh, access: " + access), R"(name: there
executable: echo
executable_opts: ['over ssh']
sanity: [{pattern: '^over ssh$'}]
)");
  EXPECT_EQ(r.out.exit_code, 0) << r.out.out << r.out.err;
  ASSERT_FALSE(r.stage.empty());
  EXPECT_NE(Read(r.stage + "/hb_job.sh").find("\nssh -o BatchMode=yes -p "), std::string::npos);
}

// Several cases spread over the hosts (two names of the same server here).
TEST_F(SshE2E, CasesShareTheHosts) {
  auto r = RunIn(dir_, Site(Partition("[localhost, 127.0.0.1]")), R"(name: many
parameters: {i: [1, 2, 3, 4]}
executable: echo
executable_opts: ['case {i}']
sanity: [{pattern: '^case {i}$'}]
)");
  ASSERT_EQ(r.out.exit_code, 0) << r.out.out << r.out.err;
  std::set<std::string> hosts;
  for (const auto& c : r.report["cases"]) {
    const auto& nodes = c["job"]["nodelist"];
    hosts.insert(nodes.is_array() && !nodes.empty() ? nodes[0].get<std::string>() : "none");
  }
  EXPECT_EQ(hosts, (std::set<std::string>{"localhost", "127.0.0.1"}));
}

}  // namespace
