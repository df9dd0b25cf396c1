// hetbench-io: a data-loading benchmark in the manner of Argonne's DLIO.
// It reads a dataset in one of the formats of hbw_data through the Loader
// (reader threads, prefetch), emulates each training step's computation by
// sleeping --compute-time seconds, and reports throughput, bandwidth, I/O
// wait and DLIO's accelerator utilisation (see au.h).
#include <cstring>
#include <memory>
#include <thread>

#include "common/bench_util.h"
#include "data/dataset.h"
#include "io/au.h"
#include "io/comm.h"

namespace hbw::io {
namespace {

struct Options {
  data::Format format;
  data::SampleSpec spec;
  std::string dir;
  bool generate, decode;
  size_t samples, files, batch_size, epochs, exclude_start, exclude_end;
  int readers, prefetch;
  double compute_time;
  uint64_t seed, shuffle_seed;
  bool mpi;
};

// One rank's totals over all epochs.
struct RunTotals {
  size_t samples = 0, bytes = 0;
  double seconds = 0, io_wait = 0;
  std::vector<double> au;  // per epoch
};

// `--generate` alone (no value) means `--generate 1`.
std::vector<char*> BareGenerate(int argc, char** argv) {
  static char one[] = "--generate=1";
  std::vector<char*> args(argv, argv + argc);
  for (size_t i = 1; i < args.size(); ++i) {
    bool bare =
        std::strcmp(args[i], "--generate") == 0 && (i + 1 == args.size() || std::strncmp(args[i + 1], "--", 2) == 0);
    if (bare) args[i] = one;
  }
  return args;
}

std::vector<int64_t> ParseShape(const Flags& flags) {
  std::vector<int64_t> shape;
  for (const std::string& s : flags.List("sample-shape")) {
    char* end = nullptr;
    long long v = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || *end) flags.Fail("--sample-shape: expected numbers like 3,224,224, got '" + s + "'");
    shape.push_back(v);
  }
  return shape;
}

size_t Positive(const Flags& flags, const std::string& name, long min) {
  long v = flags.Int(name);
  if (v < min) flags.Fail("--" + name + " must be at least " + std::to_string(min));
  return static_cast<size_t>(v);
}

Options ParseOptions(Flags& flags, int argc, char** argv) {
  flags.Add("format", "tfrecord", "synthetic, jpeg, tfrecord, tfrecord-gz, hdf5 or lmdb")
      .Add("layout", "imagenet", "what a sample is: imagenet, deepcam or cosmoflow")
      .Add("dir", "", "dataset folder, on the file system under test (not needed for synthetic)")
      .Add("generate", "0", "1: write the dataset into --dir first")
      .Add("samples", "1024", "samples to generate (with --generate, and for synthetic)")
      .Add("files", "1", "files to spread them over: many small or few packed")
      .Add("sample-shape", "", "C,H,W or C,D,H,W as returned (default: the real workload's)")
      .Add("batch-size", "32", "samples per step")
      .Add("readers", "4", "reader threads")
      .Add("prefetch", "2", "batches read ahead (0: read only when the step waits)")
      .Add("epochs", "1", "passes over the dataset")
      .Add("compute-time", "0", "emulated computation per step, seconds (DLIO's computation_time)")
      .Add("decode", "1", "0: read and check records but do not decode them")
      .Add("shuffle-seed", "0", "shuffle samples each epoch from this seed (0: in order)")
      .Add("seed", "1", "seed of the generated data")
      .Add("exclude-start-steps", "1", "steps left out of AU at the start of each epoch (DLIO's default 1)")
      .Add("exclude-end-steps", "0", "steps left out of AU at the end of each epoch")
      .Add("mpi", "0", "1: run as MPI ranks (under mpirun), each reading its shard");
  std::vector<char*> args = BareGenerate(argc, argv);
  flags.Parse(static_cast<int>(args.size()), args.data());
  Options o;
  if (!data::ParseFormat(flags.Str("format"), &o.format))
    flags.Fail("--format: unknown format '" + flags.Str("format") + "'");
  if (auto e = data::MakeSpec(flags.Str("layout"), ParseShape(flags), &o.spec)) flags.Fail(e->message);
  o.dir = flags.Str("dir");
  if (o.dir.empty() && o.format != data::Format::kSynthetic)
    flags.Fail("--dir is needed for --format " + flags.Str("format"));
  o.generate = flags.Int("generate") != 0;
  o.decode = flags.Int("decode") != 0;
  o.samples = Positive(flags, "samples", 1);
  o.files = Positive(flags, "files", 1);
  o.batch_size = Positive(flags, "batch-size", 1);
  o.readers = static_cast<int>(Positive(flags, "readers", 1));
  o.prefetch = static_cast<int>(Positive(flags, "prefetch", 0));
  o.epochs = Positive(flags, "epochs", 1);
  o.compute_time = flags.Num("compute-time");
  if (o.compute_time < 0) flags.Fail("--compute-time must not be negative");
  o.seed = static_cast<uint64_t>(flags.Int("seed"));
  o.shuffle_seed = static_cast<uint64_t>(flags.Int("shuffle-seed"));
  o.exclude_start = Positive(flags, "exclude-start-steps", 0);
  o.exclude_end = Positive(flags, "exclude-end-steps", 0);
  o.mpi = flags.Int("mpi") != 0;
  return o;
}

[[noreturn]] void Die(Comm* comm, const std::string& msg, int code) {
  std::fprintf(stderr, "hetbench-io: error: %s\n", msg.c_str());
  comm->Abort(code);
  std::exit(code);  // not reached
}

std::unique_ptr<data::Reader> Open(const Options& o, Comm* comm) {
  if (o.format == data::Format::kSynthetic) return data::OpenSynthetic(o.spec, o.samples, o.seed);
  auto r = data::OpenDataset(o.dir, o.format, o.spec, data::ReadOptions{o.decode});
  if (auto* e = std::get_if<data::Error>(&r)) Die(comm, e->message, 2);
  return std::move(std::get<0>(r));
}

// One epoch: a step is load (wait for the next batch) then compute.
void RunEpoch(const Options& o, size_t epoch, data::Reader* reader, std::unique_ptr<data::Loader>* loader, Comm* comm,
              RunTotals* totals) {
  size_t bytes0 = reader->bytes_read(), samples = 0;
  double start = Now(), waits = 0;
  if (!*loader)
    loader->reset(new data::Loader(reader, o.batch_size, o.readers, o.prefetch, o.shuffle_seed,
                                   static_cast<size_t>(comm->rank()), static_cast<size_t>(comm->size())));
  else
    (*loader)->NewEpoch();
  EpochTimes times;
  for (size_t step = 0; step < (*loader)->batches_per_epoch(); ++step) {
    double t0 = Now(), wait = 0;
    auto batch = (*loader)->Next(&wait);
    if (auto* e = std::get_if<data::Error>(&batch)) Die(comm, e->message, 2);
    double t1 = Now();
    if (o.compute_time > 0) std::this_thread::sleep_for(std::chrono::duration<double>(o.compute_time));
    double t2 = o.compute_time > 0 ? Now() : t1;
    times.compute.push_back(t2 - t1);
    times.proc.push_back(t2 - t0);
    samples += std::get<data::Batch>(batch).size;
    waits += wait;
    (*loader)->Recycle(std::move(std::get<data::Batch>(batch)));
  }
  times.seconds = Now() - start;
  double au = AcceleratorUtilization(times, o.exclude_start, o.exclude_end);
  totals->au.push_back(comm->Sum(au) / comm->size());
  totals->samples += samples;
  totals->bytes += reader->bytes_read() - bytes0;
  totals->seconds += times.seconds;
  totals->io_wait += waits;
  if (comm->rank() == 0)
    std::printf("epoch %zu: %zu steps, %zu samples in %.3f s, AU %.2f %%, I/O wait %.3f s (rank 0)\n", epoch + 1,
                times.compute.size(), samples, times.seconds, totals->au.back(), waits);
}

void Report(const RunTotals& t, Comm* comm) {
  // Rates add up over ranks, each rank's over its own time.
  double rate = comm->Sum(t.seconds > 0 ? double(t.samples) / t.seconds : 0);
  double bandwidth = comm->Sum(t.seconds > 0 ? double(t.bytes) / t.seconds : 0) / (1024.0 * 1024.0);
  double read_total = comm->Sum(double(t.bytes)) / (1024.0 * 1024.0);
  double io_wait = comm->Sum(t.io_wait) / comm->size();
  if (comm->rank() != 0) return;
  Result("read_total", read_total, "MiB");
  Result("samples_per_second", rate, "samples/s");
  Result("bandwidth", bandwidth, "MiB/s");
  Result("au", Mean(t.au), "%");
  Result("io_wait_total", io_wait, "s");
}

int Main(int argc, char** argv) {
  Flags flags("hetbench-io",
              "Data-loading benchmark in the manner of DLIO: reads a dataset through reader threads "
              "and prefetch, emulating compute per step.");
  Options o = ParseOptions(flags, argc, argv);
  std::string err;
  std::unique_ptr<Comm> comm = MakeComm(o.mpi, &argc, &argv, &err);
  if (!comm) flags.Fail(err);
  if (o.generate && o.format != data::Format::kSynthetic) {
    double t0 = Now();
    if (comm->rank() == 0)
      if (auto e = data::GenerateDataset(o.dir, o.format, o.spec, o.samples, o.files, o.seed))
        Die(comm.get(), e->message, 2);
    comm->Barrier();
    if (comm->rank() == 0) Result("generate_time", Now() - t0, "s");
  }
  std::unique_ptr<data::Reader> reader = Open(o, comm.get());
  if (comm->rank() == 0)
    std::printf("hetbench-io: %s %s, %zu samples, batch %zu, %d readers, prefetch %d, %d rank(s), compute %g s/step\n",
                data::FormatName(o.format).c_str(), o.spec.layout.c_str(), reader->size(), o.batch_size, o.readers,
                o.prefetch, comm->size(), o.compute_time);
  RunTotals totals;
  std::unique_ptr<data::Loader> loader;
  for (size_t e = 0; e < o.epochs; ++e) RunEpoch(o, e, reader.get(), &loader, comm.get(), &totals);
  loader.reset();
  Report(totals, comm.get());
  return 0;
}

}  // namespace
}  // namespace hbw::io

int main(int argc, char** argv) { return hbw::io::Main(argc, argv); }
