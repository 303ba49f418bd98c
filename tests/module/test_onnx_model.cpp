// The ONNX front end's reader (scorch/import/onnx/onnx_model.h): every model and tensor of ONNX's backend node test
// suite (Debian's libonnx-testdata) reads, or fails naming the element type Scorch lacks; a model's nodes,
// attributes, opset and initializers come out as the file has them (values checked against ONNX's Python reader,
// fixtures/onnx/gen_onnx.py); external data is read from beside the model and never from outside its folder; broken
// files are FormatErrors.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>

#include "module/expect_load_error.h"
#include "scorch/import/onnx/onnx_model.h"

namespace scorch::onnx {
namespace {
namespace fs = std::filesystem;

const fs::path kTestData = "/usr/include/onnx/backend/test/data";  // libonnx-testdata
const std::string kFixtures = std::string(SCORCH_MODULE_FIXTURES) + "/onnx/";

/// Whether e is the error for an element type Scorch has no dtype for (strings, unsigned above 8 bits, complex).
bool lacks_dtype(const FormatError& e) {
  return std::string(e.what()).find("has no Scorch dtype") != std::string::npos;
}

TEST(OnnxModel, EveryNodeSuiteModelAndTensorReads) {
  ASSERT_TRUE(fs::exists(kTestData / "node")) << "libonnx-testdata is missing: run scripts/install-deps.sh";
  size_t models = 0, models_read = 0, tensors = 0, tensors_read = 0;
  for (const auto& dir : fs::directory_iterator(kTestData / "node")) {
    ++models;
    bool tensors_only = true;  // a sequence's or optional's test data are not TensorProtos
    try {
      Model m = read_model((dir.path() / "model.onnx").string());
      EXPECT_FALSE(m.graph.nodes.empty()) << dir.path();
      for (const auto* list : {&m.graph.inputs, &m.graph.outputs})
        for (const auto& v : *list) tensors_only = tensors_only && v.tensor;
      ++models_read;
    } catch (const FormatError& e) { EXPECT_TRUE(lacks_dtype(e)) << e.what(); }
    if (!tensors_only) continue;
    for (const auto& set : fs::directory_iterator(dir.path())) {
      if (!set.is_directory()) continue;
      for (const auto& file : fs::directory_iterator(set.path())) {
        ++tensors;
        try {
          (void)read_tensor(file.path().string());
          ++tensors_read;
        } catch (const FormatError& e) { EXPECT_TRUE(lacks_dtype(e)) << e.what(); }
      }
    }
  }
  std::cout << "node suite: " << models_read << " of " << models << " models, " << tensors_read << " of " << tensors
            << " tensors read\n";
  EXPECT_GE(models, 900u);
  EXPECT_GE(models_read * 100, models * 97);
  EXPECT_GE(tensors_read * 100, tensors * 90);
}

TEST(OnnxModel, NodesAttributesAndTestDataComeOutAsTheFileHasThem) {
  ASSERT_TRUE(fs::exists(kTestData / "node")) << "libonnx-testdata is missing: run scripts/install-deps.sh";
  fs::path dir = kTestData / "node" / "test_conv_with_strides_padding";
  Model m = read_model((dir / "model.onnx").string());
  EXPECT_EQ(m.opset, 11);
  EXPECT_EQ(m.ir_version, 6);
  EXPECT_EQ(m.producer, "backend-test");
  ASSERT_EQ(m.graph.nodes.size(), 1u);
  const Node& conv = m.graph.nodes[0];
  EXPECT_EQ(conv.op_type, "Conv");
  EXPECT_EQ(conv.attributes.at("kernel_shape").ints, (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(conv.attributes.at("pads").ints, (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(conv.attributes.at("strides").kind, Attribute::Kind::Ints);
  ASSERT_EQ(m.graph.inputs.size(), 2u);
  EXPECT_EQ(m.graph.inputs[0].dtype, DType::F32);
  EXPECT_EQ(*m.graph.inputs[0].shape, (std::vector<std::optional<int64_t>>{1, 1, 7, 5}));
  TensorData x = read_tensor((dir / "test_data_set_0" / "input_0.pb").string());
  EXPECT_EQ(x.shape(), (Shape{1, 1, 7, 5}));
  auto values = x.to_vector<float>();
  for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(values[i], static_cast<float>(i));
  Model converted = read_model((kTestData / "pytorch-converted" / "test_Conv2d" / "model.onnx").string());
  EXPECT_EQ(converted.graph.initializers.at("1").shape(), (Shape{4, 3, 3, 2}));
  EXPECT_EQ(converted.graph.initializers.at("2").shape(), (Shape{4}));
}

TEST(OnnxModel, TypedFieldsAndExternalDataReadAsOnnxWroteThem) {
  Model typed = read_model(kFixtures + "typed.onnx");
  const auto& init = typed.graph.initializers;
  EXPECT_EQ(init.at("w").to_vector<float>(), (std::vector<float>{0.5f, 1, 2, 3, 4, 5}));
  EXPECT_EQ(init.at("i64").to_vector<int64_t>(), (std::vector<int64_t>{-(int64_t{1} << 40), 7}));
  EXPECT_EQ(init.at("i8").dtype(), DType::I8);
  EXPECT_EQ(init.at("i8").to_vector<int64_t>(), (std::vector<int64_t>{-128, 0, 127}));
  EXPECT_EQ(init.at("flags").to_vector<int64_t>(), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(init.at("half").dtype(), DType::F16);
  EXPECT_EQ(init.at("half").to_vector<float>(), (std::vector<float>{1.5f, -2.0f}));
  EXPECT_EQ(typed.graph.inputs[0].shape->at(0), std::nullopt);  // the symbolic "batch"
  Model external = read_model(kFixtures + "external.onnx");
  EXPECT_EQ(external.graph.initializers.at("w").to_vector<float>(), (std::vector<float>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(external.graph.nodes.at(0).name, "project");
}

void expect_refused(const std::string& file, const std::string& expected) {
  testing::expect_load_error([&] { (void)read_model(kFixtures + file); }, file, expected);
}

TEST(OnnxModel, BrokenFilesAndEscapingExternalDataAreRefused) {
  expect_refused("escape.onnx", "is not a file inside the model's folder");
  expect_refused("short.onnx", "does not hold its 24 bytes");
  expect_refused("mismatch.onnx", "20 bytes for 24");
  expect_refused("garbage.onnx", "not a readable ONNX model");
  EXPECT_THROW((void)read_model(kFixtures + "missing.onnx"), IoError);
}

}  // namespace
}  // namespace scorch::onnx
