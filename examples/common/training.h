#pragma once
// What the examples that train share: their command-line options (`--name value` pairs, each name one the
// program knows) and a Learner set up to print plain lines and record loss (and accuracy) on both splits.
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <scorch/core/cli.h>
#include <scorch/core/error.h>
#include <scorch/train.hpp>

namespace scorch::examples {

/// The `--name value` pairs of argv by name (without the dashes), starting from defaults; ValueError naming the
/// program and its usage for an unknown name or a name without a value. -h or --help prints the usage and exits 0.
inline std::map<std::string, std::string> parse_options(int argc, char** argv, const std::string& program,
                                                        std::map<std::string, std::string> defaults) {
  std::string usage = "usage: " + program;
  for (const auto& [name, value] : defaults) usage += " [--" + name + " VALUE (default " + value + ")]";
  cli::answer_help(argc, argv, usage);
  for (int i = 1; i < argc; i += 2) {
    std::string option = argv[i];
    if (option.rfind("--", 0) != 0 || !defaults.contains(option.substr(2)))
      throw ValueError(program, "unknown option " + option + "; " + usage);
    if (i + 1 >= argc) throw ValueError(program, option + " needs a value; " + usage);
    defaults[option.substr(2)] = argv[i + 1];
  }
  return defaults;
}

/// A count option's value; ValueError naming the program and the option unless it is a whole number from 1 to
/// 1,000,000.
inline size_t count_option(const std::map<std::string, std::string>& options, const std::string& name,
                           const std::string& program) {
  const std::string& text = options.at(name);
  bool digits = !text.empty() && text.size() <= 7 && text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || std::stoul(text) == 0 || std::stoul(text) > 1000000)
    throw ValueError(program, "--" + name + " expects a whole number from 1 to 1000000, got '" + text + "'");
  return std::stoul(text);
}

/// A training example's run: --epochs N and --artifact-dir DIR (default /tmp/<program>, created).
struct TrainingRun {
  size_t epochs = 0;
  std::string artifact_dir;
};
inline TrainingRun training_run(int argc, char** argv, const std::string& program, const std::string& epochs) {
  auto options = parse_options(argc, argv, program, {{"epochs", epochs}, {"artifact-dir", "/tmp/" + program}});
  TrainingRun run{count_option(options, "epochs", program), options["artifact-dir"]};
  std::error_code failed;
  std::filesystem::create_directories(run.artifact_dir, failed);
  if (failed || !std::filesystem::is_directory(run.artifact_dir))
    throw IoError(program, "--artifact-dir '" + run.artifact_dir + "' is not a folder that can be created");
  return run;
}

/// A LearnerBuilder writing to run.artifact_dir for run.epochs, with plain-lines progress and the loss (and, for a
/// classifier, the accuracy) on the training and validation splits.
inline train::LearnerBuilder learner_builder(const TrainingRun& run, bool classifier) {
  train::LearnerBuilder builder(run.artifact_dir);
  if (classifier) builder.metric_train_numeric(train::AccuracyMetric{}).metric_valid_numeric(train::AccuracyMetric{});
  builder.metric_train_numeric(train::LossMetric{}).metric_valid_numeric(train::LossMetric{});
  builder.num_epochs(run.epochs).renderer(std::make_shared<train::CliRenderer>());
  return builder;
}

}  // namespace scorch::examples
