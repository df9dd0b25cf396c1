#include "model/check_fields.h"

#include <algorithm>
#include <regex>

#include "check/reference.h"
#include "check/sanity.h"
#include "model/test_fields.h"
#include "util/strings.h"
#include "util/yaml_util.h"

namespace hb {

namespace {

// eq/ne/lt/le/gt/ge keys of a sanity or performance entry.
const std::vector<std::string> kOps = {"eq", "ne", "lt", "le", "gt", "ge"};

Status ParseComparison(const std::string& op, const YAML::Node& v, const std::string& f, std::vector<Comparison>* out) {
  if (!v.IsScalar()) return FieldError(v, f, op + ": expected a number or a string, got " + YamlTypeName(v));
  out->push_back({op, v.Scalar()});
  return Status::OK();
}

Status ParseCount(const YAML::Node& v, const std::string& f, std::vector<Comparison>* out) {
  if (v.IsScalar()) return ParseComparison("eq", v, f, out);
  if (!v.IsMap()) return FieldError(v, f, "count: expected a number or a mapping such as {ge: 4}");
  for (const auto& kv : v) {
    std::string op = kv.first.Scalar();
    if (std::find(kOps.begin(), kOps.end(), op) == kOps.end())
      return FieldError(kv.first, f, "count: unknown comparison '" + op + "'; expected one of eq, ne, lt, le, gt, ge");
    Status st = ParseComparison(op, kv.second, f, out);
    if (!st.ok()) return st;
  }
  return Status::OK();
}

const std::vector<std::string> kTypes = {"str", "int", "float"};
const std::vector<std::string> kReduce = {"first", "last", "min", "max", "mean", "median", "sum"};

Status ParseSanityEntry(const YAML::Node& n, const std::string& f, SanitySpec* sp) {
  static const std::vector<std::string> kKeys = {"pattern", "not_pattern", "exit_code", "in", "group", "type", "reduce",
                                                 "count",   "eq",          "ne",        "lt", "le",    "gt",   "ge"};
  if (!n.IsMap())
    return FieldError(
        n, f, "sanity: each entry must be a mapping such as {pattern: 'Done', in: stdout}, got " + YamlTypeName(n));
  sp->mark = MarkOf(n, f);
  int kinds = 0;
  for (const auto& kv : n) {
    std::string key = kv.first.Scalar();
    const YAML::Node& v = kv.second;
    if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end())
      return FieldError(kv.first, f, "sanity: unknown key '" + key + "'" + DidYouMean(key, kKeys));
    Status st;
    if (key == "pattern" || key == "not_pattern") {
      ++kinds;
      sp->kind = key == "pattern" ? SanitySpec::Kind::kPattern : SanitySpec::Kind::kNotPattern;
      auto r = YamlString(v, f, "sanity: " + key);
      if (!r.ok()) return r.status();
      sp->pattern = *r;
      sp->mark = MarkOf(v, f);
    } else if (key == "exit_code") {
      ++kinds;
      sp->kind = SanitySpec::Kind::kExitCode;
      auto r = YamlStringList(v, f, "sanity: exit_code");
      if (!r.ok()) return r.status();
      for (const auto& c : *r) {
        char* end = nullptr;
        long code = std::strtol(c.c_str(), &end, 10);
        if (c.empty() || *end) return FieldError(v, f, "sanity: exit_code: expected integers, got '" + c + "'");
        sp->exit_codes.push_back(static_cast<int>(code));
      }
    } else if (key == "in") {
      auto r = YamlString(v, f, "sanity: in");
      if (!r.ok()) return r.status();
      sp->in = *r;
    } else if (key == "group") {
      auto r = YamlString(v, f, "sanity: group");
      if (!r.ok()) return r.status();
      sp->group = *r;
    } else if (key == "type") {
      st = CheckChoice(v, f, "sanity: type", kTypes, &sp->type);
    } else if (key == "reduce") {
      st = CheckChoice(v, f, "sanity: reduce", kReduce, &sp->reduce);
    } else if (key == "count") {
      st = ParseCount(v, f, &sp->count_checks);
    } else {
      st = ParseComparison(key, v, f, &sp->value_checks);
    }
    if (!st.ok()) return st;
  }
  if (kinds != 1)
    return FieldError(n, f, "sanity: each entry needs exactly one of 'pattern', 'not_pattern' or 'exit_code'");
  if (!sp->value_checks.empty() && sp->kind != SanitySpec::Kind::kPattern)
    return FieldError(n, f, "sanity: value comparisons (eq, lt, ...) need a 'pattern'");
  if (!sp->value_checks.empty() && sp->group.empty()) sp->group = "0";
  return Status::OK();
}

}  // namespace

Status ParseSanity(const YAML::Node& n, const std::string& f, TestSpec* s) {
  s->sanity.clear();
  if (n.IsNull()) return Status::OK();
  // A single entry stands for a list of one. (A new node, not an
  // assignment: assigning to a copy of `n` would rewrite `n` itself.)
  YAML::Node list = n.IsMap() ? YAML::Node(YAML::NodeType::Sequence) : n;
  if (n.IsMap()) list.push_back(n);
  if (!list.IsSequence()) return FieldError(n, f, "sanity: expected a list of checks, got " + YamlTypeName(n));
  for (const auto& item : list) {
    SanitySpec sp;
    Status st = ParseSanityEntry(item, f, &sp);
    if (!st.ok()) return st;
    s->sanity.push_back(std::move(sp));
  }
  return Status::OK();
}

namespace {

Status ParsePerfVar(const std::string& name, const YAML::Node& n, const std::string& f, PerfSpec* p) {
  static const std::vector<std::string> kKeys = {"pattern", "expr", "in", "group", "type", "reduce", "unit",
                                                 "eq",      "ne",   "lt", "le",    "gt",   "ge",     "figure_of_merit",
                                                 "better"};
  if (!n.IsMap())
    return FieldError(n, f,
                      "performance: '" + name + "' must be a mapping such as {pattern: 'Rate: (\\S+)', unit: MB/s}");
  p->name = name;
  p->mark = MarkOf(n, f);
  bool have_pattern = false;
  for (const auto& kv : n) {
    std::string key = kv.first.Scalar();
    const YAML::Node& v = kv.second;
    if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end())
      return FieldError(kv.first, f, "performance: " + name + ": unknown key '" + key + "'" + DidYouMean(key, kKeys));
    Status st;
    std::string what = "performance: " + name + ": " + key;
    if (key == "pattern" || key == "expr" || key == "in" || key == "group" || key == "unit") {
      auto r = YamlString(v, f, what);
      if (!r.ok()) return r.status();
      if (key == "expr") {
        p->expr = *r;
        p->mark = MarkOf(v, f);
      } else if (key == "pattern") {
        p->pattern = *r;
        have_pattern = true;
        p->mark = MarkOf(v, f);
      } else if (key == "in") {
        p->in = *r;
      } else if (key == "group") {
        p->group = *r;
      } else {
        p->unit = *r;
      }
    } else if (key == "type") {
      st = CheckChoice(v, f, what, {"int", "float"}, &p->type);
    } else if (key == "reduce") {
      st = CheckChoice(v, f, what, kReduce, &p->reduce);
    } else if (key == "better") {
      st = CheckChoice(v, f, what, {"higher", "lower"}, &p->better);
    } else if (key == "figure_of_merit") {
      auto b = YamlBool(v, f, what);
      if (!b.ok()) return b.status();
      p->figure_of_merit = *b;
    } else {
      st = ParseComparison(key, v, f, &p->value_checks);
    }
    if (!st.ok()) return st;
  }
  if (!p->expr.empty() && have_pattern)
    return FieldError(n, f,
                      "performance: " + name +
                          ": give either 'pattern' (a value extracted from the output) or "
                          "'expr' (a value derived from other variables), not both");
  if (!have_pattern && p->expr.empty())
    return FieldError(
        n, f, "performance: " + name + ": a 'pattern' (or an 'expr' deriving it from other variables) is required");
  if (!p->expr.empty()) {
    for (const char* k : {"in", "group", "type", "reduce"})
      if (n[k])
        return FieldError(n[k], f,
                          "performance: " + name + ": '" + k +
                              "' is for extracted values; a derived 'expr' takes only "
                              "unit and comparisons (eq, lt, ...)");
  }
  return Status::OK();
}

}  // namespace

Status ParsePerformance(const YAML::Node& n, const std::string& f, TestSpec* s) {
  s->performance.clear();
  if (n.IsNull()) return Status::OK();
  if (!n.IsMap())
    return FieldError(
        n, f, "performance: expected a mapping of variable: {pattern, group, unit, ...}, got " + YamlTypeName(n));
  for (const auto& kv : n) {
    std::string name = kv.first.IsScalar() ? kv.first.Scalar() : "";
    if (name.empty() || name.find_first_of("\n\r") != std::string::npos)
      return FieldError(kv.first, f, "performance: a variable name must be a non-empty string on one line");
    PerfSpec p;
    Status st = ParsePerfVar(name, kv.second, f, &p);
    if (!st.ok()) return st;
    for (const auto& other : s->performance)
      if (p.figure_of_merit && other.figure_of_merit)
        return FieldError(kv.second["figure_of_merit"], f,
                          "performance: " + name +
                              ": figure_of_merit: the test's figure "
                              "of merit is '" +
                              other.name + "' already; a test has one");
    s->performance.push_back(std::move(p));
  }
  return Status::OK();
}

namespace {

Result<std::optional<double>> OptionalNumber(const YAML::Node& n, const std::string& f, const std::string& what) {
  if (n.IsNull() || (n.IsScalar() && (n.Scalar() == "null" || n.Scalar() == "~"))) return std::optional<double>();
  auto r = YamlNumber(n, f, what);
  if (!r.ok()) return r.status();
  return std::optional<double>(*r);
}

Status ParseReferenceValue(const std::string& var, const YAML::Node& n, const std::string& f, Reference* ref) {
  std::string what = "reference: " + var;
  if (!n.IsSequence() || n.size() < 3 || n.size() > 4)
    return FieldError(n, f,
                      what + ": expected [value, lower, upper] or [value, lower, upper, unit], got " + YamlTypeName(n));
  ref->mark = MarkOf(n, f);
  auto v = YamlNumber(n[0], f, what + ": value");
  if (!v.ok()) return v.status();
  ref->value = *v;
  auto lo = OptionalNumber(n[1], f, what + ": lower threshold");
  if (!lo.ok()) return lo.status();
  auto hi = OptionalNumber(n[2], f, what + ": upper threshold");
  if (!hi.ok()) return hi.status();
  ref->lower = *lo;
  ref->upper = *hi;
  if (n.size() == 4 && !n[3].IsNull()) {
    auto u = YamlString(n[3], f, what + ": unit");
    if (!u.ok()) return u.status();
    ref->unit = *u;
  }
  return Status::OK();
}

}  // namespace

Status ParseReference(const YAML::Node& n, const std::string& f, TestSpec* s) {
  static const std::regex kKey(R"((\*|[A-Za-z0-9_.\-]+(:(\*|[A-Za-z0-9_.\-]+))?))");
  s->reference.clear();
  if (n.IsNull()) return Status::OK();
  if (!n.IsMap())
    return FieldError(n, f,
                      "reference: expected a mapping of 'system:partition': {variable: [value, lower, upper, unit]}");
  for (const auto& kv : n) {
    std::string key = kv.first.Scalar();
    if (!std::regex_match(key, kKey))
      return FieldError(kv.first, f, "reference: '" + key + "' is not 'system:partition', 'system:*', 'system' or '*'");
    if (!kv.second.IsMap())
      return FieldError(kv.second, f,
                        "reference: '" + key + "': expected a mapping of variable: [value, lower, upper, unit]");
    std::map<std::string, Reference> vars;
    for (const auto& v : kv.second) {
      Reference ref;
      Status st = ParseReferenceValue(v.first.Scalar(), v.second, f, &ref);
      if (!st.ok()) return st;
      vars[v.first.Scalar()] = ref;
      s->marks["reference:" + key + ":" + v.first.Scalar()] = MarkOf(v.first, f);
    }
    s->marks["reference:" + key] = MarkOf(kv.first, f);
    s->reference.emplace_back(key, std::move(vars));
  }
  return Status::OK();
}

}  // namespace hb
