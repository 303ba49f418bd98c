// A newcomer's predictor: loads the trained MLP on Cpu and prints its prediction for one input.
#include <iostream>

#include "model.hpp"

using namespace scorch;
using namespace newcomer;

int main() {
  auto model = MlpConfig().init<Cpu>().load_file("/tmp/newcomer/model", CompactRecorder{}, Cpu::Device{});
  auto input = Tensor<Cpu, 2>::from_data(TensorData(std::vector<float>{1, 2, 3, 4}, {1, 4}), Cpu::Device{});
  std::cout << "prediction for 1+2+3+4: " << model.forward(input).into_scalar().to_double() << "\n";
}
