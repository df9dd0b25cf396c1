// Random bytes as a hetbench run report (what `report`, `compare` and
// `results import` read back).
#include <string>

#include "fuzz_target.h"
#include "results/run_report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  (void)hb::ParseRunReport(text, "fuzz.json");
  return 0;
}
