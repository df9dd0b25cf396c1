// Evaluation of a parsed Expr (expr.h): Python 3's arithmetic,
// comparisons and built-in functions over the flat tree of
// expr_program.h.
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

#include "model/expr_program.h"
#include "util/strings.h"

namespace hb {

bool Truthy(const Value& v) {
  switch (v.type()) {
    case Value::Type::kFloat:
      return v.as_float() != 0;  // NaN is true, as in Python
    case Value::Type::kStr:
      return !v.as_str().empty();
    default:
      return v.as_int() != 0;
  }
}

namespace {

using namespace expr_detail;
using Program = Expr::Program;
using Node = Program::Node;
using Op = Program::Op;

constexpr size_t kMaxStr = 1 << 20;

const char* TypeName(const Value& v) { return TypeName(v.type()); }

// ------------------------------------------------------------ arithmetic

bool Fail(std::string* err, std::string msg) {
  *err = std::move(msg);
  return false;
}
bool Set(Value* out, Value v) {
  *out = std::move(v);
  return true;
}
bool Overflow(std::string* err) { return Fail(err, "integer overflow"); }
bool DivZero(std::string* err) { return Fail(err, "division by zero"); }

const char* OpName(BinOp op) {
  static const char* const kNames[] = {"+", "-", "*", "/", "//", "%", "**"};
  return kNames[static_cast<int>(op)];
}

// Python's // and %: the quotient rounds down, the remainder has the
// divisor's sign. b is neither 0 nor -1.
int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
int64_t FloorMod(int64_t a, int64_t b) {
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

bool IntPow(int64_t base, int64_t exp, Value* out, std::string* err) {
  if (exp < 0) {
    if (base == 0) return DivZero(err);
    *out = Value::Float(std::pow(static_cast<double>(base), static_cast<double>(exp)));
    return true;
  }
  int64_t r = 1;
  while (true) {  // by squaring; a square that overflows would reach r
    if ((exp & 1) && __builtin_mul_overflow(r, base, &r)) return Overflow(err);
    exp >>= 1;
    if (exp == 0) break;
    if (__builtin_mul_overflow(base, base, &base)) return Overflow(err);
  }
  *out = Value::Int(r);
  return true;
}

bool IntArith(BinOp op, int64_t a, int64_t b, Value* out, std::string* err) {
  int64_t r = 0;
  switch (op) {
    case BinOp::kAdd:
      if (__builtin_add_overflow(a, b, &r)) return Overflow(err);
      break;
    case BinOp::kSub:
      if (__builtin_sub_overflow(a, b, &r)) return Overflow(err);
      break;
    case BinOp::kMul:
      if (__builtin_mul_overflow(a, b, &r)) return Overflow(err);
      break;
    case BinOp::kDiv:
      if (b == 0) return DivZero(err);
      *out = Value::Float(static_cast<double>(a) / static_cast<double>(b));
      return true;
    case BinOp::kFloorDiv:
    case BinOp::kMod:
      if (b == 0) return DivZero(err);
      if (b == -1 && op == BinOp::kMod)
        r = 0;
      else if (b == -1 && __builtin_sub_overflow(0, a, &r))
        return Overflow(err);
      else if (b != -1)
        r = op == BinOp::kMod ? FloorMod(a, b) : FloorDiv(a, b);
      break;
    case BinOp::kPow:
      return IntPow(a, b, out, err);
  }
  *out = Value::Int(r);
  return true;
}

// Python's float_divmod (Objects/floatobject.c).
void FloatDivMod(double a, double b, double* div, double* mod) {
  double m = std::fmod(a, b);
  double d = (a - m) / b;
  if (m != 0) {
    if ((b < 0) != (m < 0)) {
      m += b;
      d -= 1.0;
    }
  } else {
    m = std::copysign(0.0, b);
  }
  double fd = std::copysign(0.0, a / b);
  if (d != 0) {
    fd = std::floor(d);
    if (d - fd > 0.5) fd += 1.0;
  }
  *div = fd;
  *mod = m;
}

bool FloatPow(double a, double b, Value* out, std::string* err) {
  if (a == 0 && b < 0) return DivZero(err);
  if (a < 0 && std::isfinite(a) && std::isfinite(b) && b != std::floor(b)) {
    return Fail(err, "'**' of a negative number to a fractional power");
  }
  double r = std::pow(a, b);
  if (std::isinf(r) && std::isfinite(a) && std::isfinite(b)) return Fail(err, "float overflow in '**'");
  *out = Value::Float(r);
  return true;
}

bool FloatArith(BinOp op, double a, double b, Value* out, std::string* err) {
  double r = 0, mod = 0;
  switch (op) {
    case BinOp::kAdd:
      r = a + b;
      break;
    case BinOp::kSub:
      r = a - b;
      break;
    case BinOp::kMul:
      r = a * b;
      break;
    case BinOp::kDiv:
      if (b == 0) return DivZero(err);
      r = a / b;
      break;
    case BinOp::kFloorDiv:
    case BinOp::kMod:
      if (b == 0) return DivZero(err);
      FloatDivMod(a, b, &r, &mod);
      if (op == BinOp::kMod) r = mod;
      break;
    case BinOp::kPow:
      return FloatPow(a, b, out, err);
  }
  *out = Value::Float(r);
  return true;
}

bool Repeat(const std::string& s, int64_t n, Value* out, std::string* err) {
  if (n <= 0 || s.empty()) {
    *out = Value::Str("");
    return true;
  }
  if (static_cast<uint64_t>(n) > kMaxStr / s.size()) return Fail(err, "'*' gives a string over 1 MiB");
  std::string r;
  r.reserve(s.size() * static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) r += s;
  *out = Value::Str(std::move(r));
  return true;
}

bool StrArith(BinOp op, const Value& l, const Value& r, Value* out, std::string* err) {
  using T = Value::Type;
  if (op == BinOp::kAdd && l.type() == T::kStr && r.type() == T::kStr) {
    if (l.as_str().size() + r.as_str().size() > kMaxStr) return Fail(err, "'+' gives a string over 1 MiB");
    *out = Value::Str(l.as_str() + r.as_str());
    return true;
  }
  if (op == BinOp::kMul && l.type() == T::kStr && r.type() == T::kInt) return Repeat(l.as_str(), r.as_int(), out, err);
  if (op == BinOp::kMul && l.type() == T::kInt && r.type() == T::kStr) return Repeat(r.as_str(), l.as_int(), out, err);
  return Fail(err, std::string("'") + OpName(op) + "' cannot combine " + TypeName(l) + " and " + TypeName(r));
}

bool Arith(BinOp op, const Value& l, const Value& r, Value* out, std::string* err) {
  using T = Value::Type;
  if (l.type() == T::kInt && r.type() == T::kInt) return IntArith(op, l.as_int(), r.as_int(), out, err);
  if (l.is_number() && r.is_number()) return FloatArith(op, l.as_float(), r.as_float(), out, err);
  if (l.type() == T::kBool || r.type() == T::kBool) {
    return Fail(err, std::string("cannot use a bool in arithmetic ('") + OpName(op) + "')");
  }
  return StrArith(op, l, r, out, err);
}

bool Unary(bool neg, Value* v, std::string* err) {
  const char* op = neg ? "-" : "+";
  switch (v->type()) {
    case Value::Type::kInt: {
      int64_t r = v->as_int();
      if (neg && __builtin_sub_overflow(0, v->as_int(), &r)) return Overflow(err);
      *v = Value::Int(r);
      return true;
    }
    case Value::Type::kFloat:
      *v = Value::Float(neg ? -v->as_float() : v->as_float());
      return true;
    case Value::Type::kBool:
      return Fail(err, std::string("cannot use a bool in arithmetic ('") + op + "')");
    case Value::Type::kStr:
      break;
  }
  return Fail(err, std::string("unary '") + op + "' cannot apply to str");
}

// ------------------------------------------------------------ comparison

constexpr int kUnordered = 2;  // a NaN was compared

int Sign(int64_t a, int64_t b) { return (a > b) - (a < b); }

int CmpStr(const std::string& a, const std::string& b) {  // bytewise: UTF-8 in code point order
  int c = a.compare(b);
  return (c > 0) - (c < 0);
}

int CmpDouble(double a, double b) {
  if (a < b) return -1;
  if (a > b) return 1;
  return a == b ? 0 : kUnordered;
}

// Numbers, with a bool as 0 or 1 (for == and !=). An int and a float
// compare as floats (Python compares them exactly; they differ only
// beyond 2^53).
int CmpNumbers(const Value& l, const Value& r) {
  if (l.type() != Value::Type::kFloat && r.type() != Value::Type::kFloat) return Sign(l.as_int(), r.as_int());
  return CmpDouble(l.as_float(), r.as_float());
}

bool CmpHolds(CmpOp op, int c) {
  switch (op) {
    case CmpOp::kEq:
      return c == 0;
    case CmpOp::kNe:
      return c != 0;
    case CmpOp::kLt:
      return c == -1;
    case CmpOp::kLe:
      return c == -1 || c == 0;
    case CmpOp::kGt:
      return c == 1;
    case CmpOp::kGe:
      return c == 1 || c == 0;
  }
  return false;
}

bool Compare(CmpOp op, const Value& l, const Value& r, bool* out, std::string* err) {
  static const char* const kNames[] = {"==", "!=", "<", "<=", ">", ">="};
  using T = Value::Type;
  bool lstr = l.type() == T::kStr, rstr = r.type() == T::kStr;
  bool order = op != CmpOp::kEq && op != CmpOp::kNe;
  bool has_bool = l.type() == T::kBool || r.type() == T::kBool;
  if (order && (lstr != rstr || has_bool)) {
    return Fail(err, std::string("'") + kNames[static_cast<int>(op)] + "' cannot compare " + TypeName(l) + " and " +
                         TypeName(r));
  }
  int c = kUnordered;  // a str and a number are never equal
  if (lstr && rstr)
    c = CmpStr(l.as_str(), r.as_str());
  else if (!lstr && !rstr)
    c = CmpNumbers(l, r);
  *out = CmpHolds(op, c);
  return true;
}

// ------------------------------------------------------------- functions

bool NeedNumber(Fn fn, const Value& x, std::string* err) {
  if (x.is_number()) return true;
  return Fail(err, std::string(FnName(fn)) + "() takes a number, got " + TypeName(x));
}

bool FloatToInt(Fn fn, double d, Value* out, std::string* err) {
  if (std::isnan(d) || std::isinf(d)) {
    return Fail(err, std::string(FnName(fn)) + "() cannot convert " + (std::isnan(d) ? "nan" : "inf") + " to int");
  }
  if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return Overflow(err);
  *out = Value::Int(static_cast<int64_t>(d));
  return true;
}

double RoundHalfEven(double x) {
  double r = std::round(x);
  if (std::fabs(x - std::trunc(x)) == 0.5) r = 2.0 * std::round(x / 2.0);
  return r;
}

// round(x, n) of a float: correctly rounded at n >= 0 (to_chars is exact),
// as Python's dtoa-based round is; by scaling at n < 0.
double RoundFloatDigits(double x, int64_t nd) {
  if (!std::isfinite(x) || nd > 323) return x;
  if (nd < -308) return 0.0 * x;
  if (nd < 0) {
    double p = std::pow(10.0, static_cast<double>(-nd));
    return RoundHalfEven(x / p) * p;
  }
  char buf[700];
  auto res = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::fixed, static_cast<int>(nd));
  if (res.ec != std::errc()) return x;
  double r = x;
  std::from_chars(buf, res.ptr, r);
  return r;
}

// round(x, n) of an int with n < 0: to a multiple of 10^-n, ties to even.
bool RoundIntDigits(int64_t x, int64_t nd, Value* out, std::string* err) {
  if (nd >= 0 || nd < -18) {
    *out = Value::Int(nd >= 0 ? x : 0);
    return true;
  }
  int64_t p = 1;
  for (int64_t i = 0; i < -nd; ++i) p *= 10;
  int64_t q = FloorDiv(x, p), r = FloorMod(x, p);
  if (2 * r > p || (2 * r == p && (q & 1))) ++q;
  int64_t res = 0;
  if (__builtin_mul_overflow(q, p, &res)) return Overflow(err);
  *out = Value::Int(res);
  return true;
}

bool Round(const Value* args, size_t n, Value* out, std::string* err) {
  const Value& x = args[0];
  if (!NeedNumber(Fn::kRound, x, err)) return false;
  if (n == 1) {
    if (x.type() == Value::Type::kInt) return Set(out, x);
    return FloatToInt(Fn::kRound, RoundHalfEven(x.as_float()), out, err);
  }
  if (args[1].type() != Value::Type::kInt) {
    return Fail(err, std::string("round() takes an int number of digits, got ") + TypeName(args[1]));
  }
  if (x.type() == Value::Type::kInt) return RoundIntDigits(x.as_int(), args[1].as_int(), out, err);
  *out = Value::Float(RoundFloatDigits(x.as_float(), args[1].as_int()));
  return true;
}

bool ParseText(Fn fn, const std::string& s, Value* out, std::string* err) {
  std::string t = Trim(s);
  size_t skip = (t.size() > 1 && t[0] == '+' && t[1] != '-') ? 1 : 0;
  const char* b = t.data() + skip;
  const char* e = t.data() + t.size();
  if (fn == Fn::kInt) {
    int64_t v = 0;
    auto [p, ec] = std::from_chars(b, e, v);
    if (ec == std::errc::result_out_of_range) return Overflow(err);
    if (ec == std::errc() && p == e) return Set(out, Value::Int(v));
  } else {
    double v = 0;
    auto [p, ec] = std::from_chars(b, e, v);
    if (ec == std::errc() && p == e) return Set(out, Value::Float(v));
  }
  return Fail(err, std::string(FnName(fn)) + "() cannot convert '" + s + "'");
}

bool Convert(Fn fn, const Value& x, Value* out, std::string* err) {
  using T = Value::Type;
  if (x.type() == T::kStr) return ParseText(fn, x.as_str(), out, err);
  if (fn == Fn::kFloat) return Set(out, Value::Float(x.as_float()));
  if (x.type() == T::kFloat) return FloatToInt(fn, std::trunc(x.as_float()), out, err);
  *out = Value::Int(x.as_int());  // an int, or a bool as 0 or 1
  return true;
}

bool CallFn(Fn fn, const Value* args, size_t n, Value* out, std::string* err) {
  const Value& x = args[0];
  switch (fn) {
    case Fn::kCeil:
    case Fn::kFloor:
      if (!NeedNumber(fn, x, err)) return false;
      if (x.type() == Value::Type::kInt) return Set(out, x);
      return FloatToInt(fn, fn == Fn::kCeil ? std::ceil(x.as_float()) : std::floor(x.as_float()), out, err);
    case Fn::kRound:
      return Round(args, n, out, err);
    case Fn::kAbs:
      if (!NeedNumber(fn, x, err)) return false;
      if (x.type() == Value::Type::kFloat) return Set(out, Value::Float(std::fabs(x.as_float())));
      if (x.as_int() == INT64_MIN) return Overflow(err);
      return Set(out, Value::Int(std::abs(x.as_int())));
    case Fn::kInt:
    case Fn::kFloat:
      return Convert(fn, x, out, err);
    case Fn::kStr:
      return Set(out, Value::Str(FormatValue(x)));
    case Fn::kMin:
    case Fn::kMax:
      break;  // Evaluator::MinMax
  }
  return Fail(err, "internal error: bad function");
}

// ------------------------------------------------------------ evaluation

class Evaluator {
 public:
  Evaluator(const Program& p, const NameLookup& lookup, const std::vector<std::string>& candidates)
      : p_(p), lookup_(lookup), candidates_(candidates) {}
  bool Eval(int32_t i, Value* out);
  std::string err;

 private:
  bool Truth(int32_t i, bool* out);
  bool Lookup(uint32_t name, Value* out);
  bool Logic(const Node& n, Value* out);
  bool Binary(const Node& n, Value* out);
  bool Chain(const Node& n, Value* out);
  bool Call(const Node& n, Value* out);
  bool MinMax(const Node& n, Value* out);

  const Program& p_;
  const NameLookup& lookup_;
  const std::vector<std::string>& candidates_;
};

bool Evaluator::Eval(int32_t i, Value* out) {
  const Node& n = p_.nodes[i];
  bool b = false;
  switch (n.op) {
    case Op::kConst:
      *out = p_.consts[n.idx];
      return true;
    case Op::kName:
      return Lookup(n.idx, out);
    case Op::kNeg:
    case Op::kPos:
      return Eval(n.a, out) && Unary(n.op == Op::kNeg, out, &err);
    case Op::kNot:
      return Truth(n.a, &b) && Set(out, Value::Bool(!b));
    case Op::kAnd:
    case Op::kOr:
      return Logic(n, out);
    case Op::kIf:
      return Truth(n.a, &b) && Eval(b ? n.b : n.c, out);
    case Op::kBin:
      return Binary(n, out);
    case Op::kCompare:
      return Chain(n, out);
    case Op::kCall:
      return Call(n, out);
  }
  return Fail(&err, "internal error: bad node");
}

bool Evaluator::Truth(int32_t i, bool* out) {
  Value v;
  if (!Eval(i, &v)) return false;
  *out = Truthy(v);
  return true;
}

bool Evaluator::Lookup(uint32_t name, Value* out) {
  const std::string& s = p_.names[name];
  std::optional<Value> v = lookup_ ? lookup_(s) : std::nullopt;
  if (!v) return Fail(&err, "unknown name '" + s + "'" + DidYouMean(s, candidates_));
  *out = std::move(*v);
  return true;
}

bool Evaluator::Logic(const Node& n, Value* out) {
  bool b = false;
  if (!Truth(n.a, &b)) return false;
  if (b != (n.op == Op::kOr) && !Truth(n.b, &b)) return false;  // short-circuit
  *out = Value::Bool(b);
  return true;
}

bool Evaluator::Binary(const Node& n, Value* out) {
  Value l, r;
  return Eval(n.a, &l) && Eval(n.b, &r) && Arith(static_cast<BinOp>(n.sub), l, r, out, &err);
}

// a < b <= c is a < b and b <= c, each operand evaluated once.
bool Evaluator::Chain(const Node& n, Value* out) {
  const int32_t* items = &p_.lists[n.idx];
  Value left, right;
  if (!Eval(items[0], &left)) return false;
  for (uint32_t k = 1; k < n.n; k += 2) {
    bool holds = false;
    if (!Eval(items[k + 1], &right) || !Compare(static_cast<CmpOp>(items[k]), left, right, &holds, &err)) return false;
    if (!holds) return Set(out, Value::Bool(false));
    left = std::move(right);
  }
  *out = Value::Bool(true);
  return true;
}

bool Evaluator::Call(const Node& n, Value* out) {
  Fn fn = static_cast<Fn>(n.sub);
  if (fn == Fn::kMin || fn == Fn::kMax) return MinMax(n, out);
  Value args[2];  // the parser allows at most 2 for these
  for (uint32_t k = 0; k < n.n; ++k) {
    if (!Eval(p_.lists[n.idx + k], &args[k])) return false;
  }
  return CallFn(fn, args, n.n, out, &err);
}

// min/max of numbers, or of strings; the first of equal values wins.
bool Evaluator::MinMax(const Node& n, Value* out) {
  bool is_max = static_cast<Fn>(n.sub) == Fn::kMax;
  const std::string fname = is_max ? "max()" : "min()";
  for (uint32_t k = 0; k < n.n; ++k) {
    Value v;
    if (!Eval(p_.lists[n.idx + k], &v)) return false;
    if (v.type() == Value::Type::kBool) return Fail(&err, fname + " takes numbers or strings, got bool");
    if (k == 0) {
      *out = std::move(v);
      continue;
    }
    if (v.is_number() != out->is_number()) {
      return Fail(&err, fname + " cannot compare " + TypeName(*out) + " and " + TypeName(v));
    }
    int c = v.is_number() ? CmpNumbers(v, *out) : CmpStr(v.as_str(), out->as_str());
    if (c == (is_max ? 1 : -1)) *out = std::move(v);
  }
  return true;
}

}  // namespace

Result<Value> Expr::Eval(const NameLookup& lookup, const std::vector<std::string>& candidates) const {
  if (!prog_) return Status::Error("empty expression");
  Evaluator ev(*prog_, lookup, candidates);
  Value v;
  if (!ev.Eval(prog_->root, &v)) return Status::Error(std::move(ev.err));
  return v;
}

}  // namespace hb
