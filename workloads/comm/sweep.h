// The message-size sweep of hetbench-comm, as nccl-tests runs it (out of
// place only): for each size, warm-up calls, then `iters` calls timed
// together; then one more call on fresh data whose result is checked.
// Rank 0 prints an nccl-tests-like table and the summary lines that the
// test files parse:
//
//   busbw_max: 11.5 GB/s
//   algbw_max: 5.75 GB/s
//   errors: 0
//   avg_busbw: 4.2 GB/s
//
// time is the mean over iterations, then the maximum over ranks (the
// slowest rank bounds a collective; nccl-tests' `-a 3`).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "comm/backend.h"
#include "comm/collective.h"

namespace hbcomm {

struct SweepOptions {
  Op op = Op::kAllReduce;
  uint64_t min_bytes = 8, max_bytes = 64ull << 20;
  uint64_t factor = 2;  // each size is the previous one times this (>= 2)
  int iters = 20, warmup = 5;
  std::string program = "hetbench-comm";
};

// One row of the table.
struct SizeResult {
  Counts counts;
  double seconds = 0;  // per call, max over ranks
  double algbw = 0, busbw = 0;
  uint64_t wrong = 0;  // summed over ranks
};

// Runs the sweep on every rank; rank 0 writes to `out`. Returns the exit
// status: 0, or 1 when any element was wrong or the backend failed (with a
// message on stderr).
int RunSweep(Backend& backend, const SweepOptions& opt, FILE* out);

}  // namespace hbcomm
