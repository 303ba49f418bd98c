// The Burn Book's guide as a program:
//   guide train [--backend NAME] [--digits] [--resume] [--fusion] [--epochs N] [--cli] [--artifact-dir DIR]
//   guide infer [--backend NAME] [--digits] [--show N] [--artifact-dir DIR]
//   guide quantize [--digits] [--artifact-dir DIR]
// --backend: cpu (default: the static Autodiff<Cpu>) or any Dyn stack of the build: fusion<cpu> (--fusion), libtorch,
// cuda:0, vulkan:0, remote:tcp://host:7878 (examples/common/backend_choice.h).
// train fits the CNN with the Learner (Fashion-MNIST by default, MNIST digits with --digits) and
// saves it; infer loads it, prints predictions for a few test images and the test accuracy; quantize compares the
// test accuracy in f32 and after int8 post-training quantization (Cpu).
#include <cstdio>
#include <cstring>
#include <iostream>

#include <scorch/core/error.h>
#include <scorch/train/renderer.h>

#include "common/artifacts.h"
#include "guide.hpp"
#include <scorch/core/cli.h>

namespace {

const char* kFashionNames[10] = {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                                 "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};

struct Args {
  std::string command, artifact_dir = "/tmp/guide";
  bool digits = false, resume = false, cli = false;
  guide::BackendChoice backend;
  size_t epochs = 10, show = 10;
};

const char* kUsage =
    "usage: guide train|infer|quantize [--backend cpu|fusion<cpu>|libtorch|cuda:0|vulkan:0|...] [--digits] "
    "[--resume] [--fusion] [--epochs N] [--cli] [--show N] [--artifact-dir DIR]\n"
    "The Burn Book's guide: train trains the CNN on Fashion-MNIST (--digits: the MNIST digits) and saves it in the "
    "artifact dir (default /tmp/guide); infer classifies the test set with it; quantize makes and checks its int8 "
    "copy.";

Args parse(int argc, char** argv) {
  Args a;
  if (argc < 2) throw scorch::ValueError("guide", kUsage);
  a.command = argv[1];
  for (int i = 2; i < argc; ++i) {
    std::string f = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw scorch::ValueError("guide", f + " needs a value");
      return argv[++i];
    };
    if (f == "--digits") a.digits = true;
    else if (f == "--resume") a.resume = true;
    else if (f == "--cli") a.cli = true;
    else if (f == "--fusion") a.backend = guide::BackendChoice{"fusion<cpu>"};
    else if (f == "--backend") a.backend = scorch::examples::parse_backend("guide --backend", value());
    else if (f == "--epochs") a.epochs = std::stoul(value());
    else if (f == "--show") a.show = std::stoul(value());
    else if (f == "--artifact-dir") a.artifact_dir = value();
    else throw scorch::ValueError("guide", "unknown option " + f);
  }
  if (a.command != "train" && a.command != "infer" && a.command != "quantize")
    throw scorch::ValueError("guide", "unknown command '" + a.command + "' (train, infer or quantize)");
  return a;
}

int train(const Args& args) {
  guide::TrainOptions options{args.digits ? guide::DataSource::Digits : guide::DataSource::Fashion, args.epochs,
                              args.resume, args.backend, nullptr};
  std::cout << "backend: " << guide::backend_name(args.backend) << std::endl;
  if (args.cli) options.renderer = std::make_shared<scorch::train::CliRenderer>();
  auto report = guide::train_guide(args.artifact_dir, options);
  if (!scorch::distributed::is_main_process()) return report.interrupted ? 130 : 0;  // rank 0 reports
  std::string stopped = report.interrupted ? " (stopped: " + report.reason + ")" : "";
  if (report.epochs_completed == 0)
    std::cout << "no epoch completed" << stopped << "; the model in " << args.artifact_dir << " was left as it was"
              << std::endl;
  else
    std::cout << "trained " << report.epochs_completed << " epochs" << stopped << "; model saved to "
              << args.artifact_dir << "/model.mpk.gz" << std::endl;
  return report.interrupted ? 130 : 0;
}

int infer(const Args& args) {
  scorch::examples::require_trained_model("guide", args.artifact_dir);
  auto result = guide::evaluate_guide(
      args.artifact_dir, args.digits ? guide::DataSource::Digits : guide::DataSource::Fashion, args.show, args.backend);
  auto name = [&](int64_t c) { return args.digits ? std::to_string(c) : std::string(kFashionNames[c]); };
  for (size_t i = 0; i < result.first.size(); ++i) {
    const auto& p = result.first[i];
    std::cout << "image " << i << ": predicted " << name(p.predicted) << ", expected " << name(p.expected)
              << (p.predicted == p.expected ? "" : "  (wrong)") << "\n";
  }
  char line[64];
  std::snprintf(line, sizeof line, "test accuracy: %.2f%%", result.accuracy);
  std::cout << line << std::endl;
  return 0;
}

int quantize(const Args& args) {
  scorch::examples::require_trained_model("guide", args.artifact_dir);
  std::cout << "quantizing the model in " << args.artifact_dir
            << " to int8, then classifying the test set in f32 and both int8 forms..." << std::endl;
  auto r = guide::evaluate_quantized(args.artifact_dir,
                                     args.digits ? guide::DataSource::Digits : guide::DataSource::Fashion);
  std::printf("int8 post-training quantization: %zu weights, parameters %zu -> %zu bytes (%.2fx smaller)\n",
              r.quantized, r.f32_bytes, r.int8_bytes, double(r.f32_bytes) / double(r.int8_bytes));
  std::printf("test accuracy: f32 %.2f%%, int8 dynamic %.2f%%, int8 static %.2f%%\n", r.f32, r.int8_dynamic,
              r.int8_static);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  scorch::cli::answer_help(argc, argv, kUsage);
  try {
    Args args = parse(argc, argv);
    if (args.command == "quantize") return quantize(args);
    return args.command == "train" ? train(args) : infer(args);
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
}
