#include "comm/collective.h"

#include <gtest/gtest.h>

namespace hbcomm {
namespace {

TEST(CollectiveTest, ParsesOpsAndSizes) {
  Op op;
  ASSERT_TRUE(ParseOp("reduce-scatter", &op));
  EXPECT_EQ(op, Op::kReduceScatter);
  EXPECT_STREQ(OpName(op), "reduce_scatter");
  EXPECT_FALSE(ParseOp("alltoall", &op));

  uint64_t b = 0;
  ASSERT_TRUE(ParseSize("8", &b));
  EXPECT_EQ(b, 8u);
  ASSERT_TRUE(ParseSize("512K", &b));
  EXPECT_EQ(b, 524288u);
  ASSERT_TRUE(ParseSize("64M", &b));
  EXPECT_EQ(b, 67108864u);
  ASSERT_TRUE(ParseSize("1G", &b));
  EXPECT_EQ(b, 1073741824u);
  EXPECT_FALSE(ParseSize("0", &b));
  EXPECT_FALSE(ParseSize("1MB", &b));
  EXPECT_FALSE(ParseSize("-8", &b));
  EXPECT_FALSE(ParseSize("", &b));
}

// nccl-tests' GetCollByteCount for 1 MiB of floats (262144 elements) on 4
// ranks: allgather sends 65536 per rank and receives 262144;
// reduce_scatter the other way round.
TEST(CollectiveTest, CountsAsNcclTests) {
  Counts ar = CollCounts(Op::kAllReduce, 1 << 20, 4, 4);
  EXPECT_EQ(ar.send, 262144u);
  EXPECT_EQ(ar.recv, 262144u);
  EXPECT_EQ(ar.param, 262144u);
  Counts ag = CollCounts(Op::kAllGather, 1 << 20, 4, 4);
  EXPECT_EQ(ag.send, 65536u);
  EXPECT_EQ(ag.recv, 262144u);
  EXPECT_EQ(ag.param, 65536u);
  Counts rs = CollCounts(Op::kReduceScatter, 1 << 20, 4, 4);
  EXPECT_EQ(rs.send, 262144u);
  EXPECT_EQ(rs.recv, 65536u);
  EXPECT_EQ(rs.param, 65536u);
  EXPECT_EQ(TableBytes(ag, 4), 1u << 20);
  EXPECT_EQ(TableBytes(rs, 4), 1u << 20);
  // 100 bytes = 25 floats over 3 ranks: 8 each, 24 in all.
  Counts odd = CollCounts(Op::kAllGather, 100, 4, 3);
  EXPECT_EQ(odd.param, 8u);
  EXPECT_EQ(odd.recv, 24u);
  EXPECT_EQ(TableBytes(odd, 4), 96u);
}

TEST(CollectiveTest, BusFactorsFromPerformanceMd) {
  EXPECT_DOUBLE_EQ(BusFactor(Op::kAllReduce, 2), 1.0);
  EXPECT_DOUBLE_EQ(BusFactor(Op::kAllReduce, 4), 1.5);
  EXPECT_DOUBLE_EQ(BusFactor(Op::kAllReduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(BusFactor(Op::kAllReduce, 1), 0.0);
  EXPECT_DOUBLE_EQ(BusFactor(Op::kAllGather, 2), 0.5);
  EXPECT_DOUBLE_EQ(BusFactor(Op::kAllGather, 8), 0.875);
  EXPECT_DOUBLE_EQ(BusFactor(Op::kReduceScatter, 4), 0.75);
  EXPECT_DOUBLE_EQ(BusFactor(Op::kBroadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(BusFactor(Op::kMemcpy, 2), 1.0);
}

// Hand-computed: 1 GB (1e9 bytes = 250e6 floats) allreduce in 0.1 s on 4
// ranks: algbw = 1e9 / 0.1 / 1e9 = 10 GB/s, busbw = 10 * 2*3/4 = 15 GB/s.
TEST(CollectiveTest, AllReduceBandwidth) {
  EXPECT_DOUBLE_EQ(AlgBw(Op::kAllReduce, 250000000, 4, 4, 0.1), 10.0);
  EXPECT_DOUBLE_EQ(BusBw(Op::kAllReduce, 250000000, 4, 4, 0.1), 15.0);
  EXPECT_DOUBLE_EQ(BusBw(Op::kAllReduce, 250000000, 4, 2, 0.1), 10.0);
}

// Allgather of 16 MiB (4 Mi floats) on 8 ranks in 2 ms: each rank sends
// 524288 floats; S = 524288 * 4 * 8 = 16777216 bytes; algbw =
// 16777216 / 0.002 / 1e9 = 8.388608 GB/s; busbw = algbw * 7/8 = 7.340032.
TEST(CollectiveTest, AllGatherAndReduceScatterBandwidth) {
  Counts ag = CollCounts(Op::kAllGather, 16 << 20, 4, 8);
  EXPECT_DOUBLE_EQ(AlgBytes(Op::kAllGather, ag.param, 4, 8), 16777216.0);
  EXPECT_DOUBLE_EQ(AlgBw(Op::kAllGather, ag.param, 4, 8, 0.002), 8.388608);
  EXPECT_DOUBLE_EQ(BusBw(Op::kAllGather, ag.param, 4, 8, 0.002), 7.340032);
  Counts rs = CollCounts(Op::kReduceScatter, 16 << 20, 4, 8);
  EXPECT_DOUBLE_EQ(AlgBw(Op::kReduceScatter, rs.param, 4, 8, 0.002), 8.388608);
  EXPECT_DOUBLE_EQ(BusBw(Op::kReduceScatter, rs.param, 4, 8, 0.002), 7.340032);
}

// Broadcast of 8 MB (2e6 floats) in 1 ms: algbw = busbw = 8 GB/s, any n.
TEST(CollectiveTest, BroadcastBandwidth) {
  EXPECT_DOUBLE_EQ(AlgBw(Op::kBroadcast, 2000000, 4, 16, 0.001), 8.0);
  EXPECT_DOUBLE_EQ(BusBw(Op::kBroadcast, 2000000, 4, 16, 0.001), 8.0);
}

TEST(CollectiveTest, ExpectedData) {
  const int n = 3;
  Counts ar = CollCounts(Op::kAllReduce, 40, 4, n);
  std::vector<float> e = ExpectedData(Op::kAllReduce, ar, 1, n);
  ASSERT_EQ(e.size(), 10u);
  EXPECT_EQ(e[4], SendValue(0, 4) + SendValue(1, 4) + SendValue(2, 4));

  Counts ag = CollCounts(Op::kAllGather, 24, 4, n);  // 2 per rank
  EXPECT_EQ(ExpectedData(Op::kAllGather, ag, 0, n),
            (std::vector<float>{SendValue(0, 0), SendValue(0, 1), SendValue(1, 0), SendValue(1, 1), SendValue(2, 0),
                                SendValue(2, 1)}));

  Counts rs = CollCounts(Op::kReduceScatter, 24, 4, n);  // 2 per rank
  std::vector<float> r2 = ExpectedData(Op::kReduceScatter, rs, 2, n);
  ASSERT_EQ(r2.size(), 2u);
  EXPECT_EQ(r2[1], SendValue(0, 5) + SendValue(1, 5) + SendValue(2, 5));

  Counts bc = CollCounts(Op::kBroadcast, 16, 4, n);
  EXPECT_EQ(ExpectedData(Op::kBroadcast, bc, 2, n), SendData(Op::kBroadcast, bc, kRoot));
  EXPECT_EQ(RecvInit(Op::kBroadcast, bc, kRoot), SendData(Op::kBroadcast, bc, kRoot));
  EXPECT_EQ(RecvInit(Op::kBroadcast, bc, 1), std::vector<float>(4, -1.0f));
}

TEST(CollectiveTest, CountsWrongElements) {
  std::vector<float> want = {1, 2, 3, 4};
  EXPECT_EQ(CountWrong({1, 2, 3, 4}, want), 0u);
  EXPECT_EQ(CountWrong({1, 0, 3, 5}, want), 2u);
  EXPECT_EQ(CountWrong({1, 2}, want), 2u);
  // The initial receive buffer never passes.
  Counts c = CollCounts(Op::kAllReduce, 64, 4, 2);
  EXPECT_EQ(CountWrong(RecvInit(Op::kAllReduce, c, 0), ExpectedData(Op::kAllReduce, c, 0, 2)), 16u);
}

}  // namespace
}  // namespace hbcomm
