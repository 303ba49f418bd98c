#include "scorch/data/sources/mnist.h"

#include "scorch/core/error.h"
#include "scorch/data/sources/idx.h"

namespace scorch::data {

MnistDataset::MnistDataset(const std::string& images_path, const std::string& labels_path) {
  IdxArray images = read_idx(images_path), labels = read_idx(labels_path);
  if (images.dims.size() != 3 || images.dims[1] != 28 || images.dims[2] != 28)
    throw ValueError("MnistDataset", images_path + ": expected [n, 28, 28] images");
  if (labels.dims.size() != 1 || labels.dims[0] != images.dims[0])
    throw ValueError("MnistDataset", labels_path + ": " + std::to_string(labels.dims.empty() ? 0 : labels.dims[0]) + " labels for " +
                                         std::to_string(images.dims[0]) + " images");
  pixels_ = std::move(images.values);
  labels_ = std::move(labels.values);
}

MnistDataset MnistDataset::fashion_train(const std::string& dir) {
  return MnistDataset(dir + "/train-images-idx3-ubyte.gz", dir + "/train-labels-idx1-ubyte.gz");
}

MnistDataset MnistDataset::fashion_test(const std::string& dir) {
  return MnistDataset(dir + "/t10k-images-idx3-ubyte.gz", dir + "/t10k-labels-idx1-ubyte.gz");
}

std::optional<MnistItem> MnistDataset::get(size_t index) const {
  if (index >= labels_.size()) return std::nullopt;
  MnistItem item;
  const uint8_t* p = pixels_.data() + index * 28 * 28;
  for (size_t i = 0; i < 28 * 28; ++i) item.image[i] = static_cast<float>(p[i]);
  item.label = labels_[index];
  return item;
}

}  // namespace scorch::data
