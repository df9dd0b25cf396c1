#include "model/placeholder.h"

#include <cctype>

#include "util/strings.h"

namespace hb {

const std::vector<std::string>& BuiltinPlaceholders() {
  static const std::vector<std::string> kNames = {
      "name", "display_name", "stagedir", "outputdir", "sourcesdir", "num_tasks", "num_tasks_per_node",
      "num_cpus_per_task", "num_gpus_per_node", "system", "partition", "environ", "executable", "prefix", "session",
      "repetition",
      // The partition's processor (configured, or cached by `hetbench detect`).
      "processor.arch", "processor.vendor", "processor.model", "processor.platform", "processor.num_cpus",
      "processor.num_cpus_per_core", "processor.num_cpus_per_socket", "processor.num_sockets"};
  return kNames;
}

namespace {

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; }

// If text[open] is '{' starting a placeholder, returns the index of its '}'.
std::optional<size_t> MatchPlaceholder(const std::string& text, size_t open) {
  if (open > 0 && text[open - 1] == '$') return std::nullopt;  // shell ${VAR}
  size_t i = open + 1;
  while (true) {
    if (i >= text.size() || !IsIdentStart(text[i])) return std::nullopt;
    ++i;
    while (i < text.size() && IsIdentChar(text[i])) ++i;
    if (i < text.size() && text[i] == '.') {
      ++i;
      continue;
    }
    break;
  }
  if (i < text.size() && text[i] == '}') return i;
  return std::nullopt;
}

}  // namespace

std::vector<PlaceholderRef> FindPlaceholders(const std::string& text) {
  std::vector<PlaceholderRef> out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '{' && i + 1 < text.size() && text[i + 1] == '{') {
      ++i;
      continue;
    }
    if (text[i] != '{') continue;
    if (auto close = MatchPlaceholder(text, i)) {
      out.push_back({text.substr(i + 1, *close - i - 1), i});
      i = *close;
    }
  }
  return out;
}

std::string ExpandPlaceholders(const std::string& text,
                               const std::function<std::optional<std::string>(const std::string&)>& lookup,
                               bool shell_quote) {
  if (text.find_first_of("{}") == std::string::npos) return text;
  std::string out;
  out.reserve(text.size() + 16);
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) {
      out += c;
      ++i;
      continue;
    }
    if (c == '{') {
      if (auto close = MatchPlaceholder(text, i)) {
        std::string name = text.substr(i + 1, *close - i - 1);
        if (auto v = lookup(name)) {
          out += shell_quote ? ShellQuote(*v) : *v;
          i = *close;
          continue;
        }
      }
    }
    out += c;
  }
  return out;
}

}  // namespace hb
