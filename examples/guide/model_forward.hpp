#pragma once
// The guide's forward pass (the book's model.rs `forward`), apart from the layers (model.hpp): the guide compiles it
// once per backend in model.cpp and model_dyn.cpp, and its other files see only the declaration, so an edit here
// rebuilds two small files. Programs that run the model on other backends include this header.
#include "model.hpp"

namespace guide {

template <Backend B> Tensor<B, 2> Model<B>::forward(const Tensor<B, 3>& images) const {
  auto [batch, height, width] = images.dims();
  auto x = images.template reshape<4>({batch, size_t{1}, height, width});
  x = dropout.forward(conv1.forward(x));
  x = activation.forward(dropout.forward(conv2.forward(x)));
  auto flat = pool.forward(x).template reshape<2>({batch, size_t{16 * 8 * 8}});
  flat = activation.forward(dropout.forward(linear1.forward(flat)));
  return linear2.forward(flat);
}

}  // namespace guide
