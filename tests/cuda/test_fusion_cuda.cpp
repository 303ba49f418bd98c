// Fusion<Cuda>: generated kernels compile with NVRTC for every loop kind (no GPU needed), and on a GPU the Burn
// Book's GELU runs as one generated kernel whose values match the eager Cuda kernels, with broadcasts, views,
// comparisons and masks fused too.
#include <cmath>

#include <scorch/backends/cuda/jit.h>
#include <scorch/fusion/cuda_codegen.h>
#include <scorch/stacks/fusion_cuda/autodiff.h>

#include "cuda_test_util.h"

namespace scorch {
namespace {

namespace jit = backends::cuda::jit;
using fusion::KernelOp;
using fusion::KernelPlan;

/// x * 0.5 * (erf(x / sqrt 2) + 1) on one leaf of dtype d.
KernelPlan gelu_plan(DType d) {
  KernelPlan plan;
  plan.leaves = {d};
  plan.ops = {{OpId::float_mul_scalar, {-1}, {Scalar(0.5)}, d},
              {OpId::float_div_scalar, {-1}, {Scalar(std::sqrt(2.0))}, d},
              {OpId::float_erf, {1}, {}, d},
              {OpId::float_add_scalar, {2}, {Scalar(1.0)}, d},
              {OpId::float_mul, {0, 3}, {}, d}};
  plan.outputs = {4};
  plan.output_dtypes = {d};
  plan.contiguous = true;
  return plan;
}

/// Comparisons, masks and integer ops over two strided leaves.
KernelPlan mixed_plan() {
  KernelPlan plan;
  plan.leaves = {DType::F32, DType::I32};
  plan.ops = {{OpId::float_greater_elem, {-1}, {Scalar(0.25)}, DType::F32},
              {OpId::float_mask_fill, {-1, 0}, {Scalar(7.0)}, DType::F32},
              {OpId::int_add_scalar, {-2}, {Scalar(int64_t{3})}, DType::I32},
              {OpId::int_greater_elem, {2}, {Scalar(int64_t{4})}, DType::I32},
              {OpId::bool_logical_and, {0, 3}, {}, DType::Bool},
              {OpId::float_mask_where, {1, 4, -1}, {}, DType::F32}};
  plan.outputs = {5, 2};
  plan.output_dtypes = {DType::F32, DType::I32};
  return plan;
}

TEST(FusionCudaCodegen, GeneratedSourceCompilesForEveryLoopKind) {
  if (!jit::nvrtc_available()) GTEST_SKIP() << "NVRTC cannot be opened here";
  for (const KernelPlan& plan : {gelu_plan(DType::F32), gelu_plan(DType::F64), mixed_plan()}) {
    auto source = fusion::generate_cuda_source(plan);
    ASSERT_TRUE(source.has_value());
    EXPECT_NE(source->find("scorch::scalar_ops::"), std::string::npos);
    EXPECT_NO_THROW((void)jit::compile(*source, "fused.cu", 90)) << *source;
  }
}

TEST(FusionCudaCodegen, OpsWithoutARecipeRunUnfused) {
  KernelPlan f16 = gelu_plan(DType::F16);  // eager rounds to f16 between ops: not generated
  EXPECT_FALSE(fusion::generate_cuda_source(f16).has_value());
  KernelPlan clamp = gelu_plan(DType::F32);
  clamp.ops.push_back({OpId::float_clamp, {4}, {Scalar(0.0), Scalar(1.0)}, DType::F32});
  EXPECT_FALSE(fusion::generate_cuda_source(clamp).has_value());
  KernelPlan int_div;
  int_div.leaves = {DType::I64, DType::I64};
  int_div.ops = {{OpId::int_div, {-1, -2}, {}, DType::I64}};  // reports division by zero: eager only
  int_div.outputs = {0};
  int_div.output_dtypes = {DType::I64};
  EXPECT_FALSE(fusion::generate_cuda_source(int_div).has_value());
}

template <class B> Tensor<B, 2> gelu_custom(const Tensor<B, 2>& x) {
  return x * 0.5 * ((x / std::sqrt(2.0)).erf() + 1.0);
}

TEST(FusionCuda, GeluChainIsOneGeneratedKernel) {
  SCORCH_REQUIRE_CUDA();
  CudaDevice device{0};
  Cuda::seed(3);
  auto data = Tensor<Cuda, 2>::random({1000, 1000}, Distribution::uniform(-4, 4), device).to_data();
  auto before = FusionCuda::stats();
  auto fused = gelu_custom(Tensor<FusionCuda, 2>::from_data(data, device)).to_data();
  auto after = FusionCuda::stats();
  EXPECT_EQ(after.programs - before.programs, 1u);
  EXPECT_EQ(after.fused_programs - before.fused_programs, 1u);
  EXPECT_EQ(after.ops - before.ops, 5u);
  fused.assert_approx_eq(gelu_custom(Tensor<Cuda, 2>::from_data(data, device)).to_data(),
                         Tolerance::rel_abs(1e-6, 1e-6));
}

TEST(FusionCuda, BroadcastsViewsMasksAndIntsMatchEager) {
  SCORCH_REQUIRE_CUDA();
  CudaDevice device{0};
  Cuda::seed(4);
  auto a = Tensor<Cuda, 2>::random({300, 500}, Distribution::uniform(-2, 2), device).to_data();
  auto row = Tensor<Cuda, 2>::random({1, 200}, Distribution::uniform(-2, 2), device).to_data();
  auto run = [&]<class B>() {
    auto x = Tensor<B, 2>::from_data(a, device), r = Tensor<B, 2>::from_data(row, device);
    auto view = x.swap_dims(0, 1).narrow(0, 100, 200).swap_dims(0, 1);  // strided
    auto y = (view - r) * 3.0;
    auto masked = y.mask_fill(y.greater_elem(1.0), 9.0).mask_where(y.lower_elem(-1.0), y.exp());
    auto ints = ((y * 10.0).int_() * 3 + 1).greater_elem(5);
    return std::pair{masked.to_data(), ints.to_data()};
  };
  auto [masked, ints] = run.template operator()<FusionCuda>();
  auto [masked_eager, ints_eager] = run.template operator()<Cuda>();
  masked.assert_approx_eq(masked_eager, Tolerance::rel_abs(1e-6, 1e-5));
  ints.assert_eq(ints_eager);
}

}  // namespace
}  // namespace scorch
