// Placeholders in test files: `{name}` is replaced by the value of a
// parameter or a built-in (`{stagedir}`, `{num_tasks}`, `{system}`, ...),
// and `{deps.TEST.stagedir}` / `{deps.TEST.outputdir}` by a dependency's
// folders. Brace text that is not a lone (dotted) identifier — a regex
// `\d{3}`, awk `{print $1}`, shell `${VAR}` — is left as written, and `{{`
// / `}}` stand for literal braces. Pure functions; thread-safe.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace hb {

// The built-in placeholder names (besides parameters and deps.*).
const std::vector<std::string>& BuiltinPlaceholders();

// Every placeholder name in `text`, in order, with its byte offset.
struct PlaceholderRef {
  std::string name;
  size_t offset = 0;
};
std::vector<PlaceholderRef> FindPlaceholders(const std::string& text);

// Replaces every placeholder with lookup(name). When `shell_quote` is set,
// each substituted value is quoted so the shell passes it literally.
// Names the lookup does not know (nullopt) are left as written.
std::string ExpandPlaceholders(const std::string& text,
                               const std::function<std::optional<std::string>(const std::string&)>& lookup,
                               bool shell_quote);

}  // namespace hb
