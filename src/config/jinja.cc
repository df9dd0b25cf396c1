#include "config/jinja.h"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <cctype>
#include <climits>
#include <cstdlib>
#include <regex>

#include "util/strings.h"

namespace hb {

namespace {

SourceMark MarkAt(std::string_view text, size_t pos, const std::string& file) {
  SourceMark m{file, 1, 1};
  for (size_t i = 0; i < pos && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++m.line;
      m.column = 1;
    } else {
      ++m.column;
    }
  }
  return m;
}

// Python's getpass.getuser(): the login name from the environment, else
// the password database.
std::string CurrentUser() {
  for (const char* var : {"LOGNAME", "USER", "LNAME", "USERNAME"}) {
    const char* v = std::getenv(var);
    if (v && *v) return v;
  }
  const passwd* pw = ::getpwuid(::getuid());
  return pw ? pw->pw_name : std::to_string(::getuid());
}

std::string CurrentGroup() {
  const group* gr = ::getgrgid(::getgid());
  return gr ? gr->gr_name : std::to_string(::getgid());
}

std::optional<std::string> Evaluate(const std::string& expr, const JinjaContext& ctx) {
  if (expr == "hostname") return ctx.hostname;
  if (expr == "user" || expr == "username") return ctx.user;
  if (expr == "group" || expr == "groupname") return ctx.group;
  if (expr == "uid") return std::to_string(ctx.uid);
  if (expr == "gid") return std::to_string(ctx.gid);
  static const std::regex kGetenv(R"re(getenv\s*\(\s*(["'])([^"']*)\1\s*(,\s*(["'])([^"']*)\4\s*)?\))re");
  std::smatch m;
  if (!std::regex_match(expr, m, kGetenv)) return std::nullopt;
  std::optional<std::string> v = ctx.getenv ? ctx.getenv(m[2].str()) : std::nullopt;
  if (v) return v;
  return m[3].matched ? m[5].str() : "None";  // what Jinja2 prints for Python's None
}

void TrimTrailingSpace(std::string* out) {
  while (!out->empty() && std::isspace(static_cast<unsigned char>(out->back()))) out->pop_back();
}

size_t SkipSpace(std::string_view text, size_t pos) {
  while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
  return pos;
}

// The position of the next "{{", "{%" or "{#" at or after pos, or npos.
size_t NextTag(std::string_view text, size_t pos) {
  for (size_t open = text.find('{', pos); open != std::string_view::npos; open = text.find('{', open + 1)) {
    if (open + 1 < text.size() && std::string_view("{%#").find(text[open + 1]) != std::string_view::npos) return open;
  }
  return std::string_view::npos;
}

// Renders the tag opening at text[open] onto `out` and returns the
// position after it.
Result<size_t> RenderTag(std::string_view text, size_t open, const std::string& file, const JinjaContext& ctx,
                         std::string* out) {
  char kind = text[open + 1];
  if (kind == '%')
    return Status::Error(MarkAt(text, open, file),
                         "Jinja statements ('{% ... %}') are not supported in configuration files");
  std::string close = kind == '{' ? "}}" : "#}";
  size_t end = text.find(close, open + 2);
  if (end == std::string_view::npos)
    return Status::Error(MarkAt(text, open, file),
                         "unterminated Jinja '{" + std::string(1, kind) + "': no closing '" + close + "'");
  size_t next = end + 2;
  if (kind == '#') return next;  // a comment
  std::string inner(text.substr(open + 2, end - open - 2));
  if (StartsWith(inner, "-")) {
    TrimTrailingSpace(out);
    inner.erase(0, 1);
  }
  if (EndsWith(inner, "-")) {
    inner.pop_back();
    next = SkipSpace(text, next);
  }
  std::optional<std::string> value = Evaluate(Trim(inner), ctx);
  if (!value)
    return Status::Error(MarkAt(text, open, file),
                         "unsupported Jinja expression '{{" + inner +
                             "}}': hetbench knows hostname, user, group, uid, gid and getenv(\"VAR\")");
  *out += *value;
  return next;
}

}  // namespace

JinjaContext HostJinjaContext() {
  JinjaContext ctx;
  char host[HOST_NAME_MAX + 1] = {0};
  if (::gethostname(host, sizeof host - 1) == 0) ctx.hostname = host;
  ctx.user = CurrentUser();
  ctx.group = CurrentGroup();
  ctx.uid = ::getuid();
  ctx.gid = ::getgid();
  ctx.getenv = [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (!v) return std::nullopt;
    return std::string(v);
  };
  return ctx;
}

Result<std::string> RenderJinja(std::string_view text, const std::string& file, const JinjaContext& ctx) {
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  while (pos < text.size()) {
    size_t open = NextTag(text, pos);
    out.append(text.substr(pos, open == std::string_view::npos ? std::string_view::npos : open - pos));
    if (open == std::string_view::npos) break;
    Result<size_t> next = RenderTag(text, open, file, ctx, &out);
    if (!next.ok()) return next.status();
    pos = *next;
  }
  return out;
}

}  // namespace hb
