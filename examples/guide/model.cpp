// The guide's model on Autodiff<Cpu> (training), compiled once.
#include "training.hpp"

namespace guide {

template struct Model<Autodiff<Cpu>>;

}  // namespace guide
