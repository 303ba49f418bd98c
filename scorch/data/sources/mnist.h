#pragma once
// MNIST and Fashion-MNIST from IDX files (gzip or raw). Debian's dataset-fashion-mnist installs
// Fashion-MNIST under /usr/share/datasets/fashion-mnist/ (scripts/install-deps.sh installs it).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "scorch/data/dataset.h"

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
  std::optional<MnistItem> get(size_t index) const override;
  size_t len() const override { return labels_.size(); }

  static constexpr const char* kFashionDir = "/usr/share/datasets/fashion-mnist";

 private:
  std::vector<uint8_t> pixels_, labels_;
};

}  // namespace scorch::data
