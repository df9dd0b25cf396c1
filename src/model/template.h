// Placeholders in the strings of a test file. `{EXPR}` is an expression
// of model/expr.h over the case's names (parameters, variables, built-ins):
// `{threads}`, `{num_gpus // 4}`, `{min(n, 4)}`, `{mesh.nx}`.
//
// Which brace text is a placeholder (docs/test-files.md, "Placeholders"):
//   - `{{` and `}}` are literal braces, and `${...}` is the shell's;
//   - brace text that does not parse as an expression (`{print $1}`,
//     `{2,5}`, `{a,b}`) or names nothing (`\d{3}`) stays as written;
//   - brace text that parses and names a known name is a placeholder;
//   - brace text that names only unknown names is a placeholder (an error
//     later: "unknown placeholder") when it is written tight, with no
//     space just inside the braces (`{nmae}`, `{nmae * 2}`), and stays as
//     written otherwise (`awk '{ print }'`).
// Scanning is pure and thread-safe.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/expr.h"
#include "util/status.h"

namespace hb {

// One `{...}` found in a string: bytes [begin, end) include the braces.
struct TemplateRef {
  size_t begin = 0, end = 0;
  Expr expr;
  bool tight = false;  // no white space just inside the braces
};

// True when `text` has any brace: only such strings need scanning and
// rendering (`{{` must become `{` even without placeholders).
inline bool HasBraces(std::string_view text) { return text.find_first_of("{}") != std::string_view::npos; }

// Every brace text of `text` that parses as an expression with at least one
// name, in order. `is_known` decides the rule for unknown names above.
std::vector<TemplateRef> ScanTemplate(std::string_view text, const std::function<bool(const std::string&)>& is_known);

// True when `text` is exactly one placeholder (its value keeps its type).
bool IsWholePlaceholder(std::string_view text, const std::vector<TemplateRef>& refs);

// The text with each ref replaced by value_of(ref) (nullopt: left as
// written) and `{{`/`}}` outside refs turned into single braces. The first
// error of value_of is returned.
using RefValue = std::function<Result<std::optional<std::string>>(const TemplateRef&)>;
Result<std::string> RenderTemplate(std::string_view text, const std::vector<TemplateRef>& refs,
                                   const RefValue& value_of);

}  // namespace hb
