// Training on Autodiff<Cuda>: device memory stays flat over 1,000 steps of the guide's CNN with
// Adam (the pool's in-use bytes after step 1,000 equal those after step 10, and its reserved
// bytes stop growing), and the loss falls on a fixed batch.
#include <cstdio>

#include "cuda_test_util.h"
#include "guide/model_forward.hpp"

namespace scorch {
namespace {

namespace cuda = backends::cuda;
using AD = Autodiff<Cuda>;

TEST(CudaTraining, DeviceMemoryStaysFlatOverAThousandSteps) {
  SCORCH_REQUIRE_CUDA();
  Cuda::seed(7);
  auto model = guide::ModelConfig(10, 128).init<AD>();
  auto optim = optim::AdamConfig().init();
  auto images = Tensor<AD, 3>::random({32, 28, 28}, Distribution::normal(0, 1));
  auto labels = Tensor<AD, 1, Int>::random({32}, Distribution::uniform(0, 10));
  auto loss_fn = nn::CrossEntropyLossConfig().init<AD>();
  auto step = [&] {
    auto loss = loss_fn.forward(model.forward(images), labels);
    double value = loss.inner().into_scalar().to_double();
    auto grads = optim::GradientsParams::from_grads(loss.backward(), model);
    model = optim.step(1e-3, model, std::move(grads));
    return value;
  };
  double first = 0, last = 0;
  cuda::PoolStats warm{};
  for (int i = 1; i <= 1000; ++i) {
    last = step();
    if (i == 1) first = last;
    if (i == 10) {
      cuda::synchronize(0);
      warm = cuda::pool_stats(0);
    }
  }
  cuda::synchronize(0);
  cuda::PoolStats end = cuda::pool_stats(0);
  std::printf(
      "pool after 10 steps: in use %.2f MiB, reserved %.2f MiB; after 1000: in use %.2f MiB, reserved %.2f MiB, peak "
      "%.2f MiB, "
      "cudaMalloc calls %llu\n",
      warm.in_use / 1048576.0, (warm.in_use + warm.cached) / 1048576.0, end.in_use / 1048576.0,
      (end.in_use + end.cached) / 1048576.0, end.peak_reserved / 1048576.0,
      static_cast<unsigned long long>(end.device_mallocs));
  EXPECT_EQ(end.in_use, warm.in_use) << "tensors alive between steps must not accumulate";
  EXPECT_LE(end.in_use + end.cached, warm.peak_reserved) << "the pool must not reserve more after warm-up";
  EXPECT_EQ(end.device_mallocs, warm.device_mallocs) << "after warm-up every block comes from the cache";
  EXPECT_LT(last, first) << "the loss should fall on a fixed batch";
}

}  // namespace
}  // namespace scorch
