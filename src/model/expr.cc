#include "model/expr.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "model/expr_program.h"
#include "util/strings.h"

namespace hb {

// ---------------------------------------------------------------- values

bool operator==(const Value& a, const Value& b) {
  if (a.type_ != b.type_) return false;
  switch (a.type_) {
    case Value::Type::kFloat:
      return a.f_ == b.f_ || (std::isnan(a.f_) && std::isnan(b.f_));
    case Value::Type::kStr:
      return a.s_ == b.s_;
    default:
      return a.i_ == b.i_;
  }
}

const char* TypeName(Value::Type t) {
  switch (t) {
    case Value::Type::kInt:
      return "int";
    case Value::Type::kFloat:
      return "float";
    case Value::Type::kBool:
      return "bool";
    case Value::Type::kStr:
      return "str";
  }
  return "?";
}

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

size_t CountDigits(std::string_view s, size_t i) {
  size_t n = 0;
  while (i + n < s.size() && IsDigit(s[i + n])) ++n;
  return n;
}

// YAML 1.2 core schema ints: [-+]?[0-9]+ | 0o[0-7]+ | 0x[0-9a-fA-F]+.
std::optional<int64_t> YamlInt(std::string_view s) {
  int base = 10;
  bool neg = false;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o')) {
    base = s[1] == 'x' ? 16 : 8;
    s.remove_prefix(2);
  } else if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty() || !std::isxdigit(static_cast<unsigned char>(s[0]))) return std::nullopt;
  uint64_t u = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), u, base);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  if (u > (neg ? 0x8000000000000000ull : 0x7fffffffffffffffull)) return std::nullopt;
  return neg ? static_cast<int64_t>(0 - u) : static_cast<int64_t>(u);
}

// Scans a number at s[i]: [0-9]+ ( \. [0-9]* )? | \. [0-9]+, then an
// optional exponent [eE] [-+]? [0-9]+ (the lexer's and YAML's float
// syntax). Returns the end, or npos when an 'e' has no digits or there is
// no number.
size_t ScanNumber(std::string_view s, size_t i, bool* is_float) {
  size_t int_digits = CountDigits(s, i);
  size_t j = i + int_digits;
  *is_float = j < s.size() && s[j] == '.';
  if (*is_float) j += 1 + CountDigits(s, j + 1);
  if (j - i == (*is_float ? 1u : 0u)) return std::string_view::npos;  // no digits
  if (j < s.size() && (s[j] == 'e' || s[j] == 'E')) {
    size_t k = j + 1 + (j + 1 < s.size() && (s[j + 1] == '+' || s[j + 1] == '-'));
    if (CountDigits(s, k) == 0) return std::string_view::npos;
    *is_float = true;
    j = k + CountDigits(s, k);
  }
  return j;
}

std::optional<double> YamlFloat(std::string_view s) {
  bool neg = !s.empty() && s[0] == '-';
  std::string_view body = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? s.substr(1) : s;
  if (body == ".inf" || body == ".Inf" || body == ".INF") return neg ? -HUGE_VAL : HUGE_VAL;
  if (s == ".nan" || s == ".NaN" || s == ".NAN") return NAN;
  bool is_float = false;
  if (body.empty() || ScanNumber(body, 0, &is_float) != body.size() || !is_float) return std::nullopt;
  double d = 0;
  auto [p, ec] = std::from_chars(body.data(), body.data() + body.size(), d);
  if (ec != std::errc()) return std::nullopt;
  return neg ? -d : d;
}

}  // namespace

std::string FormatValue(const Value& v) {
  switch (v.type()) {
    case Value::Type::kInt:
      return std::to_string(v.as_int());
    case Value::Type::kFloat:
      return PyFloatRepr(v.as_float());
    case Value::Type::kBool:
      return v.as_bool() ? "true" : "false";
    case Value::Type::kStr:
      return v.as_str();
  }
  return "";
}

Value ValueFromYamlScalar(const std::string& t) {
  if (t == "true" || t == "True" || t == "TRUE") return Value::Bool(true);
  if (t == "false" || t == "False" || t == "FALSE") return Value::Bool(false);
  if (auto i = YamlInt(t)) return Value::Int(*i);
  if (auto f = YamlFloat(t)) return Value::Float(*f);
  return Value::Str(t);
}

// ----------------------------------------------------------------- lexer

namespace {

using namespace expr_detail;
using Program = Expr::Program;
using Node = Program::Node;
using Op = Program::Op;

constexpr int kMaxDepth = 100;

bool IsKeyword(std::string_view s) {
  static const char* const kKeywords[] = {"if", "else", "and", "or", "not", "True", "False", "true", "false"};
  for (const char* k : kKeywords) {
    if (s == k) return true;
  }
  return false;
}

struct Token {
  enum Kind { kEnd, kNum, kStr, kName, kOp } kind = kEnd;
  size_t pos = 0;
  std::string text;  // a name, an operator, or a literal as written
  Value value;       // of a literal
};

Status ParseError(const std::string& what, size_t pos, const std::string& tail = "") {
  return Status::Error(what + " at offset " + std::to_string(pos) + tail);
}

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentChar(char c) { return IsIdentStart(c) || IsDigit(c); }

class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}
  Status Run(std::vector<Token>* out);

 private:
  Status Next(Token* t);
  Status Number(Token* t);
  Status String(Token* t);
  void Name(Token* t);
  void SkipIdent(bool dash);
  Status BadChar() const;

  std::string_view s_;
  size_t i_ = 0;
};

Status Lexer::Run(std::vector<Token>* out) {
  while (true) {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
    Token t;
    t.pos = i_;
    if (i_ == s_.size()) {
      out->push_back(std::move(t));
      return Status::OK();
    }
    Status st = Next(&t);
    if (!st.ok()) return st;
    out->push_back(std::move(t));
  }
}

Status Lexer::Next(Token* t) {
  char c = s_[i_];
  if (IsDigit(c) || (c == '.' && i_ + 1 < s_.size() && IsDigit(s_[i_ + 1]))) return Number(t);
  if (c == '\'' || c == '"') return String(t);
  if (IsIdentStart(c)) {
    Name(t);
    return Status::OK();
  }
  static const char* const kOps[] = {"**", "//", "==", "!=", "<=", ">=", "+", "-", "*",
                                     "/",  "%",  "<",  ">",  "(",  ")",  "[", "]", ","};
  for (const char* op : kOps) {
    if (s_.substr(i_, std::strlen(op)) == op) {
      t->kind = Token::kOp;
      t->text = op;
      i_ += t->text.size();
      return Status::OK();
    }
  }
  return BadChar();
}

Status Lexer::BadChar() const {
  size_t end = i_ + 1;  // a whole UTF-8 sequence
  while (end < s_.size() && (static_cast<unsigned char>(s_[end]) & 0xC0) == 0x80) ++end;
  std::string ch(s_.substr(i_, end - i_));
  std::string hint = ch == "=" ? " (use '==' to compare)" : "";
  return ParseError("unexpected character '" + ch + "'", i_, hint);
}

Status Lexer::Number(Token* t) {
  size_t start = i_;
  bool is_float = false;
  i_ = ScanNumber(s_, start, &is_float);
  if (i_ == std::string_view::npos) return ParseError("invalid number", start);
  t->kind = Token::kNum;
  t->text = std::string(s_.substr(start, i_ - start));
  const char* b = t->text.data();
  const char* e = b + t->text.size();
  if (is_float) {
    double d = 0;
    if (std::from_chars(b, e, d).ec != std::errc()) return ParseError("float literal out of range", start);
    t->value = Value::Float(d);
  } else {
    int64_t v = 0;
    if (std::from_chars(b, e, v).ec != std::errc()) return ParseError("integer literal out of range", start);
    t->value = Value::Int(v);
  }
  return Status::OK();
}

Status Lexer::String(Token* t) {
  size_t start = i_;
  char quote = s_[i_++];
  std::string out;
  while (i_ < s_.size() && s_[i_] != quote) {
    char c = s_[i_++];
    if (c != '\\' || i_ == s_.size()) {
      out += c;
      continue;
    }
    char e = s_[i_++];
    if (e == 'n')
      out += '\n';
    else if (e == 't')
      out += '\t';
    else if (e == '\\' || e == '\'' || e == '"')
      out += e;
    else
      out += std::string{'\\', e};  // as Python keeps '\d'
  }
  if (i_ >= s_.size()) return ParseError("unterminated string", start);
  ++i_;
  t->kind = Token::kStr;
  t->text = std::string(s_.substr(start, i_ - start));
  t->value = Value::Str(std::move(out));
  return Status::OK();
}

// Identifier segments joined by '.'; after "deps." the test name may also
// hold '-' between identifier characters ("deps.hello-build.stagedir").
void Lexer::Name(Token* t) {
  size_t start = i_;
  SkipIdent(false);
  bool first = true;
  while (i_ + 1 < s_.size() && s_[i_] == '.' && IsIdentStart(s_[i_ + 1])) {
    bool dash = first && s_.substr(start, i_ - start) == "deps";
    ++i_;
    SkipIdent(dash);
    first = false;
  }
  t->kind = Token::kName;
  t->text = std::string(s_.substr(start, i_ - start));
}

void Lexer::SkipIdent(bool dash) {
  ++i_;
  while (i_ < s_.size() &&
         (IsIdentChar(s_[i_]) || (dash && s_[i_] == '-' && i_ + 1 < s_.size() && IsIdentChar(s_[i_ + 1])))) {
    ++i_;
  }
}

// ---------------------------------------------------------------- parser

// "ceil() takes 1 argument, got 2", "round() takes 1 or 2 arguments, got 3".
std::string ArityError(const FnSpec& f, size_t got) {
  std::string want = std::to_string(f.min_args);
  if (f.max_args == kManyArgs)
    want = "at least " + want;
  else if (f.max_args != f.min_args)
    want += " or " + std::to_string(f.max_args);
  const char* noun = (f.max_args == 1 || (f.max_args == kManyArgs && f.min_args == 1)) ? " argument" : " arguments";
  return std::string(f.name) + "() takes " + want + noun + ", got " + std::to_string(got);
}

// Recursive descent, one function per precedence level (expr.h). Each
// returns false after recording the first error.
class Parser {
 public:
  Parser(std::vector<Token> toks, Program* prog) : toks_(std::move(toks)), prog_(prog) {}
  bool Run();
  const Status& error() const { return err_; }

 private:
  struct Guard {  // bounds the recursion of the parser
    explicit Guard(Parser* p) : p(p) { ++p->depth_; }
    ~Guard() { --p->depth_; }
    bool ok() const { return p->depth_ <= kMaxDepth || p->Fail("expression nested too deeply", p->Peek().pos); }
    Parser* p;
  };

  const Token& Peek() const { return toks_[pos_]; }
  void Advance() { pos_ += pos_ + 1 < toks_.size(); }
  bool IsOp(const char* op) const { return Peek().kind == Token::kOp && Peek().text == op; }
  bool IsWord(const char* w) const { return Peek().kind == Token::kName && Peek().text == w; }
  bool Expect(const char* op);
  bool Fail(const std::string& what, size_t pos, const std::string& tail = "");
  bool Add(Node n, int32_t* out);
  bool AddConst(Value v, int32_t* out);
  bool AddName(const std::string& name, int32_t* out);
  bool AddList(Node n, const std::vector<int32_t>& items, int32_t* out);

  bool ParseTernary(int32_t* out);
  bool ParseBinary(int level, int32_t* out);
  bool ParseNot(int32_t* out);
  bool ParseCompare(int32_t* out);
  bool ParseUnary(int32_t* out);
  bool ParsePower(int32_t* out);
  bool ParseAtom(int32_t* out);
  bool ParseNamed(int32_t* out);
  bool ParseCall(const Token& name, int32_t* out);
  bool ParseSubscript(const Token& name, int32_t* out);

  std::vector<Token> toks_;
  size_t pos_ = 0;
  Program* prog_;
  std::vector<int> node_depth_;  // height of each node's subtree
  int depth_ = 0;
  Status err_;
};

bool Parser::Run() {
  if (!ParseTernary(&prog_->root)) return false;
  if (Peek().kind != Token::kEnd) return Fail("unexpected '" + Peek().text + "'", Peek().pos);
  return true;
}

bool Parser::Fail(const std::string& what, size_t pos, const std::string& tail) {
  if (err_.ok()) err_ = ParseError(what, pos, tail);
  return false;
}

bool Parser::Expect(const char* op) {
  if (!IsOp(op)) return Fail(std::string("expected '") + op + "'", Peek().pos);
  Advance();
  return true;
}

// Appends a node; also bounds the height of the tree, which evaluation
// walks recursively.
bool Parser::Add(Node n, int32_t* out) {
  int d = 0;
  for (int32_t k : {n.a, n.b, n.c}) {
    if (k >= 0) d = std::max(d, node_depth_[k]);
  }
  uint32_t stride = n.op == Op::kCompare ? 2 : 1;  // skip a chain's ops
  for (uint32_t i = 0; i < n.n; i += stride) d = std::max(d, node_depth_[prog_->lists[n.idx + i]]);
  if (d + 1 > kMaxDepth) return Fail("expression nested too deeply", Peek().pos);
  node_depth_.push_back(d + 1);
  prog_->nodes.push_back(n);
  *out = static_cast<int32_t>(prog_->nodes.size() - 1);
  return true;
}

bool Parser::AddConst(Value v, int32_t* out) {
  prog_->consts.push_back(std::move(v));
  Node n;
  n.idx = static_cast<uint32_t>(prog_->consts.size() - 1);
  return Add(n, out);
}

bool Parser::AddName(const std::string& name, int32_t* out) {
  auto& names = prog_->names;
  size_t i = std::find(names.begin(), names.end(), name) - names.begin();
  if (i == names.size()) names.push_back(name);
  Node n{Op::kName};
  n.idx = static_cast<uint32_t>(i);
  return Add(n, out);
}

bool Parser::AddList(Node n, const std::vector<int32_t>& items, int32_t* out) {
  n.idx = static_cast<uint32_t>(prog_->lists.size());
  n.n = static_cast<uint32_t>(items.size());
  prog_->lists.insert(prog_->lists.end(), items.begin(), items.end());
  return Add(n, out);
}

bool Parser::ParseTernary(int32_t* out) {
  Guard g(this);
  if (!g.ok() || !ParseBinary(0, out)) return false;
  if (!IsWord("if")) return true;
  Advance();
  Node n{Op::kIf, 0, -1, *out};
  if (!ParseBinary(0, &n.a)) return false;
  if (!IsWord("else")) return Fail("expected 'else'", Peek().pos);
  Advance();
  return ParseTernary(&n.c) && Add(n, out);
}

// The left-associative levels, loosest first: 0 `or`, 1 `and`, 2 `+ -`,
// 3 `* / // %`. Between 1 and 2 come `not` and the comparisons.
struct Infix {
  const char* text;
  int level;
  Op op;
  BinOp bin;  // of kBin
};
constexpr Infix kInfix[] = {
    {"or", 0, Op::kOr, BinOp::kAdd},       {"and", 1, Op::kAnd, BinOp::kAdd}, {"+", 2, Op::kBin, BinOp::kAdd},
    {"-", 2, Op::kBin, BinOp::kSub},       {"*", 3, Op::kBin, BinOp::kMul},   {"/", 3, Op::kBin, BinOp::kDiv},
    {"//", 3, Op::kBin, BinOp::kFloorDiv}, {"%", 3, Op::kBin, BinOp::kMod},
};

const Infix* InfixOf(const Token& t, int level) {
  if (t.kind != Token::kOp && t.kind != Token::kName) return nullptr;
  for (const Infix& op : kInfix) {
    if (op.level == level && t.text == op.text) return &op;
  }
  return nullptr;
}

bool Parser::ParseBinary(int level, int32_t* out) {
  auto operand = [&](int32_t* o) {
    return level == 1 ? ParseNot(o) : level == 3 ? ParseUnary(o) : ParseBinary(level + 1, o);
  };
  if (!operand(out)) return false;
  while (const Infix* op = InfixOf(Peek(), level)) {
    Advance();
    Node n{op->op, static_cast<uint8_t>(op->bin), *out};
    if (!operand(&n.b) || !Add(n, out)) return false;
  }
  return true;
}

bool Parser::ParseNot(int32_t* out) {
  if (!IsWord("not")) return ParseCompare(out);
  Guard g(this);
  Advance();
  Node n{Op::kNot};
  return g.ok() && ParseNot(&n.a) && Add(n, out);
}

std::optional<CmpOp> CmpOpOf(const Token& t) {
  if (t.kind != Token::kOp) return std::nullopt;
  static const std::pair<const char*, CmpOp> kOps[] = {{"==", CmpOp::kEq}, {"!=", CmpOp::kNe}, {"<", CmpOp::kLt},
                                                       {"<=", CmpOp::kLe}, {">", CmpOp::kGt},  {">=", CmpOp::kGe}};
  for (const auto& [text, op] : kOps) {
    if (t.text == text) return op;
  }
  return std::nullopt;
}

bool Parser::ParseCompare(int32_t* out) {
  if (!ParseBinary(2, out)) return false;
  if (!CmpOpOf(Peek())) return true;
  std::vector<int32_t> items{*out};
  while (auto op = CmpOpOf(Peek())) {
    Advance();
    int32_t right;
    if (!ParseBinary(2, &right)) return false;
    items.push_back(static_cast<int32_t>(*op));
    items.push_back(right);
  }
  return AddList(Node{Op::kCompare}, items, out);
}

bool Parser::ParseUnary(int32_t* out) {
  if (!IsOp("-") && !IsOp("+")) return ParsePower(out);
  Guard g(this);
  Node n{IsOp("-") ? Op::kNeg : Op::kPos};
  Advance();
  return g.ok() && ParseUnary(&n.a) && Add(n, out);
}

bool Parser::ParsePower(int32_t* out) {
  if (!ParseAtom(out)) return false;
  if (!IsOp("**")) return true;
  Advance();
  Node n{Op::kBin, static_cast<uint8_t>(BinOp::kPow), *out};
  return ParseUnary(&n.b) && Add(n, out);  // right-assoc; 2 ** -1 works
}

bool Parser::ParseAtom(int32_t* out) {
  const Token& t = Peek();
  if (t.kind == Token::kNum || t.kind == Token::kStr) {
    Advance();
    return AddConst(t.value, out);
  }
  if (t.kind == Token::kName) return ParseNamed(out);
  if (IsOp("(")) {
    Advance();
    return ParseTernary(out) && Expect(")");
  }
  return Fail("expected a value", t.pos);
}

bool Parser::ParseNamed(int32_t* out) {
  const Token& t = Peek();
  if (t.text == "True" || t.text == "true" || t.text == "False" || t.text == "false") {
    Advance();
    return AddConst(Value::Bool(t.text[0] == 'T' || t.text[0] == 't'), out);
  }
  if (IsKeyword(t.text)) return Fail("expected a value", t.pos);
  Advance();
  if (IsOp("(")) return ParseCall(t, out);
  if (IsOp("[")) return ParseSubscript(t, out);
  return AddName(t.text, out);
}

bool Parser::ParseCall(const Token& name, int32_t* out) {
  const FnSpec* fn = nullptr;
  std::vector<std::string> known;
  for (const FnSpec& f : kFns) {
    if (name.text == f.name) fn = &f;
    known.push_back(f.name);
  }
  if (!fn) {
    return Fail("unknown function '" + name.text + "'", name.pos,
                " (functions: " + Join(known, ", ") + ")" + DidYouMean(name.text, known));
  }
  Advance();  // '('
  std::vector<int32_t> args;
  while (!IsOp(")")) {
    int32_t arg;
    if (!ParseTernary(&arg)) return false;
    args.push_back(arg);
    if (!IsOp(",")) break;
    Advance();
  }
  if (!Expect(")")) return false;
  if (args.size() < fn->min_args || args.size() > fn->max_args) return Fail(ArityError(*fn, args.size()), name.pos);
  Node n{Op::kCall, static_cast<uint8_t>(fn - kFns)};
  return AddList(n, args, out);
}

// perf['Metric name'] reads the name "Metric name".
bool Parser::ParseSubscript(const Token& name, int32_t* out) {
  if (name.text != "perf") return Fail("only perf[...] can be subscripted", Peek().pos);
  Advance();  // '['
  if (Peek().kind != Token::kStr) return Fail("expected a quoted name", Peek().pos);
  std::string metric = Peek().value.as_str();
  Advance();
  return Expect("]") && AddName(metric, out);
}

}  // namespace

// ------------------------------------------------------------------ Expr

Result<Expr> Expr::Parse(std::string_view text) {
  if (Trim(text).empty()) return Status::Error("empty expression");
  std::vector<Token> toks;
  Status st = Lexer(text).Run(&toks);
  if (!st.ok()) return st;
  auto prog = std::make_shared<Program>();
  prog->text = std::string(text);
  Parser parser(std::move(toks), prog.get());
  if (!parser.Run()) return parser.error();
  return Expr(std::move(prog));
}

const std::vector<std::string>& Expr::names() const {
  static const std::vector<std::string> kNone;
  return prog_ ? prog_->names : kNone;
}

const std::string& Expr::text() const {
  static const std::string kEmpty;
  return prog_ ? prog_->text : kEmpty;
}

}  // namespace hb
