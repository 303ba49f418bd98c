// The LibTorch backend's own guarantees: in-place reuse of uniquely owned tensors, every dtype
// through a round trip, LibTorch errors as scorch::Error naming the op, devices, and (when the
// linked LibTorch has CUDA and a card) the same results on Cuda(0) as on the host.
#include <gtest/gtest.h>

#include <scorch/fusion/fusion.h>
#include <scorch/stacks/libtorch/autodiff.h>
#include <scorch/scorch.hpp>

namespace scorch {
namespace {

using backends::libtorch::TorchTensor;
namespace ops = backends::libtorch::ops;

TorchTensor ramp(size_t n, DType dtype = DType::F32) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i) - 2.5f;
  return ops::from_data(TensorData(v, Shape{n}).convert(dtype), TorchDevice::cpu());
}

// Fusion<LibTorch> records elementwise ops and runs each program op after op on LibTorch: the same values.
TEST(LibTorchBackend, RunsUnderFusionUnfusedWithTheSameValues) {
  TensorData data(std::vector<float>{-3.0f, -0.5f, 0.0f, 0.25f, 1.5f, 4.0f, 0.0f, -1.0f}, Shape{2, 4});
  auto run = [&]<class B>() {
    auto x = Tensor<B, 2>::from_data(data, TorchDevice::cpu());
    auto gelu = x * 0.5 * ((x / std::sqrt(2.0)).erf() + 1.0);
    auto soft = activation::softmax(gelu * 2.0 - x.abs(), 1);
    return std::vector<TensorData>{gelu.to_data(), soft.to_data(), gelu.sum_dim(0).to_data(),
                                   x.greater_elem(0.1).int_().to_data()};
  };
  auto before = Fusion<LibTorch>::stats();
  auto fused = run.template operator()<Fusion<LibTorch>>();
  auto eager = run.template operator()<LibTorch>();
  auto after = Fusion<LibTorch>::stats();
  for (size_t i = 0; i < fused.size(); ++i) fused[i].assert_eq(eager[i]);
  EXPECT_EQ(after.programs - before.programs, 2u);  // gelu with the softmax's input, then the comparison and cast
  EXPECT_EQ(after.fused_programs, before.fused_programs);  // LibTorch has no fusing executor
  EXPECT_EQ(Fusion<LibTorch>::name(), "fusion<" + LibTorch::name() + ">");
}

TEST(LibTorchBackend, UniqueOperandIsOverwrittenInPlace) {
  TorchTensor a = ramp(8), b = ramp(8);
  void* storage = a.impl();
  TorchTensor sum = LibTorch::float_add(std::move(a), b);
  EXPECT_EQ(sum.impl(), storage) << "the only handle's tensor should hold the result";
  TorchTensor e = LibTorch::float_exp(std::move(sum));
  EXPECT_EQ(e.impl(), storage);
}

TEST(LibTorchBackend, SharedOperandIsNotOverwritten) {
  TorchTensor a = ramp(8), b = ramp(8);
  TorchTensor keep = a;
  TorchTensor sum = LibTorch::float_add(std::move(a), b);
  EXPECT_NE(sum.impl(), keep.impl());
  EXPECT_EQ(LibTorch::float_into_data(keep), LibTorch::float_into_data(ramp(8)));
  // A view shares storage with its base: writing through it would change the base.
  TorchTensor base = ramp(8);
  TorchTensor view = LibTorch::float_slice(base, {{0, 4, 1}});
  TorchTensor doubled = LibTorch::float_mul_scalar(std::move(view), Scalar(2.0));
  EXPECT_EQ(LibTorch::float_into_data(base), LibTorch::float_into_data(ramp(8)));
  EXPECT_EQ(doubled.shape(), Shape{4});
}

TEST(LibTorchBackend, EveryDTypeRoundTrips) {
  for (DType d : {DType::F64, DType::F32, DType::F16, DType::BF16, DType::I64, DType::I32, DType::I16, DType::I8,
                  DType::U8, DType::Bool}) {
    TensorData data = TensorData(std::vector<float>{0, 1, 2, 3, 4, 5}, Shape{2, 3}).convert(d);
    TorchTensor t = ops::from_data(data, TorchDevice::cpu());
    EXPECT_EQ(t.dtype(), d) << dtype_name(d);
    EXPECT_EQ(t.shape(), (Shape{2, 3}));
    EXPECT_EQ(ops::into_data(t), data) << dtype_name(d);
  }
}

TEST(LibTorchBackend, ErrorsNameTheOp) {
  auto x = Tensor<LibTorch, 1, Int>::from_data(TensorData(std::vector<int64_t>{4, 5}, Shape{2}));
  auto zero = Tensor<LibTorch, 1, Int>::from_data(TensorData(std::vector<int64_t>{1, 0}, Shape{2}));
  try {
    (void)(x / zero).to_data();
    FAIL() << "integer division by zero must throw";
  } catch (const ValueError& e) { EXPECT_NE(std::string(e.what()).find("[div]"), std::string::npos) << e.what(); }
  // An error raised inside ATen comes back as a scorch::Error, not c10::Error.
  TorchTensor a = ramp(6), b = ramp(4);
  EXPECT_THROW((void)LibTorch::float_add(a, b), Error);
  EXPECT_THROW(
      (void)ops::gather(0, a, ops::from_data(TensorData(std::vector<int64_t>{9}, Shape{1}), TorchDevice::cpu())),
      ShapeError);
}

TEST(LibTorchBackend, DevicesPrintAndCompare) {
  EXPECT_EQ(TorchDevice::cpu().to_string(), "Cpu");
  EXPECT_EQ(TorchDevice::cuda(1).to_string(), "Cuda(1)");
  EXPECT_NE(TorchDevice::cpu(), TorchDevice::cuda(0));
  EXPECT_EQ(LibTorch::name(), "libtorch");
  EXPECT_EQ(Autodiff<LibTorch>::name(), "autodiff<libtorch>");
  if (!ops::cuda_available()) {
    EXPECT_THROW((void)ops::empty(Shape{2}, TorchDevice::cuda(0), DType::F32), DeviceError);
  }
}

TEST(LibTorchBackend, CudaMatchesHost) {
  if (!ops::cuda_available()) GTEST_SKIP() << "the linked LibTorch has no CUDA or sees no card";
  const TorchDevice gpu = TorchDevice::cuda(0);
  auto x = Tensor<Autodiff<LibTorch>, 2>::random({16, 32}, Distribution::normal(0, 1)).require_grad();
  auto w = Tensor<Autodiff<LibTorch>, 2>::random({32, 8}, Distribution::normal(0, 1)).require_grad();
  auto loss = activation::softmax(x.matmul(w).tanh(), 1).sum();
  auto grads = loss.backward();
  auto xg = x.to_device(gpu).detach().require_grad(), wg = w.to_device(gpu).detach().require_grad();
  auto loss_gpu = activation::softmax(xg.matmul(wg).tanh(), 1).sum();
  auto grads_gpu = loss_gpu.backward();
  EXPECT_EQ(loss_gpu.device(), gpu);
  loss_gpu.to_data().assert_approx_eq(loss.to_data(), Tolerance::rel_abs(1e-4, 1e-5));
  xg.grad(grads_gpu)
      ->to_device(TorchDevice::cpu())
      .to_data()
      .assert_approx_eq(x.grad(grads)->to_data(), Tolerance::rel_abs(1e-4, 1e-5));
  wg.grad(grads_gpu)->to_data().assert_approx_eq(w.grad(grads)->to_data(), Tolerance::rel_abs(1e-4, 1e-5));
}

}  // namespace
}  // namespace scorch
