#include "sched/job.h"

namespace hb {

const char* JobState::Name(Kind k) {
  switch (k) {
    case Kind::kNone: return "none";
    case Kind::kQueued: return "queued";
    case Kind::kStarting: return "starting";
    case Kind::kRunning: return "running";
    case Kind::kCompleted: return "completed";
    case Kind::kFailed: return "failed";
    case Kind::kTimeout: return "timeout";
    case Kind::kCancelled: return "cancelled";
    case Kind::kLost: return "lost";
  }
  return "?";
}

std::string JobState::str() const {
  std::string s = Name(kind);
  if (kind == Kind::kCompleted) return s + "(exit " + std::to_string(exit_code) + ")";
  if (!reason.empty()) s += "(" + reason + ")";
  return s;
}

}  // namespace hb
