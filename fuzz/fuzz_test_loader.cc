// Random bytes as a test file: loaded, and when that works expanded and
// bound on one partition (placeholders, expressions, parameters).
#include <string>

#include "fuzz_target.h"
#include "model/expand.h"
#include "model/test_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto suite = hb::LoadTestsFromString(text, "fuzz.yaml");
  if (!suite.ok()) return 0;
  std::vector<hb::PartitionView> parts = {{"sys", "part", {"gpu"}, {{"gnu", {"cxx"}}}, {}}};
  (void)hb::ExpandCases(*suite, parts, {}, nullptr, 1000);
  return 0;
}
