// The small part of Jinja2 that ReFrame (4.8+) evaluates in YAML
// configuration files before parsing them: `{{ hostname }}`, `{{ user }}`,
// `{{ group }}`, `{{ uid }}`, `{{ gid }}` and `{{ getenv("VAR") }}` (single
// or double quotes, an optional default as second argument), with any
// whitespace inside the braces and Jinja's `{{-`/`-}}` whitespace trimming.
// `{# comments #}` are dropped. Anything else between `{{ }}`, and any
// `{% statement %}`, is an error naming file:line:column, so a file that
// needs more of Jinja fails loudly instead of being read wrongly.
//
// The values come from a JinjaContext, so tests can fix them; the real one
// is HostJinjaContext(). Pure functions; thread-safe.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "util/status.h"

namespace hb {

struct JinjaContext {
  std::string hostname, user, group;
  long long uid = 0, gid = 0;
  // The value of an environment variable, or nullopt when it is unset.
  std::function<std::optional<std::string>(const std::string&)> getenv;
};

// The host name, the user and group of this process, and the process's
// environment.
JinjaContext HostJinjaContext();

// `text` with every supported expression replaced by its value. As with
// Jinja2 and os.getenv, an unset variable without default renders as None.
// `file` names the text in error messages.
Result<std::string> RenderJinja(std::string_view text, const std::string& file, const JinjaContext& ctx);

}  // namespace hb
