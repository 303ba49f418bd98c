// The digits model's ONNX graph, written with Debian's ONNX protobuf classes.
#include "onnx_export.h"

#include <onnx/onnx_pb.h>

#include <fstream>
#include <vector>

namespace web_tool {

namespace {

using namespace scorch;

/// Builds one graph: initializers, nodes and the typed input and output.
class GraphWriter {
 public:
  explicit GraphWriter(::onnx::GraphProto& graph) : graph_(graph) {}

  /// An initializer named name holding data (f32).
  std::string constant(const std::string& name, const TensorData& data) {
    auto values = data.convert(DType::F32);
    auto* t = graph_.add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto::FLOAT);
    for (size_t d : values.shape()) t->add_dims(int64_t(d));
    t->set_raw_data(reinterpret_cast<const char*>(values.bytes().data()), values.bytes().size());
    return name;
  }
  /// An int64 initializer (shapes for Reshape).
  std::string ints(const std::string& name, const std::vector<int64_t>& values) {
    auto* t = graph_.add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto::INT64);
    t->add_dims(int64_t(values.size()));
    for (int64_t v : values) t->add_int64_data(v);
    return name;
  }
  /// A node of op_type over inputs; returns its output's name (op_type and a counter).
  ::onnx::NodeProto& node(const std::string& op_type, const std::vector<std::string>& inputs, std::string output = "") {
    if (output.empty()) output = op_type + "_" + std::to_string(graph_.node_size());
    auto* n = graph_.add_node();
    n->set_op_type(op_type);
    n->set_name(op_type + "_" + std::to_string(graph_.node_size()));
    for (const auto& in : inputs) n->add_input(in);
    n->add_output(output);
    return *n;
  }
  static std::string out(const ::onnx::NodeProto& n) { return n.output(0); }
  static void ints_attribute(::onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& values) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INTS);
    for (int64_t v : values) a->add_ints(v);
  }
  static void int_attribute(::onnx::NodeProto& n, const std::string& name, int64_t value) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INT);
    a->set_i(value);
  }
  /// A float tensor input or output of shape [batch, dims...].
  static void typed(::onnx::ValueInfoProto& info, const std::string& name, const std::vector<int64_t>& dims) {
    info.set_name(name);
    auto* tensor = info.mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(::onnx::TensorProto::FLOAT);
    auto* shape = tensor->mutable_shape();
    shape->add_dim()->set_dim_param("batch");
    for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
  }

 private:
  ::onnx::GraphProto& graph_;
};

template <size_t D> TensorData values_of(const Param<Tensor<Cpu, D>>& p) { return p.val().to_data(); }

}  // namespace

void export_digits_onnx(const guide::Model<Cpu>& model, const std::string& path) {
  ::onnx::ModelProto proto;
  proto.set_ir_version(8);
  proto.set_producer_name("scorch web-tool");
  auto* opset = proto.add_opset_import();
  opset->set_domain("");
  opset->set_version(13);
  auto& graph = *proto.mutable_graph();
  graph.set_name("digits");
  GraphWriter g(graph);
  GraphWriter::typed(*graph.add_input(), "ink", {28, 28});
  GraphWriter::typed(*graph.add_output(), "probabilities", {10});

  auto scalar = [](float v) { return TensorData(std::vector<float>{v}, Shape{}); };
  auto x = g.out(g.node("Sub", {"ink", g.constant("mean", scalar(0.1307f))}));
  x = g.out(g.node("Div", {x, g.constant("std", scalar(0.3081f))}));
  x = g.out(g.node("Reshape", {x, g.ints("image_shape", {-1, 1, 28, 28})}));
  auto conv = [&](const nn::Conv2d<Cpu>& layer, const std::string& name, const std::string& input) {
    return g.out(g.node("Conv", {input, g.constant(name + ".weight", values_of(layer.weight)),
                                 g.constant(name + ".bias", values_of(*layer.bias))}));
  };
  x = g.out(g.node("Relu", {conv(model.conv2, "conv2", conv(model.conv1, "conv1", x))}));
  auto& pool = g.node("AveragePool", {x});  // AdaptiveAvgPool2d 24 × 24 → 8 × 8
  GraphWriter::ints_attribute(pool, "kernel_shape", {3, 3});
  GraphWriter::ints_attribute(pool, "strides", {3, 3});
  x = g.out(g.node("Reshape", {g.out(pool), g.ints("flat_shape", {-1, 16 * 8 * 8})}));
  auto linear = [&](const nn::Linear<Cpu>& layer, const std::string& name, const std::string& input) {
    auto weight = layer.layout == nn::LinearLayout::Row ? layer.weight.val() : layer.weight.val().transpose();
    return g.out(g.node("Gemm", {input, g.constant(name + ".weight", weight.to_data()),
                                 g.constant(name + ".bias", values_of(*layer.bias))}));
  };
  x = g.out(g.node("Relu", {linear(model.linear1, "linear1", x)}));
  x = linear(model.linear2, "linear2", x);
  GraphWriter::int_attribute(g.node("Softmax", {x}, "probabilities"), "axis", 1);

  std::string bytes;
  if (!proto.SerializeToString(&bytes)) throw IoError("export_digits_onnx", path + ": cannot serialize the model");
  std::ofstream file(path, std::ios::binary);
  if (!file.write(bytes.data(), std::streamsize(bytes.size())))
    throw IoError("export_digits_onnx", path + ": cannot write");
}

}  // namespace web_tool
