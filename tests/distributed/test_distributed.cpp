// Collectives on Gloo, run under scorch-run with 2 and 4 ranks (ctest label distributed): every rank checks the
// result against a reference it computes from all ranks' inputs (integer-valued floats: sums are exact in any order).
#include <gtest/gtest.h>

#include <unistd.h>

#include "scorch/distributed/collectives.h"
#include "scorch/scorch.hpp"

namespace scorch::distributed {
namespace {

ProcessGroup& group() {
  static ProcessGroup g(options_from_env());
  return g;
}

// Rank r's value i.
float input(int r, size_t i) { return float((int(i) * 7 + r * 13) % 29 - 14); }

std::vector<float> inputs(int r, size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = input(r, i);
  return v;
}

TEST(Distributed, AllReduceMatchesTheReference) {
  ProcessGroup& g = group();
  const size_t n = 1000;
  for (ReduceOp op : {ReduceOp::sum, ReduceOp::mean, ReduceOp::max, ReduceOp::min}) {
    std::vector<float> v = inputs(g.rank(), n);
    g.all_reduce(v.data(), n, op);
    for (size_t i = 0; i < n; ++i) {
      float want = input(0, i);
      for (int r = 1; r < g.size(); ++r) {
        float x = input(r, i);
        want = op == ReduceOp::max ? std::max(want, x) : op == ReduceOp::min ? std::min(want, x) : want + x;
      }
      if (op == ReduceOp::mean) want /= float(g.size());
      ASSERT_EQ(v[i], want) << "op " << int(op) << " at " << i;
    }
  }
}

TEST(Distributed, TensorCollectivesMatchTheReference) {
  ProcessGroup& g = group();
  auto mine = Tensor<Cpu, 2>::from_data(TensorData(inputs(g.rank(), 12), {4, 3}));
  std::vector<float> sum(12, 0.0f), stacked;
  for (int r = 0; r < g.size(); ++r) {
    auto v = inputs(r, 12);
    for (size_t i = 0; i < 12; ++i) sum[i] += v[i];
    stacked.insert(stacked.end(), v.begin(), v.end());
  }
  EXPECT_EQ(all_reduce(g, mine).into_data().to_vector<float>(), sum);
  EXPECT_EQ(all_reduce_async(g, mine).get().into_data().to_vector<float>(), sum);
  EXPECT_EQ(broadcast(g, mine, g.size() - 1).into_data().to_vector<float>(), inputs(g.size() - 1, 12));
  auto gathered = all_gather(g, mine);
  EXPECT_EQ(gathered.shape(), (Shape{size_t(g.size()), 4, 3}));
  EXPECT_EQ(gathered.into_data().to_vector<float>(), stacked);
  auto rows = Tensor<Cpu, 2>::from_data(TensorData(inputs(g.rank(), 4 * g.size() * 3), {size_t(4 * g.size()), 3}));
  std::vector<float> share(12, 0.0f);
  for (int r = 0; r < g.size(); ++r) {
    auto v = inputs(r, 4 * g.size() * 3);
    for (size_t i = 0; i < 12; ++i) share[i] += v[g.rank() * 12 + i];
  }
  EXPECT_EQ(reduce_scatter(g, rows).into_data().to_vector<float>(), share);
  EXPECT_THROW(reduce_scatter(g, Tensor<Cpu, 1>::zeros({size_t(g.size()) + 1})), ShapeError);
  EXPECT_THROW(broadcast(g, mine, g.size()), ValueError);
  g.barrier();
}

// Rank 1 leaves without a word; rank 0's next collective fails within the timeout (run alone, 2 ranks, by the
// ctest distributed_dead_peer).
TEST(DistributedDeadPeer, ACollectiveWithAGonePeerIsAnError) {
  ProcessGroup& g = group();
  g.barrier();  // both connected
  if (g.rank() == 1) std::_Exit(0);
  auto start = std::chrono::steady_clock::now();
  std::vector<float> v(8, 1.0f);
  EXPECT_THROW(g.all_reduce(v.data(), v.size()), IoError);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

}  // namespace
}  // namespace scorch::distributed
