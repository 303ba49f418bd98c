// Cuda's fused kernels (layer norm, RMS norm, attention with its statistics and backward, cross-entropy, the Adam
// update, linear with its epilogues) against
// Cpu's on sizes the conformance fixtures do not reach: thousands of rows (the gamma/beta gradients reduce over
// several chunks of rows), rows that are not a multiple of 32, sequences longer than a tile, a million parameters,
// f32 and bf16.
#include <optional>

#include "cuda/cuda_test_util.h"

namespace scorch {
namespace {
using backends::cpu::Cpu;
using backends::cuda::Cuda;
namespace md = functional;

/// The same random values on Cuda and on Cpu, in dtype.
template <size_t D> std::pair<Tensor<Cuda, D>, Tensor<Cpu, D>> twin(Shape shape, DType dtype, double scale = 1.0) {
  auto host = Tensor<Cpu, D>::random(shape, Distribution::normal(0, scale)).cast(dtype);
  return {Tensor<Cuda, D>::from_data(host.to_data()), host};
}
/// Cuda's result, brought to f32, against Cpu's.
template <size_t D> void expect_near(const Tensor<Cuda, D>& cuda, const Tensor<Cpu, D>& cpu, Tolerance tol) {
  cuda.cast(DType::F32).to_data().assert_approx_eq(cpu.cast(DType::F32).to_data(), tol);
}
Tolerance tolerance_for(DType dtype) {
  return dtype == DType::F32 ? Tolerance::rel_abs(1e-4, 1e-4) : Tolerance::rel_abs(2e-2, 2e-2);
}

/// Each case draws its values from one seed, whatever ran before it (bf16's tolerances hold for typical draws).
class FusedOpsCuda : public ::testing::TestWithParam<DType> {
 protected:
  void SetUp() override { Cpu::seed(4321); }
};

TEST_P(FusedOpsCuda, LayerNormForwardAndBackwardMatchCpu) {
  SCORCH_REQUIRE_CUDA();
  DType dtype = GetParam();
  for (size_t d : {512, 1000, 7}) {
    auto [x, hx] = twin<2>({4099, d}, dtype);
    auto [g, hg] = twin<2>({4099, d}, dtype);
    auto [gamma, hgamma] = twin<1>({d}, dtype);
    auto [beta, hbeta] = twin<1>({d}, dtype);
    Tolerance tol = tolerance_for(dtype);
    expect_near(md::layer_norm(x, std::optional(gamma), std::optional(beta)),
                md::layer_norm(hx, std::optional(hgamma), std::optional(hbeta)), tol);
    auto r = md::layer_norm_backward(x, std::optional(gamma), true, g);
    auto hr = md::layer_norm_backward(hx, std::optional(hgamma), true, hg);
    expect_near(r.x, hr.x, tol);
    // Sums over 4099 rows: compared relative to their size.
    expect_near(*r.gamma, *hr.gamma, Tolerance::rel_abs(tol.relative, tol.absolute * 64));
    expect_near(*r.beta, *hr.beta, Tolerance::rel_abs(tol.relative, tol.absolute * 64));
  }
}

TEST_P(FusedOpsCuda, RmsNormForwardAndBackwardMatchCpu) {
  SCORCH_REQUIRE_CUDA();
  DType dtype = GetParam();
  auto [x, hx] = twin<3>({3, 700, 333}, dtype);
  auto [g, hg] = twin<3>({3, 700, 333}, dtype);
  auto [gamma, hgamma] = twin<1>({333}, dtype);
  Tolerance tol = tolerance_for(dtype);
  expect_near(md::rms_norm(x, std::optional(gamma)), md::rms_norm(hx, std::optional(hgamma)), tol);
  auto r = md::rms_norm_backward(x, std::optional(gamma), g);
  auto hr = md::rms_norm_backward(hx, std::optional(hgamma), hg);
  expect_near(r.x, hr.x, tol);
  expect_near(*r.gamma, *hr.gamma, Tolerance::rel_abs(tol.relative, tol.absolute * 64));
}

TEST_P(FusedOpsCuda, AttentionWithStatsAndBackwardMatchCpu) {
  SCORCH_REQUIRE_CUDA();
  DType dtype = GetParam();
  auto [q, hq] = twin<4>({2, 3, 130, 40}, dtype);
  auto [k, hk] = twin<4>({2, 3, 150, 40}, dtype);
  auto [v, hv] = twin<4>({2, 3, 150, 24}, dtype);
  auto [g, hg] = twin<4>({2, 3, 130, 24}, dtype);
  auto hmask = Tensor<Cpu, 4>::random({2, 1, 130, 150}, Distribution::uniform(0, 1)).greater_elem(0.7);
  auto mask = Tensor<Cuda, 4, Bool>::from_data(hmask.to_data());
  Tolerance tol = tolerance_for(dtype);
  // Head size 40: the unfused kernels (the flash ones take 32, 64, 128); dropout draws Cpu's mask.
  for (auto [causal, dropout] : {std::pair{false, AttentionDropout{}}, {true, AttentionDropout{}},
                                 {false, AttentionDropout{0.3, 42}}, {true, AttentionDropout{0.5, 7}}}) {
    auto [out, lse] = md::attention_with_stats(q, k, v, mask, std::nullopt, causal, dropout);
    auto [hout, hlse] = md::attention_with_stats(hq, hk, hv, hmask, std::nullopt, causal, dropout);
    expect_near(out, hout, tol);
    expect_near(lse, hlse, tol);
    auto r = md::attention_backward(q, k, v, out, lse, g, mask, std::nullopt, causal, dropout);
    auto hr = md::attention_backward(hq, hk, hv, hout, hlse, hg, hmask, std::nullopt, causal, dropout);
    expect_near(r.q, hr.q, tol);
    expect_near(r.k, hr.k, tol);
    expect_near(r.v, hr.v, tol);
  }
}

/// Cross-entropy over 8195 classes (a block per row, strided loops) and its backward against Cpu's.
TEST_P(FusedOpsCuda, CrossEntropyMatchesCpu) {
  SCORCH_REQUIRE_CUDA();
  DType dtype = GetParam();
  auto [x, hx] = twin<2>({1031, 8195}, dtype, 3.0);
  auto ht = Tensor<Cpu, 1>::random({1031}, Distribution::uniform(0, 8194)).int_();
  auto t = Tensor<Cuda, 1, Int>::from_data(ht.to_data());
  auto [g, hg] = twin<1>({1031}, DType::F32);
  Tolerance tol = tolerance_for(dtype);
  auto [nll, lse] = md::cross_entropy_with_stats(x, t);
  auto [hnll, hlse] = md::cross_entropy_with_stats(hx, ht);
  EXPECT_EQ(nll.dtype(), DType::F32);
  expect_near(nll, hnll, tol);
  expect_near(lse, hlse, tol);
  expect_near(md::cross_entropy_backward(x, t, lse, g), md::cross_entropy_backward(hx, ht, hlse, hg), tol);
}

/// The one-kernel Adam/AdamW update against Cpu's composition on 1M + 3 elements (several grid strides).
TEST_P(FusedOpsCuda, AdamUpdateMatchesCpu) {
  SCORCH_REQUIRE_CUDA();
  DType dtype = GetParam();
  Shape shape{1000003};
  auto [p, hp] = twin<1>(shape, dtype);
  auto [g, hg] = twin<1>(shape, dtype, 0.1);
  auto [m, hm] = twin<1>(shape, dtype, 0.05);
  auto [v, hv] = twin<1>(shape, dtype, 0.01);
  v = v.abs(), hv = hv.abs();
  for (bool decoupled : {true, false}) {
    md::AdamUpdateOptions o{.lr = 1e-2, .weight_decay = 0.1, .decoupled = decoupled, .step = 7};
    auto r = md::adam_update(p, g, m, v, o);
    auto h = md::adam_update(hp, hg, hm, hv, o);
    Tolerance tol = tolerance_for(dtype);
    expect_near(r.param, h.param, tol);
    expect_near(r.moment_1, h.moment_1, tol);
    expect_near(r.moment_2, h.moment_2, tol);
  }
}

/// The multi-tensor Adam and SGD steps against Cpu's per-parameter compositions: 30 parameters (two tables of 24
/// slots), one of 6M elements (past a table's 320 chunks), an empty one.
TEST_P(FusedOpsCuda, MultiTensorStepsMatchCpu) {
  SCORCH_REQUIRE_CUDA();
  DType dtype = GetParam();
  using CudaP = std::vector<Cuda::FloatTensor>;
  using CpuP = std::vector<Cpu::FloatTensor>;
  CudaP p, g, m, v;
  CpuP hp, hg, hm, hv;
  for (size_t i = 0; i < 30; ++i) {
    Shape shape{i == 3 ? size_t{6000001} : i == 7 ? size_t{0} : 1000 + 37 * i};
    auto add = [&](double scale, bool positive) {
      auto [x, hx] = twin<1>(shape, dtype, scale);
      if (positive) x = x.abs(), hx = hx.abs();
      return std::pair{x.primitive(), hx.primitive()};
    };
    auto [a, ha] = add(1.0, false);
    auto [b, hb] = add(0.1, false);
    auto [c, hc] = add(0.05, false);
    auto [d, hd] = add(0.01, true);
    p.push_back(a), hp.push_back(ha), g.push_back(b), hg.push_back(hb), m.push_back(c), hm.push_back(hc);
    v.push_back(d), hv.push_back(hd);
  }
  Tolerance tol = tolerance_for(dtype);
  auto near = [&](const auto& cuda, const auto& cpu) {
    expect_near(Tensor<Cuda, 1>(cuda), Tensor<Cpu, 1>(cpu), tol);
  };
  AdamStep step{.lr = 1e-2, .weight_decay = 0.1, .decoupled = true, .step = 4};
  auto r = ModuleOpsOf<Cuda>::adam_update_many(p, g, m, v, step);
  auto h = ModuleOpsOf<Cpu>::adam_update_many(hp, hg, hm, hv, step);
  for (size_t i = 0; i < p.size(); ++i) near(r[i].param, h[i].param), near(r[i].moment_2, h[i].moment_2);
  SgdStep sgd{.lr = 0.1, .weight_decay = 1e-3, .momentum = 0.9, .dampening = 0.1, .with_momentum = true};
  for (bool first : {true, false}) {
    auto s = ModuleOpsOf<Cuda>::sgd_update_many(p, g, first ? CudaP{} : m, sgd);
    auto hs = ModuleOpsOf<Cpu>::sgd_update_many(hp, hg, first ? CpuP{} : hm, sgd);
    for (size_t i = 0; i < p.size(); ++i) near(s[i].param, hs[i].param), near(*s[i].velocity, *hs[i].velocity);
  }
  EXPECT_THROW(ModuleOpsOf<Cuda>::adam_update_many(p, CudaP(g.begin(), g.end() - 1), m, v, step), ShapeError);
}

TEST_P(FusedOpsCuda, LinearMatchesCpu) {
  SCORCH_REQUIRE_CUDA();
  DType dtype = GetParam();
  Tolerance tol = dtype == DType::F32 ? Tolerance::rel_abs(1e-4, 1e-3) : tolerance_for(dtype);
  // Rows that are not a multiple of the product's tiles; the bias gradient sums over all of them.
  auto [x, hx] = twin<2>({1000, 256}, dtype);
  auto [w, hw] = twin<2>({256, 384}, dtype, 0.1);
  auto [b, hb] = twin<1>({384}, dtype);
  auto [g, hg] = twin<2>({1000, 384}, dtype);
  for (bool relu : {false, true}) {
    auto y = md::linear(x, w, std::optional(b), relu);
    auto hy = md::linear(hx, hw, std::optional(hb), relu);
    expect_near(y, hy, tol);
    // One output for both backwards: a bf16 value near 0 may round to either side of it on each backend.
    auto r = md::linear_backward(x, w, true, relu, Tensor<Cuda, 2>::from_data(hy.to_data()), g);
    auto hr = md::linear_backward(hx, hw, true, relu, hy, hg);
    expect_near(r.x, hr.x, tol), expect_near(r.weight, hr.weight, tol), expect_near(*r.bias, *hr.bias, tol);
  }
  expect_near(md::linear(x, w), md::linear(hx, hw), tol);
  auto r = md::linear_backward(x, w, false, false, md::linear(x, w), g);
  EXPECT_FALSE(r.bias.has_value());
  expect_near(r.weight, md::linear_backward(hx, hw, false, false, md::linear(hx, hw), hg).weight, tol);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, FusedOpsCuda, ::testing::Values(DType::F32, DType::BF16),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

}  // namespace
}  // namespace scorch
