// The parsed form of an Expr (expr.h), shared by its parser (expr.cc) and
// its evaluator (expr_eval.cc); not for use outside the two. Immutable
// once Expr::Parse returns it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/expr.h"

namespace hb {
namespace expr_detail {

enum class BinOp : uint8_t { kAdd, kSub, kMul, kDiv, kFloorDiv, kMod, kPow };
enum class CmpOp : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe };
enum class Fn : uint8_t { kAbs, kCeil, kFloat, kFloor, kInt, kMax, kMin, kRound, kStr };

// The functions, in Fn's order. The parser checks the argument counts.
struct FnSpec {
  const char* name;
  uint32_t min_args, max_args;
};
inline constexpr uint32_t kManyArgs = 0xffffffff;
inline constexpr FnSpec kFns[] = {
    {"abs", 1, 1},         {"ceil", 1, 1},        {"float", 1, 1}, {"floor", 1, 1}, {"int", 1, 1},
    {"max", 1, kManyArgs}, {"min", 1, kManyArgs}, {"round", 1, 2}, {"str", 1, 1},
};
inline const char* FnName(Fn fn) { return kFns[static_cast<int>(fn)].name; }

}  // namespace expr_detail

// The tree as a flat array: children are indices into `nodes`. A
// comparison chain lists operand, op, operand, op, operand... in `lists`
// (`1 < n <= 8`: 1, kLt, n, kLe, 8); a call lists its arguments there.
struct Expr::Program {
  enum class Op : uint8_t { kConst, kName, kNeg, kPos, kNot, kAnd, kOr, kIf, kBin, kCompare, kCall };
  struct Node {
    Op op = Op::kConst;
    uint8_t sub = 0;                 // the BinOp of kBin, the Fn of kCall
    int32_t a = -1, b = -1, c = -1;  // operands; kIf: a ? b : c
    uint32_t idx = 0;                // into consts, names or lists
    uint32_t n = 0;                  // items in lists
  };
  std::string text;
  std::vector<Node> nodes;
  std::vector<Value> consts;
  std::vector<std::string> names;
  std::vector<int32_t> lists;
  int32_t root = -1;
};

}  // namespace hb
