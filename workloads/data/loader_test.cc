// Tests of the Loader: every sample once per epoch across workers and
// shards, in a new order each epoch, waits reported, errors passed on.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <thread>

#include "data/dataset.h"

namespace hbw::data {
namespace {

// Sample i is {i, 2i} with target {i}; reads take `delay`; index `bad` fails.
class FakeReader : public Reader {
 public:
  FakeReader(size_t n, std::chrono::microseconds delay = {}, size_t bad = SIZE_MAX) : n_(n), delay_(delay), bad_(bad) {}
  size_t size() const override { return n_; }
  size_t bytes_read() const override { return reads_ * 8; }
  std::variant<Sample, Error> Read(size_t i) override {
    ++reads_;
    if (delay_.count()) std::this_thread::sleep_for(delay_);
    if (i == bad_) return Error{"fake: record " + std::to_string(i) + ": bad"};
    return Sample{{float(i), float(2 * i)}, {float(i)}};
  }
  size_t reads() const { return reads_; }

 private:
  size_t n_;
  std::chrono::microseconds delay_;
  size_t bad_;
  std::atomic<size_t> reads_{0};
};

// Every target of one epoch, checking each batch's layout on the way, and
// giving the batches back for reuse when `recycle`.
std::vector<size_t> Epoch(Loader* loader, size_t batch_size, double* waited = nullptr, bool recycle = false) {
  std::vector<size_t> seen;
  for (size_t b = 0; b < loader->batches_per_epoch(); ++b) {
    double wait = -1;
    auto r = loader->Next(&wait);
    EXPECT_EQ(r.index(), 0u);
    EXPECT_GE(wait, 0);
    if (waited) *waited += wait;
    Batch& batch = std::get<Batch>(r);
    EXPECT_LE(batch.size, batch_size);
    EXPECT_EQ(batch.data.size(), 2 * batch.size);
    EXPECT_EQ(batch.target.size(), batch.size);
    for (size_t k = 0; k < batch.size; ++k) {
      size_t i = size_t(batch.target[k]);
      EXPECT_EQ(batch.data[2 * k], float(i));
      EXPECT_EQ(batch.data[2 * k + 1], float(2 * i));
      seen.push_back(i);
    }
    if (recycle) loader->Recycle(std::move(batch));
  }
  double wait;
  auto end = loader->Next(&wait);
  EXPECT_EQ(std::get<Batch>(end).size, 0u);  // the epoch is over
  return seen;
}

TEST(LoaderTest, EverySampleOncePerEpochAcrossShards) {
  const size_t n = 103, world = 3, batch = 8;
  FakeReader reader(n);
  for (int workers : {1, 4}) {
    for (int epoch = 0; epoch < 2; ++epoch) {
      std::multiset<size_t> all;
      for (size_t rank = 0; rank < world; ++rank) {
        Loader loader(&reader, batch, workers, 2, 7, rank, world);
        bool recycle = workers > 1;
        if (epoch) {
          Epoch(&loader, batch, nullptr, recycle);
          loader.NewEpoch();
        }
        for (size_t i : Epoch(&loader, batch, nullptr, recycle)) {
          EXPECT_EQ(i % world, rank);
          all.insert(i);
        }
      }
      ASSERT_EQ(all.size(), n);
      for (size_t i = 0; i < n; ++i) EXPECT_EQ(all.count(i), 1u) << i;
    }
  }
}

TEST(LoaderTest, ShufflesPerEpochAndKeepsOrderWithoutSeed) {
  FakeReader reader(50);
  Loader ordered(&reader, 7, 3, 3, 0);
  std::vector<size_t> in_order(50);
  for (size_t i = 0; i < 50; ++i) in_order[i] = i;
  EXPECT_EQ(Epoch(&ordered, 7), in_order);
  Loader shuffled(&reader, 7, 3, 3, 42);
  std::vector<size_t> first = Epoch(&shuffled, 7);
  shuffled.NewEpoch();
  std::vector<size_t> second = Epoch(&shuffled, 7);
  EXPECT_NE(first, in_order);
  EXPECT_NE(first, second);
  EXPECT_EQ(std::set<size_t>(first.begin(), first.end()).size(), 50u);
  EXPECT_EQ(std::set<size_t>(second.begin(), second.end()).size(), 50u);
}

TEST(LoaderTest, ReportsWaitsForSlowReads) {
  FakeReader reader(12, std::chrono::milliseconds(5));
  Loader loader(&reader, 4, 1, 0, 0);  // no prefetch: every batch is waited for
  double waited = 0;
  Epoch(&loader, 4, &waited);
  EXPECT_GE(waited, 12 * 0.005 * 0.9);
}

TEST(LoaderTest, PrefetchHidesReadsBehindCompute) {
  FakeReader reader(16, std::chrono::milliseconds(2));
  Loader loader(&reader, 4, 2, 2, 0);
  double waited = 0;
  for (int b = 0; b < 4; ++b) {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));  // "compute"
    double w;
    ASSERT_EQ(loader.Next(&w).index(), 0u);
    waited += w;
  }
  EXPECT_LT(waited, 0.010);
}

TEST(LoaderTest, PassesErrorsOnAndContinues) {
  FakeReader reader(10, {}, 5);
  Loader loader(&reader, 4, 2, 1, 0);
  double w;
  EXPECT_EQ(loader.Next(&w).index(), 0u);
  auto bad = loader.Next(&w);
  ASSERT_EQ(bad.index(), 1u);
  EXPECT_EQ(std::get<Error>(bad).message, "fake: record 5: bad");
  auto last = loader.Next(&w);
  ASSERT_EQ(last.index(), 0u);
  EXPECT_EQ(std::get<Batch>(last).size, 2u);
}

TEST(LoaderTest, NewEpochMidwayAndDestructionDoNotHang) {
  FakeReader reader(40, std::chrono::milliseconds(1));
  {
    Loader loader(&reader, 4, 4, 4, 1);
    double w;
    ASSERT_EQ(loader.Next(&w).index(), 0u);
    loader.NewEpoch();  // drops the rest, in-flight reads included
    std::vector<size_t> seen = Epoch(&loader, 4);
    EXPECT_EQ(std::set<size_t>(seen.begin(), seen.end()).size(), 40u);
    loader.Next(&w);
  }
  {
    Loader loader(&reader, 4, 4, 4, 1);  // destroyed with reads in flight
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
  }
}

TEST(LoaderTest, MoreRanksThanSamples) {
  FakeReader reader(2);
  Loader loader(&reader, 4, 2, 2, 0, 3, 4);
  EXPECT_EQ(loader.batches_per_epoch(), 0u);
  double w;
  EXPECT_EQ(std::get<Batch>(loader.Next(&w)).size, 0u);
}

}  // namespace
}  // namespace hbw::data
