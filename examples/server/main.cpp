// remote-inference: the guide's CNN classifying images through Remote, on a scorch-server (examples/server/README.md).
//   remote-inference [--endpoint tcp://127.0.0.1:7878] [--artifact-dir DIR] [--show N] [--synthetic]
// With the guide's trained model in DIR (`make guide` writes /tmp/guide), it classifies Fashion-MNIST's test set on the
// server and on the local Cpu; with --synthetic (or no model there) a freshly seeded model classifies 64 synthetic
// images. Either way it prints both results and times and fails if the two disagree. The token is
// $SCORCH_REMOTE_TOKEN (the server's $SCORCH_SERVER_TOKEN).
#include <chrono>
#include <filesystem>
#include <iostream>
#include <scorch/remote/remote.h>
#include <scorch/scorch.hpp>

#include "guide/inference.hpp"
#include "guide/model_forward.hpp"
#include "guide/synthetic.hpp"
#include "scorch/data/sources/mnist.h"
#include <scorch/core/cli.h>

namespace guide {
template struct Model<scorch::Cpu>;  // declared extern by the guide, which compiles it in its inference.cpp
}  // namespace guide

namespace {

using namespace scorch;

struct Args {
  std::string endpoint = "tcp://127.0.0.1:7878", artifact_dir = "/tmp/guide";
  size_t show = 0;
  bool synthetic = false;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    auto value = [&] {
      if (i + 1 >= argc) throw ValueError("remote-inference", flag + " needs a value");
      return std::string(argv[++i]);
    };
    if (flag == "--endpoint") a.endpoint = value();
    else if (flag == "--artifact-dir") a.artifact_dir = value();
    else if (flag == "--show") a.show = std::stoul(value());
    else if (flag == "--synthetic") a.synthetic = true;
    else throw ValueError("remote-inference", "unknown option " + flag);
  }
  return a;
}

/// Seconds fn takes.
template <class Fn> double seconds(Fn&& fn) {
  auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// The accuracy (%) of the trained model in dir on Fashion-MNIST's test set, on B at device (batches of 1,000), and
/// the first show predictions with their labels.
template <class B> double accuracy_on(const std::string& dir, const typename B::Device& device, size_t show,
                                      std::vector<std::pair<int64_t, int64_t>>& shown) {
  auto model = guide::load_model<B>(dir, device);
  auto test = data::MnistDataset::fashion_test();
  size_t correct = 0, total = test.len();
  for (size_t start = 0; start < total; start += 1000) {
    std::vector<data::MnistItem> items;
    for (size_t i = start; i < std::min(total, start + 1000); ++i) items.push_back(*test.get(i));
    auto predicted = guide::infer(model, items, device);
    for (size_t k = 0; k < items.size(); ++k) {
      correct += predicted[k] == items[k].label;
      if (shown.size() < show) shown.emplace_back(predicted[k], items[k].label);
    }
  }
  return total ? 100.0 * static_cast<double>(correct) / static_cast<double>(total) : 0.0;
}

/// The trained model on the test set, on the server and on the local Cpu.
bool evaluate_trained(const Args& a, const Remote::Device& device) {
  std::vector<std::pair<int64_t, int64_t>> shown, unused;
  double remote = 0, local = 0;
  double remote_s = seconds([&] { remote = accuracy_on<Remote>(a.artifact_dir, device, a.show, shown); });
  double local_s = seconds([&] { local = accuracy_on<Cpu>(a.artifact_dir, CpuDevice{}, 0, unused); });
  std::cout << "test accuracy through Remote: " << remote << " % (" << remote_s << " s); on the local Cpu: " << local
            << " % (" << local_s << " s)\n";
  for (auto [predicted, label] : shown) std::cout << "  predicted " << predicted << ", label " << label << "\n";
  return remote == local;
}

/// A seeded model on 64 synthetic images, on the server and on the local Cpu: the same classes and logits (to float
/// rounding on a GPU server).
bool evaluate_synthetic(const Remote::Device& device) {
  Cpu::seed(3);
  auto config = guide::ModelConfig(10, 64);
  auto local = config.init<Cpu>();
  auto [images, labels] = guide::synthetic_batch<Cpu>(64, 0, 3);
  TensorData local_logits, remote_logits;
  double local_s = seconds([&] { local_logits = local.forward(images).to_data(); });
  double remote_s = seconds([&] {
    // [book:remote]
    // device: Remote::connect("tcp://127.0.0.1:7878", token), or Remote::Device{} for $SCORCH_REMOTE_ENDPOINT
    auto remote = config.init_with<Remote>(local.into_record(), device);  // the parameters go to the server
    auto batch = Tensor<Remote, 3>::from_data(images.to_data(), device);
    remote_logits = remote.forward(batch).to_data();  // the ops stream to the server; this read waits for them
    // [/book:remote]
  });
  auto difference = (Tensor<Cpu, 2>::from_data(remote_logits) - Tensor<Cpu, 2>::from_data(local_logits)).abs().max();
  double largest = difference.into_scalar().to_double();
  bool same_classes = Tensor<Cpu, 2>::from_data(remote_logits).argmax(1).to_data() ==
                      Tensor<Cpu, 2>::from_data(local_logits).argmax(1).to_data();
  std::cout << "64 synthetic images: the largest logit difference between Remote and the local Cpu is " << largest
            << ", classes " << (same_classes ? "equal" : "DIFFER") << " (" << remote_s * 1e3 << " ms through Remote, "
            << local_s * 1e3 << " ms locally)\n";
  return same_classes && largest < 1e-3;  // 0 on a Cpu server; a GPU's kernels round differently
}

}  // namespace

int main(int argc, char** argv) {
  scorch::cli::answer_help(argc, argv,
                           "usage: remote-inference [--endpoint tcp://127.0.0.1:7878] "
                           "[--artifact-dir DIR] [--show N] [--synthetic]\nThe guide's CNN classifying images on a "
                           "scorch-server and on the local Cpu; the token is $SCORCH_REMOTE_TOKEN.");
  try {
    Args a = parse(argc, argv);
    Remote::Device device{a.endpoint};
    std::cout << "server: " << device.to_string() << "\n";
    bool trained = !a.synthetic && std::filesystem::exists(a.artifact_dir + "/config.json");
    if (!trained && !a.synthetic) std::cout << "no trained model in " << a.artifact_dir << " (make guide): synthetic\n";
    return (trained ? evaluate_trained(a, device) : evaluate_synthetic(device)) ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "remote-inference: " << e.what() << "\n";
    return 1;
  }
}
