// For the Kubernetes scheduler's unit tests (k8s_scheduler_test.cc,
// k8s_scheduler_end_test.cc): a K8sScheduler on a FakeKubeApi and a
// FakeClock, and helpers for pod logs as the payload writes them. A header
// for tests only.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <regex>

#include "k8s/k8s_scheduler.h"
#include "k8s/kube_api_fake.h"
#include "util/base64.h"
#include "util/fs.h"
#include "util/strings.h"
#include "util/test_temp_dir.h"

namespace hb {

// A tar.gz of these files, made by the system's tar as the payload makes it.
inline std::string TarGz(const std::map<std::string, std::string>& files) {
  TempDir src, dst;
  std::string names;
  for (const auto& [name, content] : files) {
    src.Write(name, content);
    names += " " + name;
  }
  std::string out = dst / "a.tgz";
  std::string cmd = "tar -c -z -f " + out + " -C " + src.path() + names;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return ReadFile(out).value();
}

// A pod log as the payload writes it.
inline std::string PayloadLog(const std::string& out, const std::string& nonce, int status,
                              const std::string& archive = "") {
  return out + "@@hetbench-files " + nonce + " begin@@\n" + Base64Encode(archive) + "\n@@hetbench-files " + nonce +
         " end " + std::to_string(status) + "@@\n";
}

class K8sSchedulerTest : public ::testing::Test {
 protected:
  K8sOptions Options() {
    K8sOptions o;
    o.image = "busybox";
    o.waiting_grace_s = 5;
    o.batch.min_poll_interval = 1;
    o.batch.max_poll_interval = 8;
    o.batch.poll_backoff = 2;
    o.batch.lost_after = 30;
    o.batch.max_query_failure_time = 100;
    o.batch.job_submit_timeout = 20;
    return o;
  }
  void Start(K8sOptions o) {
    auto api = std::make_unique<FakeKubeApi>();
    api_ = api.get();
    sched_ = std::make_unique<K8sScheduler>("k8s", std::move(api), std::move(o), &clock_);
  }
  Job* NewJob(const std::string& name) {
    auto j = std::make_unique<Job>();
    std::string dir = tmp_ / (name + "_" + std::to_string(jobs_.size()));
    EXPECT_TRUE(MakeDirs(dir).ok());
    j->name = name;
    j->workdir = dir;
    j->script_path = JoinPath(dir, "hb_job.sh");
    EXPECT_TRUE(WriteFile(j->script_path, "#!/bin/bash\necho hello\n").ok());
    j->stdout_path = JoinPath(dir, "hb_job.out");
    j->stderr_path = JoinPath(dir, "hb_job.err");
    j->session_id = "sess-1";
    j->case_id = name;
    j->image = "busybox";
    jobs_.push_back(std::move(j));
    return jobs_.back().get();
  }
  Job* Submit(const std::string& name) {
    Job* j = NewJob(name);
    Status st = sched_->Submit(j);
    EXPECT_TRUE(st.ok()) << st.str();
    return j;
  }
  std::vector<Job*> InFlight() {
    std::vector<Job*> out;
    for (auto& j : jobs_)
      if (!j->id.empty() && !j->state.terminal()) out.push_back(j.get());
    return out;
  }
  // Moves the clock to the scheduler's next poll and polls.
  void Poll() {
    double d = sched_->NextPollDelay();
    if (std::isfinite(d)) clock_.Advance(d);
    sched_->Poll(InFlight());
  }
  static std::string Name(const Job* j) { return j->id.substr(j->id.find('/') + 1); }
  std::string Nonce(const Job* j) {
    std::smatch m;
    std::string text = api_->Get("jobs", Name(j)).dump();
    EXPECT_TRUE(std::regex_search(text, m, std::regex("hb_nonce=([0-9a-f]+)")));
    return m[1];
  }
  std::vector<std::string> Notices() {
    auto n = sched_->TakeNotices();
    all_notices_.insert(all_notices_.end(), n.begin(), n.end());
    return n;
  }
  bool Noticed(const std::string& text) {
    Notices();
    return std::any_of(all_notices_.begin(), all_notices_.end(),
                       [&](const std::string& n) { return n.find(text) != std::string::npos; });
  }
  // A Job admitted and running on node-1, with its pod.
  std::string Running(Job* j, const std::string& node = "node-1") {
    std::string pod = api_->AddPod(Name(j));
    api_->PodRunning(pod, node);
    Poll();
    EXPECT_EQ(j->state.kind, JobState::Kind::kRunning) << j->state.str();
    return pod;
  }

  TempDir tmp_;
  FakeClock clock_;
  FakeKubeApi* api_ = nullptr;  // owned by sched_
  std::unique_ptr<K8sScheduler> sched_;
  std::vector<std::unique_ptr<Job>> jobs_;
  std::vector<std::string> all_notices_;
};

}  // namespace hb
