#include "sched/job.h"

namespace hb {

const char* JobState::Name(Kind k) {
  switch (k) {
    case Kind::kNone:
      return "none";
    case Kind::kQueued:
      return "queued";
    case Kind::kStarting:
      return "starting";
    case Kind::kRunning:
      return "running";
    case Kind::kCompleted:
      return "completed";
    case Kind::kFailed:
      return "failed";
    case Kind::kTimeout:
      return "timeout";
    case Kind::kCancelled:
      return "cancelled";
    case Kind::kLost:
      return "lost";
  }
  return "?";
}

std::string JobState::str() const {
  std::string s = Name(kind);
  if (kind == Kind::kCompleted) return s + "(exit " + std::to_string(exit_code) + ")";
  if (!reason.empty()) s += "(" + reason + ")";
  return s;
}

std::string NormalizeJobOption(const std::string& opt) {
  if (opt.empty() || opt[0] == '-' || opt[0] == '#') return opt;
  size_t eq = opt.find('=');
  std::string key = opt.substr(0, eq);
  if (key.size() == 1) return "-" + key + (eq == std::string::npos ? "" : " " + opt.substr(eq + 1));
  return "--" + opt;
}

}  // namespace hb
