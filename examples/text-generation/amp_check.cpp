// The mixed-precision check (training.h's amp_check): the same small GPT, initialization and batches trained in
// f32, bf16 and f16 with dynamic loss scaling, in a custom loop (amp::Autocast + GradScaler).
#include <algorithm>
#include <cmath>
#include <iostream>
#include <sstream>

#include "training.h"

namespace textgen {
namespace {

using AD = Autodiff<Cpu>;

/// What one run did: the loss before each step, the scale before each step, the steps skipped.
struct Run {
  std::vector<double> losses, scales;
  size_t skipped = 0;
};

struct RunSpec {
  std::optional<DType> autocast;
  optim::GradScalerConfig scaler = optim::GradScalerConfig().with_enabled(false);
  std::optional<size_t> overflow_at = {};  // that step's loss is multiplied by 1e30 before backward
};

constexpr double kLearningRate = 3e-3;

Run train_steps(const GptConfig& config, const std::vector<TokenBatch<AD>>& batches, const RunSpec& spec) {
  AD::seed(7);
  auto model = config.init<AD>();
  auto optim = optim::AdamWConfig().init();
  auto scaler = spec.scaler.init();
  Run run;
  for (size_t step = 0; step < batches.size(); ++step) {
    std::optional<Tensor<AD, 1>> loss;
    {
      amp::Autocast scope(spec.autocast);  // nullopt: the f32 run
      loss = model.forward_classification(batches[step]).loss;
    }
    run.losses.push_back(loss->into_scalar().to_double());
    run.scales.push_back(scaler.scale());
    auto scaled = scaler.scale(*loss);
    if (spec.overflow_at == step) scaled = scaled * 1e30;  // an f16 gradient overflows: the step must be skipped
    auto grads = optim::GradientsParams::from_grads(scaled.backward(), model);
    model = scaler.step(optim, kLearningRate, model, std::move(grads));
  }
  run.skipped = scaler.skipped_steps();
  return run;
}

std::string json_line(const std::string& name, const Run& run) {
  std::ostringstream out;
  out << R"({"amp_check": ")" << name << R"(", "skipped": )" << run.skipped << R"(, "losses": [)";
  for (size_t i = 0; i < run.losses.size(); ++i) out << (i ? ", " : "") << run.losses[i];
  out << "]}";
  return out.str();
}

/// The mean loss over the last quarter of the steps (single batches' losses are noisy).
double late_loss(const Run& run) {
  size_t n = std::max<size_t>(1, run.losses.size() / 4);
  double sum = 0;
  for (size_t i = run.losses.size() - n; i < run.losses.size(); ++i) sum += run.losses[i];
  return sum / static_cast<double>(n);
}

/// Counts a failed check, printing what failed.
struct Checks {
  int failed = 0;
  void expect(bool ok, const std::string& what) {
    if (!ok) ++failed, std::cerr << "amp check failed: " << what << "\n";
  }
};

}  // namespace

int amp_check(const std::string& text, size_t steps) {
  auto tokenizer = CharTokenizer::fit(text);
  auto config = GptConfig(tokenizer.vocab_size())
                    .with_max_seq(32)
                    .with_d_model(64)
                    .with_n_heads(4)
                    .with_n_layers(2)
                    .with_d_ff(256)
                    .with_dropout(0.0);
  const size_t batch = 8;
  auto all = windows(tokenizer.encode(text), config.max_seq, steps * batch);
  if (all.size() < steps * batch)
    throw ValueError("amp_check", "the corpus fills " + std::to_string(all.size()) + " windows of " +
                                      std::to_string(config.max_seq + 1) + " tokens; " + std::to_string(steps) +
                                      " steps need " + std::to_string(steps * batch));
  std::vector<TokenBatch<AD>> batches;
  WindowBatcher<AD> batcher;
  for (size_t s = 0; s < steps; ++s)
    batches.push_back(batcher.batch(std::vector<Window>(all.begin() + static_cast<std::ptrdiff_t>(s * batch),
                                                        all.begin() + static_cast<std::ptrdiff_t>((s + 1) * batch)),
                                    {}));
  auto full = train_steps(config, batches, {});
  auto bf16 = train_steps(config, batches, {DType::BF16});
  size_t overflow_at = steps / 2;
  auto f16 = train_steps(config, batches, {DType::F16, optim::GradScalerConfig(), overflow_at});
  for (const auto& [name, run] : {std::pair{"f32", &full}, {"bf16", &bf16}, {"f16", &f16}})
    std::cout << json_line(name, *run) << std::endl;

  Checks checks;
  checks.expect(late_loss(full) < 0.8 * full.losses.front(), "f32 training did not lower the loss");
  // bf16 keeps 8 significant bits: each loss within 3% of f32's on the same batch.
  for (size_t i = 0; i < steps; ++i)
    checks.expect(std::abs(bf16.losses[i] - full.losses[i]) <= 0.03 * full.losses[i],
                  "bf16 loss " + std::to_string(bf16.losses[i]) + " at step " + std::to_string(i) +
                      " is not within 3% of f32's " + std::to_string(full.losses[i]));
  checks.expect(f16.skipped >= 1, "f16 skipped no step after the injected overflow");
  checks.expect(f16.scales[overflow_at + 1] == 0.5 * f16.scales[overflow_at],
                "f16's scale was not halved by the overflow");
  for (double l : f16.losses) checks.expect(std::isfinite(l), "an f16 loss is not finite");
  checks.expect(std::abs(late_loss(f16) - late_loss(full)) <= 0.05 * late_loss(full),
                "f16's late loss " + std::to_string(late_loss(f16)) + " is not within 5% of f32's " +
                    std::to_string(late_loss(full)));
  std::cout << (checks.failed ? "amp check: FAILED" : "amp check: passed") << std::endl;
  return checks.failed ? 1 : 0;
}

}  // namespace textgen
