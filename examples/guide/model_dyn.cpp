// The guide's forward pass on the stacks chosen at run time (Autodiff<Dyn> for training, Dyn for inference; see
// backend_dyn.cpp), compiled once beside model.cpp.
#include <scorch/stacks/dyn/nn.h>

#include "model_forward.hpp"

namespace guide {

template Tensor<Autodiff<Dyn>, 2> Model<Autodiff<Dyn>>::forward(const Tensor<Autodiff<Dyn>, 3>&) const;
template Tensor<Dyn, 2> Model<Dyn>::forward(const Tensor<Dyn, 3>&) const;

}  // namespace guide
