#pragma once
// The diabetes dataset scikit-learn ships (Debian's python3-sklearn): 442 patients, 10 measurements each (age, sex,
// body mass index, blood pressure, six blood serum values) and a measure of the disease's progression one year
// later. A custom Dataset reads its two gzipped, space-separated files.
#include <zlib.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include <scorch/data/dataloader.h>
#include <scorch/data/transforms.h>
#include <scorch/scorch.hpp>

namespace regression {

using namespace scorch;

/// Where python3-sklearn puts its bundled data.
inline const std::string kSklearnData = "/usr/lib/python3/dist-packages/sklearn/datasets/data";
inline constexpr size_t kFeatures = 10;

/// One patient: the measurements and the progression.
struct DiabetesItem {
  std::array<float, kFeatures> features;
  float progression;
};

/// Every number of a gzipped text file (whitespace or comma separated); throws naming the file.
inline std::vector<double> read_gz_numbers(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (!file) throw ValueError("diabetes", path + ": cannot be opened (install python3-sklearn)");
  std::string text;
  char buffer[1 << 14];
  int n;
  while ((n = gzread(file, buffer, sizeof buffer)) > 0) text.append(buffer, size_t(n));
  bool failed = n < 0;
  gzclose(file);
  if (failed) throw ValueError("diabetes", path + ": not a readable gzip file");
  for (char& c : text)
    if (c == ',') c = ' ';
  std::istringstream in(text);
  std::vector<double> values;
  double v;
  while (in >> v) values.push_back(v);
  if (!in.eof()) throw ValueError("diabetes", path + ": a value is not a number");
  return values;
}

/// The dataset: items in file order, features standardized with the mean and deviation of the whole file.
class DiabetesDataset final : public data::Dataset<DiabetesItem> {
 public:
  explicit DiabetesDataset(const std::string& dir = kSklearnData) {
    auto x = read_gz_numbers(dir + "/diabetes_data_raw.csv.gz"), y = read_gz_numbers(dir + "/diabetes_target.csv.gz");
    if (x.size() != y.size() * kFeatures || y.empty())
      throw ValueError("diabetes", std::to_string(x.size()) + " measurements for " + std::to_string(y.size()) +
                                       " targets: expected " + std::to_string(kFeatures) + " per target");
    std::array<double, kFeatures> mean{}, square{};
    for (size_t i = 0; i < x.size(); ++i) mean[i % kFeatures] += x[i] / double(y.size());
    for (size_t i = 0; i < x.size(); ++i) square[i % kFeatures] += std::pow(x[i] - mean[i % kFeatures], 2);
    for (size_t r = 0; r < y.size(); ++r) {
      DiabetesItem item{};
      for (size_t f = 0; f < kFeatures; ++f) {
        double deviation = std::sqrt(square[f] / double(y.size()));
        item.features[f] = float((x[r * kFeatures + f] - mean[f]) / (deviation > 0 ? deviation : 1.0));
      }
      item.progression = float(y[r]);
      items_.push_back(item);
    }
  }
  std::optional<DiabetesItem> get(size_t index) const override {
    if (index >= items_.size()) return std::nullopt;
    return items_[index];
  }
  size_t len() const override { return items_.size(); }

 private:
  std::vector<DiabetesItem> items_;
};

/// A batch: features [n, 10] and progressions [n, 1] (scaled by 1/100 so the loss starts near 1).
template <class B> struct DiabetesBatch { Tensor<B, 2> features, targets; };

template <class B> struct DiabetesBatcher final : data::Batcher<B, DiabetesItem, DiabetesBatch<B>> {
  DiabetesBatch<B> batch(std::vector<DiabetesItem> items, const typename B::Device& device) const override {
    std::vector<float> x, y;
    for (const auto& item : items) {
      x.insert(x.end(), item.features.begin(), item.features.end());
      y.push_back(item.progression / 100.0f);
    }
    return {Tensor<B, 2>::from_data(TensorData(x, {items.size(), kFeatures}), device),
            Tensor<B, 2>::from_data(TensorData(y, {items.size(), size_t{1}}), device)};
  }
};

/// The table shuffled (seed 7) and split 80/20: training and test patients.
struct DiabetesSplit {
  data::DatasetPtr<DiabetesItem> train, test;
};
inline DiabetesSplit split_diabetes() {
  auto all = data::share(data::ShuffledDataset<DiabetesItem>(data::share(DiabetesDataset()), 7));
  size_t train_size = all->len() * 8 / 10;
  return {data::share(data::PartialDataset<DiabetesItem>(all, 0, train_size)),
          data::share(data::PartialDataset<DiabetesItem>(all, train_size, all->len()))};
}

/// Batches of 32 of set on backend B, shuffled each epoch, one worker.
template <class B> auto diabetes_loader(const data::DatasetPtr<DiabetesItem>& set) {
  return data::dataloader_builder(std::make_shared<DiabetesBatcher<B>>())
      .batch_size(32)
      .shuffle(7)
      .num_workers(1)
      .build(set);
}

}  // namespace regression
