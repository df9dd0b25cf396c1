// The collectives hetbench-comm measures and the arithmetic around them:
// how a swept size becomes element counts, the bandwidth figures, and the
// data each rank sends and expects back. Pure functions, no MPI or CUDA, so
// the formulas are unit-tested against hand-computed cases.
//
// Sizes, counts and bandwidths are exactly nccl-tests' (NVIDIA/nccl-tests):
//  - src/common.cu setupArgs(): the swept size S_sweep (-b/-e) is the
//    larger of the send and receive buffers; count = S_sweep / eltsize and
//    each collective's GetCollByteCount() turns it into the per-rank
//    parameter count (the `count` column);
//  - src/<op>.cu <Op>GetBw(): algbw = S / t with S = paramcount * eltsize,
//    times nranks for AllGather and ReduceScatter (the whole gathered or
//    reduced array); decimal GB/s (1.0E9);
//  - doc/PERFORMANCE.md "Summary": busbw = algbw * factor, factor
//    AllReduce 2(n-1)/n, ReduceScatter (n-1)/n, AllGather (n-1)/n,
//    Broadcast 1.
// `memcpy` is hetbench's own: a rank-local copy of S bytes (factor 1), the
// baseline that a shared-memory or device-local transport cannot beat.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hbcomm {

enum class Op { kAllReduce, kAllGather, kReduceScatter, kBroadcast, kMemcpy };

// "allreduce", "allgather", "reduce_scatter" (also "reducescatter",
// "reduce-scatter"), "broadcast", "memcpy". False for anything else.
bool ParseOp(const std::string& name, Op* op);
const char* OpName(Op op);
// The reduction nccl-tests prints in its `redop` column: "sum" or "none".
const char* RedopName(Op op);

// A byte count with nccl-tests' suffixes: 8, 512K, 64M, 1G (K = 1024).
// False on anything else (and on 0).
bool ParseSize(const std::string& text, uint64_t* bytes);

// The element counts of one collective call on one rank.
struct Counts {
  uint64_t send = 0;   // elements in the send buffer
  uint64_t recv = 0;   // elements in the receive buffer
  uint64_t param = 0;  // the count argument of the call (nccl-tests' paramcount)
};
// nccl-tests' <Op>GetCollByteCount() for a swept size of `bytes`.
Counts CollCounts(Op op, uint64_t bytes, size_t eltsize, int nranks);
// The size column: max(send, recv) * eltsize.
uint64_t TableBytes(const Counts& c, size_t eltsize);

// S in algbw = S / t, in bytes: paramcount * eltsize, times nranks for
// allgather and reduce_scatter.
double AlgBytes(Op op, uint64_t param_count, size_t eltsize, int nranks);
// The busbw correction factor for n ranks.
double BusFactor(Op op, int nranks);
// Decimal GB/s.
double AlgBw(Op op, uint64_t param_count, size_t eltsize, int nranks, double seconds);
double BusBw(Op op, uint64_t param_count, size_t eltsize, int nranks, double seconds);

// The rank whose data a broadcast sends.
constexpr int kRoot = 0;

// What rank `rank` puts in its send buffer at element i: small integers, so
// sums over any number of ranks below 2^17 are exact in float whatever the
// order of additions.
float SendValue(int rank, uint64_t i);
// The send buffer of `rank` for one call.
std::vector<float> SendData(Op op, const Counts& c, int rank);
// What `rank`'s receive buffer holds before the call: a value no send
// buffer holds (-1), except for a broadcast's root, whose receive buffer
// already holds its data (an MPI broadcast is in place).
std::vector<float> RecvInit(Op op, const Counts& c, int rank);
// What `rank`'s receive buffer must hold after the call.
std::vector<float> ExpectedData(Op op, const Counts& c, int rank, int nranks);
// Elements of `got` (the first `expected.size()`) that differ from
// `expected`; a short `got` counts its missing elements as wrong.
uint64_t CountWrong(const std::vector<float>& got, const std::vector<float>& expected);

}  // namespace hbcomm
