#include "model/expand.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "model/bind.h"
#include "util/regex.h"
#include "util/sha256.h"
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
  return (sys == "*" || sys == p.system) &&
         (part == "*" || part == p.partition || std::find(p.aliases.begin(), p.aliases.end(), part) != p.aliases.end());
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

using Regexes = std::vector<Regex>;

// A -n/-x entry `/HASH` names a variant by its hashcode.
bool IsHashPattern(const std::string& p) { return p.size() > 1 && p[0] == '/'; }

Result<Regexes> CompileAll(const std::vector<std::string>& patterns, const char* option) {
  Regexes out;
  for (const auto& p : patterns) {
    if (IsHashPattern(p)) continue;
    auto re = Regex::Compile(p);
    if (!re.ok()) return Status::Error(std::string(option) + ": " + re.status().message());
    out.push_back(std::move(re).value());
  }
  return out;
}

// A search that PCRE2 gives up on (its match limit) counts as no match.
bool Found(const Regex& re, const std::string& s) {
  auto m = re.FindFirst(s);
  return m.ok() && m->has_value();
}

bool AnySearch(const Regexes& res, const std::string& s) {
  for (const auto& re : res)
    if (Found(re, s)) return true;
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
    if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c == '\r')
      out += "\\r";
    else
      out += c;
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

namespace {

// skip_if: an expression that cannot be evaluated on a case is an error
// (it is the test's own code, not a filter).
Status EvaluateSkipIf(TestCase* c) {
  const TestSpec& s = *c->spec;
  if (s.skip_expr.empty()) return Status::OK();
  auto e = Expr::Parse(s.skip_expr);
  Result<Value> v = e.ok() ? e->Eval([&](const std::string& n) { return CaseValue(*c, n); }, CaseValueNames(*c))
                           : Result<Value>(e.status());
  if (!v.ok()) {
    auto it = s.marks.find("skip_if");
    return Status::Error(it != s.marks.end() ? it->second : s.mark,
                         "skip_if: " + s.skip_expr + ": " + v.status().message() + " (case '" + c->display_name +
                             "' on " + c->system + ":" + c->partition + "+" + c->environ + ")");
  }
  if (Truthy(*v)) c->skip = s.skip_reason;
  return Status::OK();
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

namespace {

std::vector<std::string> HashPatterns(const std::vector<std::string>& patterns) {
  std::vector<std::string> out;
  for (const auto& p : patterns)
    if (IsHashPattern(p)) out.push_back(p.substr(1));
  return out;
}

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

// The number of cases a test's parameters make, checked against the limit
// before they are made: 10 parameters of 10 values would be 10^10.
Status CheckProductSize(const TestSpec& s, size_t max_cases) {
  uint64_t n = 1;
  for (const auto& [name, values] : s.parameters) {
    n *= std::max<size_t>(values.size(), 1);
    if (n <= max_cases) continue;
    std::string how_many = "more than " + std::to_string(max_cases);
    uint64_t exact = 1;
    bool fits = true;
    for (const auto& [n2, v2] : s.parameters) {
      if (exact > UINT64_MAX / std::max<size_t>(v2.size(), 1))
        fits = false;
      else
        exact *= std::max<size_t>(v2.size(), 1);
    }
    if (fits) how_many = std::to_string(exact);
    std::string msg = "test '" + s.name + "': its " + std::to_string(s.parameters.size()) + " parameters make " +
                      how_many + " combinations, more than general: max_cases (" + std::to_string(max_cases) +
                      "); use fewer values, select some with -n or -E, or raise "
                      "general: max_cases in the site configuration";
    auto mark = s.marks.find("parameters");
    return mark != s.marks.end() && mark->second.known() ? Status::Error(mark->second, msg) : Status::Error(msg);
  }
  return Status::OK();
}

Result<std::vector<TestCase>> ExpandCases(const TestSuite& suite, const std::vector<PartitionView>& partitions,
                                          const CaseFilter& filter, SelectionReport* report, size_t max_cases) {
  SelectionReport local;
  SelectionReport& rep = report ? *report : local;
  rep = SelectionReport();
  auto names = CompileAll(filter.names, "-n/--name");
  auto excludes = CompileAll(filter.excludes, "-x/--exclude");
  auto tags = CompileAll(filter.tags, "-t/--tag");
  auto envs = CompileAll(filter.environs, "-p/--prgenv");
  for (const auto* r : {&names, &excludes, &tags, &envs})
    if (!r->ok()) return r->status();
  std::vector<std::string> name_hashes = HashPatterns(filter.names), exclude_hashes = HashPatterns(filter.excludes);
  for (const auto* hashes : {&name_hashes, &exclude_hashes})
    for (const auto& h : *hashes) {
      bool hex = h.size() == 8 &&
                 std::all_of(h.begin(), h.end(), [](char ch) { return std::isxdigit(static_cast<unsigned char>(ch)); });
      if (!hex)
        return Status::Error("-n/-x '/" + h +
                             "': a hashcode is 8 hexadecimal digits, as `hetbench list` prints "
                             "after a test's name (' /1a2b3c4d')");
    }
  std::optional<Expr> expr;
  if (!filter.expr.empty()) {
    auto e = Expr::Parse(filter.expr);
    if (!e.ok()) return Status::Error("-E '" + filter.expr + "': " + e.status().message());
    expr = std::move(e).value();
  }

  auto tags_ok = [&](const TestSpec& s) {
    for (const auto& re : *tags) {
      bool any = std::any_of(s.tags.begin(), s.tags.end(), [&](const std::string& t) { return Found(re, t); });
      if (!any) return false;
    }
    return true;
  };
  auto name_ok = [&](const std::string& dn, const std::string& hash) {
    bool any_include = !names->empty() || !name_hashes.empty();
    bool in = !any_include || AnySearch(*names, dn) || Contains(name_hashes, hash);
    return in && !AnySearch(*excludes, dn) && !Contains(exclude_hashes, hash);
  };
  // -E on a bound case; a failure (an unknown name, a type error) leaves
  // the case out and is remembered for the message.
  std::set<std::string> known_names;
  auto expr_ok = [&](const TestCase& c) {
    if (!expr) return true;
    for (const auto& n : CaseValueNames(c)) known_names.insert(n);
    auto v = expr->Eval([&](const std::string& n) { return CaseValue(c, n); });
    if (v.ok()) {
      bool yes = Truthy(*v);
      rep.expr_false += !yes;
      return yes;
    }
    if (!Contains(rep.expr_errors, v.status().message()) && rep.expr_errors.size() < 5)
      rep.expr_errors.push_back(v.status().message());
    return false;
  };
  // 1. The tests with a case selected by name (display names need no
  //    binding), and the tests they depend on.
  std::set<std::string> named;
  std::map<std::string, std::vector<std::vector<size_t>>> products;
  for (const auto& s : suite.specs) {
    if (s->abstract) continue;
    ++rep.tests;
    Status size = CheckProductSize(*s, max_cases);
    if (!size.ok()) return size;
    auto& prod = products[s->name] = ParameterProduct(*s);
    for (const auto& index : prod) {
      StringPairs params = ParamValues(*s, index);
      if (name_ok(DisplayName(*s, params), TestHashcode(s->name, params))) {
        named.insert(s->name);
        break;
      }
    }
  }
  rep.named_tests = named.size();
  // 2. Every case of those tests, bound; selected when its name and its
  //    bound tags match.
  std::vector<TestCase> all;
  std::vector<bool> selected;
  std::map<std::string, std::vector<size_t>> by_target;  // test@sys:part+env -> cases
  for (const TestSpec* s : OrderSpecs(suite, named)) {
    if (!products.count(s->name)) {
      Status size = CheckProductSize(*s, max_cases);
      if (!size.ok()) return size;
      products[s->name] = ParameterProduct(*s);
    }
    for (const auto& index : products[s->name]) {
      StringPairs params = ParamValues(*s, index);
      std::string dn = DisplayName(*s, params);
      std::string hash = TestHashcode(s->name, params);
      bool name_in = named.count(s->name) && name_ok(dn, hash);
      for (const auto& p : partitions) {
        if (!ValidSystemsMatch(s->valid_systems, p)) continue;
        for (const auto& e : p.environs) {
          if (!ValidEnvironsMatch(s->valid_prog_environs, e)) continue;
          if (name_in) ++rep.on_system;
          if (!envs->empty() && !AnySearch(*envs, e.name)) {
            if (name_in) ++rep.dropped_by_environ;
            continue;
          }
          if (all.size() >= max_cases)
            return Status::Error("the tests make more than " + std::to_string(max_cases) +
                                 " cases on the selected partitions and environments (general: max_cases); "
                                 "select fewer with -n, -x, -t, -p or --system, or raise general: max_cases in "
                                 "the site configuration");
          TestCase c;
          c.params = params;
          c.param_index = index;
          c.system = p.system;
          c.partition = p.partition;
          c.environ = e.name;
          c.display_name = dn;
          c.hashcode = hash;
          std::string where = p.system + ":" + p.partition + "+" + e.name;
          c.id = CaseId(*s, params, where);
          Status st = BindCase(*s, p, e, &c);
          if (st.ok()) st = EvaluateSkipIf(&c);
          if (!st.ok()) return st;
          st = LinkDependencies(*s, where, by_target, all, &c);
          if (!st.ok()) return st;
          bool keep = name_in;
          if (keep && !tags_ok(*c.spec)) {
            keep = false;
            ++rep.dropped_by_tag;
          }
          if (keep && !expr_ok(c)) {
            keep = false;
            ++rep.dropped_by_expr;
          }
          rep.selected += keep;
          selected.push_back(keep);
          by_target[s->name + "@" + where].push_back(all.size());
          all.push_back(std::move(c));
        }
      }
    }
  }
  if (expr) {
    rep.expr_known.assign(known_names.begin(), known_names.end());
    for (const auto& n : expr->names())
      if (!known_names.count(n)) rep.expr_unknown.push_back(n);
  }
  // 3. The selected cases and what they depend on.
  return KeepWithDependencies(std::move(all), std::move(selected));
}

namespace {

std::string Quoted(const std::vector<std::string>& items, size_t max = 12) {
  std::vector<std::string> shown;
  for (size_t i = 0; i < items.size() && i < max; ++i) shown.push_back(items[i]);
  std::string out = Join(shown, ", ");
  if (items.size() > max) out += ", ... (" + std::to_string(items.size()) + " in all)";
  return out;
}

// The first pattern of `patterns` (regexes, or /HASH) that matches none of
// `texts`; "" when each matches something.
std::string UnmatchedPattern(const std::vector<std::string>& patterns, const std::vector<std::string>& texts,
                             const std::vector<std::string>& hashes) {
  for (const auto& p : patterns) {
    bool any = false;
    if (IsHashPattern(p)) {
      any = Contains(hashes, p.substr(1));
    } else {
      auto re = Regex::Compile(p);  // compiled before, by CompileAll
      for (const auto& t : texts) any = any || (re.ok() && Found(*re, t));
    }
    if (!any) return p;
  }
  return "";
}

}  // namespace

std::string ExplainEmptySelection(const TestSuite& suite, const std::vector<PartitionView>& partitions,
                                  const CaseFilter& filter, const SelectionReport& report) {
  std::vector<std::string> tests, display_names, hashes, tags, where, environs;
  for (const auto& s : suite.specs) {
    if (s->abstract) continue;
    tests.push_back(s->name);
    for (const auto& index : ParameterProduct(*s)) {
      StringPairs params = ParamValues(*s, index);
      display_names.push_back(DisplayName(*s, params));
      hashes.push_back(TestHashcode(s->name, params));
    }
    for (const auto& t : s->tags)
      if (!Contains(tags, t)) tags.push_back(t);
  }
  std::sort(tags.begin(), tags.end());
  for (const auto& p : partitions) {
    where.push_back(p.system + ":" + p.partition);
    for (const auto& e : p.environs)
      if (!Contains(environs, e.name)) environs.push_back(e.name);
  }
  std::string n_tests = std::to_string(report.tests) + " loaded test" + (report.tests == 1 ? "" : "s");
  if (report.tests == 0) return "the test files define no test (only abstract ones, or none)";
  if (report.named_tests == 0) {
    std::string p = UnmatchedPattern(filter.names, display_names, hashes);
    if (!p.empty() && IsHashPattern(p))
      return "-n '" + p + "' is the hashcode of none of the " + n_tests +
             " (`hetbench list` prints each case's after its name)";
    if (!p.empty()) return "-n '" + p + "' matches no test name of the " + n_tests + DidYouMean(p, tests);
    return "-x '" + Join(filter.excludes, "', '") + "' excludes every test" +
           (filter.names.empty() ? std::string() : " that -n selects");
  }
  if (report.on_system == 0)
    return "the " + std::to_string(report.named_tests) +
           " selected test(s) are valid on none of the selected partitions (" + Join(where, ", ") +
           ") with their environments: see their valid_systems and valid_prog_environs";
  if (report.dropped_by_environ == report.on_system)
    return "-p '" + Join(filter.environs, "', '") + "' matches no environment of the selected tests on " +
           Join(where, ", ") + " (environments: " + Quoted(environs) + ")" +
           DidYouMean(filter.environs.empty() ? "" : filter.environs[0], environs);
  if (report.dropped_by_tag > 0 && report.dropped_by_expr == 0) {
    std::string p = UnmatchedPattern(filter.tags, tags, {});
    if (!p.empty())
      return "-t '" + p + "' matches no tag of the " + n_tests + DidYouMean(p, tags) +
             (tags.empty() ? " (they have no tags)" : " (tags: " + Quoted(tags) + ")");
    return "no selected test has tags matching all of -t '" + Join(filter.tags, "', '") + "' (tags: " + Quoted(tags) +
           ")";
  }
  if (report.dropped_by_expr > 0) {
    std::string e = "-E '" + filter.expr + "'";
    if (report.expr_false == 0 && !report.expr_unknown.empty())
      return e + ": no case defines '" + report.expr_unknown[0] + "'" +
             DidYouMean(report.expr_unknown[0], report.expr_known) + " (names: " + Quoted(report.expr_known, 30) + ")";
    size_t failed = report.dropped_by_expr - report.expr_false;
    std::string out = e + " is false for " +
                      (failed ? "the " + std::to_string(report.expr_false) + " case(s) it could be evaluated on"
                              : "every case the other options select");
    if (failed) out += "; on " + std::to_string(failed) + " other case(s) it failed: " + Join(report.expr_errors, "; ");
    return out;
  }
  return "the options together select no case";
}

}  // namespace hb
