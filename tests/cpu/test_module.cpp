// Functional ops beyond the fixtures: argument errors, the provided attention default
// against the Cpu's fused kernel, reduced-precision inputs, batched and few-row matmul, depthwise and pointwise
// convolution against the GEMM path, norms of long rows, reshape of views and the host cache.
#include <gtest/gtest.h>

#include "support/expect_error.h"

#include <scorch/backends/cpu/host_cache.h>
#include <scorch/scorch.hpp>

namespace scorch {
namespace {
using B = Cpu;
using T4 = Tensor<B, 4>;
namespace md = functional;

using testing::expect_error;

TEST(ModuleErrors, ConvArgumentsAreChecked) {
  auto x = T4::zeros({2, 4, 5, 5});
  expect_error<ShapeError>(
      [&] {
        md::conv2d(x, T4::zeros({6, 3, 3, 3}), std::nullopt);
      },
      "[conv] input [2, 4, 5, 5] and weight [6, 3, 3, 3] do not fit 1 group(s)");
  expect_error<ShapeError>(
      [&] {
        md::conv2d(x, T4::zeros({6, 2, 3, 3}), std::nullopt, {.groups = 3});
      },
      "[conv] input [2, 4, 5, 5] and weight [6, 2, 3, 3] do not fit 3 group(s)");
  expect_error<ShapeError>(
      [&] {
        md::conv2d(x, T4::zeros({6, 4, 3, 3}), Tensor<B, 1>::zeros({5}));
      },
      "[conv] bias [5] must be [6]");
  expect_error<ShapeError>(
      [&] {
        md::conv2d(x, T4::zeros({6, 4, 7, 3}), std::nullopt);
      },
      "[conv] input [2, 4, 5, 5] gives an empty output");
  expect_error<ValueError>(
      [&] {
        md::conv2d(x, T4::zeros({6, 4, 3, 3}), std::nullopt, {.stride = {0, 1}});
      },
      "[conv] stride [0, 1] must be at least 1");
  expect_error<DTypeError>(
      [&] {
        md::conv2d(x, T4::zeros({6, 4, 3, 3}).cast(DType::F64), std::nullopt);
      },
      "[conv] input f32 and weight f64 differ");
  expect_error<ValueError>(
      [&] {
        md::conv_transpose2d(x, T4::zeros({4, 2, 3, 3}), std::nullopt, {.stride = {2, 2}, .padding_out = {2, 0}});
      },
      "[conv_transpose] padding_out [2, 0] must be smaller than stride or dilation");
}

TEST(ModuleErrors, PoolAndResampleArgumentsAreChecked) {
  auto x = T4::zeros({1, 2, 4, 4});
  expect_error<ValueError>(
      [&] {
        md::avg_pool2d(x, {2, 2}, {2, 2}, {2, 0});
      },
      "[avg_pool] padding [2, 0] must be at most half the kernel [2, 2]");
  expect_error<ShapeError>(
      [&] {
        md::max_pool2d(x, {5, 5}, {1, 1}, {0, 0});
      },
      "[max_pool] input [1, 2, 4, 4] gives an empty output");
  expect_error<ValueError>(
      [&] {
        md::adaptive_avg_pool2d(x, {0, 2});
      },
      "[adaptive_avg_pool] output size [0, 2] must be at least 1");
  expect_error<ValueError>([&] { md::interpolate(x, {0, 3}); }, "[interpolate] output size [0, 3] must be at least 1");
  expect_error<ShapeError>(
      [&] {
        md::fold4d(Tensor<B, 3>::zeros({1, 8, 5}), {4, 4}, {2, 2});
      },
      "[fold4d] input [1, 8, 5] must be [batch, channels·4, 9]");
  auto q = T4::zeros({1, 2, 3, 4});
  expect_error<ShapeError>(
      [&] {
        md::attention(q, T4::zeros({1, 2, 5, 3}), T4::zeros({1, 2, 5, 4}));
      },
      "[attention] query [1, 2, 3, 4], key [1, 2, 5, 3]");
  expect_error<ShapeError>(
      [&] {
        md::attention(q, q, q, Tensor<B, 4, Bool>::full({1, 1, 2, 3}, false));
      },
      "[attention] mask [1, 1, 2, 3] does not broadcast");
}

TEST(ModuleErrors, GradientHelpersCheckTheGradient) {
  auto x = T4::zeros({1, 2, 6, 6}), w = T4::zeros({3, 2, 3, 3});
  expect_error<ShapeError>(
      [&] {
        md::conv_backward(x, w, true, T4::zeros({1, 3, 6, 6}));
      },
      "[conv_backward] grad [1, 3, 6, 6] must have the forward output's shape [1, 3, 4, 4]");
  expect_error<ShapeError>(
      [&] {
        md::avg_pool_backward(x, T4::zeros({1, 2, 2, 2}), {2, 2}, {2, 2}, {0, 0});
      },
      "[avg_pool_backward] grad [1, 2, 2, 2]");
  expect_error<ShapeError>(
      [&] {
        md::adaptive_avg_pool_backward(x, T4::zeros({2, 2, 3, 3}));
      },
      "[adaptive_avg_pool_backward] grad [2, 2, 3, 3]");
  expect_error<ShapeError>(
      [&] {
        md::interpolate_backward(x, T4::zeros({1, 2, 5, 5}), {4, 4});
      },
      "[interpolate_backward] grad [1, 2, 5, 5]");
  auto bad = Tensor<B, 4, Int>::full({1, 2, 3, 3}, 36);
  expect_error<ShapeError>(
      [&] {
        md::max_pool_backward(x, T4::zeros({1, 2, 3, 3}), bad);
      },
      "[max_pool_backward] index 36 is outside the 36 values");
}

TEST(Module, ProvidedAttentionMatchesFusedKernelWithAndWithoutCausal) {
  B::seed(3);
  auto q = T4::random({2, 3, 7, 5}, Distribution::normal(0, 1)),
       k = T4::random({2, 3, 9, 5}, Distribution::normal(0, 1));
  auto v = T4::random({2, 3, 9, 6}, Distribution::normal(0, 1));
  auto mask = Tensor<B, 4>::random({2, 1, 7, 9}, Distribution::uniform(0, 1)).greater_elem(0.7);
  mask = mask.slice_fill({Slice(0, 2), Slice(0, 1), Slice(0, 7), Slice(0, 1)}, false);  // every query keeps key 0
  for (bool causal : {false, true}) {
    auto fused = md::attention(q, k, v, mask, 0.4, causal);
    auto provided = T4(
        provided::module_attention<B>(q.primitive(), k.primitive(), v.primitive(), mask.primitive(), 0.4, causal, {}));
    fused.to_data().assert_approx_eq(provided.to_data(), Tolerance::rel_abs(1e-5, 1e-5));
  }
  AttentionDropout drop{0.3, 17};  // the kernel and the composition draw one mask
  auto [fused, lse] = md::attention_with_stats(q, k, v, mask, 0.4, true, drop);
  auto provided =
      T4(provided::module_attention<B>(q.primitive(), k.primitive(), v.primitive(), mask.primitive(), 0.4, true, drop));
  fused.to_data().assert_approx_eq(provided.to_data(), Tolerance::rel_abs(1e-5, 1e-5));
  // causal is the mask of later keys (top-left aligned: query i sees keys 0..i of the 9).
  auto later = Tensor<B, 4, Bool>::tril_mask({1, 1, 7, 9}, 0);
  md::attention(q, k, v, mask, 0.4, true)
      .to_data()
      .assert_approx_eq(md::attention(q, k, v, mask.bool_or(later), 0.4).to_data(), Tolerance::rel_abs(1e-6, 1e-6));
}

/// The blocked kernel (64 queries against 256 keys at a time, an online softmax) against the provided composition,
/// over several blocks each way, ragged ends, a random mask, the causal flag and dropout, forward and backward.
TEST(Module, BlockedAttentionKernelMatchesTheCompositionAcrossBlocks) {
  B::seed(11);
  struct Config {
    size_t lq, lk;
    bool causal;
    AttentionDropout dropout;
  };
  for (Config c : {Config{150, 600, false, {0.2, 5}}, Config{300, 300, true, {}}, Config{70, 520, true, {0.1, 9}}}) {
    SCOPED_TRACE(::testing::Message() << c.lq << " × " << c.lk << (c.causal ? " causal" : ""));
    auto q = T4::random({2, 2, c.lq, 8}, Distribution::normal(0, 1)), k = T4::random({2, 2, c.lk, 8}, {});
    k = k * 2.0 - 1.0;
    auto v = T4::random({2, 2, c.lk, 5}, Distribution::normal(0, 1));
    auto g = T4::random({2, 2, c.lq, 5}, Distribution::normal(0, 1));
    auto mask = Tensor<B, 4>::random({2, 1, c.lq, c.lk}, Distribution::uniform(0, 1)).greater_elem(0.8);
    auto [out, lse] = md::attention_with_stats(q, k, v, mask, 0.5, c.causal, c.dropout);
    auto [pout, plse] = provided::module_attention_with_stats<B>(q.primitive(), k.primitive(), v.primitive(),
                                                                 mask.primitive(), 0.5, c.causal, c.dropout);
    Tolerance tol = Tolerance::rel_abs(1e-4, 1e-5);
    out.to_data().assert_approx_eq(T4(pout).to_data(), tol);
    lse.to_data().assert_approx_eq(Tensor<B, 3>(plse).to_data(), tol);
    auto r = md::attention_backward(q, k, v, out, lse, g, mask, 0.5, c.causal, c.dropout);
    auto pr =
        provided::module_attention_backward<B>(q.primitive(), k.primitive(), v.primitive(), mask.primitive(), 0.5,
                                               c.causal, c.dropout, out.primitive(), lse.primitive(), g.primitive());
    r.q.to_data().assert_approx_eq(T4(pr.q).to_data(), tol);
    r.k.to_data().assert_approx_eq(T4(pr.k).to_data(), tol);
    r.v.to_data().assert_approx_eq(T4(pr.v).to_data(), tol);
  }
}

/// With q = k = 0 every probability is 1/sk, and with v the identity the output is the dropped probabilities: each
/// 0 or 1/(sk·(1 − p)), zero with frequency p; the same seed draws the same mask, another seed another.
TEST(Module, AttentionDropoutDropsWithItsProbabilityAndItsSeed) {
  const size_t b = 2, h = 4, s = 64;
  auto zeros = T4::zeros({b, h, s, 8});
  auto eye = Tensor<B, 2>::eye(s).reshape<4>({1, 1, s, s}).expand_to({b, h, s, s});
  for (double p : {0.1, 0.5}) {
    SCOPED_TRACE(p);
    auto out = md::attention_with_stats(zeros, zeros, eye, std::nullopt, std::nullopt, false, {p, 99}).first;
    auto values = out.to_data().to_vector<float>();
    double kept = 1.0 / (s * (1.0 - p)), dropped = 0;
    for (float x : values) {
      EXPECT_TRUE(x == 0.0f || std::abs(x - kept) < 1e-6) << x;
      dropped += x == 0.0f;
    }
    EXPECT_NEAR(dropped / static_cast<double>(values.size()), p, 0.01);  // 32768 draws: σ ≤ 0.003
    auto again = md::attention_with_stats(zeros, zeros, eye, std::nullopt, std::nullopt, false, {p, 99}).first;
    EXPECT_TRUE(again.to_data() == out.to_data());
    auto other = md::attention_with_stats(zeros, zeros, eye, std::nullopt, std::nullopt, false, {p, 100}).first;
    EXPECT_FALSE(other.to_data() == out.to_data());
  }
  // attention(..., dropout) draws its seed from the backend's stream: B::seed reproduces it.
  B::seed(5);
  auto drawn = md::attention_dropout<B>(0.25, {});
  B::seed(5);
  auto out = md::attention(zeros, zeros, eye, std::nullopt, std::nullopt, false, 0.25);
  out.to_data().assert_approx_eq(
      md::attention_with_stats(zeros, zeros, eye, std::nullopt, std::nullopt, false, drawn).first.to_data(),
      Tolerance::rel_abs(0, 0));
  expect_error<ValueError>([&] { md::attention(zeros, zeros, eye, std::nullopt, std::nullopt, false, 1.0); },
                           "[attention] dropout must be in [0, 1)");
}

/// Under Autodiff the recorded node keeps its dropout: the gradients are those of attention_backward with the seed.
TEST(Module, AttentionDropoutGradientsUseTheForwardsMask) {
  using AD = Autodiff<B>;
  B::seed(8);
  auto q = T4::random({1, 2, 5, 4}, Distribution::normal(0, 1));
  auto k = T4::random({1, 2, 6, 4}, Distribution::normal(0, 1));
  auto v = T4::random({1, 2, 6, 3}, Distribution::normal(0, 1));
  auto aq = Tensor<AD, 4>::from_inner(q).require_grad(), ak = Tensor<AD, 4>::from_inner(k).require_grad();
  auto av = Tensor<AD, 4>::from_inner(v).require_grad();
  AttentionDropout drop{0.4, 3};
  auto out = md::attention_with_stats(aq, ak, av, std::nullopt, std::nullopt, false, drop).first;
  auto grads = (out * out).sum().backward();
  auto [plain, lse] = md::attention_with_stats(q, k, v, std::nullopt, std::nullopt, false, drop);
  auto r = md::attention_backward(q, k, v, plain, lse, plain * 2.0, std::nullopt, std::nullopt, false, drop);
  Tolerance tol = Tolerance::rel_abs(1e-5, 1e-5);
  aq.grad(grads)->to_data().assert_approx_eq(r.q.to_data(), tol);
  ak.grad(grads)->to_data().assert_approx_eq(r.k.to_data(), tol);
  av.grad(grads)->to_data().assert_approx_eq(r.v.to_data(), tol);
}

TEST(Module, CrossEntropyChecksItsArguments) {
  auto logits = Tensor<B, 2>::zeros({3, 10});
  auto targets = Tensor<B, 1, Int>::from_data(TensorData(std::vector<int64_t>{1, 12, -1}, Shape{3}));
  expect_error<ShapeError>([&] { md::cross_entropy(logits, targets); },
                           "[cross_entropy] index 12 is out of range for a dim of size 10");
  expect_error<ShapeError>([&] { md::cross_entropy(logits, targets.slice({Slice(0, 2)})); },
                           "[cross_entropy] targets [2] must be [rows] for logits [3, 10]");
  expect_error<ShapeError>(
      [&] {
        md::cross_entropy(Tensor<B, 2>::zeros({3, 0}), targets);
      },
      "[cross_entropy] logits [3, 0] have no class");
  // A negative target counts from the end, as gather's index.
  auto fine = Tensor<B, 1, Int>::from_data(TensorData(std::vector<int64_t>{1, 2, -1}, Shape{3}));
  auto nll = md::cross_entropy(logits, fine).to_data().to_vector<float>();
  for (float v : nll) EXPECT_NEAR(v, std::log(10.0f), 1e-6);
}

TEST(Module, HalfPrecisionRunsInF32) {
  B::seed(4);
  auto x = T4::random({2, 3, 6, 6}, Distribution::normal(0, 1)).cast(DType::F16);
  auto w = T4::random({4, 3, 3, 3}, Distribution::normal(0, 1)).cast(DType::F16);
  auto half = md::conv2d(x, w, std::nullopt, {.padding = {1, 1}});
  EXPECT_EQ(half.dtype(), DType::F16);
  auto full = md::conv2d(x.cast(DType::F32), w.cast(DType::F32), std::nullopt, {.padding = {1, 1}});
  half.cast(DType::F32).to_data().assert_approx_eq(full.to_data(), Tolerance::rel_abs(0, 2e-2));
  auto bf = Tensor<B, 2>::random({5, 7}, Distribution::normal(0, 1)).cast(DType::BF16);
  EXPECT_EQ(bf.matmul(bf.transpose()).dtype(), DType::BF16);
}

TEST(Module, BatchedMatmulBroadcastsAndReadsViews) {
  B::seed(6);
  auto a = Tensor<B, 3>::random({4, 30, 20}, Distribution::normal(0, 1));
  auto b = Tensor<B, 3>::random({1, 25, 20}, Distribution::normal(0, 1));
  auto viewed = a.matmul(b.swap_dims(1, 2));  // transposed view, broadcast batch
  auto copied = a.matmul(b.swap_dims(1, 2).expand_to(Shape{4, 20, 25}) * 1.0);
  viewed.to_data().assert_approx_eq(copied.to_data(), Tolerance::rel_abs(1e-5, 1e-5));
  auto a64 = a.cast(DType::F64);
  a64.matmul(a64.swap_dims(1, 2))
      .cast(DType::F32)
      .to_data()
      .assert_approx_eq(a.matmul(a.swap_dims(1, 2)).to_data(), Tolerance::rel_abs(1e-4, 1e-5));
}

// a [m, k] · b [k, n] in f64 from the host values, the reference for the few-row and folded products.
std::vector<double> naive_matmul(const Tensor<B, 2>& a, const Tensor<B, 2>& b) {
  auto av = a.cast(DType::F64).to_data().to_vector<double>(), bv = b.cast(DType::F64).to_data().to_vector<double>();
  size_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
  std::vector<double> c(m * n, 0.0);
  for (size_t i = 0; i < m; ++i)
    for (size_t p = 0; p < k; ++p)
      for (size_t j = 0; j < n; ++j) c[i * n + j] += av[i * k + p] * bv[p * n + j];
  return c;
}

TEST(Module, FewRowProductsAndFoldedBatchesMatchTheNaiveProduct) {
  B::seed(11);
  for (size_t m : {1, 2, 4, 5})
    for (bool transposed : {false, true}) {
      auto a = Tensor<B, 2>::random({m, 300}, Distribution::normal(0, 1));
      auto stored = Tensor<B, 2>::random(transposed ? Shape{70, 300} : Shape{300, 70}, Distribution::normal(0, 1));
      auto b = transposed ? stored.transpose() : stored;
      TensorData expected(naive_matmul(a, b), Shape{m, 70});
      a.matmul(b).cast(DType::F64).to_data().assert_approx_eq(expected, Tolerance::rel_abs(1e-4, 1e-4));
    }
  // [3, 40, 300] · [300, 70] shares B across batches: one tall [120, 300] product.
  auto a3 = Tensor<B, 3>::random({3, 40, 300}, Distribution::normal(0, 1));
  auto w = Tensor<B, 2>::random({300, 70}, Distribution::normal(0, 1));
  TensorData expected(naive_matmul(a3.reshape({120, 300}), w), Shape{3, 40, 70});
  a3.matmul(w.template unsqueeze<3>())
      .cast(DType::F64)
      .to_data()
      .assert_approx_eq(expected, Tolerance::rel_abs(1e-4, 1e-4));
  // One row a batch from a transposed view ([1, 50, 300] seen as [50, 1, 300], PyTorch's exported attention input
  // projection): the rows are 300 apart whatever the size-1 dim's stride says, so it folds into one [50, 300] product.
  auto rows = Tensor<B, 3>::random({1, 50, 300}, Distribution::normal(0, 1));
  auto one_row_batches = rows.swap_dims(0, 1);
  TensorData rows_expected(naive_matmul(rows.reshape({50, 300}), w), Shape{50, 1, 70});
  one_row_batches.matmul(w.template unsqueeze<3>())
      .cast(DType::F64)
      .to_data()
      .assert_approx_eq(rows_expected, Tolerance::rel_abs(1e-4, 1e-4));
  // Batches stepping backwards (a flipped view) fold too, with a negative row stride.
  auto flipped = rows.reshape({50, 1, 300}).flip({0});
  TensorData flipped_expected(naive_matmul(rows.reshape({50, 300}).flip({0}), w), Shape{50, 1, 70});
  flipped.matmul(w.template unsqueeze<3>())
      .cast(DType::F64)
      .to_data()
      .assert_approx_eq(flipped_expected, Tolerance::rel_abs(1e-4, 1e-4));
}

TEST(Module, DepthwiseAndPointwiseConvolutionsMatchPerChannelProducts) {
  B::seed(12);
  auto x = T4::random({2, 6, 9, 11}, Distribution::normal(0, 1));
  auto w = T4::random({12, 1, 3, 3}, Distribution::normal(0, 1));  // two outputs per input channel
  auto bias = Tensor<B, 1>::random({12}, Distribution::normal(0, 1));
  for (size_t stride : {1, 2})
    for (size_t dilation : {1, 2}) {
      functional::ConvOptions<2> o{{stride, stride}, {1, 2}, {dilation, dilation}, 6};
      auto depthwise = md::conv2d(x, w, bias, o);
      functional::ConvOptions<2> single{{stride, stride}, {1, 2}, {dilation, dilation}, 1};
      for (size_t oc = 0; oc < 12; ++oc) {  // channel oc reads input channel oc / 2 through the GEMM path
        auto one = md::conv2d(x.narrow(1, oc / 2, 1), w.narrow(0, oc, 1), bias.narrow(0, oc, 1), single);
        depthwise.narrow(1, oc, 1).to_data().assert_approx_eq(one.to_data(), Tolerance::rel_abs(1e-5, 1e-5));
      }
    }
  auto pw = T4::random({5, 6, 1, 1}, Distribution::normal(0, 1));  // 1 × 1: the image is the GEMM operand
  auto pointwise = md::conv2d(x, pw, std::nullopt);
  auto as_matmul = pw.reshape({1, 5, 6}).matmul(x.reshape({2, 6, 99})).reshape({2, 5, 9, 11});
  pointwise.to_data().assert_approx_eq(as_matmul.to_data(), Tolerance::rel_abs(1e-5, 1e-5));
}

TEST(Module, NormsOfLongRowsMatchTwoPassSumsInDouble) {
  // Rows of 1000 and 100 values run the vectorized row sums (four vector sums, single vectors, a scalar tail).
  B::seed(14);
  for (size_t d : {1000, 100, 7})
    for (DType dtype : {DType::F32, DType::F64}) {
      auto x = (Tensor<B, 2>::random({5, d}, Distribution::normal(3, 2))).cast(dtype);
      auto gamma = Tensor<B, 1>::random({d}, Distribution::normal(1, 0.5)).cast(dtype);
      auto beta = Tensor<B, 1>::random({d}, Distribution::normal(0, 1)).cast(dtype);
      auto xv = x.to_data().to_vector<double>(), gv = gamma.to_data().to_vector<double>();
      auto bv = beta.to_data().to_vector<double>();
      std::vector<double> layer(5 * d), rms(5 * d);
      for (size_t r = 0; r < 5; ++r) {
        double mean = 0, var = 0, square = 0;
        for (size_t j = 0; j < d; ++j) mean += xv[r * d + j] / double(d);
        for (size_t j = 0; j < d; ++j) var += (xv[r * d + j] - mean) * (xv[r * d + j] - mean) / double(d);
        for (size_t j = 0; j < d; ++j) square += xv[r * d + j] * xv[r * d + j] / double(d);
        for (size_t j = 0; j < d; ++j) {
          layer[r * d + j] = (xv[r * d + j] - mean) / std::sqrt(var + 1e-5) * gv[j] + bv[j];
          rms[r * d + j] = xv[r * d + j] / std::sqrt(square + 1e-5) * gv[j];
        }
      }
      double tol = dtype == DType::F64 ? 1e-12 : 1e-4;
      auto layer_got = functional::layer_norm(x, std::optional(gamma), std::optional(beta));
      auto rms_got = functional::rms_norm(x, std::optional(gamma));
      TensorData(layer, Shape{5, d})
          .assert_approx_eq(layer_got.cast(DType::F64).to_data(), Tolerance::rel_abs(tol, tol));
      TensorData(rms, Shape{5, d}).assert_approx_eq(rms_got.cast(DType::F64).to_data(), Tolerance::rel_abs(tol, tol));
    }
}

TEST(Module, TransposedConvolutionInputGradientWithOutputPaddingAndAUnitKernel) {
  // y [2, 3, 6] from x [2, 4, 5] (kernel 1, dilation 2, output_padding 1): y's last column holds only the bias, so
  // dx[n, i, t] = Σ_o w[i, o] g[n, o, t] over t < 5 (the backward's forward convolution is not pointwise).
  using AD = Autodiff<Cpu>;
  B::seed(13);
  auto x = Tensor<AD, 3>::random({2, 4, 5}, Distribution::normal(0, 1)).require_grad();
  auto w = Tensor<AD, 3>::random({4, 3, 1}, Distribution::normal(0, 1));
  auto g = Tensor<B, 3>::random({2, 3, 6}, Distribution::normal(0, 1));
  functional::ConvTransposeOptions<1> o{{1}, {0}, {1}, {2}, 1};
  auto y = functional::conv_transpose1d(x, w, std::nullopt, o);
  ASSERT_EQ(y.shape(), (Shape{2, 3, 6}));
  auto grads = (y * Tensor<AD, 3>::from_inner(g)).sum().backward();
  auto expected = w.inner().reshape({1, 4, 3}).matmul(g.narrow(2, 0, 5));
  x.grad(grads).value().to_data().assert_approx_eq(expected.to_data(), Tolerance::rel_abs(1e-5, 1e-5));
}

TEST(Module, ReshapeOfAViewKeepsTheValuesInOrder) {
  auto x = Tensor<B, 3>::random({4, 5, 6}, Distribution::normal(0, 1));
  auto exact = Tolerance::rel_abs(0, 0);
  auto permuted = x.swap_dims(0, 2);  // [6, 5, 4], not contiguous
  auto copy = permuted * 1.0;
  permuted.reshape({1, 6, 5, 4}).to_data().assert_approx_eq(copy.reshape({1, 6, 5, 4}).to_data(), exact);
  permuted.reshape({6, 1, 5, 4, 1}).to_data().assert_approx_eq(copy.reshape({6, 1, 5, 4, 1}).to_data(), exact);
  permuted.reshape({6, 20}).to_data().assert_approx_eq(copy.reshape({6, 20}).to_data(), exact);
  permuted.reshape({30, 4}).to_data().assert_approx_eq(copy.reshape({30, 4}).to_data(), exact);
  permuted.reshape({120}).to_data().assert_approx_eq(copy.reshape({120}).to_data(), exact);
  auto sliced = x.narrow(2, 1, 4);  // rows of 4 inside rows of 6
  auto dense = sliced * 1.0;
  sliced.reshape({20, 4}).to_data().assert_approx_eq(dense.reshape({20, 4}).to_data(), exact);
  sliced.reshape({4, 5, 2, 2}).to_data().assert_approx_eq(dense.reshape({4, 5, 2, 2}).to_data(), exact);
  sliced.reshape({2, 2, 5, 4}).to_data().assert_approx_eq(dense.reshape({2, 2, 5, 4}).to_data(), exact);
}

TEST(HostCache, LargeBlocksAreReusedWithinTheCap) {
  namespace hc = backends::cpu::host_cache;
  hc::empty();
  { auto big = Tensor<B, 1>::zeros({1 << 20}); }  // 4 MiB freed into the cache
  EXPECT_GE(hc::cached_bytes(), size_t(4) << 20);
  {
    auto again = Tensor<B, 1>::zeros({1 << 20});
    EXPECT_EQ(hc::cached_bytes(), 0u);
  }
  hc::set_limit(0);
  { auto big = Tensor<B, 1>::zeros({1 << 20}); }
  EXPECT_EQ(hc::cached_bytes(), 0u);
  hc::set_limit(size_t(1) << 30);
}

}  // namespace
}  // namespace scorch
