// Loader: worker threads claim samples in epoch order, at most `prefetch`
// batches ahead of the consumer, read them and copy them into their batch;
// Next() hands batches out in order.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "data/dataset.h"

namespace hbw::data {
namespace {

double Seconds() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// A batch being filled. Workers copy into disjoint parts of it outside the
// lock; `remaining` and `error` change under the Loader's lock.
struct Slot {
  std::once_flag alloc;
  Batch batch;
  size_t sample_elems = 0, target_elems = 0;
  size_t remaining = 0;
  std::optional<Error> error;
};

}  // namespace

struct Loader::Impl {
  Reader* reader;
  size_t batch_size;
  int prefetch;
  uint64_t seed;
  std::vector<size_t> shard;  // this rank's indices, in order
  std::vector<size_t> order;  // this epoch's order
  size_t batches = 0;

  std::mutex mu;
  std::condition_variable work_cv, ready_cv;
  uint64_t epoch = 0;    // bumped by NewEpoch; stale results are dropped
  size_t next_pos = 0;   // next position in `order` to claim
  size_t consumed = 0;   // batches handed out this epoch
  bool waiting = false;  // the consumer is blocked in Next()
  bool stop = false;
  std::map<size_t, std::shared_ptr<Slot>> slots;
  std::vector<Batch> pool;  // recycled batches
  std::vector<std::thread> threads;

  size_t BatchLen(size_t b) const { return std::min(batch_size, order.size() - b * batch_size); }

  // With prefetch 0 workers load only while the consumer waits.
  bool Claimable() const {
    size_t window = prefetch > 0 ? static_cast<size_t>(prefetch) : (waiting ? 1 : 0);
    return next_pos < order.size() && next_pos / batch_size < consumed + window;
  }

  void Shuffle() {
    order = shard;
    if (seed == 0) return;
    std::mt19937_64 rng(seed + epoch * 0x9e3779b97f4a7c15ull);
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
  }

  void Work() {
    Sample sample;  // reused: its buffers keep their size from read to read
    std::unique_lock<std::mutex> lock(mu);
    while (true) {
      work_cv.wait(lock, [&] { return stop || Claimable(); });
      if (stop) return;
      size_t pos = next_pos++, b = pos / batch_size, index = order[pos], len = BatchLen(b);
      uint64_t my_epoch = epoch;
      std::shared_ptr<Slot>& entry = slots[b];
      if (!entry) {
        entry = std::make_shared<Slot>();
        entry->remaining = len;
      }
      std::shared_ptr<Slot> slot = entry;
      lock.unlock();
      std::optional<Error> err = reader->ReadInto(index, &sample);
      if (!err) err = Fill(slot.get(), len, pos % batch_size, sample, index);
      lock.lock();
      if (my_epoch != epoch) continue;
      if (err && !slot->error) slot->error = std::move(err);
      if (--slot->remaining == 0) ready_cv.notify_all();
    }
  }

  // Copies a sample into its place in the batch (outside the lock); the
  // first sample in sizes the batch, from a recycled one when there is one.
  std::optional<Error> Fill(Slot* slot, size_t len, size_t at, const Sample& s, size_t index) {
    std::call_once(slot->alloc, [&] {
      {
        std::lock_guard<std::mutex> lock(mu);
        if (!pool.empty()) {
          slot->batch = std::move(pool.back());
          pool.pop_back();
        }
      }
      slot->sample_elems = s.data.size();
      slot->target_elems = s.target.size();
      slot->batch.data.resize(len * s.data.size());
      slot->batch.target.resize(len * s.target.size());
    });
    if (s.data.size() != slot->sample_elems || s.target.size() != slot->target_elems)
      return Error{"sample " + std::to_string(index) + " has " + std::to_string(s.data.size()) + "+" +
                   std::to_string(s.target.size()) + " values, its batch " + std::to_string(slot->sample_elems) + "+" +
                   std::to_string(slot->target_elems)};
    std::memcpy(slot->batch.data.data() + at * s.data.size(), s.data.data(), s.data.size() * sizeof(float));
    std::memcpy(slot->batch.target.data() + at * s.target.size(), s.target.data(), s.target.size() * sizeof(float));
    return std::nullopt;
  }
};

Loader::Loader(Reader* r, size_t batch_size, int workers, int prefetch, uint64_t shuffle_seed, size_t rank,
               size_t world)
    : impl_(new Impl) {
  Impl& m = *impl_;
  m.reader = r;
  m.batch_size = std::max<size_t>(batch_size, 1);
  m.prefetch = std::max(prefetch, 0);
  m.seed = shuffle_seed;
  world = std::max<size_t>(world, 1);
  for (size_t i = rank; i < r->size(); i += world) m.shard.push_back(i);
  m.batches = (m.shard.size() + m.batch_size - 1) / m.batch_size;
  m.Shuffle();
  for (int i = 0; i < std::max(workers, 1); ++i) m.threads.emplace_back([this] { impl_->Work(); });
}

Loader::~Loader() {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->stop = true;
  }
  impl_->work_cv.notify_all();
  for (auto& t : impl_->threads) t.join();
}

size_t Loader::batches_per_epoch() const { return impl_->batches; }

std::variant<Batch, Error> Loader::Next(double* wait_seconds) {
  Impl& m = *impl_;
  double start = Seconds();
  std::unique_lock<std::mutex> lock(m.mu);
  if (m.consumed >= m.batches) {
    if (wait_seconds) *wait_seconds = 0;
    return Batch{};
  }
  m.waiting = true;
  m.work_cv.notify_all();
  m.ready_cv.wait(lock, [&] {
    auto it = m.slots.find(m.consumed);
    return it != m.slots.end() && it->second->remaining == 0;
  });
  m.waiting = false;
  std::shared_ptr<Slot> slot = std::move(m.slots[m.consumed]);
  m.slots.erase(m.consumed);
  size_t len = m.BatchLen(m.consumed++);
  lock.unlock();
  m.work_cv.notify_all();
  if (wait_seconds) *wait_seconds = Seconds() - start;
  if (slot->error) return *slot->error;
  Batch b = std::move(slot->batch);
  b.size = len;
  return b;
}

void Loader::Recycle(Batch&& batch) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (impl_->pool.size() < static_cast<size_t>(impl_->prefetch) + 1) impl_->pool.push_back(std::move(batch));
}

void Loader::NewEpoch() {
  Impl& m = *impl_;
  {
    std::lock_guard<std::mutex> lock(m.mu);
    ++m.epoch;
    m.slots.clear();
    m.next_pos = 0;
    m.consumed = 0;
    m.Shuffle();
  }
  m.work_cv.notify_all();
}

}  // namespace hbw::data
