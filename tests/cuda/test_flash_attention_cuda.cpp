// Cuda's flash attention kernels (f16/bf16 with head sizes 32, 64, 128; f32 in 3xTF32 with 32 and 64, its 128 the
// unfused kernels) against Cpu's attention computed in f32 from the same rounded values (f32 to near f32's
// accuracy): sequences that are not multiples of the 64-row tiles, one query, causal, padding and random masks, the
// causal flag (alone and with a padding mask), output gradients in f32 (as autocast gives them) and in the inputs'
// dtype, head views read through their strides, a query whose keys are all masked, and the whole path under
// Autodiff.
#include <algorithm>
#include <cmath>
#include <optional>
#include <tuple>
#include <vector>

#include "cuda/cuda_test_util.h"

namespace scorch {
namespace {
using backends::cpu::Cpu;
using backends::cuda::Cuda;
namespace md = functional;

/// Random values rounded to dtype, on Cuda and (in f32) on Cpu.
template <size_t D> std::pair<Tensor<Cuda, D>, Tensor<Cpu, D>> rounded_twin(Shape shape, DType dtype) {
  auto host = Tensor<Cpu, D>::random(shape, Distribution::normal(0, 1)).cast(dtype);
  return {Tensor<Cuda, D>::from_data(host.to_data()), host.cast(DType::F32)};
}
/// f32 within 1e-4 (one TF32 product instead of three would miss it by about 5×); 16-bit within 3e-2, absolute
/// 3e-2 times the reference's root mean square where that passes 1 (rounding the probabilities to 16 bits moves a
/// sum in proportion to its terms, also where they cancel).
template <size_t D> void expect_near(const Tensor<Cuda, D>& cuda, const Tensor<Cpu, D>& cpu, const char* what) {
  SCOPED_TRACE(what);
  if (cuda.dtype() == DType::F32)
    return cuda.to_data().assert_approx_eq(cpu.to_data(), Tolerance::rel_abs(1e-4, 1e-4));
  double squares = 0;
  auto values = cpu.to_data().template to_vector<float>();
  for (float v : values) squares += static_cast<double>(v) * v;
  double rms = values.empty() ? 0 : std::sqrt(squares / static_cast<double>(values.size()));
  cuda.cast(DType::F32).to_data().assert_approx_eq(cpu.to_data(), Tolerance::rel_abs(3e-2, 3e-2 * std::max(1.0, rms)));
}

// Causal: a causal mask tensor; CausalFlag: the causal flag (no tensor), alone and with the padding mask.
enum class MaskKind { None, Causal, Padding, Random, CausalFlag, CausalFlagAndPadding };
Tensor<Cpu, 4, Bool> host_mask(MaskKind kind, size_t b, size_t h, size_t sq, size_t sk) {
  switch (kind) {
    case MaskKind::Causal: return Tensor<Cpu, 4, Bool>::tril_mask({1, 1, sq, sk}, 0);
    case MaskKind::Padding:
    case MaskKind::CausalFlagAndPadding: {  // the last 9 keys of the second sequence are padding
      auto keys = Tensor<Cpu, 1, Int>::arange(0, static_cast<int64_t>(sk)).reshape<4>({1, 1, 1, sk});
      auto limit = Tensor<Cpu, 1, Int>::from_data(TensorData(std::vector<int64_t>{static_cast<int64_t>(sk),
                                                                                  static_cast<int64_t>(sk) - 9},
                                                             Shape{2}));
      return keys.greater_equal(limit.reshape<4>({b, 1, 1, 1}));
    }
    case MaskKind::Random: return Tensor<Cpu, 4>::random({b, h, sq, sk}, Distribution::uniform(0, 1)).greater_elem(0.5);
    default: return {};
  }
}

using Case = std::tuple<DType, size_t>;
/// Each case draws its values from its own seed, whatever ran before it.
class FlashAttentionCuda : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override { Cpu::seed(1234 + static_cast<uint64_t>(std::get<1>(GetParam()))); }
};

TEST_P(FlashAttentionCuda, ForwardAndBackwardMatchCpuInF32) {
  SCORCH_REQUIRE_CUDA();
  auto [dtype, d] = GetParam();
  const size_t b = 2, h = 3;
  // 300 × 300 and 200 × 330: causal backward blocks that start past the first query tile.
  for (auto [sq, sk] : {std::pair<size_t, size_t>{130, 77}, {1, 200}, {64, 64}, {300, 300}, {200, 330}})
    for (MaskKind kind : {MaskKind::None, MaskKind::Causal, MaskKind::Padding, MaskKind::Random, MaskKind::CausalFlag,
                          MaskKind::CausalFlagAndPadding}) {
      SCOPED_TRACE(::testing::Message() << "sq " << sq << " sk " << sk << " mask " << static_cast<int>(kind));
      auto [q, hq] = rounded_twin<4>({b, h, sq, d}, dtype);
      auto [k, hk] = rounded_twin<4>({b, h, sk, d}, dtype);
      auto [v, hv] = rounded_twin<4>({b, h, sk, d}, dtype);
      // Autocast hands attention an f32 output gradient; an unscoped caller one in the inputs' dtype.
      auto [g, hg] = rounded_twin<4>({b, h, sq, d}, kind == MaskKind::Causal ? DType::F32 : dtype);
      std::optional<Tensor<Cpu, 4, Bool>> hmask;
      std::optional<Tensor<Cuda, 4, Bool>> mask;
      if (kind != MaskKind::None && kind != MaskKind::CausalFlag) {
        hmask = host_mask(kind, b, h, sq, sk);
        mask = Tensor<Cuda, 4, Bool>::from_data(hmask->to_data());
      }
      bool causal = kind == MaskKind::CausalFlag || kind == MaskKind::CausalFlagAndPadding;
      auto [out, lse] = md::attention_with_stats(q, k, v, mask, std::nullopt, causal);
      auto [hout, hlse] = md::attention_with_stats(hq, hk, hv, hmask, std::nullopt, causal);
      EXPECT_EQ(out.dtype(), dtype);
      expect_near(out, hout, "out");
      expect_near(lse, hlse, "logsumexp");
      auto r = md::attention_backward(q, k, v, out, lse, g, mask, std::nullopt, causal);
      auto hr = md::attention_backward(hq, hk, hv, hout, hlse, hg, hmask, std::nullopt, causal);
      expect_near(r.q, hr.q, "dq");
      expect_near(r.k, hr.k, "dk");
      expect_near(r.v, hr.v, "dv");
    }
}

/// Dropout: the flash kernels draw, in registers, the mask Cpu draws (DropoutMask), in the forward and again in the
/// backward, with and without the causal flag and a padding mask.
TEST_P(FlashAttentionCuda, DropoutMatchesCpu) {
  SCORCH_REQUIRE_CUDA();
  auto [dtype, d] = GetParam();
  const size_t b = 2, h = 3;
  for (auto [sq, sk] : {std::pair<size_t, size_t>{130, 77}, {300, 300}})
    for (MaskKind kind : {MaskKind::None, MaskKind::CausalFlagAndPadding}) {
      SCOPED_TRACE(::testing::Message() << "sq " << sq << " sk " << sk << " mask " << static_cast<int>(kind));
      AttentionDropout dropout{kind == MaskKind::None ? 0.1 : 0.4, 1000 + sq};
      auto [q, hq] = rounded_twin<4>({b, h, sq, d}, dtype);
      auto [k, hk] = rounded_twin<4>({b, h, sk, d}, dtype);
      auto [v, hv] = rounded_twin<4>({b, h, sk, d}, dtype);
      auto [g, hg] = rounded_twin<4>({b, h, sq, d}, dtype);
      std::optional<Tensor<Cpu, 4, Bool>> hmask;
      std::optional<Tensor<Cuda, 4, Bool>> mask;
      bool causal = kind != MaskKind::None;
      if (causal) {
        hmask = host_mask(kind, b, h, sq, sk);
        mask = Tensor<Cuda, 4, Bool>::from_data(hmask->to_data());
      }
      auto [out, lse] = md::attention_with_stats(q, k, v, mask, std::nullopt, causal, dropout);
      auto [hout, hlse] = md::attention_with_stats(hq, hk, hv, hmask, std::nullopt, causal, dropout);
      expect_near(out, hout, "out");
      auto r = md::attention_backward(q, k, v, out, lse, g, mask, std::nullopt, causal, dropout);
      auto hr = md::attention_backward(hq, hk, hv, hout, hlse, hg, hmask, std::nullopt, causal, dropout);
      expect_near(r.q, hr.q, "dq");
      expect_near(r.k, hr.k, "dk");
      expect_near(r.v, hr.v, "dv");
    }
}

/// q, k, v as the head views of [batch, seq, heads·d] projections: read in place, results in the same layout.
TEST_P(FlashAttentionCuda, HeadViewsOfProjectionsUnderAutodiff) {
  SCORCH_REQUIRE_CUDA();
  using AD = Autodiff<Cuda>;
  using HostAD = Autodiff<Cpu>;
  auto [dtype, d] = GetParam();
  const size_t b = 2, h = 4, s = 100;
  auto heads = [&]<class B>(const Tensor<B, 3>& x) { return x.template reshape<4>({b, s, h, d}).swap_dims(1, 2); };
  auto merge = [&]<class B>(const Tensor<B, 4>& x) { return x.swap_dims(1, 2).template reshape<3>({b, s, h * d}); };
  std::vector<Tensor<AD, 3>> leaves;
  std::vector<Tensor<HostAD, 3>> host_leaves;
  for (int i = 0; i < 4; ++i) {
    auto [x, hx] = rounded_twin<3>({b, s, h * d}, dtype);
    leaves.push_back(Tensor<AD, 3>::from_inner(x).require_grad());
    host_leaves.push_back(Tensor<HostAD, 3>::from_inner(hx).require_grad());
  }
  auto hmask = host_mask(MaskKind::Causal, b, h, s, s);
  // Cuda with the causal flag, Cpu with the causal mask tensor.
  auto out = merge(md::attention(heads(leaves[0]), heads(leaves[1]), heads(leaves[2]), std::nullopt, std::nullopt,
                                 true));
  auto hout = merge(md::attention(heads(host_leaves[0]), heads(host_leaves[1]), heads(host_leaves[2]),
                                  std::optional(Tensor<HostAD, 4, Bool>::from_data(hmask.to_data()))));
  auto grads = (out.cast(DType::F32) * leaves[3].cast(DType::F32)).sum().backward();
  auto host_grads = (hout * host_leaves[3]).sum().backward();
  expect_near(out.inner(), hout.inner(), "out");
  for (int i = 0; i < 3; ++i)
    expect_near(*leaves[i].grad(grads), *host_leaves[i].grad(host_grads), "grad");
}

INSTANTIATE_TEST_SUITE_P(DtypesAndHeadSizes, FlashAttentionCuda,
                         ::testing::Combine(::testing::Values(DType::BF16, DType::F16, DType::F32),
                                          ::testing::Values(32, 64, 128)),
                         [](const auto& info) {
                           return std::string(dtype_name(std::get<0>(info.param))) + "_d" +
                                  std::to_string(std::get<1>(info.param));
                         });

/// A query whose keys are all masked: NaN output and -inf log-sum-exp, as the unfused kernels give; the other
/// queries are unaffected.
void expect_fully_masked_query_is_nan(DType dtype) {
  auto [q, hq] = rounded_twin<4>({1, 2, 70, 64}, dtype);
  auto [k, hk] = rounded_twin<4>({1, 2, 90, 64}, dtype);
  auto [v, hv] = rounded_twin<4>({1, 2, 90, 64}, dtype);
  auto hmask = Tensor<Cpu, 4, Bool>::full({1, 1, 70, 90}, false).slice_fill({Slice(), Slice(), Slice(3, 4)}, true);
  auto mask = Tensor<Cuda, 4, Bool>::from_data(hmask.to_data());
  auto [out, lse] = md::attention_with_stats(q, k, v, std::optional(mask));
  auto values = out.cast(DType::F32).to_data().to_vector<float>();
  auto lses = lse.to_data().to_vector<float>();
  for (size_t head = 0; head < 2; ++head) {
    EXPECT_TRUE(std::isinf(lses[head * 70 + 3]) && lses[head * 70 + 3] < 0);
    EXPECT_TRUE(std::isnan(values[(head * 70 + 3) * 64]));
    EXPECT_FALSE(std::isnan(values[(head * 70 + 4) * 64]));
  }
}

TEST(FlashAttentionCudaEdges, FullyMaskedQueryIsNaN) {
  SCORCH_REQUIRE_CUDA();
  for (DType dtype : {DType::BF16, DType::F32}) {
    SCOPED_TRACE(dtype_name(dtype));
    expect_fully_masked_query_is_nan(dtype);
  }
}

/// f32 beyond TF32's 11 bits: values that differ from their TF32 rounding, and a key 2^-12 apart from another,
/// whose scores one TF32 product cannot tell apart; an inf and a NaN in v reach the outputs as in Cpu's f32.
TEST(FlashAttentionCudaEdges, F32KeepsBitsTf32Drops) {
  SCORCH_REQUIRE_CUDA();
  const size_t s = 70, d = 64;
  auto hq = Tensor<Cpu, 4>::full({1, 1, s, d}, 1.0f + 1.0f / 4096 + 1.0f / 65536);
  std::vector<float> key_values(s * d);
  for (size_t i = 0; i < key_values.size(); ++i) key_values[i] = 1.0f + static_cast<float>(i / d) / 4096;
  auto hk = Tensor<Cpu, 4>::from_data(TensorData(key_values, Shape{1, 1, s, d}));  // scores 64·(1 + j/4096)·(1 + ε)
  auto hv = Tensor<Cpu, 4>::random({1, 1, s, d}, Distribution::normal(0, 1)) * 1000.0f + 3.0f;
  auto to_cuda = [](const Tensor<Cpu, 4>& x) { return Tensor<Cuda, 4>::from_data(x.to_data()); };
  auto [out, lse] = md::attention_with_stats(to_cuda(hq), to_cuda(hk), to_cuda(hv), std::nullopt, 1.0);
  auto [hout, hlse] = md::attention_with_stats(hq, hk, hv, std::optional<Tensor<Cpu, 4, Bool>>(), 1.0);
  // One TF32 product moves the scores by up to 1/16, the outputs by about 7 and the log-sum-exp by about 0.03.
  out.to_data().assert_approx_eq(hout.to_data(), Tolerance::rel_abs(1e-4, 5e-2));
  lse.to_data().assert_approx_eq(hlse.to_data(), Tolerance::rel_abs(2e-6, 5e-5));
  auto bad = hv.slice_fill({Slice(), Slice(), Slice(5, 6), Slice(3, 4)}, INFINITY)
                 .slice_fill({Slice(), Slice(), Slice(9, 10), Slice(7, 8)}, NAN);
  auto result = md::attention(to_cuda(hq), to_cuda(hk), to_cuda(bad)).to_data().to_vector<float>();
  auto expected = md::attention(hq, hk, bad).to_data().to_vector<float>();
  for (size_t i = 0; i < result.size(); ++i) {
    EXPECT_EQ(std::isnan(result[i]), std::isnan(expected[i])) << i;
    EXPECT_EQ(std::isinf(result[i]), std::isinf(expected[i])) << i;
    if (std::isinf(expected[i])) {
      EXPECT_EQ(result[i], expected[i]) << i;
    }
  }
}

}  // namespace
}  // namespace scorch
