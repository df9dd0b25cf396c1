#include "model/template.h"

#include <cctype>

namespace hb {

namespace {

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// The ref starting at text[open] (a '{' that is not an escape), if any.
std::optional<TemplateRef> RefAt(std::string_view text, size_t open,
                                 const std::function<bool(const std::string&)>& is_known) {
  if (open > 0 && text[open - 1] == '$') return std::nullopt;  // the shell's ${VAR}
  size_t close = text.find('}', open + 1);
  if (close == std::string_view::npos) return std::nullopt;
  size_t inner = text.find('{', open + 1);
  if (inner < close) return std::nullopt;  // `{a{b}`: the inner one may be a ref
  std::string_view content = text.substr(open + 1, close - open - 1);
  if (content.empty()) return std::nullopt;
  auto expr = Expr::Parse(content);
  if (!expr.ok() || expr->names().empty()) return std::nullopt;
  bool tight = !IsSpace(content.front()) && !IsSpace(content.back());
  bool any_known = false;
  for (const auto& n : expr->names()) any_known = any_known || is_known(n);
  if (!any_known && !tight) return std::nullopt;
  return TemplateRef{open, close + 1, std::move(expr.value()), tight};
}

}  // namespace

std::vector<TemplateRef> ScanTemplate(std::string_view text, const std::function<bool(const std::string&)>& is_known) {
  std::vector<TemplateRef> refs;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) {
      ++i;  // `{{` or `}}`: a literal brace
      continue;
    }
    if (c != '{') continue;
    if (auto ref = RefAt(text, i, is_known)) {
      i = ref->end - 1;
      refs.push_back(std::move(*ref));
    }
  }
  return refs;
}

bool IsWholePlaceholder(std::string_view text, const std::vector<TemplateRef>& refs) {
  return refs.size() == 1 && refs[0].begin == 0 && refs[0].end == text.size();
}

Result<std::string> RenderTemplate(std::string_view text, const std::vector<TemplateRef>& refs,
                                   const RefValue& value_of) {
  std::string out;
  out.reserve(text.size() + 16);
  size_t r = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (r < refs.size() && i == refs[r].begin) {
      auto v = value_of(refs[r]);
      if (!v.ok()) return v.status();
      if (*v)
        out += **v;
      else
        out.append(text.substr(refs[r].begin, refs[r].end - refs[r].begin));
      i = refs[r].end - 1;
      ++r;
      continue;
    }
    char c = text[i];
    if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) ++i;
    out += c;
  }
  return out;
}

}  // namespace hb
