#pragma once
// The series: two seasonal waves (periods 50 and 13 steps) plus Gaussian noise of deviation 0.1, 4000 steps, and
// its windows: 32 past values and the next one. Training uses the first 80 % of the steps, the test the rest.
#include <cmath>
#include <random>
#include <vector>

#include <scorch/data/dataloader.h>
#include <scorch/data/transforms.h>
#include <scorch/scorch.hpp>

namespace forecast {

using namespace scorch;

inline constexpr size_t kSteps = 4000, kWindow = 32;
inline constexpr double kNoise = 0.1;

/// The series' values, the same for every run (seed 11).
inline std::vector<float> make_series() {
  std::mt19937 generator(11);
  std::normal_distribution<double> noise(0.0, kNoise);
  std::vector<float> values(kSteps);
  for (size_t t = 0; t < kSteps; ++t)
    values[t] =
        float(std::sin(2 * M_PI * double(t) / 50) + 0.5 * std::sin(2 * M_PI * double(t) / 13) + noise(generator));
  return values;
}

/// kWindow + 1 consecutive values: the inputs and, last, the value to forecast.
using Window = std::vector<float>;

/// Training, validation and test windows, split in time: targets in steps [0, 2880) train, [2880, 3200) validate
/// (early stopping watches them), [3200, 4000) test; no test target is seen before the test.
struct SeriesSplit {
  data::DatasetPtr<Window> train, valid, test;
};
inline SeriesSplit split_series() {
  auto series = make_series();
  size_t valid_from = kSteps * 72 / 100, test_from = kSteps * 8 / 10;
  // Windows whose targets are steps [begin, end): the values from begin - kWindow (0 for the first part).
  auto part = [&](size_t begin, size_t end) {
    size_t first = begin >= kWindow ? begin - kWindow : 0;
    auto values = data::share(data::InMemDataset<float>({series.begin() + long(first), series.begin() + long(end)}));
    return data::share(data::WindowsDataset<float>(values, kWindow + 1));
  };
  return {part(0, valid_from), part(valid_from, test_from), part(test_from, kSteps)};
}

/// A batch: inputs [n, kWindow, 1] and next values [n, 1].
template <class B> struct WindowBatch {
  Tensor<B, 3> inputs;
  Tensor<B, 2> targets;
};

template <class B> struct WindowBatcher final : data::Batcher<B, Window, WindowBatch<B>> {
  WindowBatch<B> batch(std::vector<Window> windows, const typename B::Device& device) const override {
    std::vector<float> x, y;
    for (const auto& window : windows) {
      x.insert(x.end(), window.begin(), window.end() - 1);
      y.push_back(window.back());
    }
    size_t n = windows.size();
    return {Tensor<B, 3>::from_data(TensorData(x, {n, kWindow, size_t{1}}), device),
            Tensor<B, 2>::from_data(TensorData(y, {n, size_t{1}}), device)};
  }
};

/// Batches of 64 on backend B, shuffled each epoch when training.
template <class B> auto window_loader(const data::DatasetPtr<Window>& set, bool shuffle) {
  auto builder = data::dataloader_builder(std::make_shared<WindowBatcher<B>>()).batch_size(64).num_workers(1);
  if (shuffle) builder.shuffle(5);
  return builder.build(set);
}

}  // namespace forecast
