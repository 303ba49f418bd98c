#pragma once
// The compiler's grouping pass: which ONNX nodes of a folded graph become one oneDNN primitive (a convolution or
// product with its activations and residual add, a pooling, an elementwise op or a binary op with the activations
// after it) and which run through the interpreter. Pure: reads the nodes, shapes and constants, changes nothing.
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "scorch/core/shape.h"
#include "scorch/core/tensor_data.h"
#include "scorch/import/onnx/onnx_model.h"

namespace scorch::graph {

/// What the example run found a value to be.
struct ValueMeta {
  Shape shape;
  DType dtype = DType::F32;
};

/// An elementwise activation as oneDNN's eltwise algorithms take it: algorithm name and its alpha and beta.
struct Activation {
  enum class Kind { Relu, Clip, Logistic, Tanh, HardSwish, Elu, Linear, GeluErf, GeluTanh, Swish };
  Kind kind = Kind::Relu;
  float alpha = 0, beta = 0;
};

/// A Transpose read as a strided view by the product after it: the transposed value and the permutation.
struct Transposed {
  std::string source;
  std::vector<int64_t> perm;
};

/// A step of the plan: one node run by the interpreter, or a head node lowered with the nodes fused after it.
struct Group {
  enum class Kind {
    Conv,
    MatMul,
    BatchMatMul,
    Pool,
    Eltwise,
    Binary,
    Reshape,
    Transpose,
    Rnn,
    LayerNorm,
    Softmax,
    Concat,
    BatchNorm,
    Where,
    Resize,
    Reduce,
    Interpreter
  };
  Kind kind = Kind::Interpreter;
  std::vector<size_t> nodes;           ///< indices into the node list: the head first, then what fused
  std::vector<Activation> before_sum;  ///< activations applied to the head's result
  std::optional<std::string> bias;     ///< a constant row added to a product's result (the Add after a MatMul)
  std::optional<std::string> sum;      ///< a value added to it (a residual), then
  bool sum_in_place = false;           ///< nothing else reads sum: the result may overwrite it
  std::vector<Activation> after_sum;   ///< activations after that add
  std::string output;                  ///< the value the group writes
  bool swap_operands = false;
  std::map<size_t, Transposed> transposed;  ///< a BatchMatMul's operands (0, 1) read through their Transpose
  /// A layer norm over the last axis matched from the nodes PyTorch exports below opset 17 (ReduceMean, Sub, Pow
  /// or Mul, ReduceMean, Add ε, Sqrt, Div, then Mul γ and Add β when affine); unset for a LayerNormalization node.
  struct Norm {
    std::string input;
    std::optional<std::string> scale, shift;
    float epsilon = 1e-5f;
  };
  std::optional<Norm> norm;
};

/// What the pass reads besides the nodes.
struct GraphFacts {
  const std::map<std::string, ValueMeta>* meta;                   ///< every tensor value's shape and dtype
  std::function<const TensorData*(const std::string&)> constant;  ///< a constant's data, or nullptr
  std::set<std::string> graph_outputs;
  int64_t opset = 17;  ///< the model's default-domain opset (Resize's coordinates were asymmetric at 10)
};

/// The dims a Reduce* node reduces over an input of rank dims (sorted, distinct), read from its axes attribute or
/// (ReduceSum from opset 13) its constant axes input; nullopt when they are not known at compile time or the node
/// reduces nothing (noop_with_empty_axes).
std::optional<std::vector<size_t>> reduced_axes(const onnx::Node& node, size_t rank, const GraphFacts& facts);

/// The activation node computes (Relu, LeakyRelu, Clip with constant bounds, Sigmoid, Tanh, HardSwish, HardSigmoid,
/// Elu), as oneDNN post-ops in order; nullopt for any other node.
std::optional<std::vector<Activation>> activation_of(const onnx::Node& node, const GraphFacts& facts);

/// Groups nodes (topologically ordered) into steps, in run order. With fuse off, every node is its own group. Fused
/// after a head: activation nodes; a region of elementwise nodes on scalar constants that reads only the head's
/// result and computes GELU (erf or tanh form) or SiLU, whatever the order the exporter wrote it in (the region is
/// evaluated at sample points and compared with each); a product's bias Add; and a residual Add whose other operand
/// is computed before the head;
/// a layer norm's decomposed form becomes one LayerNorm group (see Group::Norm).
std::vector<Group> group_nodes(const std::vector<onnx::Node>& nodes, const GraphFacts& facts, bool fuse, bool lower);

}  // namespace scorch::graph
