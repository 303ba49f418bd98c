// Dyn: stacks chosen by name at run time. Ops run on the stack holding their operands and match the static stack's
// values; names, devices, moves between stacks, Autodiff<Dyn> and every misuse give what the docs promise.
#include <gtest/gtest.h>

#include <filesystem>
#include <scorch/scorch.hpp>
#include <scorch/stacks/dyn/autodiff.h>

#include "module/onnx_fixture_weights.h"
#include "module/onnx_node_suite.h"

namespace scorch {
namespace {

template <size_t D, class K = Float> using DT = Tensor<Dyn, D, K>;

TensorData sample(Shape shape, uint64_t seed) {
  Cpu::seed(seed);
  return Tensor<Cpu, 2>::random(std::move(shape), Distribution::normal(0, 1)).to_data();
}

TEST(Dyn, TheBuildRegistersItsStacks) {
  auto stacks = Dyn::stacks();
  for (const char* key : {"cpu", "reference", "fusion<cpu>", "remote"})
    EXPECT_NE(std::find(stacks.begin(), stacks.end(), key), stacks.end()) << key;
  EXPECT_EQ(Dyn::name(), "dyn");
}

TEST(Dyn, DevicesReadAndWriteTheirNames) {
  EXPECT_EQ(Dyn::device("cpu").to_string(), "cpu");
  EXPECT_EQ(Dyn::device(" fusion<cpu> ").to_string(), "fusion<cpu>");
  EXPECT_EQ(Dyn::device("remote:tcp://127.0.0.1:9").to_string(), "remote:tcp://127.0.0.1:9");
  EXPECT_EQ(Dyn::device("cpu"), Dyn::device("cpu"));
  EXPECT_FALSE(Dyn::device("cpu") == Dyn::device("reference"));
  EXPECT_EQ(Dyn::Device{}, Dyn::device("cpu"));  // the default stack without $SCORCH_STACK
  auto choice = Dyn::parse("autodiff<fusion<cpu>>");
  EXPECT_TRUE(choice.autodiff);
  EXPECT_EQ(choice.device.to_string(), "fusion<cpu>");
  EXPECT_FALSE(Dyn::parse("cpu").autodiff);
}

TEST(Dyn, UnknownNamesAndDevicesListWhatExists) {
  try {
    (void)Dyn::device("cdua:0");
    FAIL() << "no error";
  } catch (const DeviceError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("cdua"), std::string::npos) << what;
    EXPECT_NE(what.find("fusion<cpu>"), std::string::npos) << what;
  }
  EXPECT_THROW((void)Dyn::device("cpu:1"), DeviceError);
  EXPECT_THROW((void)Dyn::device("autodiff<cpu>"), DeviceError);
}

TEST(Dyn, OpsMatchTheStaticStackOnEveryCpuStack) {
  auto xd = sample({3, 4}, 1), wd = sample({4, 5}, 2);
  auto x = Tensor<Cpu, 2>::from_data(xd), w = Tensor<Cpu, 2>::from_data(wd);
  auto expected = (x.matmul(w) + 1.0).exp().sum_dim(1).to_data();
  for (const char* name : {"cpu", "reference", "fusion<cpu>"}) {
    auto device = Dyn::device(name);
    auto dx = DT<2>::from_data(xd, device), dw = DT<2>::from_data(wd, device);
    auto y = (dx.matmul(dw) + 1.0).exp().sum_dim(1);
    EXPECT_EQ(y.device(), device) << name;
    y.to_data().assert_approx_eq(expected);
    auto [values, indices] = dx.sort_with_indices(1);
    EXPECT_EQ(indices.to_data(), x.sort_with_indices(1).second.to_data()) << name;
    EXPECT_EQ(dx.greater_elem(0.0).to_data(), x.greater_elem(0.0).to_data()) << name;
  }
}

// The ONNX interpreter is compiled once, on Dyn: the same code runs an exported LSTM tagger on each Cpu stack (on
// "cpu" through the fused host LSTM step, elsewhere through the table's ops) and Runtime<Cpu>'s bridge agrees.
TEST(Dyn, OnnxModelsRunOnEveryCpuStack) {
  namespace fs = std::filesystem;
  fs::path fixture = fs::path(SCORCH_MODULE_FIXTURES) / "onnx" / "models" / "lstm_tagger";
  fs::path tmp = fs::temp_directory_path() / ("scorch_dyn_onnx_" + std::to_string(::getpid()));
  fs::path model = onnx::fixtures::materialize(fixture, tmp);
  TensorData input = onnx::read_tensor((fixture / "input_0.pb").string());
  TensorData expected = onnx::read_tensor((fixture / "output_0.pb").string());
  for (const char* name : {"cpu", "reference", "fusion<cpu>"}) {
    auto runtime = onnx::load<Dyn>(model.string(), Dyn::device(name));
    auto values =
        runtime.run_values({{runtime.input_names().at(0), onnx::Value<Dyn>::from_data(input, Dyn::device(name))}});
    ASSERT_EQ(values.size(), 1u) << name;
    EXPECT_EQ(values[0].get<Float>().device(), Dyn::device(name)) << name;
    EXPECT_EQ(onnx::node_suite::compare(values[0].to_data(), expected, 1e-4, 1e-3), "") << name;
  }
  auto on_cpu = onnx::load<Cpu>(model.string()).run(std::vector<TensorData>{input});
  EXPECT_EQ(onnx::node_suite::compare(on_cpu.at(0), expected, 1e-4, 1e-3), "");
  fs::remove_all(tmp);
}

TEST(Dyn, MixingStacksInOneOpNamesBoth) {
  auto a = DT<1>::from_data(TensorData(std::vector<float>{1, 2}, Shape{2}), Dyn::device("cpu"));
  auto b = DT<1>::from_data(TensorData(std::vector<float>{3, 4}, Shape{2}), Dyn::device("fusion<cpu>"));
  try {
    (void)(a + b);
    FAIL() << "no error";
  } catch (const DeviceError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("cpu and fusion<cpu>"), std::string::npos) << what;
  }
  auto moved = b.to_device(Dyn::device("cpu"));
  EXPECT_EQ(moved.device(), Dyn::device("cpu"));
  EXPECT_EQ((a + moved).to_data(), TensorData(std::vector<float>{4, 6}, Shape{2}));
  auto ints = DT<1, Int>::from_data(TensorData(std::vector<int64_t>{1, 2}, Shape{2}), Dyn::device("cpu"));
  EXPECT_EQ(ints.to_device(Dyn::device("reference")).to_data(), ints.to_data());
}

TEST(Dyn, AMovedFromTensorIsAnErrorNotACrash) {
  auto a = DT<1>::from_data(TensorData(std::vector<float>{1, 2}, Shape{2}), Dyn::device("cpu"));
  auto b = std::move(a);
  Dyn::FloatTensor empty;
  EXPECT_THROW((void)Dyn::float_exp(empty), ValueError);
  EXPECT_EQ(empty.shape(), Shape{});  // as a backend's default-constructed primitive
  EXPECT_THROW((void)Dyn::float_add(empty, b.primitive()), ValueError);
  EXPECT_EQ(b.exp().dims()[0], 2u);
}

TEST(Dyn, TheOnlyReferenceIsReusedInPlace) {
  auto device = Dyn::device("cpu");
  auto x = Dyn::float_from_data(TensorData(std::vector<float>{1, 2, 3}, Shape{3}), device);
  const void* before = dyn::unbox<Cpu>(x).raw();
  auto y = Dyn::float_add_scalar(std::move(x), Scalar(1.0));
  EXPECT_EQ(dyn::unbox<Cpu>(y).raw(), before);     // Cpu wrote into the buffer it was handed
  auto z = Dyn::float_add_scalar(y, Scalar(1.0));  // y still held: a new buffer
  EXPECT_NE(dyn::unbox<Cpu>(z).raw(), dyn::unbox<Cpu>(y).raw());
}

TEST(Dyn, AutodiffOnAnyStackMatchesAutodiffCpu) {
  using AD = Autodiff<Dyn>;
  auto xd = sample({3, 4}, 3);
  auto x0 = Tensor<Autodiff<Cpu>, 2>::from_data(xd).require_grad();
  auto g0 = (x0.exp() * x0).sum().backward();
  auto expected = x0.grad(g0)->to_data();
  for (const char* name : {"cpu", "fusion<cpu>", "reference"}) {
    auto x = Tensor<AD, 2>::from_data(xd, Dyn::device(name)).require_grad();
    auto grads = (x.exp() * x).sum().backward();
    auto grad = x.grad(grads);
    ASSERT_TRUE(grad.has_value()) << name;
    EXPECT_EQ(grad->device(), Dyn::device(name));
    grad->to_data().assert_approx_eq(expected);
  }
}

TEST(Dyn, SeedMakesRandomTensorsRepeat) {
  auto device = Dyn::device("fusion<cpu>");
  Dyn::seed(7);
  auto a = DT<2>::random({4, 4}, Distribution::Default, device).to_data();
  Dyn::seed(7);
  auto b = DT<2>::random({4, 4}, Distribution::Default, device).to_data();
  EXPECT_EQ(a, b);
  Dyn::sync(device);
}

}  // namespace
}  // namespace scorch
