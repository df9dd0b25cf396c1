// Random bytes as a site configuration (Jinja rendering, YAML, every
// section's checks), then the system selection every command makes.
#include <optional>
#include <string>

#include "config/config_loader.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  hb::JinjaContext ctx;
  ctx.hostname = "node1";
  ctx.user = "user";
  ctx.group = "group";
  ctx.getenv = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
  std::string text(reinterpret_cast<const char*>(data), size);
  auto cfg = hb::LoadSiteConfigSources({{"fuzz.yaml", text}}, ctx);
  if (!cfg.ok()) return 0;
  (void)hb::SelectSystem(*cfg, "", "node1");
  return 0;
}
