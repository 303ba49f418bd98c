// The Burn Book's guide as a program:
//   guide train [--digits] [--resume] [--epochs N] [--cli] [--artifact-dir DIR]
//   guide infer [--digits] [--show N] [--artifact-dir DIR]
// train fits the CNN with the Learner (Fashion-MNIST by default, MNIST digits with --digits) and
// saves it; infer loads it, prints predictions for a few test images and the test accuracy.
#include <cstring>
#include <iostream>

#include "inference.hpp"
#include "training.hpp"

namespace {

const char* kFashionNames[10] = {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"};

struct Args {
  std::string command, artifact_dir = "/tmp/guide";
  bool digits = false, resume = false, cli = false;
  size_t epochs = 10, show = 10;
};

Args parse(int argc, char** argv) {
  Args a;
  if (argc < 2) throw scorch::ValueError("guide", "usage: guide train|infer [--digits] [--resume] [--epochs N] [--cli] [--show N] [--artifact-dir DIR]");
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
    else if (f == "--epochs") a.epochs = std::stoul(value());
    else if (f == "--show") a.show = std::stoul(value());
    else if (f == "--artifact-dir") a.artifact_dir = value();
    else throw scorch::ValueError("guide", "unknown option " + f);
  }
  if (a.command != "train" && a.command != "infer") throw scorch::ValueError("guide", "unknown command '" + a.command + "' (train or infer)");
  return a;
}

int train(const Args& args) {
  auto config = guide::TrainingConfig(guide::ModelConfig(10, 512), scorch::optim::AdamConfig()).with_num_epochs(args.epochs);
  guide::TrainOptions options{args.digits ? guide::DataSource::Digits : guide::DataSource::Fashion, args.resume, nullptr};
  if (args.cli) options.renderer = std::make_shared<scorch::train::CliRenderer>();
  auto report = guide::run_training<scorch::Autodiff<scorch::Cpu>>(args.artifact_dir, config, {}, options);
  std::cout << "trained " << report.epochs_completed << " epochs" << (report.interrupted ? " (stopped: " + report.reason + ")" : "") << "; model saved to "
            << args.artifact_dir << "/model.mpk.gz" << std::endl;
  return report.interrupted ? 130 : 0;
}

int infer(const Args& args) {
  auto model = guide::load_model<scorch::Cpu>(args.artifact_dir);
  auto test = guide::datasets(args.digits ? guide::DataSource::Digits : guide::DataSource::Fashion).second;
  size_t correct = 0, total = test->len();
  for (size_t start = 0; start < total; start += 1000) {
    std::vector<scorch::data::MnistItem> items;
    for (size_t i = start; i < std::min(total, start + 1000); ++i) items.push_back(*test->get(i));
    auto predicted = guide::infer(model, items);
    for (size_t k = 0; k < items.size(); ++k) {
      correct += predicted[k] == items[k].label;
      if (start + k < args.show) {
        auto name = [&](int64_t c) { return args.digits ? std::to_string(c) : std::string(kFashionNames[c]); };
        std::cout << "image " << start + k << ": predicted " << name(predicted[k]) << ", expected " << name(items[k].label)
                  << (predicted[k] == items[k].label ? "" : "  (wrong)") << "\n";
      }
    }
  }
  char line[64];
  std::snprintf(line, sizeof line, "test accuracy: %.2f%%", 100.0 * static_cast<double>(correct) / static_cast<double>(total));
  std::cout << line << std::endl;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Args args = parse(argc, argv);
    return args.command == "train" ? train(args) : infer(args);
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
}
