#include "model/expand.h"

#include <algorithm>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "model/bind.h"
#include "util/strings.h"

namespace hb {

const std::string* TestCase::Param(const std::string& name) const {
  for (const auto& [k, v] : params)
    if (k == name) return &v;
  return nullptr;
}

namespace {

std::vector<std::string> Tokens(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  std::string t;
  while (in >> t) out.push_back(t);
  return out;
}

bool HasFeature(const std::vector<std::string>& features, const std::string& f) {
  return std::find(features.begin(), features.end(), f) != features.end();
}

bool SystemTokenMatches(const std::string& tok, const PartitionView& p) {
  if (tok == "*" || tok == "*:*") return true;
  size_t colon = tok.find(':');
  std::string sys = tok.substr(0, colon);
  std::string part = colon == std::string::npos ? "*" : tok.substr(colon + 1);
  return (sys == "*" || sys == p.system) && (part == "*" || part == p.partition);
}

template <typename Pred>
bool AnyEntry(const std::vector<std::string>& entries, Pred token_ok) {
  for (const auto& entry : entries) {
    auto toks = Tokens(entry);
    if (toks.empty()) continue;
    if (std::all_of(toks.begin(), toks.end(), token_ok)) return true;
  }
  return false;
}

bool FeatureToken(const std::string& tok, const std::vector<std::string>& features, bool* result) {
  if (tok.empty() || (tok[0] != '+' && tok[0] != '-')) return false;
  bool has = HasFeature(features, tok.substr(1));
  *result = tok[0] == '+' ? has : !has;
  return true;
}

using Regexes = std::vector<std::regex>;

Result<Regexes> CompileAll(const std::vector<std::string>& patterns, const char* option) {
  Regexes out;
  for (const auto& p : patterns) {
    try {
      out.emplace_back(p, std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error& e) {
      return Status::Error(std::string("invalid regular expression for ") + option + " '" + p + "': " + e.what());
    }
  }
  return out;
}

bool AnySearch(const Regexes& res, const std::string& s) {
  for (const auto& re : res)
    if (std::regex_search(s, re)) return true;
  return false;
}

// Specs in dependency order, restricted to those selected and their dependencies.
std::vector<const TestSpec*> OrderSpecs(const TestSuite& suite, const std::set<std::string>& wanted) {
  std::vector<const TestSpec*> order;
  std::set<std::string> done;
  std::function<void(const TestSpec*)> visit = [&](const TestSpec* s) {
    if (!done.insert(s->name).second) return;
    for (const auto& d : s->depends_on)
      if (const TestSpec* t = suite.Find(d)) visit(t);
    order.push_back(s);
  };
  for (const auto& s : suite.specs)
    if (wanted.count(s->name)) visit(s.get());
  return order;
}

// Every combination of parameter values, as indices into each parameter's
// values, in file order (first parameter slowest).
std::vector<std::vector<size_t>> ParameterProduct(const TestSpec& s) {
  std::vector<std::vector<size_t>> out = {{}};
  for (const auto& [name, values] : s.parameters) {
    std::vector<std::vector<size_t>> next;
    next.reserve(out.size() * values.size());
    for (const auto& partial : out) {
      for (size_t i = 0; i < values.size(); ++i) {
        next.push_back(partial);
        next.back().push_back(i);
      }
    }
    out = std::move(next);
  }
  return out;
}

StringPairs ParamValues(const TestSpec& s, const std::vector<size_t>& index) {
  StringPairs out;
  for (size_t i = 0; i < index.size(); ++i) out.emplace_back(s.parameters[i].first, s.parameters[i].second[index[i]]);
  return out;
}

// A value as shown in names: control characters written as escapes, so a
// name stays on one line in the console, reports and perflogs.
std::string Printable(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else out += c;
  }
  return out;
}

std::string DisplayName(const TestSpec& s, const StringPairs& params) {
  std::string n = s.name;
  for (const auto& [k, v] : params) n += " %" + k + "=" + Printable(v);
  return n;
}

}  // namespace

bool ValidSystemsMatch(const std::vector<std::string>& valid, const PartitionView& p) {
  return AnyEntry(valid, [&](const std::string& tok) {
    bool r;
    if (FeatureToken(tok, p.features, &r)) return r;
    if (tok[0] == '%') return true;  // extras constraints: not acted on yet
    return SystemTokenMatches(tok, p);
  });
}

bool ValidEnvironsMatch(const std::vector<std::string>& valid, const EnvironView& e) {
  return AnyEntry(valid, [&](const std::string& tok) {
    bool r;
    if (FeatureToken(tok, e.features, &r)) return r;
    if (tok[0] == '%') return true;
    return tok == "*" || tok == e.name;
  });
}

namespace {

// Links case `c` to the cases it depends on, on the same partition and in
// the same environment: `gen` must have one variant there, 'gen %n=10'
// names one, {test: gen, variants: all} takes all of them.
Status LinkDependencies(const TestSpec& s, const std::string& where,
                        const std::map<std::string, std::vector<size_t>>& by_target, const std::vector<TestCase>& all,
                        TestCase* c) {
  SourceMark mark = s.marks.count("depends_on") ? s.marks.at("depends_on") : s.mark;
  for (const auto& d : s.dependencies) {
    auto it = by_target.find(d.test + "@" + where);
    if (it == by_target.end() || it->second.empty()) {
      c->missing_deps.push_back(d.test);
      continue;
    }
    std::vector<size_t> chosen;
    std::vector<std::string> variants;
    auto wanted = d.variant.empty() ? Result<std::string>(std::string()) : BindText(d.variant, *c);
    if (!wanted.ok()) return Status::Error(mark, "depends_on: '" + d.variant + "': " + wanted.status().message());
    std::string want = Join(Tokens(*wanted), " ");
    for (size_t i : it->second) {
      variants.push_back(all[i].display_name);
      if (d.all || d.variant.empty() || all[i].display_name == want) chosen.push_back(i);
    }
    if (!d.all && d.variant.empty() && variants.size() > 1)
      return Status::Error(mark, "depends_on: '" + d.test + "' has " + std::to_string(variants.size()) + " variants (" +
                                     Join(variants, ", ") + "): name one, e.g. '" + variants[0] +
                                     "', or depend on all of them with {test: " + d.test + ", variants: all}");
    if (chosen.empty())
      return Status::Error(mark, "depends_on: '" + want + "' names no variant of " + d.test + " on " + where +
                                     " (variants: " + Join(variants, ", ") + ")");
    c->deps.insert(c->deps.end(), chosen.begin(), chosen.end());
  }
  return Status::OK();
}

std::string CaseId(const TestSpec& s, const StringPairs& params, const std::string& where) {
  std::string id = s.name;
  for (const auto& [k, v] : params) id += "%" + k + "=" + Printable(v);
  return id + "@" + where;
}

}  // namespace

// Keeps the cases marked in `keep` and those they depend on (transitively),
// re-numbering the dependency links. Cases come in dependency order.
std::vector<TestCase> KeepWithDependencies(std::vector<TestCase> all, std::vector<bool> keep) {
  for (size_t i = all.size(); i-- > 0;)
    if (keep[i])
      for (size_t d : all[i].deps) keep[d] = true;
  std::vector<size_t> index(all.size(), 0);
  std::vector<TestCase> out;
  for (size_t i = 0; i < all.size(); ++i) {
    if (!keep[i]) continue;
    index[i] = out.size();
    for (auto& d : all[i].deps) d = index[d];
    out.push_back(std::move(all[i]));
  }
  return out;
}

Result<std::vector<TestCase>> ExpandCases(const TestSuite& suite, const std::vector<PartitionView>& partitions,
                                          const CaseFilter& filter) {
  auto names = CompileAll(filter.names, "-n/--name");
  auto excludes = CompileAll(filter.excludes, "-x/--exclude");
  auto tags = CompileAll(filter.tags, "-t/--tag");
  auto envs = CompileAll(filter.environs, "-p/--prgenv");
  for (const auto* r : {&names, &excludes, &tags, &envs})
    if (!r->ok()) return r->status();

  auto tags_ok = [&](const TestSpec& s) {
    for (const auto& re : *tags) {
      bool any = std::any_of(s.tags.begin(), s.tags.end(), [&](const std::string& t) { return std::regex_search(t, re); });
      if (!any) return false;
    }
    return true;
  };
  auto name_ok = [&](const std::string& dn) {
    return (names->empty() || AnySearch(*names, dn)) && !AnySearch(*excludes, dn);
  };
  // 1. The tests with a case selected by name (display names need no
  //    binding), and the tests they depend on.
  std::set<std::string> named;
  std::map<std::string, std::vector<std::vector<size_t>>> products;
  for (const auto& s : suite.specs) {
    if (s->abstract) continue;
    auto& prod = products[s->name] = ParameterProduct(*s);
    for (const auto& index : prod) {
      if (name_ok(DisplayName(*s, ParamValues(*s, index)))) {
        named.insert(s->name);
        break;
      }
    }
  }
  // 2. Every case of those tests, bound; selected when its name and its
  //    bound tags match.
  std::vector<TestCase> all;
  std::vector<bool> selected;
  std::map<std::string, std::vector<size_t>> by_target;  // test@sys:part+env -> cases
  for (const TestSpec* s : OrderSpecs(suite, named)) {
    if (!products.count(s->name)) products[s->name] = ParameterProduct(*s);
    for (const auto& index : products[s->name]) {
      StringPairs params = ParamValues(*s, index);
      std::string dn = DisplayName(*s, params);
      bool name_in = named.count(s->name) && name_ok(dn);
      for (const auto& p : partitions) {
        if (!ValidSystemsMatch(s->valid_systems, p)) continue;
        for (const auto& e : p.environs) {
          if (!ValidEnvironsMatch(s->valid_prog_environs, e)) continue;
          if (!envs->empty() && !AnySearch(*envs, e.name)) continue;
          TestCase c;
          c.params = params;
          c.param_index = index;
          c.system = p.system;
          c.partition = p.partition;
          c.environ = e.name;
          c.display_name = dn;
          std::string where = p.system + ":" + p.partition + "+" + e.name;
          c.id = CaseId(*s, params, where);
          Status st = BindCase(*s, p, e, &c);
          if (!st.ok()) return st;
          st = LinkDependencies(*s, where, by_target, all, &c);
          if (!st.ok()) return st;
          selected.push_back(name_in && tags_ok(*c.spec));
          by_target[s->name + "@" + where].push_back(all.size());
          all.push_back(std::move(c));
        }
      }
    }
  }
  // 3. The selected cases and what they depend on.
  return KeepWithDependencies(std::move(all), std::move(selected));
}

}  // namespace hb
