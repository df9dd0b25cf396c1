// Expressions inside placeholders, as Ramble and Python users write them:
// `{num_gpus * 2}`, `{num_gpus // 4}`, `{ceil(num_gpus / 4)}`,
// `{max(1, n // 4)}`, `{'big' if n > 100 else 'small'}`. This module gets
// the text between the braces; it is a tiny, safe subset of Python 3
// expressions, not a scripting language: no assignment, attributes, loops
// or calls other than the functions below.
//
//   expr    := or ['if' or 'else' expr]          (lazy: one branch runs)
//   or/and  := short-circuit, Python truthiness, give a bool; then 'not'
//   compare := sum (('=='|'!='|'<'|'<='|'>'|'>=') sum)*
//              chained as Python does: `1 < n <= 8` is `1 < n and n <= 8`
//   sum     := + -     term := * / // %     unary := - +
//   power   := atom ['**' unary]                 (`-2**2` is -4, `2**3**2` 512)
//   atom    := 12 | 2.5 | 1e3 | .5 | 'str' | "str" | True | False | true
//              | false | name | perf['Metric name'] | (expr) | fn(args)
//   name    := identifier segments joined by '.' (`mesh.nx`); after `deps.`
//              the test name may contain '-' (`deps.hello-build.stagedir`)
//   fn      := min max (numbers, or all strings) ceil floor round abs int
//              float str
//
// Values are Python's int (64-bit here), float, bool and str, with
// Python 3's rules: `/` gives a float, `//` and `%` round down, `**` of
// ints stays an int, `'ab' * 3` repeats, a str and a number are never
// equal and cannot be ordered. Where this differs from Python: a bool in
// arithmetic or in an order comparison, integer overflow and a str over
// 1 MiB are errors; `and`/`or` give a bool, not an operand; an int and a
// float compare as floats; bools print as true/false. String escapes are
// \\ \' \" \n \t; other backslashes stay as written (Python keeps `\d`).
// round(x, n) with n >= 0 is correctly rounded, ties to even, as in Python.
//
// An Expr is immutable once parsed, cheap to copy (it shares its tree) and
// safe to evaluate from many threads at once; evaluation allocates nothing
// when the names are numbers. The other functions are pure. Parsing is in
// expr.cc, evaluation in expr_eval.cc, the tree they share in
// expr_program.h.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/status.h"

namespace hb {

// A value: an integer, a float, a bool or a string. A plain value type
// (copy it between threads; do not share one being assigned).
class Value {
 public:
  enum class Type { kInt, kFloat, kBool, kStr };

  Value() = default;  // int 0
  // Copies touch the string only for a str: evaluation copies many values.
  Value(const Value& o) : type_(o.type_), i_(o.i_), f_(o.f_) {
    if (o.type_ == Type::kStr) s_ = o.s_;
  }
  Value(Value&& o) noexcept : type_(o.type_), i_(o.i_), f_(o.f_) {
    if (o.type_ == Type::kStr) s_ = std::move(o.s_);
  }
  Value& operator=(const Value& o);
  Value& operator=(Value&& o) noexcept;
  static Value Int(int64_t v) { return Value(Type::kInt, v, 0); }
  static Value Float(double v) { return Value(Type::kFloat, 0, v); }
  static Value Bool(bool v) { return Value(Type::kBool, v, 0); }
  static Value Str(std::string v) { return Value(std::move(v)); }

  Type type() const { return type_; }
  bool is_number() const { return type_ == Type::kInt || type_ == Type::kFloat; }
  // The accessors read the value of its own type; as_float also reads an
  // int, as_int a bool (0 or 1).
  int64_t as_int() const { return i_; }
  double as_float() const { return type_ == Type::kFloat ? f_ : static_cast<double>(i_); }
  bool as_bool() const { return i_ != 0; }
  const std::string& as_str() const { return s_; }

  // Same type and same value (for tests and caches; not Python's ==:
  // Int(1) differs from Float(1.0) here, and NaN equals NaN).
  friend bool operator==(const Value& a, const Value& b);
  friend bool operator!=(const Value& a, const Value& b) { return !(a == b); }

 private:
  Value(Type t, int64_t i, double f) : type_(t), i_(i), f_(f) {}
  explicit Value(std::string s) : type_(Type::kStr), s_(std::move(s)) {}

  Type type_ = Type::kInt;
  int64_t i_ = 0;  // int, or bool as 0/1
  double f_ = 0;
  std::string s_;  // empty unless a str
};

inline Value& Value::operator=(const Value& o) {
  type_ = o.type_;
  i_ = o.i_;
  f_ = o.f_;
  if (o.type_ == Type::kStr)
    s_ = o.s_;
  else
    s_.clear();
  return *this;
}

inline Value& Value::operator=(Value&& o) noexcept {
  type_ = o.type_;
  i_ = o.i_;
  f_ = o.f_;
  if (o.type_ == Type::kStr)
    s_ = std::move(o.s_);
  else
    s_.clear();
  return *this;
}

// Python's truth value: 0, 0.0, false and "" are false (NaN is true).
bool Truthy(const Value& v);
const char* TypeName(Value::Type t);  // "int", "float", "bool", "str"

// The text of a value as it is substituted into a string: ints as digits,
// floats as Python's repr (shortest round-trip; exponent form below 1e-4
// and from 1e16: "2.0", "0.1", "1e-05", "1.5e+16", "inf", "nan"), bools as
// "true"/"false" (YAML's spelling, not Python's), strings as they are.
std::string FormatValue(const Value& v);

// The typed value of a plain (unquoted) YAML scalar, by the YAML 1.2 core
// schema: "4", "+4", "0x10", "0o17" are ints; "2.5", "1e3", ".5", ".inf",
// ".nan" floats; true/True/TRUE/false/False/FALSE bools; anything else,
// including ints beyond 64 bits and null, the string as written.
Value ValueFromYamlScalar(const std::string& text);

// The value of a name, or nullopt when the name is unknown.
using NameLookup = std::function<std::optional<Value>(const std::string&)>;

// A parsed expression. Immutable: copies share one tree, and Eval may run
// from many threads at once.
class Expr {
 public:
  Expr() = default;  // empty: Eval() reports "empty expression"

  // Parses text. An error names what was expected and the 0-based byte
  // offset: "expected ')' at offset 7", "unexpected character '$' at
  // offset 0". Unknown functions and wrong argument counts are found here.
  static Result<Expr> Parse(std::string_view text);

  // Every name the expression reads, in order of first appearance, without
  // duplicates: "processor.num_cpus", "deps.hello-build.stagedir", and
  // "Epoch Length" for perf['Epoch Length']. Called function names are
  // not included.
  const std::vector<std::string>& names() const;
  const std::string& text() const;

  // Evaluates. A name lookup() does not know is an error "unknown name
  // 'x'", with a did-you-mean over `candidates`. Errors carry no offset.
  Result<Value> Eval(const NameLookup& lookup, const std::vector<std::string>& candidates = {}) const;

  struct Program;  // the parsed tree (expr_program.h)

 private:
  explicit Expr(std::shared_ptr<const Program> p) : prog_(std::move(p)) {}
  std::shared_ptr<const Program> prog_;
};

}  // namespace hb
