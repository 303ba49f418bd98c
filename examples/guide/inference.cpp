// Instantiates the guide's inference for the Cpu backend (see inference.hpp).
#include "inference.hpp"

namespace guide {

template Model<Cpu> load_model<Cpu>(const std::string&, const Cpu::Device&);
template std::vector<int64_t> infer<Cpu>(const Model<Cpu>&, std::vector<data::MnistItem>, const Cpu::Device&);

}  // namespace guide
