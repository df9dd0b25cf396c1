// Random bytes as what `results import` reads from ReFrame: a perflog
// (first byte even) or a run report (odd).
#include <string>

#include "fuzz_target.h"
#include "results/importer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 0)
    (void)hb::ParseReframePerflog(text, "perflogs/sys/part/test.log");
  else
    (void)hb::ParseReframeReport(text, "fuzz.json");
  return 0;
}
