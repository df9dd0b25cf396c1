#include "comm/sweep.h"

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "common/bench_util.h"

namespace hbcomm {

namespace {

constexpr size_t kEltSize = sizeof(float);

// A backend failure on one rank: say so and end all ranks, which may be
// waiting for this one in a collective.
[[noreturn]] void Die(Backend& b, const SweepOptions& opt, const std::string& err) {
  std::fprintf(stderr, "%s: error: rank %d: %s\n", opt.program.c_str(), b.rank(), err.c_str());
  std::fflush(stderr);
  b.Abort(1);
  std::abort();  // not reached
}

// One size: warm up, time `iters` calls, then check one call on fresh data.
SizeResult MeasureSize(Backend& b, const SweepOptions& opt, const Counts& c) {
  std::string err;
  Op op = opt.op;
  SizeResult r;
  r.counts = c;
  std::vector<float> send = SendData(op, c, b.rank());
  if (!b.Upload(send, RecvInit(op, c, b.rank()), &err)) Die(b, opt, err);
  for (int i = 0; i < opt.warmup; ++i)
    if (!b.Start(op, c, &err)) Die(b, opt, err);
  if (!b.Wait(&err)) Die(b, opt, err);

  b.Barrier();
  double t0 = hbw::Now();
  for (int i = 0; i < opt.iters; ++i)
    if (!b.Start(op, c, &err)) Die(b, opt, err);
  if (!b.Wait(&err)) Die(b, opt, err);
  double mine = (hbw::Now() - t0) / opt.iters;
  r.seconds = b.MaxOverRanks(mine);
  r.algbw = AlgBw(op, c.param, kEltSize, b.nranks(), r.seconds);
  r.busbw = BusBw(op, c.param, kEltSize, b.nranks(), r.seconds);

  std::vector<float> got;
  if (!b.Upload(send, RecvInit(op, c, b.rank()), &err) || !b.Start(op, c, &err) || !b.Wait(&err) ||
      !b.Download(c.recv, &got, &err))
    Die(b, opt, err);
  r.wrong = b.SumOverRanks(CountWrong(got, ExpectedData(op, c, b.rank(), b.nranks())));
  return r;
}

void PrintHeader(Backend& b, const SweepOptions& opt, FILE* out) {
  std::fprintf(out, "# %s: %s over %s (%s), %d ranks, dtype float\n", opt.program.c_str(), OpName(opt.op),
               b.name().c_str(), b.Describe().c_str(), b.nranks());
  std::fprintf(
      out, "# sizes %llu to %llu bytes (x%llu), %d iterations after %d warm-up; time: mean per call, max over ranks\n",
      static_cast<unsigned long long>(opt.min_bytes), static_cast<unsigned long long>(opt.max_bytes),
      static_cast<unsigned long long>(opt.factor), opt.iters, opt.warmup);
  std::fprintf(out, "#\n");
  std::fprintf(out, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s\n", "size", "count", "type", "redop", "root",
               "time", "algbw", "busbw", "#wrong");
  std::fprintf(out, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s\n", "(B)", "(elements)", "", "", "", "(us)",
               "(GB/s)", "(GB/s)", "");
}

// nccl-tests' BenchTime(): the time column has fewer decimals as it grows.
void PrintRow(const SweepOptions& opt, const SizeResult& r, FILE* out) {
  double us = r.seconds * 1.0E6;
  char time[32];
  std::snprintf(time, sizeof time, us >= 10000.0 ? "%7.0f" : us >= 100.0 ? "%7.1f" : "%7.2f", us);
  std::fprintf(out, "%12llu  %12llu  %8s  %6s  %6d  %7s  %6.2f  %6.2f  %6llu\n",
               static_cast<unsigned long long>(TableBytes(r.counts, kEltSize)),
               static_cast<unsigned long long>(r.counts.param), "float", RedopName(opt.op),
               opt.op == Op::kBroadcast ? kRoot : -1, time, r.algbw, r.busbw, static_cast<unsigned long long>(r.wrong));
  std::fflush(out);
}

void PrintSummary(const std::vector<SizeResult>& rows, FILE* out) {
  double busbw_max = 0, algbw_max = 0, busbw_sum = 0;
  uint64_t errors = 0;
  for (const SizeResult& r : rows) {
    busbw_max = std::max(busbw_max, r.busbw);
    algbw_max = std::max(algbw_max, r.algbw);
    busbw_sum += r.busbw;
    errors += r.wrong;
  }
  double avg = rows.empty() ? 0 : busbw_sum / static_cast<double>(rows.size());
  std::fprintf(out, "# Out of bounds values : %llu %s\n", static_cast<unsigned long long>(errors),
               errors ? "FAILED" : "OK");
  std::fprintf(out, "# Avg bus bandwidth    : %g\n#\n", avg);
  // The `name: value unit` lines of bench_util.h, on `out`.
  std::fprintf(out, "busbw_max: %.6g GB/s\n", busbw_max);
  std::fprintf(out, "algbw_max: %.6g GB/s\n", algbw_max);
  std::fprintf(out, "errors: %llu\n", static_cast<unsigned long long>(errors));
  std::fprintf(out, "avg_busbw: %.6g GB/s\n", avg);
}

}  // namespace

int RunSweep(Backend& b, const SweepOptions& opt, FILE* out) {
  bool root = b.rank() == 0;
  if (root) PrintHeader(b, opt, out);
  std::vector<SizeResult> rows;
  for (uint64_t bytes = opt.min_bytes; bytes <= opt.max_bytes;
       bytes = bytes > opt.max_bytes / opt.factor ? opt.max_bytes + 1 : bytes * opt.factor) {
    Counts c = CollCounts(opt.op, bytes, kEltSize, b.nranks());
    if (c.param == 0) {
      if (root)
        std::fprintf(out, "# %llu bytes: less than one element per rank, skipped\n",
                     static_cast<unsigned long long>(bytes));
      continue;
    }
    rows.push_back(MeasureSize(b, opt, c));
    if (root) PrintRow(opt, rows.back(), out);
  }
  if (rows.empty()) {
    if (root)
      std::fprintf(stderr, "%s: error: no size in --min-bytes..--max-bytes holds one element per rank\n",
                   opt.program.c_str());
    return 2;
  }
  if (root) PrintSummary(rows, out);
  std::fflush(out);
  for (const SizeResult& r : rows)
    if (r.wrong) return 1;
  return 0;
}

}  // namespace hbcomm
