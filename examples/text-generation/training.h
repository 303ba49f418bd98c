#pragma once
// The example's training: windows of the corpus batched into (inputs, targets), the Learner with AdamW, a cosine
// learning-rate schedule and optional mixed precision, the model and its tokenizer saved; sampling from a saved
// model; and the mixed-precision check that ctest runs (label amp).
#include <optional>
#include <string>

#include <scorch/data/dataloader.h>

#include "common/backend_choice.h"
#include "gpt.h"
#include "text.h"

namespace textgen {

/// Windows to (inputs, targets): inputs are each window but its last id, targets each but its first.
template <Backend B> struct WindowBatcher final : data::Batcher<B, Window, TokenBatch<B>> {
  TokenBatch<B> batch(std::vector<Window> items, const typename B::Device& device) const override {
    size_t seq = items.front().size() - 1;
    std::vector<int64_t> inputs, targets;
    inputs.reserve(items.size() * seq), targets.reserve(items.size() * seq);
    for (const auto& w : items) {
      inputs.insert(inputs.end(), w.begin(), w.end() - 1);
      targets.insert(targets.end(), w.begin() + 1, w.end());
    }
    Shape shape{items.size(), seq};
    return {Tensor<B, 2, Int>::from_data(TensorData(inputs, shape), device),
            Tensor<B, 2, Int>::from_data(TensorData(targets, shape), device)};
  }
};

/// The experiment's settings, saved next to the model (with the tokenizer's vocabulary).
struct TrainingConfig {
  GptConfig model;
  optim::AdamWConfig optimizer;
  std::vector<int64_t> vocabulary;
  size_t num_epochs = 1;
  size_t batch_size = 16;
  size_t max_windows = 4096;  // windows of max_seq + 1 tokens drawn from the corpus (5% held out)
  double learning_rate = 3e-3;
  uint64_t seed = 42;
  std::string precision = "f32";  // f32, bf16 (autocast) or f16 (autocast and loss scaling)
  SCORCH_CONFIG(TrainingConfig, (model, optimizer),
                (vocabulary, num_epochs, batch_size, max_windows, learning_rate, seed, precision))
};

/// The dtype a precision name selects (nullopt for f32); throws ValueError for another name.
std::optional<DType> autocast_of(const std::string& precision);

using examples::backend_name;
using examples::BackendChoice;

/// Trains on the corpus text with the Learner on the backend (Autodiff over it) and saves config.json and model.mpk
/// in artifact_dir; the backend's name goes to the experiment log.
train::FitReport train_text(const std::string& artifact_dir, const std::string& text, const TrainingConfig& config,
                            BackendChoice backend = {});

/// Generates length bytes after prompt with the model saved in artifact_dir (temperature > 0; top_k ≥ 1).
std::string generate(const std::string& artifact_dir, const std::string& prompt, size_t length, double temperature,
                     size_t top_k, uint64_t seed, BackendChoice backend = {});

#define TEXTGEN_BACKEND_DECLARATIONS(name)                                                               \
  train::FitReport train_text_##name(const std::string& artifact_dir, const std::string& text,           \
                                     const TrainingConfig& config);                                      \
  std::string generate_##name(const std::string& artifact_dir, const std::string& prompt, size_t length, \
                              double temperature, size_t top_k, uint64_t seed);
/// The commands on the Dyn stack set as Dyn's default device (backend_dyn.cpp).
TEXTGEN_BACKEND_DECLARATIONS(dyn)

/// The mixed-precision check (ctest `amp`): a small GPT trained `steps` steps on the corpus in f32, in bf16
/// (its losses must stay within tolerance of f32's) and in f16 with loss scaling and an overflow injected at
/// a middle step (that step skipped, the scale lowered, training going on). Prints one JSON line per run;
/// returns 0 when every check holds.
int amp_check(const std::string& text, size_t steps);

}  // namespace textgen
