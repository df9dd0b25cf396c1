#include "results/step_breakdown.h"

namespace hb {

const std::vector<std::pair<std::string, std::string>>& StepParts() {
  static const std::vector<std::pair<std::string, std::string>> kParts = {
      {"data_wait", "I/O"},  {"h2d_copy", "host-to-device"}, {"forward", "compute"},  {"backward", "compute"},
      {"rank_wait", "wait"}, {"allreduce", "communication"}, {"optimizer", "compute"}};
  return kParts;
}

const std::vector<std::string>& StepGroups() {
  static const std::vector<std::string> kGroups = {"I/O", "host-to-device", "compute", "wait", "communication"};
  return kGroups;
}

std::string StepGroupOf(const std::string& var) {
  for (const auto& [name, group] : StepParts())
    if (name == var) return group;
  return "";
}

std::vector<StepShare> GroupStep(const std::vector<std::pair<std::string, double>>& parts, double* step) {
  double total = 0;
  std::vector<StepShare> out;
  for (const auto& g : StepGroups()) out.push_back({g, 0, 0});
  for (const auto& [var, seconds] : parts) {
    std::string group = StepGroupOf(var);
    if (group.empty()) continue;
    total += seconds;
    for (auto& s : out)
      if (s.group == group) s.seconds += seconds;
  }
  for (auto& s : out) s.percent = total > 0 ? s.seconds / total * 100 : 0;
  if (step) *step = total;
  return out;
}

}  // namespace hb
