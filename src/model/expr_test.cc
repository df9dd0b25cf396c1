#include "model/expr.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <thread>

namespace hb {

// How gtest prints a Value in a failure.
void PrintTo(const Value& v, std::ostream* os) { *os << TypeName(v.type()) << " " << FormatValue(v); }

namespace {

std::optional<Value> Lookup(const std::string& name) {
  static const std::map<std::string, Value> kValues = {
      {"n", Value::Int(8)},
      {"num_gpus", Value::Int(8)},
      {"x", Value::Float(2.5)},
      {"s", Value::Str("ab")},
      {"flag", Value::Bool(true)},
      {"processor.num_cpus", Value::Int(64)},
      {"deps.hello-build.stagedir", Value::Str("/stage/hello")},
      {"Epoch Length", Value::Float(1.5)},
  };
  auto it = kValues.find(name);
  if (it == kValues.end()) return std::nullopt;
  return it->second;
}

// "TYPE TEXT" of the value of `text`, or the error.
std::string Ev(const std::string& text) {
  Result<Expr> e = Expr::Parse(text);
  if (!e.ok()) return "parse error: " + e.status().message();
  Result<Value> v = e->Eval(Lookup, {"n", "num_gpus", "x"});
  if (!v.ok()) return "error: " + v.status().message();
  return std::string(TypeName(v->type())) + " " + FormatValue(*v);
}

std::string ParseError(const std::string& text) {
  Result<Expr> e = Expr::Parse(text);
  return e.ok() ? "parsed" : e.status().message();
}

std::vector<std::string> Names(const std::string& text) {
  Result<Expr> e = Expr::Parse(text);
  EXPECT_TRUE(e.ok()) << e.status().message();
  return e.ok() ? e->names() : std::vector<std::string>{};
}

TEST(Expr, FollowsPythonPrecedence) {
  EXPECT_EQ(Ev("1 + 2 * 3"), "int 7");
  EXPECT_EQ(Ev("(1 + 2) * 3"), "int 9");
  EXPECT_EQ(Ev("10 - 3 - 2"), "int 5");
  EXPECT_EQ(Ev("100 // 10 // 5"), "int 2");
  EXPECT_EQ(Ev("-2 ** 2"), "int -4");
  EXPECT_EQ(Ev("(-2) ** 2"), "int 4");
  EXPECT_EQ(Ev("2 ** 3 ** 2"), "int 512");
  EXPECT_EQ(Ev("2 ** -1"), "float 0.5");
  EXPECT_EQ(Ev("2 * 3 ** 2"), "int 18");
  EXPECT_EQ(Ev("- - 3"), "int 3");
  EXPECT_EQ(Ev("+3"), "int 3");
  EXPECT_EQ(Ev("1 + 2 == 3"), "bool true");
  EXPECT_EQ(Ev("not 1 == 2"), "bool true");
  EXPECT_EQ(Ev("True or False and False"), "bool true");  // and binds tighter
  EXPECT_EQ(Ev("not True or True"), "bool true");
  EXPECT_EQ(Ev("1 if False else 2 if False else 3"), "int 3");  // right-assoc
  EXPECT_EQ(Ev("(1 if True else 2) + 10"), "int 11");
}

TEST(Expr, IntegerArithmeticStaysInteger) {
  EXPECT_EQ(Ev("num_gpus * 2"), "int 16");
  EXPECT_EQ(Ev("num_gpus // 3"), "int 2");
  EXPECT_EQ(Ev("2 ** 62"), "int 4611686018427387904");
  EXPECT_EQ(Ev("0 ** 0"), "int 1");
  EXPECT_EQ(Ev("8 / 4"), "float 2.0");  // '/' always gives a float
  EXPECT_EQ(Ev("1 / 4"), "float 0.25");
  EXPECT_EQ(Ev("2 ** -2"), "float 0.25");
  EXPECT_EQ(Ev("2 * 2.5"), "float 5.0");
  EXPECT_EQ(Ev("10 - x"), "float 7.5");
}

TEST(Expr, FloorDivisionAndModuloTakeTheDivisorsSign) {
  EXPECT_EQ(Ev("7 // 2"), "int 3");
  EXPECT_EQ(Ev("-7 // 2"), "int -4");
  EXPECT_EQ(Ev("7 // -2"), "int -4");
  EXPECT_EQ(Ev("-7 % 2"), "int 1");
  EXPECT_EQ(Ev("7 % -2"), "int -1");
  EXPECT_EQ(Ev("-7 % -2"), "int -1");
  EXPECT_EQ(Ev("-7.5 // 2"), "float -4.0");
  EXPECT_EQ(Ev("-7.5 % 2"), "float 0.5");
  EXPECT_EQ(Ev("7.5 % -2"), "float -0.5");
  EXPECT_EQ(Ev("7 // 2.0"), "float 3.0");
  EXPECT_EQ(Ev("5.0 // 0.3"), "float 16.0");
  EXPECT_EQ(Ev("-5.0 % 0.3"), "float 0.09999999999999981");
  EXPECT_EQ(Ev("-0.0 // 5"), "float -0.0");
  EXPECT_EQ(Ev("10 // 3 * 3 + 10 % 3"), "int 10");
}

TEST(Expr, DivisionByZeroIsAnError) {
  for (const char* e : {"1 / 0", "1 // 0", "1 % 0", "1.0 / 0", "1.5 % 0.0", "x // 0", "0 ** -1", "0.0 ** -1"}) {
    EXPECT_EQ(Ev(e), "error: division by zero") << e;
  }
}

TEST(Expr, IntegerOverflowIsAnError) {
  for (const char* e : {"10 ** 40", "9223372036854775807 + 1", "-9223372036854775807 - 2", "3037000500 * 3037000500",
                        "(-9223372036854775807 - 1) // -1", "-(-9223372036854775807 - 1)",
                        "abs(-9223372036854775807 - 1)", "int(1e300)", "int('99999999999999999999')"}) {
    EXPECT_EQ(Ev(e), "error: integer overflow") << e;
  }
  EXPECT_EQ(Ev("(-9223372036854775807 - 1) % -1"), "int 0");
  EXPECT_EQ(Ev("(-2) ** 63"), "int -9223372036854775808");
}

TEST(Expr, FloatPowerErrors) {
  EXPECT_EQ(Ev("2 ** 0.5"), "float 1.4142135623730951");
  EXPECT_EQ(Ev("(-8) ** (1 / 3)"), "error: '**' of a negative number to a fractional power");
  EXPECT_EQ(Ev("10.0 ** 400"), "error: float overflow in '**'");
}

TEST(Expr, BoolsAreNotNumbers) {
  EXPECT_EQ(Ev("True + 1"), "error: cannot use a bool in arithmetic ('+')");
  EXPECT_EQ(Ev("flag * 2"), "error: cannot use a bool in arithmetic ('*')");
  EXPECT_EQ(Ev("-True"), "error: cannot use a bool in arithmetic ('-')");
  EXPECT_EQ(Ev("'x' * True"), "error: cannot use a bool in arithmetic ('*')");
  EXPECT_EQ(Ev("True < 1"), "error: '<' cannot compare bool and int");
  EXPECT_EQ(Ev("True == 1"), "bool true");  // == and != as Python
  EXPECT_EQ(Ev("flag != False"), "bool true");
  EXPECT_EQ(Ev("true == True"), "bool true");
}

TEST(Expr, ComparesAndChainsLikePython) {
  EXPECT_EQ(Ev("1 == 1.0"), "bool true");
  EXPECT_EQ(Ev("2 < 2.5"), "bool true");
  EXPECT_EQ(Ev("n >= 8"), "bool true");
  EXPECT_EQ(Ev("n <= 7"), "bool false");
  EXPECT_EQ(Ev("n != 8"), "bool false");
  EXPECT_EQ(Ev("1 < 2 < 3"), "bool true");
  EXPECT_EQ(Ev("3 > 2 > 2"), "bool false");
  EXPECT_EQ(Ev("1 < n <= 8"), "bool true");
  EXPECT_EQ(Ev("2 < 1 < 'a'"), "bool false");  // stops at the first false
  EXPECT_EQ(Ev("1 < 2 < 'a'"), "error: '<' cannot compare int and str");
  EXPECT_EQ(Ev("float('nan') == float('nan')"), "bool false");
  EXPECT_EQ(Ev("float('nan') != 1"), "bool true");
}

TEST(Expr, StringOperations) {
  EXPECT_EQ(Ev("'a' + \"b\""), "str ab");
  EXPECT_EQ(Ev("s * 3"), "str ababab");
  EXPECT_EQ(Ev("3 * 'ab'"), "str ababab");
  EXPECT_EQ(Ev("'ab' * -1"), "str ");
  EXPECT_EQ(Ev("'a' < 'b'"), "bool true");
  EXPECT_EQ(Ev("'abc' >= 'abd'"), "bool false");
  EXPECT_EQ(Ev("s == 'ab'"), "bool true");
  EXPECT_EQ(Ev("'a' == 1"), "bool false");
  EXPECT_EQ(Ev("'a' != 1"), "bool true");
  EXPECT_EQ(Ev("'a' < 1"), "error: '<' cannot compare str and int");
  EXPECT_EQ(Ev("'a' + 1"), "error: '+' cannot combine str and int");
  EXPECT_EQ(Ev("1 + 'a'"), "error: '+' cannot combine int and str");
  EXPECT_EQ(Ev("'a' - 'b'"), "error: '-' cannot combine str and str");
  EXPECT_EQ(Ev("s * 2.0"), "error: '*' cannot combine str and float");
  EXPECT_EQ(Ev("-s"), "error: unary '-' cannot apply to str");
  EXPECT_EQ(Expr::Parse("'x' * 1048576")->Eval(Lookup)->as_str().size(), 1048576u);  // 1 MiB is allowed
  EXPECT_EQ(Ev("'x' * 1048577"), "error: '*' gives a string over 1 MiB");
  EXPECT_EQ(Ev("'ab' * 1000000"), "error: '*' gives a string over 1 MiB");
}

TEST(Expr, StringEscapes) {
  EXPECT_EQ(Ev(R"('it\'s')"), "str it's");
  EXPECT_EQ(Ev(R"("say \"hi\"")"), "str say \"hi\"");
  EXPECT_EQ(Ev(R"('a\\b')"), "str a\\b");
  EXPECT_EQ(Ev(R"('a\nb\tc')"), "str a\nb\tc");
  EXPECT_EQ(Ev(R"('\d+')"), "str \\d+");  // kept, as Python keeps it
  EXPECT_EQ(Ev(R"("it's")"), "str it's");
}

TEST(Expr, LogicShortCircuitsAndGivesBools) {
  EXPECT_EQ(Ev("False and 1 // 0"), "bool false");
  EXPECT_EQ(Ev("True or 1 // 0"), "bool true");
  EXPECT_EQ(Ev("True and 1 // 0"), "error: division by zero");
  EXPECT_EQ(Ev("0 or ''"), "bool false");
  EXPECT_EQ(Ev("1 and 'x'"), "bool true");
  EXPECT_EQ(Ev("n > 4 and s"), "bool true");
  EXPECT_EQ(Ev("not ''"), "bool true");
  EXPECT_EQ(Ev("not 0.0"), "bool true");
  EXPECT_EQ(Ev("not not n"), "bool true");
}

TEST(Expr, ConditionalEvaluatesOnlyTheChosenBranch) {
  EXPECT_EQ(Ev("1 if True else 1 // 0"), "int 1");
  EXPECT_EQ(Ev("1 // 0 if False else 2"), "int 2");
  EXPECT_EQ(Ev("n if n > 4 else nope"), "int 8");
  EXPECT_EQ(Ev("'big' if n > 100 else 'small'"), "str small");
  EXPECT_EQ(Ev("'a' if '' else 'b'"), "str b");
}

TEST(Expr, CeilFloorRound) {
  EXPECT_EQ(Ev("ceil(num_gpus / 3)"), "int 3");
  EXPECT_EQ(Ev("ceil(-2.5)"), "int -2");
  EXPECT_EQ(Ev("floor(-2.5)"), "int -3");
  EXPECT_EQ(Ev("floor(7)"), "int 7");
  EXPECT_EQ(Ev("round(2.5)"), "int 2");  // half to even
  EXPECT_EQ(Ev("round(3.5)"), "int 4");
  EXPECT_EQ(Ev("round(-2.5)"), "int -2");
  EXPECT_EQ(Ev("round(2.4)"), "int 2");
  EXPECT_EQ(Ev("round(7)"), "int 7");
  EXPECT_EQ(Ev("round(2.675, 2)"), "float 2.67");  // 2.675 is 2.67499999...
  EXPECT_EQ(Ev("round(0.125, 2)"), "float 0.12");
  EXPECT_EQ(Ev("round(0.375, 2)"), "float 0.38");
  EXPECT_EQ(Ev("round(1.23456789, 5)"), "float 1.23457");
  EXPECT_EQ(Ev("round(2.5, 0)"), "float 2.0");
  EXPECT_EQ(Ev("round(1250.0, -2)"), "float 1200.0");
  EXPECT_EQ(Ev("round(25, -1)"), "int 20");
  EXPECT_EQ(Ev("round(15, -1)"), "int 20");
  EXPECT_EQ(Ev("round(-25, -1)"), "int -20");
  EXPECT_EQ(Ev("round(5, 2)"), "int 5");
  EXPECT_EQ(Ev("round(2.5, 1.0)"), "error: round() takes an int number of digits, got float");
  EXPECT_EQ(Ev("ceil('a')"), "error: ceil() takes a number, got str");
  EXPECT_EQ(Ev("ceil(flag)"), "error: ceil() takes a number, got bool");
  EXPECT_EQ(Ev("ceil(float('inf'))"), "error: ceil() cannot convert inf to int");
  EXPECT_EQ(Ev("round(float('nan'))"), "error: round() cannot convert nan to int");
}

TEST(Expr, MinMaxAbs) {
  EXPECT_EQ(Ev("min(num_gpus, 4)"), "int 4");
  EXPECT_EQ(Ev("max(1, n // 4)"), "int 2");
  EXPECT_EQ(Ev("min(3, 1, 2)"), "int 1");
  EXPECT_EQ(Ev("max(3, 1.5)"), "int 3");
  EXPECT_EQ(Ev("min(1.5, -2)"), "int -2");
  EXPECT_EQ(Ev("min(2, 2.0)"), "int 2");  // the first of equals
  EXPECT_EQ(Ev("max(2.0, 2)"), "float 2.0");
  EXPECT_EQ(Ev("min(4)"), "int 4");
  EXPECT_EQ(Ev("max('a', 'b', 'ab')"), "str b");
  EXPECT_EQ(Ev("min(1, 'a')"), "error: min() cannot compare int and str");
  EXPECT_EQ(Ev("max(True, 1)"), "error: max() takes numbers or strings, got bool");
  EXPECT_EQ(Ev("abs(-3)"), "int 3");
  EXPECT_EQ(Ev("abs(-2.5)"), "float 2.5");
  EXPECT_EQ(Ev("abs(s)"), "error: abs() takes a number, got str");
}

TEST(Expr, Conversions) {
  EXPECT_EQ(Ev("int(2.9)"), "int 2");
  EXPECT_EQ(Ev("int(-2.9)"), "int -2");
  EXPECT_EQ(Ev("int('12')"), "int 12");
  EXPECT_EQ(Ev("int(' -7 ')"), "int -7");
  EXPECT_EQ(Ev("int('+7')"), "int 7");
  EXPECT_EQ(Ev("int(True)"), "int 1");
  EXPECT_EQ(Ev("int('abc')"), "error: int() cannot convert 'abc'");
  EXPECT_EQ(Ev("int('2.5')"), "error: int() cannot convert '2.5'");
  EXPECT_EQ(Ev("float(3)"), "float 3.0");
  EXPECT_EQ(Ev("float('2.5')"), "float 2.5");
  EXPECT_EQ(Ev("float('1e3')"), "float 1000.0");
  EXPECT_EQ(Ev("float(False)"), "float 0.0");
  EXPECT_EQ(Ev("float('x')"), "error: float() cannot convert 'x'");
  EXPECT_EQ(Ev("str(2.5)"), "str 2.5");
  EXPECT_EQ(Ev("str(8 / 4)"), "str 2.0");
  EXPECT_EQ(Ev("str(n) + 'x'"), "str 8x");
  EXPECT_EQ(Ev("str(flag)"), "str true");
}

TEST(Expr, WrongArgumentCountsAndUnknownFunctionsFailToParse) {
  EXPECT_EQ(ParseError("ceil(1, 2)"), "ceil() takes 1 argument, got 2 at offset 0");
  EXPECT_EQ(ParseError("n + round(1, 2, 3)"), "round() takes 1 or 2 arguments, got 3 at offset 4");
  EXPECT_EQ(ParseError("min()"), "min() takes at least 1 argument, got 0 at offset 0");
  EXPECT_EQ(ParseError("mn(n, 2)"),
            "unknown function 'mn' at offset 0 (functions: abs, ceil, float, floor, int, "
            "max, min, round, str), did you mean 'min'?");
  EXPECT_NE(ParseError("processor.count(1)").find("unknown function 'processor.count'"), std::string::npos);
  EXPECT_EQ(ParseError("max(1, 2,)"), "parsed");  // a trailing comma, as Python allows
}

TEST(Expr, NamesAreDottedAndInOrderOfFirstUse) {
  EXPECT_EQ(Names("processor.num_cpus * 2 + mesh.nx"), (std::vector<std::string>{"processor.num_cpus", "mesh.nx"}));
  EXPECT_EQ(Names("deps.hello-build.stagedir + '/bin'"), std::vector<std::string>{"deps.hello-build.stagedir"});
  EXPECT_EQ(Names("deps.a - b"), (std::vector<std::string>{"deps.a", "b"}));
  EXPECT_EQ(Names("a-b"), (std::vector<std::string>{"a", "b"}));  // '-' only in a deps. test name
  EXPECT_EQ(Names("x.y-z"), (std::vector<std::string>{"x.y", "z"}));
  EXPECT_EQ(Names("perf['Epoch Length'] / perf[\"Step Time\"]"),
            (std::vector<std::string>{"Epoch Length", "Step Time"}));
  EXPECT_EQ(Names("n + m * n if n > k else m"), (std::vector<std::string>{"n", "m", "k"}));
  EXPECT_EQ(Names("max(1, ceil(n / 4))"), std::vector<std::string>{"n"});
  EXPECT_EQ(Names("1 + 2"), std::vector<std::string>{});
  EXPECT_EQ(Names("perf"), std::vector<std::string>{"perf"});
}

TEST(Expr, NamesEvaluateThroughTheLookup) {
  EXPECT_EQ(Ev("processor.num_cpus // 2"), "int 32");
  EXPECT_EQ(Ev("deps.hello-build.stagedir + '/bin'"), "str /stage/hello/bin");
  EXPECT_EQ(Ev("perf['Epoch Length'] * 2"), "float 3.0");
  EXPECT_EQ(Ev("x * 2"), "float 5.0");
}

TEST(Expr, UnknownNamesSuggestACandidate) {
  EXPECT_EQ(Ev("num_gpu * 2"), "error: unknown name 'num_gpu', did you mean 'num_gpus'?");
  EXPECT_EQ(Ev("zzzzzz + 1"), "error: unknown name 'zzzzzz'");
  Result<Expr> e = Expr::Parse("n + 1");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->Eval(nullptr).status().message(), "unknown name 'n'");
}

TEST(Expr, ParseErrorsSayWhatAndWhere) {
  EXPECT_EQ(ParseError("(1 + 2"), "expected ')' at offset 6");
  EXPECT_EQ(ParseError("min(1 2)"), "expected ')' at offset 6");
  EXPECT_EQ(ParseError("$x"), "unexpected character '$' at offset 0");
  EXPECT_EQ(ParseError("n × 2"), "unexpected character '×' at offset 2");
  EXPECT_EQ(ParseError("a = 1"), "unexpected character '=' at offset 2 (use '==' to compare)");
  EXPECT_EQ(ParseError("1 +"), "expected a value at offset 3");
  EXPECT_EQ(ParseError("* 2"), "expected a value at offset 0");
  EXPECT_EQ(ParseError("1 2"), "unexpected '2' at offset 2");
  EXPECT_EQ(ParseError("n n"), "unexpected 'n' at offset 2");
  EXPECT_EQ(ParseError("'abc"), "unterminated string at offset 0");
  EXPECT_EQ(ParseError("1 if n"), "expected 'else' at offset 6");
  EXPECT_EQ(ParseError("not"), "expected a value at offset 3");
  EXPECT_EQ(ParseError("else"), "expected a value at offset 0");
  EXPECT_EQ(ParseError("1e"), "invalid number at offset 0");
  EXPECT_EQ(ParseError("12345678901234567890"), "integer literal out of range at offset 0");
  EXPECT_EQ(ParseError("x[0]"), "only perf[...] can be subscripted at offset 1");
  EXPECT_EQ(ParseError("perf[1]"), "expected a quoted name at offset 5");
  EXPECT_EQ(ParseError("perf['a'"), "expected ']' at offset 8");
  EXPECT_EQ(ParseError("  "), "empty expression");
  EXPECT_EQ(ParseError("a.b = 1"), "unexpected character '=' at offset 4 (use '==' to compare)");
}

TEST(Expr, DeepNestingIsAnErrorNotACrash) {
  std::string parens = std::string(1000, '(') + "1" + std::string(1000, ')');
  EXPECT_NE(ParseError(parens).find("nested too deeply"), std::string::npos);
  EXPECT_NE(ParseError(std::string(1000, '-') + "1").find("nested too deeply"), std::string::npos);
  std::string sum = "1";
  for (int i = 0; i < 1000; ++i) sum += " + 1";
  EXPECT_NE(ParseError(sum).find("nested too deeply"), std::string::npos);
  EXPECT_EQ(Ev(std::string(50, '(') + "1" + std::string(50, ')')), "int 1");
}

TEST(Expr, LiteralsAndTypes) {
  EXPECT_EQ(Ev("2.5"), "float 2.5");
  EXPECT_EQ(Ev("1e3"), "float 1000.0");
  EXPECT_EQ(Ev(".5"), "float 0.5");
  EXPECT_EQ(Ev("5."), "float 5.0");
  EXPECT_EQ(Ev("1E-2"), "float 0.01");
  EXPECT_EQ(Ev("true"), "bool true");
  EXPECT_EQ(Ev("False"), "bool false");
  EXPECT_EQ(Ev("s"), "str ab");
  EXPECT_EQ(Value().type(), Value::Type::kInt);
  EXPECT_EQ(Value().as_int(), 0);
  EXPECT_EQ(Value::Int(3).as_float(), 3.0);
  EXPECT_TRUE(Value::Float(1).is_number());
  EXPECT_FALSE(Value::Bool(true).is_number());
  EXPECT_FALSE(Value::Str("1").is_number());
  EXPECT_STREQ(TypeName(Value::Type::kBool), "bool");
  EXPECT_NE(Value::Int(1), Value::Float(1.0));
}

TEST(Expr, FormatsFloatsAsPythonsRepr) {
  auto f = [](double d) { return FormatValue(Value::Float(d)); };
  EXPECT_EQ(f(2.5), "2.5");
  EXPECT_EQ(f(2.0), "2.0");
  EXPECT_EQ(f(0.1), "0.1");
  EXPECT_EQ(f(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(f(0.0001), "0.0001");
  EXPECT_EQ(f(1e-05), "1e-05");
  EXPECT_EQ(f(1e+20), "1e+20");
  EXPECT_EQ(f(1e16), "1e+16");
  EXPECT_EQ(f(1.5e16), "1.5e+16");
  EXPECT_EQ(f(9999999999999998.0), "9999999999999998.0");
  EXPECT_EQ(f(123456789.0), "123456789.0");
  EXPECT_EQ(f(5e-324), "5e-324");
  EXPECT_EQ(f(-0.0), "-0.0");
  EXPECT_EQ(f(-1.5), "-1.5");
  EXPECT_EQ(f(INFINITY), "inf");
  EXPECT_EQ(f(-INFINITY), "-inf");
  EXPECT_EQ(f(NAN), "nan");
  EXPECT_EQ(FormatValue(Value::Int(-3)), "-3");
  EXPECT_EQ(FormatValue(Value::Bool(false)), "false");
  EXPECT_EQ(FormatValue(Value::Str("a b")), "a b");
}

TEST(Expr, ReadsYamlScalarsByTheCoreSchema) {
  EXPECT_EQ(ValueFromYamlScalar("4"), Value::Int(4));
  EXPECT_EQ(ValueFromYamlScalar("-2"), Value::Int(-2));
  EXPECT_EQ(ValueFromYamlScalar("+4"), Value::Int(4));
  EXPECT_EQ(ValueFromYamlScalar("007"), Value::Int(7));
  EXPECT_EQ(ValueFromYamlScalar("0x10"), Value::Int(16));
  EXPECT_EQ(ValueFromYamlScalar("0o17"), Value::Int(15));
  EXPECT_EQ(ValueFromYamlScalar("-9223372036854775808"), Value::Int(INT64_MIN));
  EXPECT_EQ(ValueFromYamlScalar("2.5"), Value::Float(2.5));
  EXPECT_EQ(ValueFromYamlScalar("1e3"), Value::Float(1000));
  EXPECT_EQ(ValueFromYamlScalar(".5"), Value::Float(0.5));
  EXPECT_EQ(ValueFromYamlScalar("5."), Value::Float(5));
  EXPECT_EQ(ValueFromYamlScalar("-.5e-1"), Value::Float(-0.05));
  EXPECT_EQ(ValueFromYamlScalar(".inf"), Value::Float(INFINITY));
  EXPECT_EQ(ValueFromYamlScalar("-.Inf"), Value::Float(-INFINITY));
  EXPECT_EQ(ValueFromYamlScalar(".nan"), Value::Float(NAN));
  for (const char* t : {"true", "True", "TRUE"}) EXPECT_EQ(ValueFromYamlScalar(t), Value::Bool(true)) << t;
  for (const char* f : {"false", "False", "FALSE"}) EXPECT_EQ(ValueFromYamlScalar(f), Value::Bool(false)) << f;
  for (const char* s : {"yes", "tRue", "1_000", "0x", "0xg", "0o8", "4 GB", "", ".", "1e", "+-1", "null",
                        "99999999999999999999", "e3", "1.2.3"}) {
    EXPECT_EQ(ValueFromYamlScalar(s), Value::Str(s)) << s;
  }
}

TEST(Expr, CopiesShareTheTreeAndEvaluateConcurrently) {
  Result<Expr> parsed = Expr::Parse("max(1, n // 4) * 2 + processor.num_cpus");
  ASSERT_TRUE(parsed.ok());
  Expr copy = *parsed;
  EXPECT_EQ(&copy.names(), &parsed->names());
  EXPECT_EQ(copy.text(), "max(1, n // 4) * 2 + processor.num_cpus");
  std::vector<std::thread> threads;
  std::vector<int64_t> sums(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 1000; ++i) sums[t] += copy.Eval(Lookup)->as_int();
    });
  }
  for (auto& th : threads) th.join();
  for (int64_t s : sums) EXPECT_EQ(s, 68000);
  EXPECT_EQ(Expr().Eval(Lookup).status().message(), "empty expression");
  EXPECT_TRUE(Expr().names().empty());
}

}  // namespace
}  // namespace hb
