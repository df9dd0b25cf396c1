#include "sched/ssh.h"

#include <algorithm>

#include "sched/command_runner.h"
#include "util/fs.h"
#include "util/strings.h"

namespace hb {

namespace {

std::string Base(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

constexpr const char* kNeedHosts =
    "sched_options: the ssh scheduler needs ssh_hosts: the hosts to run on, e.g. {ssh_hosts: [node1, node2]}";

}  // namespace

Result<SshOptions> ReadSshOptions(const JsonField& so) {
  SshOptions o;
  if (so.absent_or_null() || !so.json().is_object()) return so.Placed(kNeedHosts);
  for (const auto& [key, v] : so.Items()) {
    if (key == "ssh_hosts" || key == "hosts") {
      auto hosts = v.Strings();
      if (!v.json().is_array() || !hosts.ok())
        return v.Placed("sched_options: '" + key + "' must be a list of host names");
      for (const auto& h : *hosts) {
        if (h.empty() || h.find_first_of(" \t\n'\"\\$`;&|<>") != std::string::npos || h[0] == '-')
          return v.Placed("sched_options: '" + key + "': '" + h + "' is not a host name");
        if (std::find(o.hosts.begin(), o.hosts.end(), h) == o.hosts.end()) o.hosts.push_back(h);
      }
    } else if (key == "unqualified_hostnames") {
      auto b = JsonBool(v.json());
      if (!b) return v.Placed("sched_options: 'unqualified_hostnames' must be true or false");
      o.unqualified_hostnames = *b;
    } else {
      std::vector<std::string> known = {"ssh_hosts", "hosts", "unqualified_hostnames"};
      return v.Placed("sched_options: unknown key '" + key + "' for the ssh scheduler" + DidYouMean(key, known) +
                      " (known: " + Join(known, ", ") + ")");
    }
  }
  if (o.hosts.empty()) return so.Placed(kNeedHosts);
  return o;
}

std::string SshWrapperScript(const std::string& host, const std::vector<std::string>& ssh_words, const Job& job) {
  const std::string dir = ShellQuote(job.workdir);
  const std::string out = Base(job.stdout_path), err = Base(job.stderr_path), script = Base(job.script_path);
  // A command for the remote shell, quoted once more for this one.
  auto remote = [](const std::string& cmd) { return ShellQuote(cmd); };
  std::string excludes;
  for (const std::string& f : {out, err, std::string(kSshWrapper), std::string(".hb_ssh_token")})
    excludes += " --exclude=" + ShellQuote("./" + f);
  std::string s;
  s += "#!/bin/bash\n";
  s += "# hetbench's ssh backend (docs/backends.md): runs " + script + " on " + host +
       " in a copy of this folder at the same path, then copies the folder back.\n";
  // One connection for all the steps: the first ssh becomes the master
  // (ControlMaster=auto) and the others reuse it; it ends with the wrapper.
  s += "ctl=\"${TMPDIR:-/tmp}/hb-ssh-$$\"\n";
  s += "ssh_opts=(-o BatchMode=yes -o ControlMaster=auto -o \"ControlPath=$ctl\" -o ControlPersist=yes";
  for (const auto& w : ssh_words) s += " " + w;  // shell words, as ReFrame joins them
  s += ")\n";
  s += "ssh_cmd=(ssh \"${ssh_opts[@]}\" " + ShellQuote(host) + ")\n";
  s += "trap 'ssh \"${ssh_opts[@]}\" -O exit " + ShellQuote(host) + " >/dev/null 2>&1' EXIT\n";
  s += "dir=" + dir + "\n";
  s += "host=" + ShellQuote(host) + "\n";
  s += "fail() { echo \"hetbench ssh: $host: $*\" >&2; exit 255; }\n";
  s += "token=\"$$.$RANDOM.$(date +%s%N)\"\n";
  s += "echo \"$token\" > \"$dir/.hb_ssh_token\" || fail \"cannot write in $dir\"\n";
  s += "seen=$(\"${ssh_cmd[@]}\" " + remote("cat " + dir + "/.hb_ssh_token 2>/dev/null; exit 0") +
       ") || fail \"ssh failed (exit $?): is the host up and does it take this user's key?\"\n";
  s += "shared=0\n";
  s += "if [ \"$seen\" = \"$token\" ]; then shared=1; fi\n";
  s += "rm -f \"$dir/.hb_ssh_token\"\n";
  s += "if [ $shared = 0 ]; then\n";
  s += "  \"${ssh_cmd[@]}\" " + remote("mkdir -p \"$(dirname " + dir + ")\" && mkdir " + dir) +
       " || fail \"cannot make $dir there (it must not exist yet)\"\n";
  s += "  tar -C \"$dir\" -cf -" + excludes + " . | \"${ssh_cmd[@]}\" " + remote("tar -C " + dir + " -xf -") +
       " || fail \"copying $dir there failed\"\n";
  s += "fi\n";
  // The remote job runs in the background so that a TERM (time limit,
  // cancel) reaches the trap, which stops the remote process group.
  s += "stop() {\n";
  s += "  \"${ssh_cmd[@]}\" " + remote("kill -TERM -- -\"$(cat " + dir + "/.hb_ssh_pid)\" 2>/dev/null") +
       " </dev/null\n";
  s += "  kill \"$pid\" 2>/dev/null\n";
  s += "  [ $shared = 1 ] && rm -f \"$dir/.hb_ssh_pid\"\n";
  s += "  exit 143\n";
  s += "}\n";
  s += "\"${ssh_cmd[@]}\" " + remote("cd " + dir + " && echo $$ > .hb_ssh_pid && exec bash -l " + ShellQuote(script)) +
       " </dev/null &\n";
  s += "pid=$!\n";
  s += "trap stop TERM INT\n";
  s += "wait \"$pid\"\n";
  s += "status=$?\n";
  s += "trap - TERM INT\n";
  s += "if [ $shared = 0 ]; then\n";
  s += "  \"${ssh_cmd[@]}\" " + remote("tar -C " + dir + " -cf - --exclude=./.hb_ssh_pid .") +
       " | tar -C \"$dir\" -xf -" + excludes +
       " || fail \"copying $dir back failed (the job exited $status; its folder is left there)\"\n";
  s += "  \"${ssh_cmd[@]}\" " + remote("rm -rf " + dir) +
       " || echo \"hetbench ssh: $host: could not remove $dir there\" >&2\n";
  s += "else\n";
  s += "  rm -f \"$dir/.hb_ssh_pid\"\n";
  s += "fi\n";
  s += "exit $status\n";
  return s;
}

SshScheduler::SshScheduler(SshOptions opts, LocalScheduler::Options local)
    : opts_(std::move(opts)), local_(local), free_(opts_.hosts.begin(), opts_.hosts.end()) {}

Status SshScheduler::Check() {
  auto runner = MakeSystemCommandRunner();
  for (const char* cmd : {"ssh", "tar"})
    if (!runner->Exists(cmd))
      return Status::Error(std::string("the ssh scheduler needs '") + cmd + "' on this host (Debian: apt-get install " +
                           (std::string(cmd) == "ssh" ? "openssh-client" : "tar") + ")");
  return Status::OK();
}

// ReFrame's _reserve_host: a free host, else one in use; a pinned one as
// asked. hetbench frees a host when its job ends.
std::string SshScheduler::Reserve(const std::string& pinned) {
  std::string host = pinned;
  if (host.empty()) {
    if (!free_.empty()) {
      host = *free_.begin();
    } else {
      // The busy host with the fewest jobs.
      size_t best = SIZE_MAX;
      for (const auto& h : opts_.hosts) {
        size_t n = std::count_if(host_of_.begin(), host_of_.end(), [&](const auto& kv) { return kv.second == h; });
        if (n < best) best = n, host = h;
      }
    }
  }
  free_.erase(host);
  busy_.insert(host);
  return host;
}

Status SshScheduler::Submit(Job* job) {
  std::string pinned;
  std::vector<std::string> words;
  for (const auto* list : {&job->access, &job->options})
    for (const auto& o : *list) {
      if (StartsWith(o, "#host="))
        pinned = o.substr(6);
      else
        words.push_back(o);
    }
  if (!job->pin_nodes.empty()) pinned = Split(job->pin_nodes, ',')[0];
  std::string host = Reserve(pinned);
  std::string wrapper = JoinPath(job->workdir, kSshWrapper);
  Status st = WriteFile(wrapper, SshWrapperScript(host, words, *job));
  if (!st.ok()) return st;
  // The local process runs the wrapper; the job keeps its own script.
  std::string script = job->script_path;
  job->script_path = wrapper;
  st = local_.Submit(job);
  job->script_path = script;
  if (!st.ok()) return st;
  host_of_[job->id] = host;
  job->nodelist = {opts_.unqualified_hostnames ? host.substr(0, host.find('.')) : host};
  return Status::OK();
}

void SshScheduler::Poll(const std::vector<Job*>& jobs) {
  local_.Poll(jobs);
  for (Job* job : jobs) {
    if (!job->state.terminal()) continue;
    auto it = host_of_.find(job->id);
    if (it == host_of_.end()) continue;
    std::string host = it->second;
    host_of_.erase(it);
    bool still = std::any_of(host_of_.begin(), host_of_.end(), [&](const auto& kv) { return kv.second == host; });
    if (!still) {
      busy_.erase(host);
      free_.insert(host);
    }
  }
}

}  // namespace hb
