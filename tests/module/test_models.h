#pragma once
// Small modules for the module-system tests: a PyTorch-layout linear layer, a conv layer, a
// parameter-free activation, and a network using vectors, optionals, constants and plain fields.
#include <optional>
#include <vector>

#include <scorch/scorch.hpp>

namespace scorch::testing {

/// y = x Wᵀ + b with W as [out, in] (PyTorch's nn.Linear layout).
template <class B> struct Dense {
  Param<Tensor<B, 2>> weight;
  std::optional<Param<Tensor<B, 1>>> bias;
  SCORCH_MODULE(Dense, weight, bias)

  static Dense make(size_t in, size_t out, bool with_bias, const typename B::Device& device = {}) {
    Dense d;
    d.weight = Param(Tensor<B, 2>::random({out, in}, Distribution::normal(0, 0.5), device));
    if (with_bias) d.bias = Param(Tensor<B, 1>::random({out}, Distribution::normal(0, 0.5), device));
    return d;
  }
  Tensor<B, 2> forward(const Tensor<B, 2>& x) const {
    auto y = x.matmul(weight.val().transpose());
    return bias ? y + bias->val().template unsqueeze<2>() : y;
  }
};

/// A 2-d convolution with PyTorch's weight layout [out, in, kh, kw].
template <class B> struct Conv {
  Param<Tensor<B, 4>> weight;
  Param<Tensor<B, 1>> bias;
  SCORCH_MODULE(Conv, weight, bias)

  static Conv make(size_t in, size_t out, size_t k, const typename B::Device& device = {}) {
    return {Param(Tensor<B, 4>::random({out, in, k, k}, Distribution::normal(0, 0.3), device)),
            Param(Tensor<B, 1>::random({out}, Distribution::normal(0, 0.3), device))};
  }
  Tensor<B, 4> forward(const Tensor<B, 4>& x) const { return functional::conv2d(x, weight.val(), bias.val(), {}); }
};

/// No parameters: a module all the same.
struct ReluModule {
  SCORCH_MODULE(ReluModule)
  template <class T> T forward(const T& x) const { return activation::relu(x); }
};

/// conv → relu → flatten → layers[0] → relu → layers[1]; `scale` is a constant, `name` a plain field.
template <class B> struct Net {
  Conv<B> conv;
  std::vector<Dense<B>> layers;
  ReluModule relu;
  Tensor<B, 1> scale;
  std::string name = "net";
  SCORCH_MODULE(Net, conv, layers, relu, scale, name)

  static Net make(const typename B::Device& device = {}) {
    Net n;
    n.conv = Conv<B>::make(2, 4, 3, device);
    n.layers = {Dense<B>::make(64, 16, true, device), Dense<B>::make(16, 3, true, device)};
    n.scale = Tensor<B, 1>::ones({3}, device);
    return n;
  }
  /// x: [batch, 2, 6, 6] → [batch, 3].
  Tensor<B, 2> forward(const Tensor<B, 4>& x) const {
    auto h = relu.forward(conv.forward(x));
    auto flat = h.template flatten<2>(1, 3);
    return layers[1].forward(relu.forward(layers[0].forward(flat))) * scale.template unsqueeze<2>();
  }
};

/// Values from an integer formula (no RNG, no libm): the same bytes on every machine.
template <class B, size_t D> Tensor<B, D> formula_tensor(const Shape& shape, size_t salt) {
  std::vector<float> values(shape.num_elements());
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<float>(static_cast<int>((i * 37 + salt * 11) % 101) - 50) / 200.0f;
  return Tensor<B, D>::from_data(TensorData(values, shape));
}

/// A Net with formula weights (the safetensors fixture Scorch writes).
template <class B> Net<B> formula_net() {
  Net<B> n = Net<B>::make();
  n.conv.weight = n.conv.weight.with_value(formula_tensor<B, 4>({4, 2, 3, 3}, 1));
  n.conv.bias = n.conv.bias.with_value(formula_tensor<B, 1>({4}, 2));
  n.layers[0].weight = n.layers[0].weight.with_value(formula_tensor<B, 2>({16, 64}, 3));
  n.layers[0].bias = n.layers[0].bias->with_value(formula_tensor<B, 1>({16}, 4));
  n.layers[1].weight = n.layers[1].weight.with_value(formula_tensor<B, 2>({3, 16}, 5));
  n.layers[1].bias = n.layers[1].bias->with_value(formula_tensor<B, 1>({3}, 6));
  return n;
}

}  // namespace scorch::testing
