#pragma once
// The example's training and sampling written once for every backend (training.h's train_text and generate pick one):
// training.cpp instantiates them for Cpu and Fusion<Cpu>, backend_libtorch.cpp and backend_cuda.cpp for the
// optional backends.
#include <cmath>
#include <filesystem>
#include <random>

#include "training.h"

namespace textgen {

template <AutodiffBackend AD>
train::FitReport train_text_on(const std::string& artifact_dir, const std::string& text, TrainingConfig config) {
  using Inner = typename AD::InnerBackend;
  auto tokenizer = CharTokenizer::fit(text);
  config.vocabulary = tokenizer.vocabulary();
  config.model.vocab_size = tokenizer.vocab_size();
  auto precision = autocast_of(config.precision);
  std::filesystem::create_directories(artifact_dir);
  config.save(artifact_dir + "/config.json");
  AD::seed(config.seed);
  auto all = windows(tokenizer.encode(text), config.model.max_seq, config.max_windows);
  if (all.size() < 2 || config.batch_size == 0)
    throw ValueError("train_text", std::to_string(all.size()) + " window(s) of " +
                                       std::to_string(config.model.max_seq + 1) +
                                       " tokens: at least 2 are needed (one held out), and a batch size >= 1");
  size_t held_out = std::max<size_t>(1, all.size() / 20);
  std::vector<Window> valid(all.end() - static_cast<std::ptrdiff_t>(held_out), all.end());
  all.resize(all.size() - held_out);
  size_t steps = config.num_epochs * ((all.size() + config.batch_size - 1) / config.batch_size);
  auto train_loader = data::dataloader_builder(std::make_shared<WindowBatcher<AD>>())
                          .batch_size(config.batch_size)
                          .shuffle(config.seed)
                          .build(data::InMemDataset<Window>(std::move(all)));
  auto valid_loader = data::dataloader_builder(std::make_shared<WindowBatcher<Inner>>())
                          .batch_size(config.batch_size)
                          .build(data::InMemDataset<Window>(std::move(valid)));
  auto builder = train::LearnerBuilder(artifact_dir);
  builder.metric_train_numeric(train::LossMetric{})
      .metric_valid_numeric(train::LossMetric{})
      .metric_train_numeric(train::AccuracyMetric{})
      .metric_valid_numeric(train::AccuracyMetric{})
      .num_epochs(config.num_epochs)
      .summary();
  if (precision) builder.mixed_precision(*precision);
  auto schedule = optim::CosineAnnealingLrSchedulerConfig(config.learning_rate, steps).init();
  auto learner = builder.build(config.model.init<AD>(), config.optimizer.init(), std::move(schedule));
  auto model = learner.fit(train_loader, valid_loader);
  model.valid().save_file(artifact_dir + "/model", DefaultFileRecorder<>{});
  return learner.report();
}

/// An id drawn from the top_k most likely of logits / temperature.
inline int64_t sample(const std::vector<float>& logits, double temperature, size_t top_k, std::mt19937_64& rng) {
  std::vector<size_t> order(logits.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  size_t k = std::min(top_k, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                    [&](size_t a, size_t b) { return logits[a] > logits[b]; });
  std::vector<double> weights(k);
  for (size_t i = 0; i < k; ++i) weights[i] = std::exp((logits[order[i]] - logits[order[0]]) / temperature);
  std::discrete_distribution<size_t> pick(weights.begin(), weights.end());
  return static_cast<int64_t>(order[pick(rng)]);
}

template <Backend B> std::string generate_on(const std::string& artifact_dir, const std::string& prompt, size_t length,
                                             double temperature, size_t top_k, uint64_t seed) {
  if (!(temperature > 0) || top_k == 0)
    throw ValueError("generate", "temperature must be > 0 and top_k >= 1, got " + std::to_string(temperature) +
                                     " and " + std::to_string(top_k));
  auto config = TrainingConfig::load(artifact_dir + "/config.json");
  auto tokenizer = CharTokenizer::from_vocabulary(config.vocabulary);
  auto model = config.model.with_dropout(0.0).init<B>().load_file(artifact_dir + "/model", DefaultFileRecorder<>{},
                                                                  typename B::Device{});
  auto ids = tokenizer.encode(prompt.empty() ? "\n" : prompt);
  std::mt19937_64 rng(seed);
  size_t context = config.model.max_seq;
  for (size_t i = 0; i < length; ++i) {
    size_t start = ids.size() > context ? ids.size() - context : 0;
    std::vector<int64_t> window(ids.begin() + static_cast<std::ptrdiff_t>(start), ids.end());
    auto input = Tensor<B, 2, Int>::from_data(TensorData(window, {size_t{1}, window.size()}));
    auto last = model.forward(input).slice({Slice(), Slice(-1), Slice()}).template reshape<1>({-1});
    ids.push_back(sample(last.to_data().template to_vector<float>(), temperature, top_k, rng));
  }
  return tokenizer.decode(std::vector<int64_t>(ids.end() - static_cast<std::ptrdiff_t>(length), ids.end()));
}

/// train_text_<name> and generate_<name>: the commands on backend Cls (Autodiff<Cls> for training).
#define TEXTGEN_BACKEND_COMMANDS(name, Cls)                                                              \
  train::FitReport train_text_##name(const std::string& artifact_dir, const std::string& text,           \
                                     const TrainingConfig& config) {                                     \
    return train_text_on<Autodiff<Cls>>(artifact_dir, text, config);                                     \
  }                                                                                                      \
  std::string generate_##name(const std::string& artifact_dir, const std::string& prompt, size_t length, \
                              double temperature, size_t top_k, uint64_t seed) {                         \
    return generate_on<Cls>(artifact_dir, prompt, length, temperature, top_k, seed);                     \
  }

}  // namespace textgen
