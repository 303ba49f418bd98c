// Router over the Cpu, a GPU and LibTorch: tensors move Cpu -> Cuda -> LibTorch -> Cpu with their values, ops run on
// each backend, and Autodiff<Router<Cpu, Cuda>> trains a model whose first layer is on the Cpu and second on the GPU
// (the losses match Autodiff<Cpu>'s to float rounding, and fall). Skipped where no GPU is visible.
#include "../router/split_model.h"
#include "cuda_test_util.h"
#include "router_cuda_stack.h"
#ifdef SCORCH_HAVE_LIBTORCH
#include <scorch/backends/libtorch/libtorch_backend.h>
#endif

namespace scorch {
namespace {

TEST(RouterCuda, TensorsMoveBetweenCpuCudaAndLibTorchWithTheirValues) {
  SCORCH_REQUIRE_CUDA();
#ifdef SCORCH_HAVE_LIBTORCH
  using B = Router<Cpu, Cuda, LibTorch>;
#else
  using B = Router<Cpu, Cuda>;
#endif
  auto data = TensorData(std::vector<float>{1, -2, 3, -4, 5, -6}, {2, 3});
  auto x = Tensor<B, 2>::from_data(data, B::device<0>());
  auto on_gpu = x.to_device(B::device<1>());
  EXPECT_EQ(on_gpu.device(), B::device<1>());
  EXPECT_EQ((on_gpu.abs() * 2.0).to_data(), (Tensor<Cpu, 2>::from_data(data).abs() * 2.0).to_data());
#ifdef SCORCH_HAVE_LIBTORCH
  auto on_torch = on_gpu.to_device(B::device<2>());
  EXPECT_EQ(on_torch.device(), B::device<2>());
  EXPECT_EQ(on_torch.matmul(on_torch.transpose()).to_data(),
            Tensor<Cpu, 2>::from_data(data).matmul(Tensor<Cpu, 2>::from_data(data).transpose()).to_data());
  EXPECT_EQ(on_torch.to_device(B::device<0>()).to_data(), data);
#endif
  EXPECT_THROW((void)(x + on_gpu), DeviceError);
}

TEST(RouterCuda, AutodiffTrainsAModelSplitAcrossCpuAndGpu) {
  SCORCH_REQUIRE_CUDA();
  using testing::split_losses;
  auto routed = split_losses<Autodiff<RouterCpuCuda>>(5, RouterCpuCuda::device<0>(), RouterCpuCuda::device<1>());
  auto local = split_losses<Autodiff<Cpu>>(5, CpuDevice{}, CpuDevice{});
  ASSERT_EQ(routed.size(), local.size());
  // The GPU's products round differently from the Cpu's (TF32-free, but another summation order).
  for (size_t i = 0; i < local.size(); ++i) EXPECT_NEAR(routed[i], local[i], 1e-4 * std::abs(local[i])) << "step " << i;
  EXPECT_LT(routed.back(), routed.front());
}

}  // namespace
}  // namespace scorch
