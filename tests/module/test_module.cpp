// The module API: visiting, mapping, devices, no_grad, valid/from_inner, records and their validation.
#include <gtest/gtest.h>

#include <filesystem>

#include "module/test_models.h"

namespace scorch::testing {
namespace {

using AD = Autodiff<Cpu>;

TEST(Module, FieldNamesAndParamCount) {
  Cpu::seed(1);
  auto net = Net<Cpu>::make();
  EXPECT_EQ(module_field_names<Net<Cpu>>.size(), 5u);
  EXPECT_EQ(module_field_names<Net<Cpu>>[3], "scale");
  // conv 4*2*3*3 + 4, dense 64*16 + 16, dense 16*3 + 3
  EXPECT_EQ(net.num_params(), 72u + 4u + 1024u + 16u + 48u + 3u);
  EXPECT_EQ(ReluModule{}.num_params(), 0u);
}

struct PathRecorder : ModuleVisitor {
  std::vector<std::string> paths, entered;
  template <class P> void visit(const std::string& path, const P& p) {
    paths.push_back(path + p.val().shape().to_string());
  }
  void enter_module(const std::string& path, std::string_view type) {
    entered.push_back(path + ":" + std::string(type));
  }
};

TEST(Module, VisitGivesDottedPathsInFieldOrder) {
  auto net = Net<Cpu>::make();
  PathRecorder v;
  net.visit(v);
  std::vector<std::string> expected = {"conv.weight[4, 2, 3, 3]", "conv.bias[4]",           "layers.0.weight[16, 64]",
                                       "layers.0.bias[16]",       "layers.1.weight[3, 16]", "layers.1.bias[3]"};
  EXPECT_EQ(v.paths, expected);
  EXPECT_EQ(v.entered.front(), ":Net");
  EXPECT_NE(std::find(v.entered.begin(), v.entered.end(), "layers.1:Dense"), v.entered.end());
}

struct ZeroMapper : ModuleMapper {
  template <class P> P map(const std::string&, const P& p) { return p.with_value(p.val().zeros_like()); }
};

TEST(Module, MapReplacesParametersAndKeepsIds) {
  auto net = Net<Cpu>::make();
  ZeroMapper zero;
  auto zeroed = net.map(zero);
  EXPECT_EQ(zeroed.conv.weight.id(), net.conv.weight.id());
  EXPECT_EQ(zeroed.layers[1].bias->val().abs().sum().into_scalar().to_double(), 0.0);
  EXPECT_NE(net.layers[1].bias->val().abs().sum().into_scalar().to_double(), 0.0);  // the original is untouched
  EXPECT_EQ(zeroed.name, "net");
}

TEST(Module, ParamsAreTrackedLeavesOnAutodiffAndNoGradTurnsThemOff) {
  auto net = Net<AD>::make();
  EXPECT_TRUE(net.conv.weight.val().is_require_grad());
  auto frozen = net.no_grad();
  EXPECT_FALSE(frozen.conv.weight.is_require_grad());
  EXPECT_FALSE(frozen.conv.weight.val().is_require_grad());
  EXPECT_TRUE(net.conv.weight.is_require_grad());

  auto x = Tensor<AD, 4>::random({2, 2, 6, 6}, Distribution::Default);
  auto grads = net.forward(x).sum().backward();
  EXPECT_TRUE(net.layers[0].weight.val().grad(grads).has_value());
}

TEST(Module, ValidGivesTheInnerModuleAndFromInnerComesBack) {
  Cpu::seed(3);
  auto net = Net<AD>::make();
  Net<Cpu> inner = net.valid();
  auto x = Tensor<Cpu, 4>::random({2, 2, 6, 6}, Distribution::Default);
  auto expected = net.forward(Tensor<AD, 4>::from_inner(x)).inner();
  inner.forward(x).to_data().assert_approx_eq(expected.to_data(), Tolerance::strict());
  EXPECT_EQ(inner.layers[0].weight.id(), net.layers[0].weight.id());
  EXPECT_EQ(inner.name, "net");

  Net<AD> back = from_inner<AD>(inner);
  EXPECT_TRUE(back.layers[0].weight.val().is_require_grad());
  EXPECT_EQ(back.layers[0].weight.id(), net.layers[0].weight.id());
}

TEST(Module, DevicesForkAndToDevice) {
  auto net = Net<AD>::make();
  EXPECT_EQ(net.devices().size(), 1u);
  auto moved = net.to_device(Cpu::Device{});
  auto forked = net.fork(Cpu::Device{});
  EXPECT_EQ(moved.conv.weight.id(), net.conv.weight.id());
  EXPECT_TRUE(forked.conv.weight.val().is_require_grad());
  EXPECT_EQ(forked.devices().size(), 1u);
}

TEST(Module, RecordHoldsParametersWithIdsButNotConstantsOrPlainFields) {
  auto net = Net<Cpu>::make();
  Record r = net.into_record();
  EXPECT_EQ(r.size(), 2u);  // conv and layers; relu, scale and name store nothing
  EXPECT_EQ(r.at("layers").size(), 2u);
  const RecordTensor& w = r.at("layers").at(1).get_tensor("weight");
  EXPECT_EQ(w.param_id, net.layers[1].weight.id().value());
  EXPECT_EQ(w.data.shape(), Shape({3, 16}));
  EXPECT_EQ(r.tensor_count(), 6u);
}

TEST(Module, LoadRecordRestoresValuesAndIds) {
  Cpu::seed(5);
  auto a = Net<Cpu>::make();
  auto b = Net<Cpu>::make();
  auto loaded = b.load_record(a.into_record());
  loaded.layers[0].weight.val().to_data().assert_eq(a.layers[0].weight.val().to_data());
  EXPECT_EQ(loaded.layers[0].weight.id(), a.layers[0].weight.id());
  EXPECT_NE(b.layers[0].weight.id(), a.layers[0].weight.id());  // b itself is unchanged
}

TEST(Module, LoadKeepsRequireGradAndConvertsDtype) {
  auto a = Net<AD>::make();
  Record r = a.into_record();
  r.find_mut("conv")->find_mut("weight")->as_tensor_mut().data =
      r.at("conv").get_tensor("weight").data.convert(DType::F64);
  auto frozen = a.no_grad();
  EXPECT_EQ(frozen.into_record().tensor_count(), 6u);  // frozen parameters are still saved
  auto loaded = frozen.load_record(r);
  EXPECT_EQ(loaded.conv.weight.val().dtype(), DType::F32);
  EXPECT_FALSE(loaded.conv.weight.is_require_grad());
  loaded.conv.weight.val().inner().to_data().assert_approx_eq(a.conv.weight.val().inner().to_data(),
                                                              Tolerance::strict());
}

/// Expects load_record to throw E whose message contains each of parts, leaving the module as it was.
template <class E> void expect_record_error(const Net<Cpu>& net, const Record& r, std::vector<std::string> parts) {
  auto before = net.layers[0].weight.val().to_data();
  try {
    (void)net.load_record(r);
    FAIL() << "no error";
  } catch (const E& e) {
    for (const auto& p : parts)
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what() << " lacks " << p;
  }
  net.layers[0].weight.val().to_data().assert_eq(before);
}

TEST(Module, LoadRecordErrorsNameTheKey) {
  auto net = Net<Cpu>::make();
  Record good = net.into_record();

  Record missing = good;
  missing.find_mut("layers")->as_list_mut()[1].as_map_mut().erase(
      missing.find_mut("layers")->as_list_mut()[1].as_map_mut().begin());
  expect_record_error<FormatError>(net, missing, {"[load_record]", "'layers.1.weight'", "missing key"});

  Record extra = good;
  extra.find_mut("conv")->set("gamma", Record(TensorData({1.f}, Shape{1})));
  expect_record_error<FormatError>(net, extra, {"'conv.gamma'", "unexpected key"});

  Record shape = good;
  shape.find_mut("conv")->set("bias", Record(TensorData({1.f, 2.f}, Shape{2})));
  expect_record_error<ShapeError>(net, shape, {"'conv.bias'", "record shape [2]", "module expects [4]"});

  Record kind = good;
  kind.find_mut("conv")->set("bias", Record(TensorData(std::vector<int64_t>{1, 2, 3, 4}, Shape{4})));
  expect_record_error<DTypeError>(net, kind, {"'conv.bias'", "i64", "Float"});

  Record not_tensor = good;
  not_tensor.find_mut("conv")->set("bias", Record(1.5));
  expect_record_error<FormatError>(net, not_tensor, {"'conv.bias'", "expected a tensor"});

  Record short_list = good;
  short_list.find_mut("layers")->as_list_mut().pop_back();
  expect_record_error<FormatError>(net, short_list, {"'layers'", "1 elements, the module has 2"});
}

TEST(Module, LoadRecordListsEveryMismatchedKey) {
  auto net = Net<Cpu>::make();
  Record record = net.into_record();
  record.find_mut("conv")->set("bias", Record(TensorData({1.f, 2.f}, Shape{2})));
  record.find_mut("conv")->set("gamma", Record(TensorData({1.f}, Shape{1})));
  auto& second = record.find_mut("layers")->as_list_mut()[1].as_map_mut();
  second.erase(second.begin());
  try {
    (void)net.load_record(record);
    FAIL() << "no error";
  } catch (const ShapeError& e) {  // the first mismatch's type
    std::string text = e.what();
    EXPECT_EQ(text.rfind("[load_record] 3 mismatched keys:\n", 0), 0u) << text;
    for (const char* part :
         {"'conv.bias': record shape [2]", "'conv.gamma': unexpected key", "'layers.1.weight': missing"})
      EXPECT_NE(text.find(part), std::string::npos) << text << " lacks " << part;
  }
}

TEST(Module, PartialAndUnusedRecordsWithOptions) {
  auto net = Net<Cpu>::make();
  Record partial = Record::map().set("conv", net.into_record().at("conv"));
  auto other = Net<Cpu>::make();
  auto loaded = other.load_record(partial, {.allow_missing = true});
  loaded.conv.weight.val().to_data().assert_eq(net.conv.weight.val().to_data());
  loaded.layers[0].weight.val().to_data().assert_eq(other.layers[0].weight.val().to_data());

  Record bigger = net.into_record();
  bigger.set("decoder", Record::map().set("weight", Record(TensorData({1.f}, Shape{1}))));
  EXPECT_THROW((void)other.load_record(bigger), FormatError);
  EXPECT_NO_THROW((void)other.load_record(bigger, {.allow_unused = true}));
}

TEST(Module, OptionalFieldsRecordOnlyWhenPresent) {
  auto with = Dense<Cpu>::make(3, 2, true);
  auto without = Dense<Cpu>::make(3, 2, false);
  EXPECT_EQ(with.into_record().size(), 2u);
  EXPECT_EQ(without.into_record().size(), 1u);
  EXPECT_THROW((void)without.load_record(with.into_record()), FormatError);  // bias has nowhere to go
  EXPECT_THROW((void)with.load_record(without.into_record()), FormatError);  // bias missing
}

}  // namespace
}  // namespace scorch::testing
