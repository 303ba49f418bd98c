// The ONNX front end's reader (scorch/import/onnx/onnx_model.h): every model and tensor of ONNX's backend node test
// suite (Debian's libonnx-testdata) reads, or fails naming the element type Scorch lacks; a model's nodes,
// attributes, opset and initializers come out as the file has them (values checked against ONNX's Python reader,
// fixtures/onnx/gen_onnx.py); external data is read from beside the model and never from outside its folder; broken
// files are FormatErrors.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "module/expect_load_error.h"
#include "scorch/import/onnx/graph_budget.h"
#include "scorch/import/onnx/onnx_model.h"
#include "support/expect_error.h"

namespace scorch::onnx {
namespace {
namespace fs = std::filesystem;

const fs::path kTestData = "/usr/include/onnx/backend/test/data";  // libonnx-testdata
const std::string kFixtures = std::string(SCORCH_MODULE_FIXTURES) + "/onnx/";

/// Protobuf's wire form, enough to write models with many nodes (onnx.proto's field numbers).
std::string varint(uint64_t n) {
  std::string out;
  for (; n >= 0x80; n >>= 7) out += static_cast<char>((n & 0x7f) | 0x80);
  return out + static_cast<char>(n);
}
std::string field(int number, const std::string& payload) {  // a length-delimited field
  return varint(static_cast<uint64_t>(number) << 3 | 2) + varint(payload.size()) + payload;
}
std::string value_info(const std::string& name) {  // ValueInfoProto{name, type: tensor of FLOAT}
  return field(1, name) + field(2, field(1, varint(1 << 3) + varint(1)));
}

/// A GraphProto of `nodes` Relu nodes, each reading x and writing y<i>; its output is y0.
std::string wide_graph(size_t nodes) {
  std::string graph;
  for (size_t i = 0; i < nodes; ++i)
    graph += field(1, field(1, "x") + field(2, "y" + std::to_string(i)) + field(4, "Relu"));
  return graph + field(2, "wide") + field(11, value_info("x")) + field(12, value_info("y0"));
}

/// A ModelProto (ir_version 8, opset 13) around graph, written to path.
void write_model(const fs::path& path, const std::string& graph) {
  std::ofstream(path, std::ios::binary) << varint(1 << 3) + varint(8) + field(8, varint(2 << 3) + varint(13)) +
                                               field(7, graph);
}

/// Whether e is the error for an element type Scorch has no dtype for (strings, unsigned above 8 bits, complex).
bool lacks_dtype(const FormatError& e) {
  return std::string(e.what()).find("has no Scorch dtype") != std::string::npos;
}

/// The declaration of test-data file `file` (input_N.pb or output_N.pb) in inputs / outputs; a plain tensor's when
/// the model did not read or the index is past the list.
ValueInfo declared_for(const fs::path& file, const std::vector<ValueInfo>& inputs,
                       const std::vector<ValueInfo>& outputs) {
  std::string name = file.stem().string();
  bool input = name.rfind("input_", 0) == 0;
  size_t index = std::stoul(name.substr(name.find('_') + 1));
  const auto& list = input ? inputs : outputs;
  return index < list.size() ? list[index] : ValueInfo{};
}

TEST(OnnxModel, EveryNodeSuiteModelAndValueReads) {
  ASSERT_TRUE(fs::exists(kTestData / "node")) << "libonnx-testdata is missing: run scripts/install-deps.sh";
  size_t models = 0, models_read = 0, values = 0, values_read = 0, containers = 0;
  for (const auto& dir : fs::directory_iterator(kTestData / "node")) {
    ++models;
    std::vector<ValueInfo> inputs, outputs;
    try {
      Model m = read_model((dir.path() / "model.onnx").string());
      EXPECT_FALSE(m.graph.nodes.empty()) << dir.path();
      inputs = m.graph.inputs, outputs = m.graph.outputs;
      ++models_read;
    } catch (const FormatError& e) { EXPECT_TRUE(lacks_dtype(e)) << e.what(); }
    for (const auto& set : fs::directory_iterator(dir.path())) {
      if (!set.is_directory()) continue;
      for (const auto& file : fs::directory_iterator(set.path())) {
        ValueInfo info = declared_for(file.path(), inputs, outputs);
        if (!info.containers.empty() && info.containers.front() == ValueType::Other) continue;  // maps
        ++values;
        try {
          HostValue v = read_value(file.path().string(), info);
          EXPECT_EQ(v.type, info.containers.empty() ? ValueType::Tensor : info.containers.front()) << file.path();
          containers += v.type != ValueType::Tensor;
          ++values_read;
        } catch (const FormatError& e) { EXPECT_TRUE(lacks_dtype(e)) << e.what(); }
      }
    }
  }
  std::cout << "node suite: " << models_read << " of " << models << " models, " << values_read << " of " << values
            << " test values read (" << containers << " sequences or optionals)\n";
  EXPECT_GE(models, 900u);
  EXPECT_GE(models_read * 100, models * 97);
  EXPECT_GE(values_read * 100, values * 95);
  EXPECT_GE(containers, 40u);
}

TEST(OnnxModel, SequenceAndOptionalFilesMustHoldTheirDeclaredType) {
  fs::path dir = kTestData / "node" / "test_sequence_insert_at_back" / "test_data_set_0";
  ASSERT_TRUE(fs::exists(dir)) << "libonnx-testdata is missing: run scripts/install-deps.sh";
  ValueInfo sequence{"s", false, DType::F32, std::nullopt, {ValueType::Sequence}};
  HostValue s = read_value((dir / "input_0.pb").string(), sequence);
  ASSERT_EQ(s.type, ValueType::Sequence);
  ASSERT_FALSE(s.elements.empty());
  for (const auto& e : s.elements) EXPECT_EQ(e.type, ValueType::Tensor);
  // sequences nested three deep where the model declares a sequence of sequences of tensors
  auto path = (fs::temp_directory_path() / "scorch_nested_sequence.pb").string();
  std::ofstream(path, std::ios::binary) << std::string("\x2a\x04\x2a\x02\x2a\x00", 6);
  ValueInfo nested{"n", false, DType::F32, std::nullopt, {ValueType::Sequence, ValueType::Sequence}};
  try {
    (void)read_value(path, nested);
    ADD_FAILURE() << "no error";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("does not hold the type the model declares"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  fs::remove(path);
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

TEST(OnnxModel, EmptyFilesAndSymlinksOutOfTheFolderAreRefused) {
  fs::path root = fs::temp_directory_path() / ("scorch-onnx-links-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "model");
  fs::copy_file(kFixtures + "external.onnx", root / "model" / "external.onnx");
  fs::copy_file(kFixtures + "external.bin", root / "secret.bin");
  std::ofstream(root / "model" / "empty.onnx").close();
  testing::expect_load_error([&] { (void)read_model((root / "model" / "empty.onnx").string()); }, "empty.onnx",
                             "not an ONNX model");
  // external.bin is a link to a file outside the model's folder: refused, not read.
  fs::create_symlink(root / "secret.bin", root / "model" / "external.bin");
  testing::expect_load_error([&] { (void)read_model((root / "model" / "external.onnx").string()); }, "external.onnx",
                             "leads outside the model's folder");
  // A link that stays inside the folder is followed.
  fs::remove(root / "model" / "external.bin");
  fs::copy_file(kFixtures + "external.bin", root / "model" / "weights.bin");
  fs::create_symlink("weights.bin", root / "model" / "external.bin");
  Model model = read_model((root / "model" / "external.onnx").string());
  EXPECT_EQ(model.graph.initializers.at("w").to_vector<float>(), (std::vector<float>{0, 1, 2, 3, 4, 5}));
  fs::remove_all(root);
}

TEST(OnnxModel, GraphsOfMoreEntriesThanTheBudgetAreRefusedBeforeParsing) {
  fs::path root = fs::temp_directory_path() / ("scorch-onnx-budget-" + std::to_string(::getpid()));
  fs::create_directories(root);
  // A graph 10^6 nodes wide (20 MB; 1 GB once loaded and planned before the budget): 4 entries a node.
  write_model(root / "wide.onnx", wide_graph(1'000'000));
  testing::expect_rejected([&] { (void)read_model((root / "wide.onnx").string()); }, "load",
                           (root / "wide.onnx").string(), "more than 2000000 entries");
  // Nodes inside a subgraph (an If's then_branch, attribute field 6) count as the top graph's do.
  std::string branch = field(1, "then_branch") + field(6, wide_graph(30)) + varint(20 << 3) + varint(5);
  std::string if_node = field(1, field(1, "c") + field(2, "y0") + field(4, "If") + field(5, branch));
  write_model(root / "nested.onnx", if_node + field(11, value_info("c")) + field(12, value_info("y0")));
  setenv("SCORCH_ONNX_MAX_GRAPH_ENTRIES", "50", 1);
  testing::expect_load_error([&] { (void)read_model((root / "nested.onnx").string()); }, "nested.onnx",
                             "set_max_graph_entries");
  setenv("SCORCH_ONNX_MAX_GRAPH_ENTRIES", "fifty", 1);
  testing::expect_error<ValueError>([&] { (void)read_model((root / "nested.onnx").string()); },
                                    "[load] SCORCH_ONNX_MAX_GRAPH_ENTRIES='fifty'");
  unsetenv("SCORCH_ONNX_MAX_GRAPH_ENTRIES");
  EXPECT_EQ(read_model((root / "nested.onnx").string())
                .graph.nodes.at(0)
                .attributes.at("then_branch")
                .graphs.at(0)
                .nodes.size(),
            30u);
  // The setter overrides the environment; a limit the file fits exactly reads.
  std::string nested = [&] {
    std::ifstream in(root / "nested.onnx", std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  auto bytes = std::as_bytes(std::span(nested.data(), nested.size()));
  size_t entries = count_model_entries(bytes, 1'000);
  EXPECT_GT(entries, 4u * 30);
  set_max_graph_entries(entries - 1);
  testing::expect_load_error([&] { (void)read_model((root / "nested.onnx").string()); }, "nested.onnx",
                             "more than " + std::to_string(entries - 1) + " entries");
  set_max_graph_entries(entries);
  EXPECT_NO_THROW((void)read_model((root / "nested.onnx").string()));
  EXPECT_THROW(set_max_graph_entries(0), ValueError);
  set_max_graph_entries(kDefaultMaxGraphEntries);
  fs::remove_all(root);
}

}  // namespace
}  // namespace scorch::onnx
