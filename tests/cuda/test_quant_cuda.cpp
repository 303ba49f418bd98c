// quantized_linear on the Cuda backend (cuBLASLt's int8 product, the weight-only product) against the Cpu backend's
// integer kernel on the same operands; quantized models moved to the GPU. Skipped where no GPU is visible.
#include "cuda_test_util.h"

namespace scorch {
namespace {

struct QuantCase {
  size_t m, k, n;
  QuantScheme scheme;
  InputQuant input;
  bool weight_t, bias, relu;
};

/// y = x·W (+ b) with W quantized as c says, on Cuda and on the Cpu.
void expect_same_as_cpu(const QuantCase& c) {
  auto x = Tensor<Cpu, 2>::random({c.m, c.k}, Distribution::normal(0, 1.5));
  auto w = c.weight_t ? Tensor<Cpu, 2>::random({c.n, c.k}, Distribution::normal(0, 1))
                      : Tensor<Cpu, 2>::random({c.k, c.n}, Distribution::normal(0, 1));
  auto q = QTensor<Cpu, 2>::quantize(w, c.scheme);
  q.input = c.input;
  std::optional<Tensor<Cpu, 1>> b;
  if (c.bias) b = Tensor<Cpu, 1>::random({c.n}, Distribution::normal(0, 1));
  auto expected = quant::linear(x, q, c.weight_t, b, c.relu);
  CudaDevice gpu{0};
  auto qg = q.map([&](const auto& t) {
    return Tensor<Cuda, std::decay_t<decltype(t)>::kRank, typename std::decay_t<decltype(t)>::Kind>::from_data(
        t.to_data(), gpu);
  });
  std::optional<Tensor<Cuda, 1>> bg;
  if (b) bg = Tensor<Cuda, 1>::from_data(b->to_data(), gpu);
  auto actual = quant::linear(Tensor<Cuda, 2>::from_data(x.to_data(), gpu), qg, c.weight_t, bg, c.relu);
  actual.to_data().assert_approx_eq(expected.to_data(), Tolerance::rel_abs(1e-4, 1e-3));
}

TEST(QuantCuda, Int8ProductMatchesTheCpu) {
  SCORCH_REQUIRE_CUDA();
  InputQuant dynamic, fixed{false, false, QuantValue::UInt8, 0.03, 120},
      signed_input{false, false, QuantValue::Int8, 0.025, -3};
  dynamic.reduce_range = false;
  for (const QuantCase& c :
       {QuantCase{64, 256, 96, QuantScheme::int8_per_channel(0), dynamic, true, true, false},
        QuantCase{7, 36, 19, QuantScheme::int8_per_channel(1), dynamic, false, true, true},
        QuantCase{300, 512, 256, QuantScheme::int8(), fixed, true, false, false},
        QuantCase{5, 64, 33, QuantScheme::int8().with_mode(QuantMode::Affine), signed_input, true, true, false},
        QuantCase{3, 30, 8, QuantScheme::int8_per_channel(0), dynamic, true, false, false}})  // k % 4 != 0
    expect_same_as_cpu(c);
}

TEST(QuantCuda, WeightOnlyProductMatchesTheCpu) {
  SCORCH_REQUIRE_CUDA();
  auto float_input = InputQuant::float_input();
  for (const QuantCase& c :
       {QuantCase{1, 256, 128, QuantScheme::int8_per_channel(1), float_input, false, true, false},
        QuantCase{5, 128, 64, QuantScheme::q4_blocks(0, 32), float_input, false, true, true},
        QuantCase{16, 96, 40, QuantScheme::q4_blocks(0, 32), float_input, false, false, false},
        QuantCase{40, 64, 32, QuantScheme::q4_blocks(0, 16), float_input, false, true, false},  // > 16 rows
        QuantCase{2, 64, 32, QuantScheme::q4_blocks(1, 16), float_input, true, true, false}})
    expect_same_as_cpu(c);
}

TEST(QuantCuda, QuantizedModelsRunOnTheGpu) {
  SCORCH_REQUIRE_CUDA();
  CudaDevice gpu{0};
  auto layer = nn::LinearConfig(128, 64).init<Cpu>();
  auto layer_gpu = load_record(nn::LinearConfig(128, 64).init<Cuda>(gpu), into_record(layer));
  auto q = quant::quantize(layer);
  auto q_gpu = quant::quantize(layer_gpu);  // the parameters computed on the GPU
  ASSERT_TRUE(q_gpu.weight.is_quantized());
  EXPECT_EQ(q_gpu.weight.device(), gpu);
  EXPECT_EQ(q_gpu.weight.quantized().values.to_data(), q.weight.quantized().values.to_data());
  auto x = Tensor<Cpu, 2>::random({4, 128}, Distribution::normal(0, 1));
  q_gpu.forward(Tensor<Cuda, 2>::from_data(x.to_data(), gpu))
      .to_data()
      .assert_approx_eq(q.forward(x).to_data(), Tolerance::rel_abs(1e-4, 1e-3));
}

}  // namespace
}  // namespace scorch
