// scorch-onnx (scorch/import/onnx/codegen): modules generated at build time by scorch_add_onnx_model (tests/
// CMakeLists.txt) compute what the interpreter computes and what ONNX's node suite expects; models the generator
// does not handle are errors naming why.
#include <gtest/gtest.h>

#include "circle.h"
#include "conv_padded.h"
#include "extremes.h"
#include "module/onnx_node_suite.h"
#include "scorch/backends/cpu/cpu_backend.h"
#include "scorch/import/onnx/codegen/codegen.h"

namespace scorch::onnx {
namespace {

TEST(OnnxCodegen, GeneratedModuleMatchesTheInterpreter) {
  auto module = circle::Circle<Cpu>::load(std::string(SCORCH_ONNX_GENERATED_DIR) + "/circle");
  EXPECT_EQ(module.num_params(), 16u * 2 + 16 + 2 * 16 + 2);
  TensorData probe({0.0f, 0.0f, 1.2f, 1.2f, 0.5f, -0.5f, -1.4f, 0.1f}, Shape{4, 2});
  TensorData got = module.forward(Tensor<Cpu, 2>::from_data(probe)).to_data();
  TensorData expected = load<Cpu>(SCORCH_CIRCLE_ONNX).run(std::vector<TensorData>{probe}).at(0);
  EXPECT_EQ(node_suite::compare(got, expected, 0, 0), "");
}

TEST(OnnxCodegen, GeneratedModuleMatchesTheNodeSuite) {
  // test_basic_conv_with_padding: two inputs (x and the weight), no initializers.
  const std::string dir = node_suite::kNodeSuite.string() + "/test_basic_conv_with_padding/test_data_set_0/";
  auto x = Tensor<Cpu, 4>::from_data(read_tensor(dir + "input_0.pb"));
  auto w = Tensor<Cpu, 4>::from_data(read_tensor(dir + "input_1.pb"));
  TensorData got = conv_padded::ConvPadded<Cpu>::init().forward(x, w).to_data();
  EXPECT_EQ(node_suite::compare(got, read_tensor(dir + "output_0.pb")), "");
}

TEST(OnnxCodegen, ExtremeConstantsAreWrittenExactly) {
  // extremes.onnx (fixtures/onnx/gen_onnx.py): max(x, -inf f32), Slice to INT64_MAX, then the reversing Slice from -1
  // to INT64_MIN that PyTorch exports for torch.flip. It compiled only once these were valid C++ literals.
  TensorData x({1.0f, -2.0f, 3.0f, 4.0f, 5.0f, -6.0f}, Shape{2, 3});
  TensorData got = extremes::Extremes<Cpu>::init().forward(Tensor<Cpu, 2>::from_data(x)).to_data();
  EXPECT_EQ(got.to_vector<float>(), (std::vector<float>{3.0f, -2.0f, 1.0f, -6.0f, 5.0f, 4.0f}));
  TensorData interpreted =
      load<Cpu>(std::string(SCORCH_MODULE_FIXTURES) + "/onnx/extremes.onnx").run(std::vector<TensorData>{x}).at(0);
  EXPECT_EQ(node_suite::compare(got, interpreted, 0, 0), "");
}

TEST(OnnxCodegen, UnsupportedModelsAreNamedErrors) {
  Model m;
  m.opset = 13;
  Node branch;
  branch.op_type = "If", branch.name = "choose", branch.inputs = {"c"}, branch.outputs = {"y"};
  Attribute body;
  body.kind = Attribute::Kind::Graph, body.graphs.resize(1);
  branch.attributes["then_branch"] = body;
  m.graph.nodes = {branch};
  m.graph.inputs = {{"c", true, DType::Bool, std::vector<std::optional<int64_t>>{}}};
  m.graph.outputs = {{"y", true, DType::F32, std::vector<std::optional<int64_t>>{2}}};
  try {
    (void)generate_module(m, "branchy", "branchy.onnx");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("[scorch-onnx] node 'choose' (If): attribute 'then_branch' holds a subgraph"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)generate_module(m, "Bad-Name", "x.onnx"), Error);
  m.graph.nodes.clear();
  m.graph.initializers["big"] = TensorData::zeros({5000}, DType::I64);
  EXPECT_THROW((void)generate_module(m, "big", "x.onnx"), Error);
}

}  // namespace
}  // namespace scorch::onnx
