// Random graphs (chains of convolutions, activations, residual adds, pooling, transposes, softmax, layer and batch
// norms, concatenations, transposed convolutions, masks through Where, GELU chains and products over random shapes)
// compiled fused, unfused and unlowered, each compared with the interpreter: the passes preserve values whatever meets
// whatever.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "scorch/backends/cpu/cpu_backend.h"
#include "scorch/graph/compiled_model.h"
#include "scorch/import/onnx/runtime/runtime.h"

namespace scorch::graph {
namespace {

using onnx::Attribute;
using onnx::Node;

struct Value {
  std::string name;
  Shape shape;
};

// Values drawn from N(0, scale²) by rng, of shape.
TensorData normal_data(std::mt19937& rng, const Shape& shape, float scale) {
  std::normal_distribution<float> normal(0.0f, scale);
  std::vector<float> values(shape.num_elements());
  for (auto& x : values) x = normal(rng);
  return TensorData(values, shape);
}

// An ints attribute.
Attribute ints(std::vector<int64_t> v) { return Attribute{Attribute::Kind::Ints, 0, 0, "", {}, std::move(v)}; }

class RandomGraph {
 public:
  explicit RandomGraph(uint32_t seed) : rng_(seed) { m_.opset = 17; }

  onnx::Model build(TensorData& input) {
    Shape shape{pick({1, 2}), pick({1, 3, 4}), pick({5, 6, 8, 11}), pick({5, 7, 8, 12})};
    m_.graph.inputs.push_back({"x", true, DType::F32, dims(shape)});
    input = random_data(shape, 1.0f);
    Value v{"x", shape};
    seen_.push_back(v);
    for (int steps = int(pick({3, 5, 8})); steps-- > 0;) v = step(v);
    Value pooled = add("GlobalAveragePool", {v.name}, {v.shape[0], v.shape[1], 1, 1});
    Value flat = add("Flatten", {pooled.name}, {v.shape[0], v.shape[1]});
    size_t classes = pick({3, 10});
    Node& gemm = node("Gemm", {flat.name, weight({classes, v.shape[1]}), weight({classes})}, "logits");
    gemm.attributes["transB"] = Attribute{Attribute::Kind::Int, 1};
    m_.graph.outputs.push_back({"logits", true, DType::F32, std::nullopt});
    m_.graph.outputs.push_back({v.name, true, DType::F32, std::nullopt});
    return m_;
  }

 private:
  size_t pick(std::initializer_list<size_t> options) { return options.begin()[rng_() % options.size()]; }
  static std::optional<std::vector<std::optional<int64_t>>> dims(const Shape& s) {
    std::vector<std::optional<int64_t>> d;
    for (size_t i = 0; i < s.rank(); ++i) d.push_back(int64_t(s[i]));
    return d;
  }
  TensorData random_data(const Shape& shape, float scale) { return normal_data(rng_, shape, scale); }
  std::string weight(Shape shape, float scale = 0.3f) {
    std::string name = "w" + std::to_string(names_++);
    m_.graph.initializers.emplace(name, random_data(shape, scale));
    return name;
  }
  std::string scalar(float value) {
    std::string name = "s" + std::to_string(names_++);
    m_.graph.initializers.emplace(name, TensorData(std::vector<float>{value}, Shape{}));
    return name;
  }
  std::string shape_constant(std::vector<int64_t> dims) {
    std::string name = "shape" + std::to_string(names_++);
    m_.graph.initializers.emplace(name, TensorData(dims, Shape{dims.size()}));
    return name;
  }
  Node& node(std::string op, std::vector<std::string> inputs, std::string output) {
    Node n;
    n.name = output, n.op_type = std::move(op), n.inputs = std::move(inputs), n.outputs = {std::move(output)};
    m_.graph.nodes.push_back(std::move(n));
    return m_.graph.nodes.back();
  }
  Value add(std::string op, std::vector<std::string> inputs, Shape shape) {
    Value v{"v" + std::to_string(names_++), shape};
    node(std::move(op), std::move(inputs), v.name);
    seen_.push_back(v);
    return v;
  }
  Value conv(const Value& x) {
    size_t c = x.shape[1], k = pick({1, 3}), stride = x.shape[2] > 4 && x.shape[3] > 4 ? pick({1, 1, 2}) : 1;
    bool depthwise = k == 3 && c > 1 && rng_() % 3 == 0;
    size_t out = depthwise ? c : pick({4, 8, 16}), pad = k / 2;
    std::vector<std::string> in{x.name, weight({out, depthwise ? 1 : c, k, k})};
    if (rng_() % 2) in.push_back(weight({out}));
    Shape shape{x.shape[0], out, (x.shape[2] + 2 * pad - k) / stride + 1, (x.shape[3] + 2 * pad - k) / stride + 1};
    Value v = add("Conv", in, shape);
    Node& n = m_.graph.nodes.back();
    n.attributes["strides"] = Attribute{Attribute::Kind::Ints, 0, 0, "", {}, {int64_t(stride), int64_t(stride)}};
    n.attributes["pads"] = Attribute{Attribute::Kind::Ints, 0, 0, "", {}, std::vector<int64_t>(4, int64_t(pad))};
    if (depthwise) n.attributes["group"] = Attribute{Attribute::Kind::Int, int64_t(c)};
    return v;
  }
  // GELU's tanh form: PyTorch's export (x·x·x, κ·, x +, β·, Tanh, 1 +, x ·, 0.5 ·) or a GPT-2 style one
  // (Pow 3 first, 0.5·x before the product), the constants' operand order random.
  Value gelu_tanh(const Value& x) {
    auto mul = [&](const std::string& a, const std::string& b) {
      return rng_() % 2 ? add("Mul", {a, b}, x.shape) : add("Mul", {b, a}, x.shape);
    };
    bool torch_order = rng_() % 2;
    Value cube = torch_order ? mul(x.name, add("Mul", {x.name, x.name}, x.shape).name)
                             : add("Pow", {x.name, scalar(3.0f)}, x.shape);
    Value inner =
        mul(add("Add", {x.name, mul(cube.name, scalar(0.044715f)).name}, x.shape).name, scalar(0.7978845608f));
    Value one_plus = add("Add", {add("Tanh", {inner.name}, x.shape).name, scalar(1.0f)}, x.shape);
    if (torch_order) return mul(mul(x.name, one_plus.name).name, scalar(0.5f));
    return mul(mul(x.name, scalar(0.5f)).name, one_plus.name);
  }
  Value activation(const Value& x) {
    switch (rng_() % 9) {
      case 0: return add("Relu", {x.name}, x.shape);
      case 1: return add("Clip", {x.name, scalar(0.0f), scalar(6.0f)}, x.shape);
      case 2: return add("Sigmoid", {x.name}, x.shape);
      case 3: return add("Tanh", {x.name}, x.shape);
      case 4: return add("HardSwish", {x.name}, x.shape);
      case 5: return add("Mul", {x.name, scalar(0.5f)}, x.shape);
      case 6: return gelu_tanh(x);
      case 7: return add("Mul", {add("Sigmoid", {x.name}, x.shape).name, x.name}, x.shape);  // SiLU
      default: {  // GELU's erf form, as PyTorch exports it
        Value d = add("Div", {x.name, scalar(std::sqrt(2.0f))}, x.shape), e = add("Erf", {d.name}, x.shape);
        Value a = add("Add", {e.name, scalar(1.0f)}, x.shape), m = add("Mul", {x.name, a.name}, x.shape);
        return add("Mul", {m.name, scalar(0.5f)}, x.shape);
      }
    }
  }
  // The mean over x's last axis, kept (the axis as -1 or 3).
  Value mean_over_last(const Value& x) {
    Value m = add("ReduceMean", {x.name}, {x.shape[0], x.shape[1], x.shape[2], 1});
    m_.graph.nodes.back().attributes["axes"] = ints({rng_() % 2 ? -1 : 3});
    return m;
  }
  // A mask from the values, broadcast along the rows or not, selecting them or a fill value.
  Value masked(const Value& x) {
    Value source = x;
    if (rng_() % 2) {  // a row's maximum (not its mean: after a layer norm that is rounding noise)
      source = add("ReduceMax", {x.name}, {x.shape[0], x.shape[1], x.shape[2], 1});
      m_.graph.nodes.back().attributes["axes"] = ints({3});
    }
    Value mask{"v" + std::to_string(names_++), source.shape};
    node("Greater", {source.name, scalar(0.0f)}, mask.name);
    return rng_() % 2 ? add("Where", {mask.name, x.name, scalar(-1.5f)}, x.shape)
                      : add("Where", {mask.name, scalar(2.0f), x.name}, x.shape);
  }
  // A transposed convolution upsampling (stride 2, output_padding when the kernel is odd).
  Value upsampled(const Value& x) {
    size_t k = pick({2, 3}), pad = k == 3 ? 1 : 0, extra = k == 3 ? 1 : 0, out = pick({4, 8});
    std::vector<std::string> in{x.name, weight({x.shape[1], out, k, k})};
    if (rng_() % 2) in.push_back(weight({out}));
    Shape shape{x.shape[0], out, (x.shape[2] - 1) * 2 + k - 2 * pad + extra,
                (x.shape[3] - 1) * 2 + k - 2 * pad + extra};
    Value v = add("ConvTranspose", in, shape);
    Node& n = m_.graph.nodes.back();
    n.attributes["strides"] = ints({2, 2});
    n.attributes["pads"] = ints(std::vector<int64_t>(4, int64_t(pad)));
    n.attributes["output_padding"] = ints({int64_t(extra), int64_t(extra)});
    return v;
  }
  // An upsampling Resize: nearest ×2 (asymmetric, floor) or linear (half_pixel or pytorch_half_pixel) ×2 or to a
  // size a little larger; by scales or by sizes.
  Value resized(const Value& x) {
    bool linear = rng_() % 2, by_sizes = rng_() % 2;
    Shape out{x.shape[0], x.shape[1], 2 * x.shape[2], 2 * x.shape[3]};
    if (linear && by_sizes) out = Shape{x.shape[0], x.shape[1], x.shape[2] + pick({1, 3}), x.shape[3] + pick({2, 5})};
    std::vector<std::string> in{x.name, ""};
    if (by_sizes) {
      in.push_back("");
      in.push_back(shape_constant({int64_t(out[0]), int64_t(out[1]), int64_t(out[2]), int64_t(out[3])}));
    } else {
      std::string name = "scales" + std::to_string(names_++);
      m_.graph.initializers.emplace(name, TensorData(std::vector<float>{1, 1, 2, 2}, Shape{4}));
      in.push_back(name);
    }
    Value v = add("Resize", in, out);
    auto text = [](std::string value) { return Attribute{Attribute::Kind::String, 0, 0, std::move(value)}; };
    auto& attributes = m_.graph.nodes.back().attributes;
    attributes["mode"] = text(linear ? "linear" : "nearest");
    attributes["coordinate_transformation_mode"] = text(!linear      ? "asymmetric"
                                                        : rng_() % 2 ? "half_pixel"
                                                                     : "pytorch_half_pixel");
    if (!linear) attributes["nearest_mode"] = text("floor");
    return v;
  }
  // x combined with a reduction of itself over random axes (mean, sum, max, min, L2, sum of squares), kept or
  // dropped dims (then reshaped back), the axes as an attribute or, for ReduceSum, an input.
  Value reduced(const Value& x) {
    static const char* ops[] = {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceL2", "ReduceSumSquare"};
    std::string op = ops[rng_() % 6];
    std::vector<int64_t> axes;
    Shape kept = x.shape, dropped;
    for (int64_t d = 1; d < 4; ++d)
      if (rng_() % 2) axes.push_back(rng_() % 2 ? d : d - 4), kept[size_t(d)] = 1;
    if (axes.empty()) axes = {3}, kept[3] = 1;
    bool keep = rng_() % 2;
    for (size_t d = 0; d < 4; ++d)  // without keepdims only the dims the axes name go
      if (std::find_if(axes.begin(), axes.end(), [&](int64_t a) { return size_t((a + 4) % 4) == d; }) == axes.end())
        dropped.push_back(x.shape[d]);
    std::vector<std::string> in{x.name};
    if (op == "ReduceSum") in.push_back(shape_constant(axes));
    Value r = add(op, in, keep ? kept : dropped);
    if (op != "ReduceSum") m_.graph.nodes.back().attributes["axes"] = ints(axes);
    m_.graph.nodes.back().attributes["keepdims"] = Attribute{Attribute::Kind::Int, keep ? 1 : 0};
    if (!keep)
      r = add("Reshape",
              {r.name, shape_constant({int64_t(kept[0]), int64_t(kept[1]), int64_t(kept[2]), int64_t(kept[3])})}, kept);
    Value scaled = op == "ReduceSum" || op == "ReduceSumSquare" ? add("Mul", {r.name, scalar(0.05f)}, kept) : r;
    return add(rng_() % 2 ? "Add" : "Sub", {x.name, scaled.name}, x.shape);
  }
  // A BatchNormalization no convolution absorbs (after an activation, as pre-activation nets have).
  Value normalized(const Value& x) {
    Value a = activation(x);
    auto variance = random_data({x.shape[1]}, 0.5f).to_vector<float>();
    for (auto& e : variance) e = std::abs(e) + 0.1f;
    std::string var = "var" + std::to_string(names_++);
    m_.graph.initializers.emplace(var, TensorData(variance, Shape{x.shape[1]}));
    return add("BatchNormalization", {a.name, weight({x.shape[1]}), weight({x.shape[1]}), weight({x.shape[1]}), var},
               x.shape);
  }
  // A layer norm over the last axis as PyTorch exports it below opset 17: (x − mean) / √(var + ε), then γ and β
  // when affine; the square as Pow or Mul.
  Value decomposed_layer_norm(const Value& x) {
    Shape reduced{x.shape[0], x.shape[1], x.shape[2], 1};
    Value mean = mean_over_last(x), d = add("Sub", {x.name, mean.name}, x.shape);
    Value sq = rng_() % 2 ? add("Pow", {d.name, scalar(2.0f)}, x.shape) : add("Mul", {d.name, d.name}, x.shape);
    Value var = mean_over_last(sq), e = add("Add", {var.name, scalar(1e-5f)}, reduced);
    Value r = add("Sqrt", {e.name}, reduced), n = add("Div", {d.name, r.name}, x.shape);
    if (rng_() % 3 == 0) return n;
    Value scaled = add("Mul", {n.name, weight({x.shape[3]})}, x.shape);
    return rng_() % 2 ? add("Add", {scaled.name, weight({x.shape[3]})}, x.shape) : scaled;
  }
  // The latest earlier value of x's shape other than x (x itself when there is none).
  std::string earlier_like(const Value& x) const {
    for (auto it = seen_.rbegin(); it != seen_.rend(); ++it)
      if (it->shape == x.shape && it->name != x.name) return it->name;
    return x.name;
  }
  // Channels last, softmax over them, back.
  Value channel_softmax(const Value& x) {
    Value t = add("Transpose", {x.name}, {x.shape[0], x.shape[2], x.shape[3], x.shape[1]});
    m_.graph.nodes.back().attributes["perm"] = ints({0, 2, 3, 1});
    Value s = add("Softmax", {t.name}, t.shape);
    Value b = add("Transpose", {s.name}, x.shape);
    m_.graph.nodes.back().attributes["perm"] = ints({0, 3, 1, 2});
    return b;
  }
  Value step(const Value& x) {
    switch (rng_() % 15) {
      case 0:
      case 1: return conv(x);
      case 2: return activation(x);
      case 3: {  // a residual add with an earlier value of the same shape, else with a broadcast row
        std::string other = earlier_like(x);
        return add("Add", {x.name, other != x.name ? other : weight({x.shape[3]})}, x.shape);
      }
      case 4: {
        if (x.shape[2] < 2 || x.shape[3] < 2) return activation(x);
        Value p = add("MaxPool", {x.name}, {x.shape[0], x.shape[1], x.shape[2] / 2, x.shape[3] / 2});
        m_.graph.nodes.back().attributes["kernel_shape"] = ints({2, 2});
        m_.graph.nodes.back().attributes["strides"] = ints({2, 2});
        return p;
      }
      case 5: return channel_softmax(x);
      case 6:
        return rng_() % 2 ? add("LayerNormalization", {x.name, weight({x.shape[3]}), weight({x.shape[3]})}, x.shape)
                          : decomposed_layer_norm(x);
      case 7: {  // a product over the last axis by a constant matrix
        size_t n = pick({4, 8});
        Value p = add("MatMul", {x.name, weight({x.shape[3], n})}, {x.shape[0], x.shape[1], x.shape[2], n});
        return add("Add", {p.name, weight({n})}, p.shape);
      }
      case 8: {  // through a flattened view and back (views sharing the bytes of values read later)
        Shape flat_shape{x.shape[0], x.shape[1], x.shape[2] * x.shape[3]};
        Value flat =
            add("Reshape",
                {x.name, shape_constant({int64_t(flat_shape[0]), int64_t(flat_shape[1]), int64_t(flat_shape[2])})},
                flat_shape);
        Value r = activation(flat);
        return add("Reshape",
                   {r.name, shape_constant(
                                {int64_t(x.shape[0]), int64_t(x.shape[1]), int64_t(x.shape[2]), int64_t(x.shape[3])})},
                   x.shape);
      }
      case 9: return normalized(x);
      case 10: {  // channels concatenated with an earlier value of the same shape (or with itself)
        Value c = add("Concat", {x.name, earlier_like(x)}, {x.shape[0], 2 * x.shape[1], x.shape[2], x.shape[3]});
        m_.graph.nodes.back().attributes["axis"] = Attribute{Attribute::Kind::Int, 1};
        return c;
      }
      case 11: return upsampled(x);
      case 12: return resized(x);
      case 13: return reduced(x);
      default: return masked(x);
    }
  }

  std::mt19937 rng_;
  onnx::Model m_;
  size_t names_ = 0;
  std::vector<Value> seen_;
};

// The largest difference relative to the largest expected magnitude, or to 0.01 where all are smaller (values that
// small are rounding noise of a cancellation, such as the mean of a normalized row).
double random_graph_difference(const TensorData& a, const TensorData& b) {
  auto x = a.to_vector<double>(), y = b.to_vector<double>();
  double diff = 0, scale = 1e-2;
  for (size_t i = 0; i < x.size(); ++i)
    diff = std::max(diff, std::abs(x[i] - y[i])), scale = std::max(scale, std::abs(y[i]));
  return x.size() == y.size() ? diff / scale : 1e30;
}

// The count before " nodes fused" in a summary.
size_t fused_in(const std::string& summary) {
  size_t end = summary.find(" nodes fused"), begin = summary.rfind(' ', end - 1) + 1;
  return std::stoul(summary.substr(begin, end - begin));
}

TEST(RandomGraphs, CompiledEqualsTheInterpreter) {
  size_t fused = 0, interpreted_only = 0, upsampled = 0, decomposed_norms = 0, gelu_tanh = 0, resized = 0,
         reductions = 0;
  // SEED0 (default 1) starts the 150 seeds: SEED0=151 tries another 150.
  const char* first = std::getenv("SEED0");
  uint32_t seed0 = first ? uint32_t(std::atoi(first)) : 1;
  for (uint32_t seed = seed0; seed < seed0 + 150; ++seed) {
    TensorData input;
    onnx::Model model = RandomGraph(seed).build(input);

    std::vector<TensorData> expected = onnx::Runtime<Cpu>(model).run(std::vector<TensorData>{input});
    // One thread: ctest runs this beside other tests, where an OpenMP team of two spins against them.
    for (CompileOptions options :
         {CompileOptions{1, true, true}, CompileOptions{1, false, true}, CompileOptions{1, true, false}}) {
      CompiledModel compiled = compile(model, {input}, options);
      auto got = compiled.run({input});
      if (options.fuse && options.lower) fused += fused_in(compiled.summary());
      for (const auto& step : compiled.profile())  // transposed convolutions lowered, not left to the interpreter
        upsampled += step.kind == "conv" && step.ops.rfind("ConvTranspose", 0) == 0,
            decomposed_norms += step.kind == "layer_norm" && step.ops.rfind("ReduceMean", 0) == 0,
            gelu_tanh += step.kind != "interpreter" && step.ops.find("+Tanh+") != std::string::npos &&
                         step.ops.find("+Add+") != std::string::npos,
            resized += step.kind == "resize", reductions += step.kind == "reduce";
      if (!options.lower) interpreted_only += compiled.summary().find(" 0 run by the interpreter") == std::string::npos;
      ASSERT_EQ(got.size(), expected.size());
      for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(got[i].shape(), expected[i].shape()) << "seed " << seed;
        EXPECT_LE(random_graph_difference(got[i], expected[i]), 1e-4)
            << "seed " << seed << ", output " << i << ", fuse " << options.fuse << ", lower " << options.lower << "; "
            << compiled.summary();
      }
    }
  }
  EXPECT_GT(fused, 150u);             // activations, GELU chains, biases and residuals fused into their heads
  EXPECT_EQ(interpreted_only, 150u);  // unlowered: every graph ran through the interpreter
  EXPECT_GT(upsampled, 0u);           // transposed convolutions lowered
  EXPECT_GT(decomposed_norms, 0u);    // decomposed layer norms matched into one primitive
  EXPECT_GT(reductions, 0u);          // reductions lowered to oneDNN's
  EXPECT_GT(resized, 0u);             // Resize lowered to oneDNN's resampling
  EXPECT_GT(gelu_tanh, 0u);           // GELU's tanh form fused as one activation
}

// One Conv or ConvTranspose of 1, 2 or 3 spatial dims (random kernel, stride, padding, dilation, groups, bias),
// followed by a max or average pooling of its rank: lowered, equal to the interpreter.
TEST(RandomGraphs, ConvolutionsAndPoolingOfEveryRank) {
  std::mt19937 rng(5);
  auto pick = [&](std::initializer_list<int64_t> o) { return o.begin()[rng() % o.size()]; };
  auto data = [&](Shape shape) { return normal_data(rng, shape, 0.5f); };
  size_t lowered = 0;
  for (int trial = 0; trial < 60; ++trial) {
    size_t spatial = 1 + trial % 3;
    bool transposed = trial % 4 == 3;
    int64_t groups = pick({1, 1, 2}), cin = 2 * pick({1, 2}), cout = 2 * pick({1, 3}), k = pick({1, 2, 3});
    int64_t stride = pick({1, 2}), dilation = transposed ? 1 : pick({1, 2}), pad = k / 2;
    Shape xs{2, size_t(cin)},
        ws = transposed ? Shape{size_t(cin), size_t(cout / groups)} : Shape{size_t(cout), size_t(cin / groups)};
    std::vector<std::optional<int64_t>> dims{2, cin};
    for (size_t d = 0; d < spatial; ++d) {
      size_t size = size_t(pick({5, 6, 9}));
      xs.push_back(size), ws.push_back(size_t(k)), dims.push_back(int64_t(size));
    }
    onnx::Model m;
    m.opset = 17;
    m.graph.inputs.push_back({"x", true, DType::F32, dims});
    m.graph.initializers = {{"w", data(ws)}, {"b", data({size_t(cout)})}};
    Node conv;
    conv.name = "conv", conv.op_type = transposed ? "ConvTranspose" : "Conv", conv.inputs = {"x", "w"};
    if (rng() % 2) conv.inputs.push_back("b");
    conv.outputs = {"y"};
    conv.attributes["strides"] = ints(std::vector<int64_t>(spatial, stride));
    conv.attributes["dilations"] = ints(std::vector<int64_t>(spatial, dilation));
    conv.attributes["pads"] = ints(std::vector<int64_t>(2 * spatial, pad));
    conv.attributes["group"] = Attribute{Attribute::Kind::Int, groups};
    Node pool;
    pool.name = "pool", pool.op_type = rng() % 2 ? "MaxPool" : "AveragePool", pool.inputs = {"y"}, pool.outputs = {"z"};
    pool.attributes["kernel_shape"] = ints(std::vector<int64_t>(spatial, 2));
    pool.attributes["ceil_mode"] = Attribute{Attribute::Kind::Int, int64_t(rng() % 2)};
    m.graph.nodes = {conv, pool};
    m.graph.outputs = {{"y", true, DType::F32, std::nullopt}, {"z", true, DType::F32, std::nullopt}};
    TensorData x = data(xs);
    auto expected = onnx::Runtime<Cpu>(m).run(std::vector<TensorData>{x});
    CompiledModel compiled = compile(m, {x}, {1, true, true});
    auto got = compiled.run({x});
    lowered += compiled.summary().find(" 0 run by the interpreter") != std::string::npos;
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(got[i].shape(), expected[i].shape()) << "trial " << trial;
      EXPECT_LE(random_graph_difference(got[i], expected[i]), 1e-5)
          << conv.op_type << " " << spatial << "-D trial " << trial << " output " << i << "; " << compiled.summary();
    }
  }
  EXPECT_GT(lowered, 50u);
}

// One LSTM or GRU node of random sizes, direction, bias, initial state and (GRU) linear_before_reset, its weights
// constant: lowered to oneDNN's recurrent primitives, equal to the interpreter on every output.
TEST(RandomGraphs, RecurrentNodesEqualTheInterpreter) {
  std::mt19937 rng(3);
  auto pick = [&](std::initializer_list<size_t> o) { return o.begin()[rng() % o.size()]; };
  auto data = [&](Shape shape) { return normal_data(rng, shape, 0.4f); };
  size_t lowered = 0;
  for (int trial = 0; trial < 40; ++trial) {
    bool lstm = trial % 2 == 0;
    size_t steps = pick({1, 5, 9}), batch = pick({1, 3}), in = pick({2, 7}), hidden = pick({3, 8, 16});
    std::string direction = std::vector<std::string>{"forward", "reverse", "bidirectional"}[rng() % 3];
    size_t dirs = direction == "bidirectional" ? 2 : 1, gates = lstm ? 4 : 3;
    onnx::Model m;
    m.opset = 14;
    m.graph.inputs.push_back(
        {"x", true, DType::F32, std::vector<std::optional<int64_t>>{int64_t(steps), int64_t(batch), int64_t(in)}});
    m.graph.initializers = {{"W", data({dirs, gates * hidden, in})}, {"R", data({dirs, gates * hidden, hidden})}};
    Node n;
    n.name = "rnn", n.op_type = lstm ? "LSTM" : "GRU", n.inputs = {"x", "W", "R"}, n.outputs = {"Y", "Y_h"};
    n.attributes["hidden_size"] = Attribute{Attribute::Kind::Int, int64_t(hidden)};
    n.attributes["direction"] = Attribute{Attribute::Kind::String, 0, 0, direction};
    if (!lstm) n.attributes["linear_before_reset"] = Attribute{Attribute::Kind::Int, int64_t(rng() % 2)};
    if (rng() % 2) m.graph.initializers.emplace("B", data({dirs, 2 * gates * hidden})), n.inputs.push_back("B");
    if (rng() % 2) {  // an initial state (and cell) as constants
      n.inputs.resize(5, ""), n.inputs.push_back("h0");
      m.graph.initializers.emplace("h0", data({dirs, batch, hidden}));
      if (lstm) n.inputs.push_back("c0"), m.graph.initializers.emplace("c0", data({dirs, batch, hidden}));
    }
    if (lstm) n.outputs.push_back("Y_c");
    m.graph.nodes.push_back(n);
    for (const auto& out : n.outputs) m.graph.outputs.push_back({out, true, DType::F32, std::nullopt});
    TensorData x = data({steps, batch, in});
    auto expected = onnx::Runtime<Cpu>(m).run(std::vector<TensorData>{x});
    CompiledModel compiled = compile(m, {x}, {1, true, true});
    auto got = compiled.run({x});
    lowered += compiled.summary().find(" 0 run by the interpreter") != std::string::npos;
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_LE(random_graph_difference(got[i], expected[i]), 1e-5)
          << n.op_type << " " << direction << " trial " << trial << " output " << i << "; " << compiled.summary();
  }
  EXPECT_EQ(lowered, 40u);
}

}  // namespace
}  // namespace scorch::graph
