#pragma once
// Linear (y = x·W + b) and Embedding (rows of a table picked by token ids).
#include "scorch/module/module.h"
#include "scorch/nn/initializer.h"
#include "scorch/tensor/functional_fused.h"
#include "scorch/tensor/quantized.h"

namespace scorch::nn {

SCORCH_ENUM(LinearLayout, Row, Col)

template <class B> struct Linear;

/// Linear layer settings: Row stores the weight [d_input, d_output] (Burn's layout, a plain
/// GEMM), Col stores [d_output, d_input] (PyTorch's nn.Linear layout).
struct LinearConfig {
  size_t d_input, d_output;
  bool bias = true;
  Initializer initializer = Initializer::kaiming_uniform();
  LinearLayout layout = LinearLayout::Row;
  SCORCH_CONFIG(LinearConfig, (d_input, d_output), (bias, initializer, layout))
  /// A layer with fresh weights (fan_in = d_input, fan_out = d_output).
  /// The layer with its parameters read from record (as saved by into_record / a recorder).
  template <class B> auto init_with(const Record& record, const typename B::Device& device = {}) const {
    return init_from_record(record, [&] { return this->template init<B>(device); });
  }
  template <class B> Linear<B> init(const typename B::Device& device = {}) const;
};

/// y = x·W + b over the last dim of any-rank x.
template <class B> struct Linear {
  Param<Tensor<B, 2>> weight;
  std::optional<Param<Tensor<B, 1>>> bias;
  LinearLayout layout = LinearLayout::Row;
  SCORCH_MODULE(Linear, weight, bias, layout)

  /// [..., d_input] → [..., d_output]; relu applied to the result when asked (the same op: one cuBLASLt product with
  /// its bias and relu on Cuda).
  template <size_t D> Tensor<B, D> forward(const Tensor<B, D>& x, bool relu = false) const;

  /// What quantize() may quantize: the weight, per output channel (axis 1 in Row layout, 0 in Col), run by integer
  /// kernels (quantized_linear).
  std::vector<QuantTarget> quant_targets() const {
    return {{"weight", layout == LinearLayout::Row ? size_t{1} : size_t{0}, true}};
  }

 private:
  template <size_t D> Tensor<B, D> forward_quantized(const Tensor<B, D>& x, bool relu) const;
};

// Out of the class body, so that a stack's library compiles them once (stacks/cpu/nn.h declares those).
template <class B> template <size_t D> Tensor<B, D> Linear<B>::forward(const Tensor<B, D>& x, bool relu) const {
  static_assert(D >= 1, "Linear needs rank ≥ 1");
  if (weight.is_quantized()) return forward_quantized(x, relu);
  size_t d_in = layout == LinearLayout::Row ? weight.val().shape()[0] : weight.val().shape()[1];
  if (x.shape()[D - 1] != d_in)
    throw ShapeError("Linear::forward",
                     "input " + x.shape().to_string() + " must end in d_input " + std::to_string(d_in));
  auto w = layout == LinearLayout::Row ? weight.val() : weight.val().transpose();
  std::optional<Tensor<B, 1>> b;
  if (bias) b = bias->val();
  return functional::linear(x, w, b, relu);  // bias in the product's dtype under autocast
}

template <class B> template <size_t D>
Tensor<B, D> Linear<B>::forward_quantized(const Tensor<B, D>& x, bool relu) const {
  if (auto* observer = quant_input_observer()) observer->observe(weight.id().value(), x.to_data());
  std::optional<Tensor<B, 1>> b;
  if (bias) b = bias->val();
  return quant::linear(x, weight.quantized(), layout == LinearLayout::Col, b, relu);
}

template <class B> Linear<B> LinearConfig::init(const typename B::Device& device) const {
  Linear<B> l;
  Shape shape = layout == LinearLayout::Row ? Shape{d_input, d_output} : Shape{d_output, d_input};
  l.weight = initializer.init_with<B, 2>(shape, d_input, d_output, device);
  if (bias) l.bias = initializer.init_with<B, 1>({d_output}, d_input, d_output, device);
  l.layout = layout;
  return l;
}

template <class B> struct Embedding;

/// Embedding table settings; PyTorch's default init is N(0, 1).
struct EmbeddingConfig {
  size_t n_embedding, d_model;
  Initializer initializer = Initializer::normal(0.0, 1.0);
  SCORCH_CONFIG(EmbeddingConfig, (n_embedding, d_model), (initializer))
  /// The layer with its parameters read from record (as saved by into_record / a recorder).
  template <class B> auto init_with(const Record& record, const typename B::Device& device = {}) const {
    return init_from_record(record, [&] { return this->template init<B>(device); });
  }
  template <class B> Embedding<B> init(const typename B::Device& device = {}) const;
};

/// Looks up rows of weight [n_embedding, d_model].
template <class B> struct Embedding {
  Param<Tensor<B, 2>> weight;
  SCORCH_MODULE(Embedding, weight)

  /// Int [batch, seq] → [batch, seq, d_model]; throws ValueError on an id outside the table.
  Tensor<B, 3> forward(const Tensor<B, 2, Int>& ids) const {
    auto [batch, seq] = ids.dims();
    size_t n = weight.val().shape()[0];
    auto flat = ids.template reshape<1>({-1});
    if (flat.shape()[0] > 0 && (flat.lower_elem(Scalar(int64_t{0})).any().into_scalar().to_bool() ||
                                flat.greater_equal_elem(Scalar(static_cast<int64_t>(n))).any().into_scalar().to_bool()))
      throw ValueError("Embedding::forward", "a token id is outside [0, " + std::to_string(n) + ")");
    return weight.val().select(0, flat).template reshape<3>({batch, seq, weight.val().shape()[1]});
  }
};

template <class B> Embedding<B> EmbeddingConfig::init(const typename B::Device& device) const {
  return Embedding<B>{initializer.init_with<B, 2>({n_embedding, d_model}, n_embedding, d_model, device)};
}

}  // namespace scorch::nn
