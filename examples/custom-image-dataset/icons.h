#pragma once
// A custom image dataset built from the symbolic icons of Debian's adwaita-icon-theme: each icon of four
// categories (actions, devices, emotes, status), drawn at six sizes (16 to 96 pixels), is written as a 32 × 32 gray
// PNG into an image folder, root/{train,test}/<category>/<icon>-<size>.png. An icon's six drawings all go to the
// same split (every fifth icon name is a test icon), so the test measures icons the model never saw.
#include <random>
#include <string>
#include <vector>

#include <scorch/data/dataloader.h>
#include <scorch/data/sources/image.h>
#include <scorch/scorch.hpp>

namespace icons {

using namespace scorch;

inline const std::string kIconTheme = "/usr/share/icons/Adwaita";
inline const std::vector<std::string> kCategories = {"actions", "devices", "emotes", "status"};
inline constexpr size_t kSide = 32;

/// The image folder's training and test roots.
struct IconFolders {
  std::string train, test;
  size_t train_images = 0, test_images = 0;
};

/// Writes the image folder under root (replacing one left by an earlier run); IoError naming the theme and the
/// category when a category has fewer than 5 icons (install adwaita-icon-theme).
IconFolders build_icon_folder(const std::string& root, const std::string& theme = kIconTheme);

/// A drawn icon as the model reads it: coverage (the alpha channel, 0 to 1) [1, 32, 32], and its category.
struct IconItem {
  TensorData pixels;
  size_t label = 0;
};

/// The icon's coverage resized to 32 × 32; FormatError naming the file when it has no alpha channel.
IconItem to_icon_item(const data::ImageItem& image);

/// images [n, 1, 32, 32], labels [n].
template <Backend B> struct IconBatch {
  Tensor<B, 4> images;
  Tensor<B, 1, Int> labels;
};

/// Batches of icon items; with shift > 0 (training), each image moves by up to shift pixels in each direction
/// (uncovered pixels are 0), drawn from a generator seeded with seed: the loader must use one worker.
template <Backend B> struct IconBatcher final : data::Batcher<B, IconItem, IconBatch<B>> {
  explicit IconBatcher(int shift = 0, uint32_t seed = 4) : shift_(shift), generator_(seed) {}
  IconBatch<B> batch(std::vector<IconItem> items, const typename B::Device& device) const override {
    std::vector<float> pixels;
    std::vector<int64_t> labels;
    std::uniform_int_distribution<int> offset(-shift_, shift_);
    for (const auto& item : items) {
      auto values = item.pixels.to_vector<float>();
      append_shifted(values, offset(generator_), offset(generator_), pixels);
      labels.push_back(int64_t(item.label));
    }
    return {Tensor<B, 4>::from_data(TensorData(pixels, {items.size(), size_t{1}, kSide, kSide}), device),
            Tensor<B, 1, Int>::from_data(TensorData(labels, {items.size()}), device)};
  }

 private:
  /// image (kSide × kSide) moved down dy and right dx, appended to out.
  static void append_shifted(const std::vector<float>& image, int dy, int dx, std::vector<float>& out) {
    int side = int(kSide);
    for (int y = 0; y < side; ++y)
      for (int x = 0; x < side; ++x) {
        int from_y = y - dy, from_x = x - dx;
        bool inside = from_y >= 0 && from_y < side && from_x >= 0 && from_x < side;
        out.push_back(inside ? image[size_t(from_y * side + from_x)] : 0.0f);
      }
  }
  int shift_;
  mutable std::mt19937 generator_;
};

}  // namespace icons
