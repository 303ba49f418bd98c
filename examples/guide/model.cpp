// The guide's forward pass on Autodiff<Cpu> (training) and Cpu (validation, inference), compiled once (model_dyn.cpp
// has the Dyn stacks'): the only file besides model_dyn.cpp that an edit of model_forward.hpp rebuilds.
#include "model_forward.hpp"

namespace guide {

template Tensor<Autodiff<Cpu>, 2> Model<Autodiff<Cpu>>::forward(const Tensor<Autodiff<Cpu>, 3>&) const;
template Tensor<Cpu, 2> Model<Cpu>::forward(const Tensor<Cpu, 3>&) const;

}  // namespace guide
