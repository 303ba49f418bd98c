// Collectives on Gloo, run under scorch-run with 2 and 4 ranks (ctest label distributed): every rank checks the
// result against a reference it computes from all ranks' inputs (integer-valued floats: sums are exact in any order).
#include <gtest/gtest.h>

#include <unistd.h>

#include "distributed/launched_group.h"
#include "scorch/distributed/collectives.h"
#include "scorch/scorch.hpp"
#ifdef SCORCH_HAVE_CUDA
#include "scorch/stacks/cuda/autodiff.h"
#endif

namespace scorch::distributed {
namespace {

// The process-wide group (the one a Learner built under scorch-run joins too).
ProcessGroup& group() { return *launched_group(); }

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

TEST(Distributed, RankZeroIsTheMainProcess) { EXPECT_EQ(is_main_process(), group().rank() == 0); }

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
  EXPECT_EQ(reduce_scatter_async(g, rows).get().into_data().to_vector<float>(), share);
  EXPECT_EQ(broadcast_async(g, mine, 0).get().into_data().to_vector<float>(), inputs(0, 12));
  EXPECT_EQ(all_gather_async(g, mine).get().into_data().to_vector<float>(), stacked);
  // Another backend goes through host memory alike and keeps its dtype: f64 under Autodiff.
  auto wide = Tensor<Autodiff<Cpu>, 2>::from_data(TensorData(inputs(g.rank(), 12), {4, 3}).convert(DType::F64));
  auto summed = all_reduce(g, wide, ReduceOp::mean);
  EXPECT_EQ(summed.dtype(), DType::F64);
  auto means = summed.into_data().to_vector<double>();
  for (size_t i = 0; i < 12; ++i) EXPECT_DOUBLE_EQ(means[i], double(sum[i]) / g.size()) << i;
  EXPECT_THROW(reduce_scatter(g, Tensor<Cpu, 1>::zeros({size_t(g.size()) + 1})), ShapeError);
  EXPECT_THROW(broadcast(g, mine, g.size()), ValueError);
  g.barrier();
}

#ifdef SCORCH_HAVE_CUDA
// NCCL, one GPU per rank (skipped where the machine has fewer GPUs than ranks, or no NCCL).
TEST(Distributed, NcclCollectivesMatchTheReference) {
  ProcessGroup& g = group();
  if (backends::cuda::device_count() < g.size()) GTEST_SKIP() << "needs a GPU per rank";
  std::string why;
  if (!nccl_available(&why)) GTEST_SKIP() << why;
  NcclCommunicator c(g, g.local_rank());
  CudaDevice device{g.local_rank()};
  auto mine = Tensor<Cuda, 2>::from_data(TensorData(inputs(g.rank(), 12), {4, 3}), device);
  std::vector<float> sum(12, 0.0f), high(12, -1e9f), stacked;
  for (int r = 0; r < g.size(); ++r) {
    auto v = inputs(r, 12);
    for (size_t i = 0; i < 12; ++i) sum[i] += v[i], high[i] = std::max(high[i], v[i]);
    stacked.insert(stacked.end(), v.begin(), v.end());
  }
  EXPECT_EQ(all_reduce(c, mine).into_data().to_vector<float>(), sum);
  EXPECT_EQ(all_reduce(c, mine, ReduceOp::max).into_data().to_vector<float>(), high);
  auto mean = all_reduce(c, mine, ReduceOp::mean).into_data().to_vector<float>();
  for (size_t i = 0; i < 12; ++i) EXPECT_FLOAT_EQ(mean[i], sum[i] / float(g.size()));
  auto half = all_reduce(c, mine.cast(DType::BF16));  // integers below 256 are exact in bf16
  EXPECT_EQ(half.dtype(), DType::BF16);
  EXPECT_EQ(half.cast(DType::F32).into_data().to_vector<float>(), sum);
  EXPECT_EQ(broadcast(c, mine, g.size() - 1).into_data().to_vector<float>(), inputs(g.size() - 1, 12));
  auto gathered = all_gather(c, mine);
  EXPECT_EQ(gathered.shape(), (Shape{size_t(g.size()), 4, 3}));
  EXPECT_EQ(gathered.into_data().to_vector<float>(), stacked);
  auto rows =
      Tensor<Cuda, 2>::from_data(TensorData(inputs(g.rank(), 4 * g.size() * 3), {size_t(4 * g.size()), 3}), device);
  std::vector<float> share(12, 0.0f);
  for (int r = 0; r < g.size(); ++r) {
    auto v = inputs(r, 4 * g.size() * 3);
    for (size_t i = 0; i < 12; ++i) share[i] += v[g.rank() * 12 + i];
  }
  EXPECT_EQ(reduce_scatter(c, rows).into_data().to_vector<float>(), share);
  EXPECT_THROW(reduce_scatter(c, Tensor<Cuda, 1>::zeros({size_t(g.size()) + 1}, device)), ShapeError);
  // A bucket summed on the communicator's stream after the op stream's work, waited for by the op stream.
  auto flat = (mine.reshape<1>({12}) * 2.0f).primitive();
  c.start_sum(flat);
  auto summed = Tensor<Cuda, 1>::from_primitive(c.finish_sum()).into_data().to_vector<float>();
  for (size_t i = 0; i < 12; ++i) EXPECT_EQ(summed[i], 2 * sum[i]);
  EXPECT_THROW(c.finish_sum(), ValueError);
}
#endif

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
