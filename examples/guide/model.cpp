// The guide's model for Autodiff<Cpu> (training) and Cpu (validation, inference), compiled once.
#include "training.hpp"

namespace guide {

template struct Model<Autodiff<Cpu>>;
template struct Model<Cpu>;

}  // namespace guide
