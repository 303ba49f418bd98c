// The ONNX interpreter (scorch/import/onnx/runtime) against ONNX's backend node test suite (Debian's
// libonnx-testdata): every case runs on Cpu and its outputs are compared with the suite's, within ONNX's own
// tolerance (rtol 1e-3, atol 1e-7). Cases that fail are listed with the reason in fixtures/onnx/node_failures.txt;
// a failure not listed, or a listed case that passes, fails the test. Prints the pass count per operator.
#include <gtest/gtest.h>

#include <limits>

#include "module/onnx_node_suite.h"
#include "scorch/backends/cpu/cpu_backend.h"

namespace scorch::onnx {
namespace {

TEST(OnnxRuntime, NodeSuiteOnCpu) {
  node_suite::run_all<Cpu>(std::string(SCORCH_MODULE_FIXTURES) + "/onnx/node_failures.txt");
}

// ---- hostile and broken models, built in memory: each is a scorch::Error naming the node, never a crash or an
// unbounded allocation.

Attribute int_attr(int64_t v) {
  Attribute a;
  a.kind = Attribute::Kind::Int, a.i = v;
  return a;
}
Attribute ints_attr(std::vector<int64_t> v) {
  Attribute a;
  a.kind = Attribute::Kind::Ints, a.ints = std::move(v);
  return a;
}
Attribute tensor_attr(TensorData t) {
  Attribute a;
  a.kind = Attribute::Kind::Tensor, a.t = std::move(t);
  return a;
}

Node node(std::string op, std::vector<std::string> in, std::vector<std::string> out,
          std::map<std::string, Attribute> attrs = {}) {
  Node n;
  n.name = "n_" + op, n.op_type = std::move(op), n.inputs = std::move(in), n.outputs = std::move(out);
  n.attributes = std::move(attrs);
  return n;
}

/// A model of nodes with one f32 input "x" of shape dims (empty: no input) and output "y".
Model model(std::vector<Node> nodes, std::vector<std::optional<int64_t>> dims = {}, int64_t opset = 13) {
  Model m;
  m.opset = opset;
  m.graph.nodes = std::move(nodes);
  if (!dims.empty()) m.graph.inputs.push_back({"x", true, DType::F32, dims});
  m.graph.outputs.push_back({"y", true, DType::F32, std::nullopt});
  return m;
}

/// Runs m on x (when given) and returns the error's message; fails the test when nothing is thrown.
template <class E> std::string run_error(const Model& m, std::vector<TensorData> x = {}) {
  try {
    Runtime<Cpu> rt(m);
    (void)rt.run(x);
  } catch (const E& e) { return e.what(); }
  ADD_FAILURE() << "no error";
  return "";
}

TensorData ints(std::vector<int64_t> v) { return TensorData(v, Shape{v.size()}); }

TEST(OnnxRuntime, UnsupportedOperatorsAreNamedAtLoad) {
  std::string msg = run_error<Error>(model({node("FooBar", {"x"}, {"y"})}, {2}));
  EXPECT_NE(msg.find("'n_FooBar' (FooBar, opset 13): unsupported operator"), std::string::npos) << msg;
  Node gelu = node("Gelu", {"x"}, {"y"});
  gelu.domain = "com.microsoft";
  msg = run_error<Error>(model({gelu}, {2}));
  EXPECT_NE(msg.find("com.microsoft.Gelu"), std::string::npos) << msg;
}

TEST(OnnxRuntime, HostileSizesAreRefused) {
  auto shape = node("Constant", {}, {"s"}, {{"value", tensor_attr(ints({1 << 20, 1 << 20}))}});
  std::string msg = run_error<ValueError>(model({shape, node("ConstantOfShape", {"s"}, {"y"})}));
  EXPECT_NE(msg.find("above the limit"), std::string::npos) << msg;
  EXPECT_NE(msg.find("ConstantOfShape"), std::string::npos) << msg;
  auto reps = node("Constant", {}, {"r"}, {{"value", tensor_attr(ints({int64_t(1) << 40}))}});
  EXPECT_NE(
      run_error<ValueError>(model({reps, node("Tile", {"x", "r"}, {"y"})}, {4}), {TensorData::zeros({4}, DType::F32)})
          .find("above the limit"),
      std::string::npos);
  auto pads = node("Constant", {}, {"p"}, {{"value", tensor_attr(ints({0, int64_t(1) << 40}))}});
  EXPECT_NE(
      run_error<ValueError>(model({pads, node("Pad", {"x", "p"}, {"y"})}, {4}), {TensorData::zeros({4}, DType::F32)})
          .find("above the limit"),
      std::string::npos);
  auto start = node("Constant", {}, {"a"}, {{"value", tensor_attr(TensorData({0.0f}, {}))}});
  auto limit = node("Constant", {}, {"b"}, {{"value", tensor_attr(TensorData({1e12f}, {}))}});
  auto delta = node("Constant", {}, {"d"}, {{"value", tensor_attr(TensorData({1.0f}, {}))}});
  EXPECT_NE(run_error<ValueError>(model({start, limit, delta, node("Range", {"a", "b", "d"}, {"y"})}))
                .find("above the limit"),
            std::string::npos);
}

TEST(OnnxRuntime, ALoopsHugeTripCountIsRefusedBeforeItRuns) {
  Graph body;
  body.nodes = {node("Identity", {"c_in"}, {"c_out"}), node("Identity", {"x_in"}, {"x_out"})};
  body.inputs = {{"i", true, DType::I64, std::nullopt},
                 {"c_in", true, DType::Bool, std::nullopt},
                 {"x_in", true, DType::F32, std::nullopt}};
  body.outputs = {{"c_out", true, DType::Bool, std::nullopt}, {"x_out", true, DType::F32, std::nullopt}};
  Attribute graph;
  graph.kind = Attribute::Kind::Graph, graph.graphs = {body};
  auto huge = tensor_attr(TensorData(std::vector<int64_t>{int64_t{1} << 62}, {}));
  auto trips = node("Constant", {}, {"m"}, {{"value", huge}});
  auto go = node("Constant", {}, {"c"}, {{"value", tensor_attr(TensorData(std::vector<bool>{true}, {}))}});
  Model m = model({trips, go, node("Loop", {"m", "c", "x"}, {"y"}, {{"body", graph}})}, {2});
  std::string msg = run_error<ValueError>(m, {TensorData::zeros({2}, DType::F32)});
  EXPECT_NE(msg.find("a trip count of 4611686018427387904 exceeds the limit"), std::string::npos) << msg;
}

TEST(OnnxRuntime, BadGraphsAndInputsNameWhatIsWrong) {
  TensorData x = TensorData::zeros({2, 3}, DType::F32);
  // An input nobody produces.
  EXPECT_NE(run_error<Error>(model({node("Relu", {"ghost"}, {"y"})}, {2, 3}), {x}).find("'ghost'"), std::string::npos);
  // A missing required input, an axis out of range, a reshape that changes the count: the node is named.
  EXPECT_NE(run_error<ValueError>(model({node("Gemm", {"x"}, {"y"})}, {2, 3}), {x}).find("input 1 is required"),
            std::string::npos);
  std::string msg = run_error<ShapeError>(model({node("Softmax", {"x"}, {"y"}, {{"axis", int_attr(5)}})}, {2, 3}), {x});
  EXPECT_NE(msg.find("axis 5 is out of range"), std::string::npos) << msg;
  auto to = node("Constant", {}, {"s"}, {{"value", tensor_attr(ints({4, 4}))}});
  msg = run_error<ShapeError>(model({to, node("Reshape", {"x", "s"}, {"y"})}, {2, 3}), {x});
  EXPECT_NE(msg.find("'n_Reshape' (Reshape, opset 13)"), std::string::npos) << msg;
  // An attribute of the wrong kind.
  Attribute wrong;
  wrong.kind = Attribute::Kind::String, wrong.s = "one";
  msg = run_error<ValueError>(model({node("Flatten", {"x"}, {"y"}, {{"axis", wrong}})}, {2, 3}), {x});
  EXPECT_NE(msg.find("attribute 'axis' must be an int"), std::string::npos) << msg;
  // Inputs that do not match the declaration; too few inputs; a float where bools are needed.
  EXPECT_NE(run_error<ShapeError>(model({node("Relu", {"x"}, {"y"})}, {2, 4}), {x}).find("declares [2, 4]"),
            std::string::npos);
  EXPECT_NE(run_error<DTypeError>(model({node("Relu", {"x"}, {"y"})}, {2, 3}), {TensorData::zeros({2, 3}, DType::F64)})
                .find("has dtype f64"),
            std::string::npos);
  EXPECT_NE(run_error<ValueError>(model({node("Relu", {"x"}, {"y"})}, {2, 3})).find("takes 1 inputs, 0 were given"),
            std::string::npos);
  EXPECT_NE(run_error<DTypeError>(model({node("Not", {"x"}, {"y"})}, {2, 3}), {x}).find("input 0 has dtype f32"),
            std::string::npos);
}

TEST(OnnxRuntime, HostileAttributesAreRefused) {
  TensorData image = TensorData::zeros({1, 4, 4, 4}, DType::F32);
  auto conv_model = [](std::map<std::string, Attribute> attrs) {
    Model m = model({node("Conv", {"x", "w"}, {"y"}, std::move(attrs))}, {1, 4, 4, 4});
    m.graph.initializers["w"] = TensorData::zeros({2, 4, 3, 3}, DType::F32);
    return m;
  };
  EXPECT_NE(
      run_error<ValueError>(conv_model({{"pads", ints_attr({-1, 0, 0, 0})}}), {image}).find("must not be negative"),
      std::string::npos);
  EXPECT_NE(run_error<ValueError>(conv_model({{"pads", ints_attr({int64_t(1) << 40, 0, 0, 0})}}), {image})
                .find("above the limit"),
            std::string::npos);
  for (int64_t block : {int64_t(0), int64_t(-1), int64_t(1) << 32})
    EXPECT_NE(run_error<ValueError>(
                  model({node("DepthToSpace", {"x"}, {"y"}, {{"blocksize", int_attr(block)}})}, {1, 4, 4, 4}), {image})
                  .find("blocksize"),
              std::string::npos);
  EXPECT_NE(run_error<ShapeError>(model({node("Einsum", {"x"}, {"y"},
                                              {{"equation",
                                                [] {
                                                  Attribute a;
                                                  a.kind = Attribute::Kind::String, a.s = "abcdefgh...->a";
                                                  return a;
                                                }()}})},
                                        {1, 4, 4, 4}),
                                  {image})
                .find("term 'abcdefgh...' of operand 0 names 8 dims, the operand has rank 4"),
            std::string::npos);
  // An LSTM whose R covers one direction of a bidirectional node; a MaxUnpool whose indices are smaller than X.
  Model lstm = model({node("LSTM", {"x", "w", "r"}, {"y"},
                           {{"hidden_size", int_attr(2)},
                            {"direction",
                             [] {
                               Attribute a;
                               a.kind = Attribute::Kind::String, a.s = "bidirectional";
                               return a;
                             }()}})},
                     {3, 1, 4});
  lstm.graph.initializers["w"] = TensorData::zeros({2, 8, 4}, DType::F32);
  lstm.graph.initializers["r"] = TensorData::zeros({1, 8, 2}, DType::F32);
  EXPECT_NE(run_error<ShapeError>(lstm, {TensorData::zeros({3, 1, 4}, DType::F32)}).find("expected [2, 8, 2]"),
            std::string::npos);
  Model unpool = model({node("MaxUnpool", {"x", "i"}, {"y"}, {{"kernel_shape", ints_attr({2, 2})}})}, {1, 4, 4, 4});
  unpool.graph.initializers["i"] = TensorData(std::vector<int64_t>{0}, {1, 1, 1, 1});
  EXPECT_NE(run_error<ShapeError>(unpool, {image}).find("must have X's shape"), std::string::npos);
  // Opsets the interpreter does not know are refused at load.
  EXPECT_NE(run_error<Error>(model({node("Relu", {"x"}, {"y"})}, {2}, 18)).find("opset 18 is newer"),
            std::string::npos);
}

TEST(OnnxRuntime, ExactWhereSubtractionWouldRound) {
  // ScatterND replaces (1e8 + (1e-3 - 1e8) would give 0), exclusive CumSum shifts (inf - inf would give NaN), and
  // an int64 Clip keeps bounds exact.
  auto scalar_const = [](std::string name, TensorData t) {
    return node("Constant", {}, {std::move(name)}, {{"value", tensor_attr(std::move(t))}});
  };
  Model scatter = model({scalar_const("i", TensorData(std::vector<int64_t>{0}, {1, 1})),
                         scalar_const("u", TensorData({1e-3f}, {1})), node("ScatterND", {"x", "i", "u"}, {"y"})},
                        {2});
  auto y = Runtime<Cpu>(scatter).run(std::vector<TensorData>{TensorData({1e8f, 5.0f}, {2})}).at(0);
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{1e-3f, 5.0f}));
  Model cumsum = model({scalar_const("a", TensorData(std::vector<int64_t>{0}, {})),
                        node("CumSum", {"x", "a"}, {"y"}, {{"exclusive", int_attr(1)}})},
                       {3});
  float inf = std::numeric_limits<float>::infinity();
  y = Runtime<Cpu>(cumsum).run(std::vector<TensorData>{TensorData({inf, 1.0f, 2.0f}, {3})}).at(0);
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{0, inf, inf}));
  Model clip = model({scalar_const("lo", TensorData(std::vector<int64_t>{INT64_MIN + 1}, {})),
                      scalar_const("hi", TensorData(std::vector<int64_t>{INT64_MAX - 1}, {})),
                      node("Clip", {"x", "lo", "hi"}, {"y"})});
  clip.graph.inputs.push_back({"x", true, DType::I64, std::vector<std::optional<int64_t>>{2}});
  y = Runtime<Cpu>(clip).run(std::vector<TensorData>{TensorData(std::vector<int64_t>{INT64_MAX, 7}, {2})}).at(0);
  EXPECT_EQ(y.to_vector<int64_t>(), (std::vector<int64_t>{INT64_MAX - 1, 7}));
}

TEST(OnnxRuntime, FoldsConstantsAndBatchNormsAtLoad) {
  // y = BatchNorm(Conv(x, Transpose(wt))) with every parameter an initializer: the Transpose runs at load and the
  // BatchNormalization merges into the Conv; outputs match the unfolded graph.
  Model m = model(
      {node("Transpose", {"wt"}, {"w"}, {{"perm", ints_attr({1, 0, 2, 3})}}), node("Conv", {"x", "w", "b"}, {"c"}),
       node("BatchNormalization", {"c", "gamma", "beta", "mean", "var"}, {"y"})},
      {1, 2, 4, 4});
  auto vals = [](size_t n, float start, float step) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = start + step * float(i);
    return v;
  };
  m.graph.initializers["wt"] = TensorData(vals(2 * 3 * 9, -1, 0.04f), {2, 3, 3, 3});
  m.graph.initializers["b"] = TensorData(vals(3, 0.1f, 0.2f), {3});
  m.graph.initializers["gamma"] = TensorData(vals(3, 0.5f, 0.5f), {3});
  m.graph.initializers["beta"] = TensorData(vals(3, -0.2f, 0.3f), {3});
  m.graph.initializers["mean"] = TensorData(vals(3, 0.3f, -0.1f), {3});
  m.graph.initializers["var"] = TensorData(vals(3, 0.5f, 0.7f), {3});
  TensorData x(vals(32, -2, 0.13f), {1, 2, 4, 4});
  Runtime<Cpu> folded(m);
  EXPECT_EQ(folded.plan().nodes.size(), 1u);
  EXPECT_EQ(folded.plan().nodes[0].op_type, "Conv");
  ::setenv("SCORCH_ONNX_NO_FOLDING", "1", 1);
  Runtime<Cpu> plain(m);
  ::unsetenv("SCORCH_ONNX_NO_FOLDING");
  EXPECT_EQ(plain.plan().nodes.size(), 3u);
  auto a = folded.run(std::vector<TensorData>{x}).at(0), b = plain.run(std::vector<TensorData>{x}).at(0);
  EXPECT_EQ(node_suite::compare(a, b, 1e-5, 1e-5), "");
}

/// Outputs of m on x with the load-time passes and without them; the two must agree.
void expect_folding_keeps_outputs(const Model& m, const TensorData& x, size_t folded_nodes) {
  Runtime<Cpu> folded(m);
  EXPECT_EQ(folded.plan().nodes.size(), folded_nodes);
  ::setenv("SCORCH_ONNX_NO_FOLDING", "1", 1);
  Runtime<Cpu> plain(m);
  ::unsetenv("SCORCH_ONNX_NO_FOLDING");
  auto a = folded.run(std::vector<TensorData>{x}).at(0), b = plain.run(std::vector<TensorData>{x}).at(0);
  EXPECT_EQ(node_suite::compare(a, b, 1e-5, 1e-5), "");
}

TEST(OnnxRuntime, FoldingTwoBatchNormsAndSubgraphReads) {
  // Two Conv + BatchNormalization pairs folded in one pass get weights of their own.
  auto bn = [](std::string in, std::string out, std::string p) {
    return node("BatchNormalization", {in, p + "g", p + "b", p + "m", p + "v"}, {out});
  };
  Model m = model({node("Conv", {"x", "wa"}, {"a"}), node("Conv", {"x", "wb"}, {"b"}), bn("a", "p", "A"),
                   bn("b", "q", "B"), node("Add", {"p", "q"}, {"y"})},
                  {1, 1, 3, 3});
  m.graph.initializers["wa"] = TensorData({1.0f, 2.0f, 3.0f, 4.0f}, {1, 1, 2, 2});
  m.graph.initializers["wb"] = TensorData({-1.0f, 0.5f, 0.25f, 2.0f}, {1, 1, 2, 2});
  for (const char* p : {"A", "B"}) {
    float k = p[0] == 'A' ? 1.0f : 2.0f;
    m.graph.initializers[std::string(p) + "g"] = TensorData({0.5f * k}, {1});
    m.graph.initializers[std::string(p) + "b"] = TensorData({0.1f * k}, {1});
    m.graph.initializers[std::string(p) + "m"] = TensorData({0.2f * k}, {1});
    m.graph.initializers[std::string(p) + "v"] = TensorData({1.5f * k}, {1});
  }
  TensorData x({1.0f, -2.0f, 3.0f, 0.5f, 4.0f, -1.0f, 2.0f, 0.0f, 1.5f}, {1, 1, 3, 3});
  expect_folding_keeps_outputs(m, x, 3);
  // A body that reads the Conv's output by name keeps the graph unrewritten.
  Graph then_branch, else_branch;
  then_branch.nodes = {node("Identity", {"a"}, {"t"})};
  then_branch.outputs = {{"t", true, DType::F32, std::nullopt}};
  else_branch.nodes = {node("Identity", {"p"}, {"e"})};
  else_branch.outputs = {{"e", true, DType::F32, std::nullopt}};
  Attribute then_attr, else_attr;
  then_attr.kind = else_attr.kind = Attribute::Kind::Graph;
  then_attr.graphs = {then_branch}, else_attr.graphs = {else_branch};
  Model branchy = model({node("Conv", {"x", "wa"}, {"a"}), bn("a", "p", "A"),
                         node("If", {"cond"}, {"y"}, {{"then_branch", then_attr}, {"else_branch", else_attr}})},
                        {1, 1, 3, 3});
  branchy.graph.initializers = m.graph.initializers;
  branchy.graph.initializers["cond"] = TensorData(std::vector<bool>{true}, Shape{});
  expect_folding_keeps_outputs(branchy, x, 3);
}

TEST(OnnxRuntime, MergesCommonSubexpressionsAndDropsDeadNodesAtLoad) {
  // Two Relu(x) and two Transpose(x) with the same perm merge (their readers then read the first), a Transpose with
  // another perm and a Dropout do not; a Sigmoid read by nothing goes, and so does the Tanh chain only it read; a
  // merged node whose output the graph names stays as an Identity of the first.
  Model m = model({node("Relu", {"x"}, {"a"}), node("Relu", {"x"}, {"b"}),
                   node("Transpose", {"x"}, {"t1"}, {{"perm", ints_attr({1, 0})}}),
                   node("Transpose", {"x"}, {"t2"}, {{"perm", ints_attr({1, 0})}}),
                   node("Transpose", {"x"}, {"t3"}, {{"perm", ints_attr({0, 1})}}), node("Tanh", {"x"}, {"h"}),
                   node("Sigmoid", {"h"}, {"dead"}), node("Dropout", {"a"}, {"d1"}), node("Dropout", {"a"}, {"d2"}),
                   node("Mul", {"a", "b"}, {"m"}), node("Add", {"t1", "t2"}, {"s"}), node("Add", {"m", "t3"}, {"u"}),
                   node("Add", {"d1", "d2"}, {"v"}), node("Sub", {"u", "v"}, {"w"}), node("Add", {"w", "s"}, {"y"}),
                   node("Relu", {"x"}, {"z"})},
                  {2, 2});
  m.graph.outputs.push_back({"z", true, DType::F32, std::nullopt});
  TensorData x({1.0f, -2.0f, 3.0f, 0.5f}, {2, 2});
  Runtime<Cpu> folded(m);
  std::map<std::string, size_t> ops;
  for (const auto& n : folded.plan().nodes) ++ops[n.op_type];
  EXPECT_EQ(ops["Relu"], 1u);       // a, b and z are one Relu
  EXPECT_EQ(ops["Identity"], 1u);   // z, a graph output, copies it
  EXPECT_EQ(ops["Transpose"], 2u);  // t1 = t2, t3 apart
  EXPECT_EQ(ops["Dropout"], 2u);    // never merged
  EXPECT_EQ(ops.count("Sigmoid") + ops.count("Tanh"), 0u);
  ::setenv("SCORCH_ONNX_NO_FOLDING", "1", 1);
  Runtime<Cpu> plain(m);
  ::unsetenv("SCORCH_ONNX_NO_FOLDING");
  EXPECT_EQ(plain.plan().nodes.size(), m.graph.nodes.size());
  auto a = folded.run(std::vector<TensorData>{x}), b = plain.run(std::vector<TensorData>{x});
  ASSERT_EQ(a.size(), 2u);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(node_suite::compare(a[i], b[i], 0, 0), "") << "output " << i;
}

TEST(OnnxRuntime, RunsRepeatedlyAndByName) {
  // y = relu(x) + w, w an initializer; the runtime keeps w across runs and takes inputs by name too.
  Model m = model({node("Relu", {"x"}, {"r"}), node("Add", {"r", "w"}, {"y"})}, {std::nullopt, 2});
  m.graph.initializers["w"] = TensorData({10.0f, 20.0f}, {2});
  Runtime<Cpu> rt(m);
  EXPECT_EQ(rt.input_names(), std::vector<std::string>{"x"});
  for (int i = 0; i < 2; ++i) {
    auto y = rt.run(std::vector<TensorData>{TensorData({-1.0f, 2.0f, 3.0f, -4.0f}, {2, 2})}).at(0);
    EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{10, 22, 13, 20}));
  }
  auto by_name = rt.run(std::map<std::string, TensorData>{{"x", TensorData({1.0f, 1.0f}, {1, 2})}});
  EXPECT_EQ(by_name.at("y").to_vector<float>(), (std::vector<float>{11, 21}));
  EXPECT_THROW((void)rt.run(std::map<std::string, TensorData>{{"z", TensorData({1.0f}, {1})}}), ValueError);
}

// ---- sequences and optionals (values by hand: the node suite of onnx 1.12 has no SplitToSequence or
// ConcatFromSequence case)

/// y of m run on x (a [2, 3] f32 input named "x").
TensorData run_on_x(const Model& m, const TensorData& x) {
  return Runtime<Cpu>(m).run(std::vector<TensorData>{x}).at(0);
}

TEST(OnnxRuntime, SplitsToSequencesAndJoinsThemBack) {
  TensorData x(std::vector<float>{1, 2, 3, 4, 5, 6}, Shape{2, 3});
  auto two = node("Constant", {}, {"two"}, {{"value", tensor_attr(TensorData(std::vector<int64_t>{2}, Shape{}))}});
  // chunks of 2 along axis 1 ([2, 2] and [2, 1]), joined back along axis 1
  auto split = node("SplitToSequence", {"x", "two"}, {"s"}, {{"axis", int_attr(1)}});
  auto join = node("ConcatFromSequence", {"s"}, {"y"}, {{"axis", int_attr(1)}});
  run_on_x(model({two, split, join}, {2, 3}), x).assert_approx_eq(x, Tolerance::rel_abs(0, 0));
  // rows without their axis (keepdims 0), stacked along a new last axis: the transpose
  auto rows = node("SplitToSequence", {"x"}, {"s"}, {{"keepdims", int_attr(0)}});
  auto stack = node("ConcatFromSequence", {"s"}, {"y"}, {{"axis", int_attr(-1)}, {"new_axis", int_attr(1)}});
  run_on_x(model({rows, stack}, {2, 3}), x)
      .assert_approx_eq(TensorData(std::vector<float>{1, 4, 2, 5, 3, 6}, Shape{3, 2}), Tolerance::rel_abs(0, 0));
  // rows, x inserted at the front, the last row erased: [x, row 0]; element 0 is x
  auto at0 = node("Constant", {}, {"zero"}, {{"value", tensor_attr(TensorData(std::vector<int64_t>{0}, Shape{}))}});
  auto insert = node("SequenceInsert", {"s", "x", "zero"}, {"t"});
  auto erase = node("SequenceErase", {"t"}, {"u"});
  auto length = node("SequenceLength", {"u"}, {"n"});
  auto first = node("SequenceAt", {"u", "zero"}, {"y"});
  auto m = model({rows, at0, insert, erase, length, first}, {2, 3});
  m.graph.outputs.push_back({"n", true, DType::I64, std::nullopt});
  auto out = Runtime<Cpu>(m).run(std::vector<TensorData>{x});
  out.at(0).assert_approx_eq(x, Tolerance::rel_abs(0, 0));
  EXPECT_EQ(out.at(1).to_vector<int64_t>(), std::vector<int64_t>{2});  // [x, row 0]
}

// The load-time slot plan: a name read twice by one node, an input that is also an output, an output nobody reads,
// a weight read after its first reader released nothing, and repeated runs from the same weights.
TEST(OnnxRuntime, SlotPlanKeepsWhatLaterNodesAndOutputsRead) {
  auto twice = node("Add", {"x", "x"}, {"a"});
  auto relu = node("Relu", {"a"}, {"r"});
  auto unused = node("Neg", {"x"}, {"dropped"});
  auto scale = node("Mul", {"r", "w"}, {"y"});
  auto again = node("Add", {"y", "w"}, {"z"});
  auto m = model({twice, relu, unused, scale, again}, {2});
  m.graph.initializers["w"] = TensorData({3.0f, 5.0f}, {2});
  m.graph.outputs.push_back({"x", true, DType::F32, std::nullopt});
  m.graph.outputs.push_back({"z", true, DType::F32, std::nullopt});
  Runtime<Cpu> rt(m);
  for (int i = 0; i < 3; ++i) {
    auto out = rt.run(std::vector<TensorData>{TensorData({-1.0f, 2.0f}, {2})});
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{0, 20}));
    EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{-1, 2}));
    EXPECT_EQ(out[2].to_vector<float>(), (std::vector<float>{3, 25}));
  }
}

// Runtime<Cpu> runs the interpreter compiled on Dyn: values cross the bridge as the same buffers, sequences too.
TEST(OnnxRuntime, ValuesCrossTheCpuBridgeWithoutCopies) {
  TensorData x(std::vector<float>{1, 2, 3, 4, 5, 6}, Shape{2, 3});
  auto rows = node("SplitToSequence", {"x"}, {"s"}, {{"keepdims", int_attr(0)}});
  auto same = node("Identity", {"x"}, {"y"});
  auto m = model({rows, same}, {2, 3});
  m.graph.outputs.push_back({"s", true, DType::F32, std::nullopt});
  Runtime<Cpu> rt(m);
  auto input = Value<Cpu>::from_data(x, {});
  const float* buffer = input.get<Float>().data<float>();
  auto out = rt.run_values({{"x", input}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].get<Float>().data<float>(), buffer);
  ASSERT_EQ(out[1].kind(), Value<Cpu>::Kind::Sequence);
  ASSERT_EQ(out[1].elements().size(), 2u);
  EXPECT_EQ(out[1].elements()[1].to_data().to_vector<float>(), (std::vector<float>{4, 5, 6}));
  HostValue host = to_host(out[1]);
  ASSERT_EQ(host.elements.size(), 2u);
  Value<Cpu> back = from_host<Cpu>(host);
  EXPECT_EQ(back.elements()[0].to_data().to_vector<float>(), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(back.element_dtype(), DType::F32);
}

TEST(OnnxRuntime, SequenceAndOptionalMisuseNamesTheNode) {
  TensorData x(std::vector<float>{1, 2, 3}, Shape{3});
  auto split = node("SplitToSequence", {"x"}, {"s"});
  auto five = node("Constant", {}, {"i"}, {{"value", tensor_attr(TensorData(std::vector<int64_t>{5}, Shape{}))}});
  std::string msg = run_error<ValueError>(model({split, five, node("SequenceAt", {"s", "i"}, {"y"})}, {3}), {x});
  EXPECT_NE(msg.find("'n_SequenceAt' (SequenceAt, opset 13): position 5 is outside a sequence of 3 elements"),
            std::string::npos)
      << msg;
  msg = run_error<ValueError>(model({split, node("Relu", {"s"}, {"y"})}, {3}), {x});
  EXPECT_NE(msg.find("'n_Relu' (Relu, opset 13): "), std::string::npos) << msg;
  EXPECT_NE(msg.find("a sequence or optional where a tensor is expected"), std::string::npos) << msg;
  msg = run_error<ValueError>(model({node("Optional", {}, {"o"}), node("OptionalGetElement", {"o"}, {"y"})}));
  EXPECT_NE(msg.find("(OptionalGetElement, opset 13): the optional is empty"), std::string::npos) << msg;
  msg = run_error<ValueError>(model({split, node("SequenceConstruct", {"x", "s"}, {"y"})}, {3}), {x});
  EXPECT_NE(msg.find("(SequenceConstruct, opset 13): a sequence holds tensors only"), std::string::npos) << msg;
  auto wrap = node("Optional", {"x"}, {"o"});
  msg = run_error<ValueError>(model({wrap, node("Optional", {"o"}, {"y"})}, {3}), {x});
  EXPECT_NE(msg.find("an optional cannot hold an optional"), std::string::npos) << msg;
  auto empty = node("SequenceEmpty", {}, {"e"});
  msg = run_error<ValueError>(model({empty, node("ConcatFromSequence", {"e"}, {"y"})}));
  EXPECT_NE(msg.find("cannot concatenate an empty sequence"), std::string::npos) << msg;
  // a tensor fed where the model declares a sequence
  Model seq_input = model({node("SequenceLength", {"x"}, {"y"})}, {3});
  seq_input.graph.inputs[0].tensor = false, seq_input.graph.inputs[0].containers = {ValueType::Sequence};
  msg = run_error<ValueError>(seq_input, {x});
  EXPECT_NE(msg.find("input 'x' is a tensor, the model declares a sequence"), std::string::npos) << msg;
}

}  // namespace
}  // namespace scorch::onnx
