// A model trained in PyTorch, run in Scorch: circle.pt is a torch.save checkpoint (make_checkpoint.py) of an MLP
// that tells points inside the unit circle from those outside. The checkpoint's "model" entry loads into the same
// architecture declared here; Sequential's keys ("0.weight", "2.bias") are renamed to our field names, and the
// linear layers keep PyTorch's [out, in] weight layout. Usage: pytorch-import [checkpoint.pt]
#include <iostream>

#include <scorch/scorch.hpp>

#include "circle_grid.h"
#include <scorch/core/cli.h>

using namespace scorch;

/// nn.Sequential(Linear(2, 16), ReLU(), Linear(16, 2)).
template <class B> struct CircleNet {
  nn::Linear<B> input, output;
  SCORCH_MODULE(CircleNet, input, output)

  Tensor<B, 2> forward(const Tensor<B, 2>& x) const { return output.forward(activation::relu(input.forward(x))); }

  static CircleNet make() {
    auto layer = [](size_t in, size_t out) {
      return nn::LinearConfig(in, out).with_layout(nn::LinearLayout::Col).template init<B>();
    };
    return {layer(2, 16), layer(16, 2)};
  }
};

int main(int argc, char** argv) {
  scorch::cli::answer_help(argc, argv,
                           "usage: pytorch-import [checkpoint.pt]\nLoads a PyTorch "
                           "checkpoint's \"model\" entry (default: circle.pt) into the same MLP declared in Scorch and "
                           "classifies points with it.");
  std::string file = argc > 1 ? argv[1] : std::string(SCORCH_EXAMPLE_DIR) + "/circle.pt";
  auto recorder = PyTorchFileRecorder<>{}
                      .with_top_level_key("model")
                      .with_key_remap("^0\\.", "input.")
                      .with_key_remap("^2\\.", "output.");
  try {
    auto model = CircleNet<Cpu>::make().load_file(file, recorder, Cpu::Device{});
    auto probe = Tensor<Cpu, 2>::from_data(TensorData({0.0f, 0.0f, 1.2f, 1.2f, 0.5f, -0.5f, -1.4f, 0.1f}, Shape{4, 2}));
    std::cout << "logits (PyTorch printed the same when it saved the file):\n" << model.forward(probe) << "\n";
    // Accuracy on a grid over [-1.5, 1.5]²: the label is whether the point lies inside the unit circle.
    circle::Grid g = circle::grid(61);
    auto grid = Tensor<Cpu, 2>::from_data(TensorData(g.points, Shape{g.inside.size(), 2}));
    auto predicted = model.forward(grid).argmax(1).to_data().to_vector<int64_t>();
    circle::print_accuracy(predicted, g);
  } catch (const Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return 0;
}
