#include "comm/collective.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace hbcomm {

bool ParseOp(const std::string& name, Op* op) {
  if (name == "allreduce")
    *op = Op::kAllReduce;
  else if (name == "allgather")
    *op = Op::kAllGather;
  else if (name == "reduce_scatter" || name == "reducescatter" || name == "reduce-scatter")
    *op = Op::kReduceScatter;
  else if (name == "broadcast")
    *op = Op::kBroadcast;
  else if (name == "memcpy")
    *op = Op::kMemcpy;
  else
    return false;
  return true;
}

const char* OpName(Op op) {
  switch (op) {
    case Op::kAllReduce:
      return "allreduce";
    case Op::kAllGather:
      return "allgather";
    case Op::kReduceScatter:
      return "reduce_scatter";
    case Op::kBroadcast:
      return "broadcast";
    case Op::kMemcpy:
      return "memcpy";
  }
  return "?";
}

const char* RedopName(Op op) { return op == Op::kAllReduce || op == Op::kReduceScatter ? "sum" : "none"; }

// nccl-tests' parsesize() (src/util.cu): a number, then K, M or G for
// powers of 1024.
bool ParseSize(const std::string& text, uint64_t* bytes) {
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return false;
  char* end = nullptr;
  unsigned long long n = std::strtoull(text.c_str(), &end, 10);
  std::string suffix(end);
  uint64_t unit = 1;
  if (suffix == "K" || suffix == "k")
    unit = 1ull << 10;
  else if (suffix == "M" || suffix == "m")
    unit = 1ull << 20;
  else if (suffix == "G" || suffix == "g")
    unit = 1ull << 30;
  else if (!suffix.empty())
    return false;
  if (n == 0) return false;
  *bytes = n * unit;
  return true;
}

// src/all_reduce.cu, all_gather.cu, reduce_scatter.cu, broadcast.cu:
// <Op>GetCollByteCount(count = bytes / eltsize, nranks).
Counts CollCounts(Op op, uint64_t bytes, size_t eltsize, int nranks) {
  uint64_t count = bytes / eltsize;
  uint64_t n = static_cast<uint64_t>(nranks);
  Counts c;
  switch (op) {
    case Op::kAllGather:
      c.send = count / n;
      c.recv = (count / n) * n;
      c.param = c.send;
      break;
    case Op::kReduceScatter:
      c.send = (count / n) * n;
      c.recv = count / n;
      c.param = c.recv;
      break;
    default:
      c.send = c.recv = c.param = count;
  }
  return c;
}

uint64_t TableBytes(const Counts& c, size_t eltsize) { return std::max(c.send, c.recv) * eltsize; }

double AlgBytes(Op op, uint64_t param_count, size_t eltsize, int nranks) {
  double s = static_cast<double>(param_count) * static_cast<double>(eltsize);
  if (op == Op::kAllGather || op == Op::kReduceScatter) s *= nranks;
  return s;
}

// nccl-tests doc/PERFORMANCE.md, "Summary".
double BusFactor(Op op, int nranks) {
  double n = nranks;
  switch (op) {
    case Op::kAllReduce:
      return 2.0 * (n - 1) / n;
    case Op::kAllGather:
    case Op::kReduceScatter:
      return (n - 1) / n;
    case Op::kBroadcast:
    case Op::kMemcpy:
      return 1.0;
  }
  return 1.0;
}

double AlgBw(Op op, uint64_t param_count, size_t eltsize, int nranks, double seconds) {
  return AlgBytes(op, param_count, eltsize, nranks) / 1.0E9 / seconds;
}

double BusBw(Op op, uint64_t param_count, size_t eltsize, int nranks, double seconds) {
  return AlgBw(op, param_count, eltsize, nranks, seconds) * BusFactor(op, nranks);
}

float SendValue(int rank, uint64_t i) {
  return static_cast<float>((i * 7 + static_cast<uint64_t>(rank) * 13) % 61 + 1);
}

std::vector<float> SendData(Op op, const Counts& c, int rank) {
  std::vector<float> v(c.send);
  for (uint64_t i = 0; i < c.send; ++i) v[i] = SendValue(rank, i);
  return v;
}

std::vector<float> RecvInit(Op op, const Counts& c, int rank) {
  if (op == Op::kBroadcast && rank == kRoot) return SendData(op, c, rank);
  return std::vector<float>(c.recv, -1.0f);
}

std::vector<float> ExpectedData(Op op, const Counts& c, int rank, int nranks) {
  std::vector<float> v(c.recv);
  for (uint64_t i = 0; i < c.recv; ++i) {
    switch (op) {
      case Op::kAllReduce:
        v[i] = 0;
        for (int r = 0; r < nranks; ++r) v[i] += SendValue(r, i);
        break;
      case Op::kAllGather:
        v[i] = SendValue(static_cast<int>(i / c.param), i % c.param);
        break;
      case Op::kReduceScatter:
        v[i] = 0;
        for (int r = 0; r < nranks; ++r) v[i] += SendValue(r, rank * c.param + i);
        break;
      case Op::kBroadcast:
        v[i] = SendValue(kRoot, i);
        break;
      case Op::kMemcpy:
        v[i] = SendValue(rank, i);
        break;
    }
  }
  return v;
}

uint64_t CountWrong(const std::vector<float>& got, const std::vector<float>& expected) {
  uint64_t wrong = 0;
  for (size_t i = 0; i < expected.size(); ++i)
    if (i >= got.size() || got[i] != expected[i]) ++wrong;
  return wrong;
}

}  // namespace hbcomm
