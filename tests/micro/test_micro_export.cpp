// scorch-micro-export's work: records to arrays (layouts, int8 as the hosted quantize, quantized records), the
// generated C++ and its errors.
#include <gtest/gtest.h>

#include <filesystem>

#include "micro_harness.h"
#include "scorch/import/onnx/onnx_model.h"
#include "scorch/quant/quantize.h"

namespace scorch::micro_test {
namespace {

using micro_export::Array;

struct Net {
  nn::Conv2d<Cpu> conv;
  nn::Linear<Cpu> head;
  SCORCH_MODULE(Net, conv, head)
};

Net make_net() {
  Cpu::seed(31);
  return {nn::Conv2dConfig({2, 3}, {3, 3}).init<Cpu>(), nn::LinearConfig(12, 5).init<Cpu>()};
}

const Array& find(const std::vector<Array>& arrays, const std::string& key) {
  for (const auto& a : arrays)
    if (a.key == key) return a;
  throw std::runtime_error("no " + key);
}

TEST(MicroExport, CollectsDottedKeysInRecordOrder) {
  auto arrays = micro_export::collect(make_net().into_record(), {});
  std::vector<std::string> keys;
  for (const auto& a : arrays) keys.push_back(a.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"conv.weight", "conv.bias", "head.weight", "head.bias"}));
  EXPECT_EQ(find(arrays, "conv.weight").shape, (std::vector<uint32_t>{3, 2, 3, 3}));
  EXPECT_FALSE(find(arrays, "head.weight").int8());
}

TEST(MicroExport, Int8WeightsAreTheHostedQuantizedValues) {
  Net net = make_net();
  Net q = quant::quantize(net, {});
  micro_export::Options o;
  o.int8 = true, o.keep_f32 = {"conv.weight"};
  auto arrays = micro_export::collect(net.into_record(), o);
  const Array& head = find(arrays, "head.weight");
  ASSERT_TRUE(head.int8());
  EXPECT_EQ(head.axis, 1u);  // a scale per output column of [d_input, d_output]
  const auto& qt = q.head.weight.quantized();
  EXPECT_EQ(head.quantized, qt.values.into_data().convert(DType::I8).to_vector<int8_t>());
  EXPECT_EQ(head.scales, qt.scales.into_data().to_vector<float>());
  EXPECT_FALSE(find(arrays, "conv.weight").int8());  // kept in f32
  EXPECT_FALSE(find(arrays, "head.bias").int8());
  // A record saved after quantization gives the same arrays.
  auto saved = micro_export::collect(q.into_record(), {});
  EXPECT_EQ(find(saved, "head.weight").quantized, head.quantized);
  EXPECT_EQ(find(saved, "conv.weight").axis, 0u);
}

TEST(MicroExport, GeneratesTheTableAndTheConfig) {
  auto arrays = micro_export::collect(make_net().into_record(), {});
  nlohmann::json config{
      {"hidden_size", 32}, {"dropout", 0.5}, {"name", "digits"}, {"nested", {{"on", true}}}, {"kernel", {3, 3}}};
  micro_export::Options o;
  o.name_space = "tiny";
  auto g = micro_export::generate(arrays, config, o, "tiny.h");
  EXPECT_EQ(g.flash_bytes, 4u * (54 + 3 + 60 + 5));
  EXPECT_NE(g.header.find("inline constexpr long long hidden_size = 32LL;"), std::string::npos) << g.header;
  EXPECT_NE(g.header.find("inline constexpr double dropout = 0.5;"), std::string::npos);
  EXPECT_NE(g.header.find("inline constexpr const char* name = \"digits\";"), std::string::npos);
  EXPECT_NE(g.header.find("inline constexpr bool nested_on = true;"), std::string::npos);
  EXPECT_NE(g.header.find("inline constexpr double kernel[] = {3, 3};"), std::string::npos);
  EXPECT_NE(g.source.find("{\"head.weight\", DType::f32, {12u, 5u}, a2, nullptr, 0u},"), std::string::npos) << g.source;
  EXPECT_NE(g.source.find("const scorch::micro::WeightTable weights{kEntries, 4};"), std::string::npos);
}

TEST(MicroExport, KeysAndConfigNamesAreValidCpp) {
  Record r = Record::map();
  r.set("odd \"key\"\\\nnext", Record(TensorData(std::vector<float>{1.0f}, {1})));
  auto arrays = micro_export::collect(r, {});
  auto g = micro_export::generate(arrays, nlohmann::json{{"class", 1}, {"__x", 2}, {"9a", 3}}, {}, "m.h");
  EXPECT_NE(g.source.find("{\"odd \\\"key\\\"\\\\\\012next\", DType::f32"), std::string::npos) << g.source;
  EXPECT_EQ(g.source.find("\nnext"), std::string::npos);  // the newline is escaped, in the comment too
  EXPECT_NE(g.header.find("long long class_ = 1LL;"), std::string::npos) << g.header;
  EXPECT_NE(g.header.find("long long k_x = 2LL;"), std::string::npos);
  EXPECT_NE(g.header.find("long long k_9a = 3LL;"), std::string::npos);
  EXPECT_THROW(micro_export::generate(arrays, nlohmann::json{{"a-b", 1}, {"a_b", 2}}, {}, "m.h"), FormatError);
  micro_export::Options o;
  o.name_space = "my-model";
  EXPECT_THROW(micro_export::generate(arrays, nlohmann::json::object(), o, "m.h"), ValueError);
  o.name_space = "app::weights";
  EXPECT_NO_THROW(micro_export::generate(arrays, nlohmann::json::object(), o, "m.h"));
}

TEST(MicroExport, RefusesWhatTheRuntimeCannotHold) {
  Record big = Record::map();
  big.set("w", Record(TensorData(std::vector<float>(2, 0.0f), {1, 1, 1, 1, 2})));
  EXPECT_THROW(micro_export::collect(big, {}), ShapeError);
  micro_export::Options o;
  o.keep_f32 = {"nope"};
  EXPECT_THROW(micro_export::collect(make_net().into_record(), o), FormatError);
  o.keep_f32 = {}, o.transpose = {"conv.weight"};  // rank 4
  EXPECT_THROW(micro_export::collect(make_net().into_record(), o), ShapeError);
  EXPECT_THROW(micro_export::load_record("model.pt"), FormatError);
  EXPECT_THROW(micro_export::load_record("/nonexistent/model.mpk"), IoError);
}

TEST(MicroExport, ReadsEveryRecordFormatAndOnnx) {
  auto dir = std::filesystem::temp_directory_path() / "scorch-micro-export-test";
  std::filesystem::create_directories(dir);
  Record r = make_net().into_record();
  auto expected = micro_export::collect(r, {});
  std::vector<std::string> files{
      DefaultRecorder{}.record(r, (dir / "a").string()), SensitiveCompactRecorder{}.record(r, (dir / "b").string()),
      BinFileRecorder<>{}.record(r, (dir / "c").string()), PrettyJsonFileRecorder<>{}.record(r, (dir / "d").string()),
      SafetensorsFileRecorder<>{}.record(r, (dir / "e").string())};
  for (const auto& file : files) {
    auto arrays = micro_export::collect(micro_export::load_record(file), {});
    ASSERT_EQ(arrays.size(), expected.size()) << file;
    for (size_t i = 0; i < arrays.size(); ++i) EXPECT_EQ(arrays[i].values, expected[i].values) << file;
  }
  std::filesystem::remove_all(dir);
  // An ONNX model's initializers under their own names.
  std::string model = std::string(SCORCH_MODULE_FIXTURES) + "/onnx/typed.onnx";
  auto onnx = micro_export::collect(micro_export::load_record(model), {});
  auto initializers = onnx::read_model(model).graph.initializers;
  ASSERT_EQ(onnx.size(), initializers.size());
  for (const Array& a : onnx) {
    ASSERT_TRUE(initializers.count(a.key)) << a.key;
    EXPECT_EQ(a.values, initializers.at(a.key).convert(DType::F32).to_vector<float>()) << a.key;
  }
}

}  // namespace
}  // namespace scorch::micro_test
