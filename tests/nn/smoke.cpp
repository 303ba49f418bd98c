#include <scorch/scorch.hpp>
#include <scorch/nn/nn.h>
#include <iostream>
using namespace scorch;
using AD = Autodiff<Cpu>;
template <class B> struct Model {
  nn::Conv2d<B> conv1, conv2;
  nn::AdaptiveAvgPool2d pool;
  nn::Dropout dropout;
  nn::Linear<B> linear1, linear2;
  nn::Relu activation;
  nn::BatchNorm<B> bn;
  nn::LayerNorm<B> ln;
  nn::Activation<B> act;
  SCORCH_MODULE(Model, conv1, conv2, pool, dropout, linear1, linear2, activation, bn, ln, act)
  Tensor<B, 2> forward(Tensor<B, 3> images) const {
    auto [batch, height, width] = images.dims();
    auto x = images.template reshape<4>({batch, size_t{1}, height, width});
    x = dropout.forward(conv1.forward(x));
    x = activation.forward(dropout.forward(conv2.forward(x)));
    x = bn.forward(x);
    auto y = pool.forward(x).template reshape<2>({batch, size_t{16 * 8 * 8}});
    y = activation.forward(dropout.forward(linear1.forward(y)));
    return act.forward(ln.forward(linear2.forward(y)));
  }
};
int main() {
  Model<AD> m{nn::Conv2dConfig({1, 8}, {3, 3}).init<AD>(), nn::Conv2dConfig({8, 16}, {3, 3}).init<AD>(), nn::AdaptiveAvgPool2dConfig({8, 8}).init(),
              nn::DropoutConfig(0.5).init(), nn::LinearConfig(1024, 32).init<AD>(), nn::LinearConfig(32, 10).init<AD>(), {}, nn::BatchNormConfig(16).init<AD>(),
              nn::LayerNormConfig(10).init<AD>(), nn::ActivationConfig::of(nn::ActivationKind::Gelu).init<AD>()};
  auto x = Tensor<AD, 3>::random({4, 28, 28}, Distribution::Default);
  auto y = m.forward(x);
  auto g = y.sum().backward();
  std::cout << y.shape().to_string() << " params " << m.num_params() << "\n";
  auto v = m.valid();
  std::cout << v.forward(x.inner()).shape().to_string() << "\n";
  std::cout << describe(m.into_record()) << "\n";
}
