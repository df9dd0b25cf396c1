// SshScheduler: the `ssh` backend, after ReFrame's SSHJobScheduler
// (reframe/core/schedulers/ssh.py): each job runs on a remote host over
// ssh, in batch mode (keys, never a password prompt).
//
//  - Hosts: sched_options `ssh_hosts` (ReFrame's; `hosts` is accepted as
//    its schema spells it). A job takes a free host, or shares a busy one
//    when none is free; a `#host=NAME` option (access or job options) or
//    --distribute's node pins it. `unqualified_hostnames: true` records
//    "n1" for "n1.example.org" in the job's node list.
//  - ssh options: the partition's access words and the job's options,
//    less `#host=` (ReFrame's), e.g. access: ['-p 2222', '-i ~/.ssh/bench'].
//  - A job is a local process (a LocalScheduler of its own) running a
//    wrapper script, hb_ssh.sh, next to the job script. The wrapper:
//      1. asks the host whether the stage folder is already there (a token
//         file written here and read there: a shared file system); if so it
//         copies nothing;
//      2. else makes the same absolute path there (it must not exist yet)
//         and copies the stage folder into it with tar over ssh (ReFrame
//         uses rsync or scp; tar is on every host and can leave out the
//         job's output files, which must not be overwritten);
//      3. runs `cd DIR && exec bash -l hb_job.sh` there; its stdout and
//         stderr come back as the job's;
//      4. copies the folder back (also after a failure: the outputs explain
//         it) and removes the remote copy.
//    The same path there keeps every absolute path of the job script (cd,
//    {stagedir}) true. A failing step exits 255 with "hetbench ssh: ..." on
//    stderr naming the host and the step.
//  - Time limits and cancel: the local process group gets SIGTERM; the
//    wrapper then kills the remote job's process group over ssh (the remote
//    shell is a session leader under sshd) and exits 143.
// Used from the executor's thread only.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "sched/local_scheduler.h"
#include "sched/scheduler.h"
#include "util/json_field.h"

namespace hb {

struct SshOptions {
  std::vector<std::string> hosts;
  bool unqualified_hostnames = false;
};

// Reads an ssh partition's sched_options; unknown keys, no hosts or a
// wrong type are errors with the value's place.
Result<SshOptions> ReadSshOptions(const JsonField& sched_options);

// The wrapper script for `job` on `host` with these ssh option words (shell
// words, as ReFrame joins them). Pure, for tests.
std::string SshWrapperScript(const std::string& host, const std::vector<std::string>& ssh_words, const Job& job);

// The file name of the wrapper, in the job's workdir.
inline constexpr const char* kSshWrapper = "hb_ssh.sh";

class SshScheduler : public Scheduler {
 public:
  SshScheduler(SshOptions opts, LocalScheduler::Options local);

  std::string name() const override { return "ssh"; }
  std::vector<std::string> Directives(const Job&) const override { return {}; }
  Status Submit(Job* job) override;
  void Poll(const std::vector<Job*>& jobs) override;
  void Cancel(Job* job) override { local_.Cancel(job); }
  double NextPollDelay() const override { return local_.NextPollDelay(); }
  void Shutdown() override { local_.Shutdown(); }
  Status Check() override;
  // The configured hosts, whatever the state.
  Result<std::vector<std::string>> ListNodes(const std::vector<std::string>&, const std::string&) override {
    return opts_.hosts;
  }

 private:
  std::string Reserve(const std::string& pinned);

  SshOptions opts_;
  LocalScheduler local_;
  std::set<std::string> free_, busy_;
  std::map<std::string, std::string> host_of_;  // job id -> host, until the job ends
};

}  // namespace hb
