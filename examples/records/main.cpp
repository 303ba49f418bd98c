// Modules, configs and records: declare a model and its config, save and load the config,
// save the model with several recorders, load it on another backend, embed it as bytes, and
// see what a corrupt file does.
#include <filesystem>
#include <fstream>
#include <iostream>

#include <scorch/scorch.hpp>
#include <scorch/core/cli.h>

using namespace scorch;

/// y = relu(x W1 + b1) W2 + b2.
template <class B> struct Mlp {
  Param<Tensor<B, 2>> w1, w2;
  Param<Tensor<B, 1>> b1, b2;
  double slope = 0.0;  // a plain field: part of the config, not of the record
  SCORCH_MODULE(Mlp, w1, b1, w2, b2, slope)

  Tensor<B, 2> forward(const Tensor<B, 2>& x) const {
    auto h = activation::leaky_relu(x.matmul(w1.val()) + b1.val().template unsqueeze<2>(), slope);
    return h.matmul(w2.val()) + b2.val().template unsqueeze<2>();
  }
};

struct MlpConfig {
  size_t inputs;
  size_t outputs;
  size_t hidden = 32;
  double slope = 0.01;
  SCORCH_CONFIG(MlpConfig, (inputs, outputs), (hidden, slope))

  template <class B> Mlp<B> init(const typename B::Device& device = {}) const {
    auto uniform = [](size_t fan_in) {
      return Distribution::uniform(-1.0 / std::sqrt(fan_in), 1.0 / std::sqrt(fan_in));
    };
    return {Param(Tensor<B, 2>::random({inputs, hidden}, uniform(inputs), device)),
            Param(Tensor<B, 2>::random({hidden, outputs}, uniform(hidden), device)),
            Param(Tensor<B, 1>::zeros({hidden}, device)), Param(Tensor<B, 1>::zeros({outputs}, device)), slope};
  }
};

int main(int argc, char** argv) {
  scorch::cli::answer_help(
      argc, argv,
      "usage: records\nModules, configs and records: saves and loads a config and a model with several recorders, "
      "loads it on another backend, embeds it as bytes and shows what a corrupt file does. No options.");
  using AD = Autodiff<Cpu>;
  std::string dir = (std::filesystem::temp_directory_path() / "scorch-records-example").string();
  std::filesystem::create_directories(dir);
  Cpu::seed(7);

  auto config = MlpConfig(4, 2).with_hidden(16);
  config.save(dir + "/config.json");
  std::cout << "config.json:\n" << MlpConfig::load(dir + "/config.json") << "\n";

  auto model = config.init<AD>();
  std::cout << "parameters: " << model.num_params() << "\n";
  for (auto file :
       {model.save_file(dir + "/model", DefaultRecorder{}), model.save_file(dir + "/model", CompactRecorder{}),
        model.save_file(dir + "/model", BinFileRecorder<>{}),
        model.save_file(dir + "/model", PrettyJsonFileRecorder<>{}),
        model.save_file(dir + "/model", SafetensorsFileRecorder<>{})})
    std::cout << "saved " << std::filesystem::path(file).filename().string() << " (" << std::filesystem::file_size(file)
              << " bytes)\n";

  // Inference on the plain Cpu backend, from the compact (f16, gzip) checkpoint.
  auto loaded = config.init<Cpu>().load_file(dir + "/model", CompactRecorder{}, Cpu::Device{});
  auto x = Tensor<Cpu, 2>::random({3, 4}, Distribution::Default);
  auto difference = (loaded.forward(x) - model.valid().forward(x)).abs().max().into_scalar().to_double();
  std::cout << "f16 checkpoint vs trained model, max difference: " << difference << "\n";

  // Embedding: BinBytesRecorder reads the bytes BinFileRecorder wrote (e.g. compiled into the program).
  std::ifstream in(dir + "/model.bin", std::ios::binary);
  std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), {});
  auto embedded = config.init<Cpu>().load_record(BinBytesRecorder<>{}.load(std::span<const unsigned char>(bytes)));
  std::cout << "from embedded bytes, w1 matches: " << std::boolalpha
            << (embedded.w1.val().to_data() == model.w1.val().inner().to_data()) << "\n";

  // A damaged file is an error that names it; the model is left as it was.
  {
    std::fstream f(dir + "/model.bin", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(300);
    f.put('\x42');
  }
  try {
    (void)loaded.load_file(dir + "/model", BinFileRecorder<>{}, Cpu::Device{});
  } catch (const Error& e) { std::cout << "corrupt file: " << e.what() << "\n"; }
  std::filesystem::remove_all(dir);
}
