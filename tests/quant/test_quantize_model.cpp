// Post-training quantization of a model: which parameters quantize() takes, static calibration, memory, records of
// quantized parameters (every recorder and safetensors) and their errors, devices and autodiff.
#include <gtest/gtest.h>

#include <filesystem>

#include "scorch/scorch.hpp"

namespace scorch {
namespace {

using B = Cpu;
using quant::QuantizeOptions;

template <class Bk> struct Net {
  nn::Conv2d<Bk> conv;
  nn::Linear<Bk> hidden, head;
  nn::LayerNorm<Bk> norm;
  SCORCH_MODULE(Net, conv, hidden, head, norm)

  Tensor<Bk, 2> forward(const Tensor<Bk, 4>& x) const {
    size_t batch = x.shape()[0];
    auto h = activation::relu(conv.forward(x)).template reshape<2>({batch, size_t{4 * 6 * 6}});
    return head.forward(norm.forward(hidden.forward(h, true)));
  }
};

template <class Bk> Net<Bk> make_net() {
  return {nn::Conv2dConfig({1, 4}, {3, 3}).init<Bk>(), nn::LinearConfig(144, 64).init<Bk>(),
          nn::LinearConfig(64, 10).with_layout(nn::LinearLayout::Col).init<Bk>(), nn::LayerNormConfig(64).init<Bk>()};
}

Tensor<B, 4> images(size_t batch) { return Tensor<B, 4>::random({batch, 1, 8, 8}, Distribution::normal(0, 1)); }

double max_diff(const Tensor<B, 2>& a, const Tensor<B, 2>& b) { return a.sub(b).abs().max().into_scalar().to_double(); }

TEST(Quantize, QuantizesTheWeightsLayersOffer) {
  B::seed(7);
  auto net = make_net<B>();
  auto q = quant::quantize(net);
  EXPECT_TRUE(q.conv.weight.is_quantized());
  EXPECT_TRUE(q.hidden.weight.is_quantized());
  EXPECT_TRUE(q.head.weight.is_quantized());
  EXPECT_FALSE(q.hidden.bias->is_quantized());
  EXPECT_FALSE(q.norm.gamma.is_quantized());
  EXPECT_EQ(q.hidden.weight.id(), net.hidden.weight.id());
  EXPECT_FALSE(q.hidden.weight.is_require_grad());
  EXPECT_EQ(q.hidden.weight.quantized().scheme.axis, 1u);  // Row layout: output channels along axis 1
  EXPECT_EQ(q.head.weight.quantized().scheme.axis, 0u);    // Col layout
  EXPECT_EQ(num_params(q), num_params(net));
  EXPECT_EQ(q.conv.weight.quantized().scheme.axis, 0u);
  QuantizeOptions integer_only;
  integer_only.dequantized_layers = false;
  auto conv1d = nn::Conv1dConfig({2, 3}, {3}).init<B>();  // no integer kernel: dequantized for the convolution
  EXPECT_FALSE(quant::quantize(conv1d, integer_only).weight.is_quantized());
  EXPECT_TRUE(quant::quantize(conv1d).weight.is_quantized());
  EXPECT_TRUE(quant::quantize(net, integer_only).conv.weight.is_quantized());
  auto x = images(16);
  auto y = net.forward(x), yq = q.forward(x);
  EXPECT_LT(max_diff(y, yq), 0.1 * y.abs().max().into_scalar().to_double());
}

TEST(Quantize, ShrinksWeightMemory) {
  nn::Linear<B> big = nn::LinearConfig(512, 512).with_bias(false).init<B>();
  size_t f32 = quant::param_bytes(big).first;
  auto [int8, count] = quant::param_bytes(quant::quantize(big));
  EXPECT_EQ(count, 1u);
  EXPECT_GT(double(f32) / double(int8), 3.9);
  QuantizeOptions q4;
  q4.weights = QuantScheme::q4_blocks(0, 32);
  auto small = quant::quantize(big, q4);
  EXPECT_GT(double(f32) / double(quant::param_bytes(small).first), 6.3);  // 4 bits + a f32 scale per 32 values
  auto x = Tensor<B, 2>::random({4, 512}, Distribution::normal(0, 1));
  EXPECT_LT(max_diff(big.forward(x), small.forward(x)), 0.25 * big.forward(x).abs().max().into_scalar().to_double());
  auto net = quant::quantize(make_net<B>(), q4);
  EXPECT_FALSE(net.conv.weight.is_quantized());  // a 3×3 kernel's last dim is odd: q4 cannot pack it
  EXPECT_TRUE(net.hidden.weight.is_quantized());
  EXPECT_TRUE(net.hidden.weight.quantized().input.weight_only);
}

TEST(Quantize, CalibratesStaticInputs) {
  B::seed(3);
  auto net = make_net<B>();
  size_t batches = 0;
  quant::Calibration calibration{{quant::ObserverKind::MovingAverage, 0.1}};
  auto q = quant::quantize(net, {}, calibration, [&](const Net<B>& m) {
    for (int i = 0; i < 4; ++i, ++batches) m.forward(images(8));
  });
  EXPECT_EQ(batches, 4u);
  const auto& in = q.hidden.weight.quantized().input;
  EXPECT_FALSE(in.dynamic);
  EXPECT_GT(in.scale, 0.0);
  EXPECT_FALSE(q.head.weight.quantized().input.dynamic);
  EXPECT_FALSE(q.conv.weight.quantized().input.dynamic);  // the convolution's patches run quantized_linear
  EXPECT_EQ(quant_input_observer(), nullptr);
  auto x = images(16);
  auto y = net.forward(x);
  EXPECT_LT(max_diff(y, q.forward(x)), 0.15 * y.abs().max().into_scalar().to_double());
}

TEST(Quantize, RecordsRoundTripInEveryFormat) {
  auto q = quant::quantize(make_net<B>(), {}, {}, [](const Net<B>& m) { m.forward(images(4)); });
  auto dir = std::filesystem::temp_directory_path() / "scorch_quant_records";
  std::filesystem::create_directories(dir);
  auto x = images(3);
  auto expected = q.forward(x);
  auto check = [&](auto recorder, bool keeps_ids) {
    auto file = save_file(q, (dir / "net").string(), recorder);
    auto loaded = load_file(make_net<B>(), (dir / "net").string(), recorder, CpuDevice{});
    ASSERT_TRUE(loaded.hidden.weight.is_quantized()) << file;
    EXPECT_EQ(loaded.hidden.weight.quantized().input, q.hidden.weight.quantized().input) << file;
    if (keeps_ids) { EXPECT_EQ(loaded.hidden.weight.id(), q.hidden.weight.id()) << file; }
    EXPECT_EQ(loaded.conv.weight.quantized().scheme, q.conv.weight.quantized().scheme) << file;
    loaded.forward(x).to_data().assert_approx_eq(expected.to_data(), Tolerance::rel_abs(1e-6, 1e-6));
  };
  check(NamedMpkFileRecorder<FullPrecisionSettings>(), true);
  check(BinFileRecorder<FullPrecisionSettings>(), true);
  check(PrettyJsonFileRecorder<FullPrecisionSettings>(), true);
  check(SafetensorsFileRecorder<>(), false);  // tensors only: no parameter ids
  std::filesystem::remove_all(dir);
}

TEST(Quantize, RejectsBadQuantizedRecords) {
  auto q = quant::quantize(make_net<B>());
  Record good = into_record(q);
  auto with = [&](const char* key, Record value) {
    Record r = good;
    r.find_mut("hidden")->find_mut("weight")->set(key, std::move(value));
    return r;
  };
  auto expect_error = [&](const Record& r, const std::string& part) {
    try {
      load_record(make_net<B>(), r);
      FAIL() << "accepted a record with " << part;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("'hidden.weight'"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  auto ints = [](std::vector<int64_t> v) { return Record(TensorData(v, Shape{v.size()})); };
  expect_error(with("scheme", ints({7, 0, 1, 1, 32})), "unknown value type 7");
  expect_error(with("scales", Record(TensorData({1.0f}, Shape{1, 1}))), "scales must be float [1, 64]");
  expect_error(with("values", Record(TensorData(std::vector<float>(144 * 64, 1.0f), Shape{144, 64}))),
               "values must be integers");
  expect_error(with("values", Record(TensorData(std::vector<int32_t>(144 * 64, 300), Shape{144, 64}))),
               "value 300 does not fit i8");
  Record other = good;
  other.set("hidden", into_record(quant::quantize(nn::LinearConfig(144, 32).init<B>())));
  expect_error(other, "record shape [144, 32], module expects [144, 64]");
  expect_error(with("extra", Record(int64_t{1})), "unexpected key 'extra'");
  expect_error(with("input", ints({0, 0, 1, 0, 0, 0})), "input scale 0.000000 and offset 0 do not fit uint8");
  expect_error(with("dtype", ints({int64_t(DType::I32)})), "dtype code");
  Record missing = good;
  auto& map = missing.find_mut("hidden")->find_mut("weight")->as_map_mut();
  std::erase_if(map, [](const auto& kv) { return kv.first == "offsets"; });
  expect_error(missing, "'offsets' must be a tensor");
}

TEST(Quantize, FloatRecordsLoadIntoQuantizedModels) {
  auto net = make_net<B>();
  auto q = load_record(quant::quantize(make_net<B>()), into_record(net));
  EXPECT_FALSE(q.hidden.weight.is_quantized());
  EXPECT_TRUE(q.hidden.weight.is_require_grad());  // a float parameter again: optimizers update it
  auto x = images(2);
  q.forward(x).to_data().assert_approx_eq(net.forward(x).to_data());
}

TEST(Quantize, WorksOnAutodiffModelsAndTheirInnerModule) {
  auto net = make_net<Autodiff<B>>();
  auto q = quant::quantize(net);
  EXPECT_TRUE(q.hidden.weight.is_quantized());
  auto inner = valid(q);
  EXPECT_TRUE(inner.hidden.weight.is_quantized());
  auto x = Tensor<Autodiff<B>, 4>::random({2, 1, 8, 8}, Distribution::normal(0, 1));
  q.forward(x).inner().to_data().assert_approx_eq(inner.forward(x.inner()).to_data(), Tolerance::rel_abs(1e-5, 1e-5));
  auto moved = to_device(inner, CpuDevice{});
  EXPECT_TRUE(moved.head.weight.is_quantized());
}

}  // namespace
}  // namespace scorch
