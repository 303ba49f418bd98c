// Fusion<Cuda>: generated kernels compile with NVRTC for every loop kind (no GPU needed), and on a GPU the Burn
// Book's GELU runs as one generated kernel whose values match the eager Cuda kernels, with broadcasts, views,
// comparisons and masks fused too.
#include <cmath>
#include <functional>

#include <scorch/backends/cuda/jit.h>
#include <scorch/backends/cuda/kernels/kernels.h>
#include <scorch/fusion/cuda_codegen.h>
#include <scorch/stacks/fusion_cuda/autodiff.h>

#include "cuda_test_util.h"
#include "fusion/random_graph.h"

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

/// Casts through every float width and back, clamped: f32 → f16 → bf16 → f64 → i32 → f32.
KernelPlan cast_plan() {
  KernelPlan plan;
  plan.leaves = {DType::F32};
  plan.ops = {{OpId::float_cast, {-1}, {}, DType::F32, DType::F16},
              {OpId::float_clamp, {0}, {Scalar(-2.0), Scalar(3.0)}, DType::F16},
              {OpId::float_cast, {1}, {}, DType::F16, DType::BF16},
              {OpId::float_cast, {2}, {}, DType::BF16, DType::F64},
              {OpId::float_into_int, {3}, {}, DType::F64, DType::I32},
              {OpId::int_clamp, {4}, {Scalar(int64_t{-1}), Scalar(int64_t{2})}, DType::I32},
              {OpId::int_into_float, {5}, {}, DType::I32, DType::F32}};
  plan.outputs = {6, 2};
  plan.output_dtypes = {DType::F32, DType::BF16};
  return plan;
}

/// gelu_plan(d) closed by reduction op (its input: the gelu value), keeping the gelu value as an output.
KernelPlan reduce_plan(DType d, OpId op) {
  KernelPlan plan = gelu_plan(d);
  plan.reduce = fusion::KernelReduce{op, 4, d};
  plan.contiguous = false;
  return plan;
}

/// The reductions of reduce_plan with a layer norm's deviation after them: + 1e-5, sqrt, and a cast to f16 stored.
KernelPlan reduce_plan_with_epilogue(DType d, OpId op) {
  KernelPlan plan = reduce_plan(d, op);
  plan.epilogue = {{OpId::float_add_scalar, {-1}, {Scalar(1e-5)}, d},
                   {OpId::float_sqrt, {0}, {}, d},
                   {OpId::float_cast, {1}, {}, d, DType::F16}};
  plan.epilogue_outputs = {1, 2};
  plan.epilogue_output_dtypes = {d, DType::F16};
  return plan;
}

TEST(FusionCudaCodegen, HalfCastsClampsAndReductionsCompile) {
  if (!jit::nvrtc_available()) GTEST_SKIP() << "NVRTC cannot be opened here";
  std::vector<KernelPlan> plans = {gelu_plan(DType::F16), gelu_plan(DType::BF16), cast_plan()};
  for (OpId op : {OpId::float_sum_dim, OpId::float_mean_dim, OpId::float_max_dim, OpId::float_min_dim,
                  OpId::float_softmax, OpId::float_log_softmax})
    for (DType d : {DType::F32, DType::F64, DType::F16}) plans.push_back(reduce_plan(d, op));
  for (OpId op : {OpId::float_sum_dim, OpId::float_mean_dim, OpId::float_max_dim, OpId::float_min_dim})
    for (DType d : {DType::F32, DType::F16}) plans.push_back(reduce_plan_with_epilogue(d, op));
  for (const KernelPlan& plan : plans) {
    auto source = fusion::generate_cuda_source(plan);
    ASSERT_TRUE(source.has_value());
    EXPECT_NO_THROW((void)jit::compile(*source, "fused.cu", 90)) << *source;
  }
}

TEST(FusionCudaCodegen, OpsWithoutARecipeRunUnfused) {
  KernelPlan int_div;
  int_div.leaves = {DType::I64, DType::I64};
  int_div.ops = {{OpId::int_div, {-1, -2}, {}, DType::I64}};  // reports division by zero: eager only
  int_div.outputs = {0};
  int_div.output_dtypes = {DType::I64};
  EXPECT_FALSE(fusion::generate_cuda_source(int_div).has_value());
  KernelPlan prod = reduce_plan(DType::F32, OpId::float_prod_dim);  // no generated fold
  EXPECT_FALSE(fusion::generate_cuda_source(prod).has_value());
  KernelPlan too_many = gelu_plan(DType::F32);
  too_many.leaves.assign(fusion::kMaxFusedLeaves + 1, DType::F32);
  EXPECT_FALSE(fusion::generate_cuda_source(too_many).has_value());
}

template <class B, size_t D> Tensor<B, D> gelu_custom(const Tensor<B, D>& x) {
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

/// The kernels fn queues on device 0, after a warm-up run (compiles, pool blocks) that is waited for.
template <class Fn> size_t kernels_of(Fn fn) {
  fn();
  Cuda::sync(CudaDevice{0});
  return backends::cuda::count_kernels(0, fn);
}

TEST(FusionCuda, KernelCountsOfGeluAndSoftmaxOfAnExpression) {
  SCORCH_REQUIRE_CUDA();
  CudaDevice device{0};
  Cuda::seed(5);
  auto data = Tensor<Cuda, 2>::random({512, 384}, Distribution::uniform(-4, 4), device).to_data();
  auto eager = Tensor<Cuda, 2>::from_data(data, device);
  auto fused = Tensor<FusionCuda, 2>::from_data(data, device);
  Tensor<FusionCuda, 2> out;
  EXPECT_GE(kernels_of([&] { (void)gelu_custom(eager); }), 5u);  // the counter sees every eager kernel
  EXPECT_EQ(kernels_of([&] {
              out = gelu_custom(fused);
              FusionCuda::flush();
            }),
            1u);
  EXPECT_EQ(kernels_of([&] {
              out = activation::softmax(fused * 0.125 + fused.exp(), 1);
              FusionCuda::flush();
            }),
            1u);
  EXPECT_LE(kernels_of([&] {
              out = activation::log_softmax(gelu_custom(fused), 0) * 2.0;
              FusionCuda::flush();
            }),
            2u);
}

TEST(FusionCuda, ProductEpiloguesRunInTheProductsKernel) {
  SCORCH_REQUIRE_CUDA();
  CudaDevice device{0};
  Cuda::seed(8);
  auto data = [&](Shape s) { return Tensor<Cuda, 2>::random(s, Distribution::uniform(-1, 1), device).to_data(); };
  TensorData x = data({256, 192}), w = data({192, 320}), bias = data({1, 320}), residual = data({256, 320});
  auto expressions = [&]<class B>() {
    auto X = Tensor<B, 2>::from_data(x, device), W = Tensor<B, 2>::from_data(w, device);
    auto b = Tensor<B, 2>::from_data(bias, device), r = Tensor<B, 2>::from_data(residual, device);
    return std::vector<std::function<Tensor<B, 2>()>>{
        [=] { return activation::relu(X.matmul(W) + b); },  // bias and relu: cuBLASLt's RELU_BIAS
        [=] { return X.matmul(W) * 0.5 + r; },             // scale and residual: alpha and beta·C
        [=] { return r + X.matmul(W) + b; },               // residual, then bias
        [=] { return b + X.matmul(W.transpose().transpose()); },
        [=] { return activation::gelu(X.matmul(W) + b); },  // bias folded; gelu in a generated kernel
        [=] { return (X.matmul(W) + b).exp().sum_dim(1); }};
  };
  auto eager = expressions.template operator()<Cuda>();
  auto fused = expressions.template operator()<FusionCuda>();
  for (size_t i = 0; i < fused.size(); ++i) {
    SCOPED_TRACE("expression " + std::to_string(i));
    fused[i]().to_data().assert_approx_eq(eager[i]().to_data(), Tolerance::rel_abs(1e-4, 1e-4));
  }
  auto X = Tensor<Cuda, 2>::from_data(x, device), W = Tensor<Cuda, 2>::from_data(w, device);
  auto B = Tensor<Cuda, 2>::from_data(bias, device), R = Tensor<Cuda, 2>::from_data(residual, device);
  backends::cuda::kernels::MatmulEpilogue epilogue{0.5, &B.primitive(), &R.primitive(), true};
  auto direct = backends::cuda::kernels::matmul_with_epilogue(X.primitive(), W.primitive(), epilogue);
  ASSERT_TRUE(direct.has_value()) << "cuBLASLt has an algorithm for the epilogue";
  Tensor<Cuda, 2>(*direct).to_data().assert_approx_eq(activation::relu(X.matmul(W) * 0.5 + R + B).to_data(),
                                                      Tolerance::rel_abs(1e-4, 1e-4));
  size_t product = kernels_of([&] { (void)X.matmul(W); });
  Tensor<FusionCuda, 2> out;
  // Programs and kernels of expression i: one program (the product with its chain folded in; an unfolded chain
  // would be a second program) queues at most one kernel more than the product alone (cuBLASLt's algorithm for an
  // epilogue may split the product into a main kernel and a reduction kernel).
  auto run = [&](size_t i) {
    auto before = FusionCuda::stats();
    out = fused[i]();
    FusionCuda::flush();
    size_t programs = FusionCuda::stats().programs - before.programs;
    size_t kernels = kernels_of([&] {
      out = fused[i]();
      FusionCuda::flush();
    });
    return std::pair{programs, kernels};
  };
  for (size_t i : {0, 1, 2}) {
    SCOPED_TRACE("expression " + std::to_string(i));
    auto [programs, kernels] = run(i);
    EXPECT_EQ(programs, 1u);
    EXPECT_LE(kernels, product + 1);
  }
  auto [programs, kernels] = run(4);  // the product with its bias, then the gelu
  EXPECT_EQ(programs, 2u);
  EXPECT_LE(kernels, product + 2);
}

TEST(FusionCuda, ConvolutionBiasFusesWithTheActivationAfterIt) {
  SCORCH_REQUIRE_CUDA();
  CudaDevice device{0};
  Cuda::seed(9);
  auto x = Tensor<Cuda, 4>::random({8, 3, 20, 20}, Distribution::uniform(-1, 1), device).to_data();
  auto w = Tensor<Cuda, 4>::random({16, 3, 3, 3}, Distribution::uniform(-1, 1), device).to_data();
  auto b = Tensor<Cuda, 1>::random({16}, Distribution::uniform(-1, 1), device).to_data();
  auto forward = [&]<class B>(const Tensor<B, 4>& X, const Tensor<B, 4>& W, const Tensor<B, 1>& bias) {
    return activation::relu(functional::conv2d(X, W, bias));
  };
  auto X = Tensor<FusionCuda, 4>::from_data(x, device), W = Tensor<FusionCuda, 4>::from_data(w, device);
  auto bias = Tensor<FusionCuda, 1>::from_data(b, device);
  auto Xc = Tensor<Cuda, 4>::from_data(x, device), Wc = Tensor<Cuda, 4>::from_data(w, device);
  forward(X, W, bias).to_data().assert_approx_eq(forward(Xc, Wc, Tensor<Cuda, 1>::from_data(b, device)).to_data(),
                                                 Tolerance::rel_abs(1e-4, 1e-4));
  size_t conv = kernels_of([&] { (void)functional::conv2d(Xc, Wc, std::nullopt); });
  Tensor<FusionCuda, 4> out;
  EXPECT_EQ(kernels_of([&] {
              out = forward(X, W, bias);
              FusionCuda::flush();
            }),
            conv + 1);  // the convolution, then bias and relu in one generated kernel
}

TEST(FusionCuda, OpsAfterAReductionRunInItsKernel) {
  SCORCH_REQUIRE_CUDA();
  CudaDevice device{0};
  Cuda::seed(10);
  auto data = Tensor<Cuda, 2>::random({300, 700}, Distribution::uniform(-2, 2), device).to_data();
  auto deviation = [&]<class B>(const Tensor<B, 2>& x, int64_t dim) {
    auto centered = x - 0.5;
    return ((centered * centered).mean_dim(dim) + 1e-5).sqrt();  // a layer norm's deviation
  };
  auto x = Tensor<FusionCuda, 2>::from_data(data, device);
  for (int64_t dim : {0, 1}) {
    Tensor<FusionCuda, 2> fused;
    EXPECT_EQ(kernels_of([&] {  // counted in a graph that is never launched: fused holds no values after it
                fused = deviation(x, dim);
                FusionCuda::flush();
              }),
              1u);
    deviation(x, dim).to_data().assert_approx_eq(deviation(Tensor<Cuda, 2>::from_data(data, device), dim).to_data(),
                                                 Tolerance::rel_abs(1e-5, 1e-6));
    auto max = (x * 2.0).max_dim(dim);
    auto shifted = max - 1.0, scaled = shifted * 3.0;  // two outputs after the reduction, and the reduction
    auto ex = Tensor<Cuda, 2>::from_data(data, device);
    auto emax = (ex * 2.0).max_dim(dim);
    scaled.to_data().assert_approx_eq(((emax - 1.0) * 3.0).to_data(), Tolerance::rel_abs(1e-6, 1e-6));
    shifted.to_data().assert_approx_eq((emax - 1.0).to_data(), Tolerance::rel_abs(1e-6, 1e-6));
    max.to_data().assert_approx_eq(emax.to_data(), Tolerance::rel_abs(1e-6, 1e-6));
    // An op fused after an op fused after a reduction, once the reduction's only holder has run.
    auto sum = (x * 2.0).sum_dim(dim);
    auto plus = sum + 1.0, root = plus.sqrt();
    sum = Tensor<FusionCuda, 2>();
    (void)plus.to_data();
    auto esum = (ex * 2.0).sum_dim(dim);
    (root * 3.0).to_data().assert_approx_eq(((esum + 1.0).sqrt() * 3.0).to_data(), Tolerance::rel_abs(1e-5, 1e-5));
  }
}

TEST(FusionCuda, ReductionsOfExpressionsMatchEager) {
  SCORCH_REQUIRE_CUDA();
  CudaDevice device{0};
  Cuda::seed(6);
  // Rows of 3000 (one block per row), 200 (one warp per row), 513, lanes of a leading dim, and a single element.
  for (Shape shape : {Shape{2, 64, 3000}, Shape{3, 300, 200}, Shape{7, 2, 513}, Shape{1, 1, 1}}) {
    SCOPED_TRACE(shape.to_string());
    auto a =
        Tensor<Cuda, 3>::random(Shape{shape[2], shape[1], shape[0]}, Distribution::uniform(-3, 3), device).to_data();
    auto run = [&]<class B>() {
      auto x = Tensor<B, 3>::from_data(a, device).swap_dims(0, 2);  // strided leaves
      auto e = gelu_custom(x) - 0.25;
      std::vector<TensorData> out;
      for (int64_t dim = 0; dim < 3; ++dim) {
        out.push_back(e.sum_dim(dim).to_data());
        out.push_back(e.mean_dim(dim).to_data());
        out.push_back((e * 3.0).max_dim(dim).to_data());
        out.push_back((e + 1.0).min_dim(dim).to_data());
        out.push_back(activation::softmax(e * 2.0, dim).to_data());
        out.push_back(activation::log_softmax(e.cast(DType::F16) * 2.0, dim).cast(DType::F32).to_data());
      }
      out.push_back(e.to_data());  // held by a handle: stored by the first reduction's kernel
      return out;
    };
    auto fused = run.template operator()<FusionCuda>();
    auto eager = run.template operator()<Cuda>();
    for (size_t i = 0; i < fused.size(); ++i) {
      SCOPED_TRACE("value " + std::to_string(i));
      fused[i].assert_approx_eq(eager[i], Tolerance::rel_abs(2e-3, 2e-3));
    }
  }
}

TEST(FusionCuda, HalfPrecisionCastsAndClampsMatchEagerExactly) {
  SCORCH_REQUIRE_CUDA();
  CudaDevice device{0};
  Cuda::seed(7);
  auto data = Tensor<Cuda, 2>::random({333, 777}, Distribution::uniform(-6, 6), device).to_data();
  auto run = [&]<class B>() {
    auto x = Tensor<B, 2>::from_data(data, device);
    std::vector<TensorData> out;
    for (DType d : {DType::F16, DType::BF16}) {
      auto h = x.cast(d);
      out.push_back((h * 0.5 * ((h / std::sqrt(2.0)).erf() + 1.0)).to_data());
      out.push_back(h.clamp(-2.5, 1.25).exp().cast(DType::F32).to_data());
    }
    out.push_back((x * 7.0).int_().clamp(-20, 15).float_().cast(DType::F64).sqrt().to_data());
    out.push_back(x.greater_elem(0.5).int_().float_().to_data());
    return out;
  };
  auto fused = run.template operator()<FusionCuda>();
  auto eager = run.template operator()<Cuda>();
  for (size_t i = 0; i < fused.size(); ++i) fused[i].assert_eq(eager[i]);
}

TEST(FusionCuda, RandomGraphsAgreeWithCuda) {
  SCORCH_REQUIRE_CUDA();
  auto before = FusionCuda::stats();
  testing::fuzz_random_graphs<FusionCuda, Cuda>(CudaDevice{0}, Tolerance::rel_abs(1e-5, 1e-5));
  EXPECT_GT(FusionCuda::stats().fused_programs, before.fused_programs);
}

}  // namespace
}  // namespace scorch
