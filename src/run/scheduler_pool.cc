#include "run/scheduler_pool.h"

#include <algorithm>
#include <limits>

namespace hb {

Result<Scheduler*> SchedulerPool::For(const Partition& part, const nlohmann::json& backend_spec) {
  auto key = SchedulerInstanceKey(part.scheduler, part.sched_options, backend_spec, flags_);
  if (!key.ok()) return key.status();
  auto it = made_.find(*key);
  if (it != made_.end()) return it->second.get();
  auto made = MakeScheduler(part.scheduler, part.sched_options, flags_, backend_spec);
  if (!made.ok()) return made.status();
  Scheduler* raw = made->get();
  first_partition_[*key] = part.name;
  made_[*key] = std::move(made.value());
  return raw;
}

Status SchedulerPool::Check(Scheduler* sched) {
  auto it = checked_.find(sched);
  if (it == checked_.end()) it = checked_.emplace(sched, sched->Check()).first;
  return it->second;
}

Status SchedulerPool::CheckAll(const std::string& system_name) {
  for (auto& [key, s] : made_) {
    Status st = Check(s.get());
    if (!st.ok()) return st.Prefixed("partition '" + system_name + ":" + first_partition_[key] + "'");
  }
  return Status::OK();
}

double SchedulerPool::NextPollDelay() const {
  double t = std::numeric_limits<double>::infinity();
  for (const auto& [key, s] : made_) t = std::min(t, s->NextPollDelay());
  return t;
}

void SchedulerPool::Poll(const std::vector<std::pair<Scheduler*, Job*>>& jobs) {
  std::map<Scheduler*, std::vector<Job*>> by_sched;
  for (const auto& [s, j] : jobs) by_sched[s].push_back(j);
  for (auto& [s, js] : by_sched) s->Poll(js);
}

std::vector<std::string> SchedulerPool::TakeNotices() {
  std::vector<std::string> out;
  for (auto& [key, s] : made_)
    for (const auto& n : s->TakeNotices()) out.push_back(s->name() + ": " + n);
  return out;
}

void SchedulerPool::Shutdown() {
  for (auto& [key, s] : made_) s->Shutdown();
}

}  // namespace hb
