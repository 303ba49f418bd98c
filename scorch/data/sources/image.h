#pragma once
// Images: PNG (libpng) and JPEG (libjpeg) decoding, bilinear resize, normalization to a
// [C, H, W] float tensor, and ImageFolderDataset (one class per sub-folder, decoded on demand).
#include <span>
#include <string>
#include <vector>

#include "scorch/core/tensor_data.h"
#include "scorch/data/dataset.h"

namespace scorch::data {

/// height × width × channels bytes, row-major with interleaved channels (1 gray, 3 RGB, 4 RGBA).
struct Image {
  size_t height = 0, width = 0, channels = 0;
  std::vector<uint8_t> pixels;
  uint8_t at(size_t y, size_t x, size_t c) const { return pixels[(y * width + x) * channels + c]; }
};

/// Most pixels (height × width) read_image decodes by default: PIL's decompression-bomb limit
/// (Image.MAX_IMAGE_PIXELS).
inline constexpr size_t kDefaultMaxImagePixels = 89'478'485;
/// The process-wide pixel limit of read_image: an image whose header claims more is a FormatError before decoding.
size_t max_image_pixels();
/// Sets that limit (at least 1); ValueError for 0.
void set_max_image_pixels(size_t pixels);

/// Decodes a PNG or JPEG file (recognized by its bytes, not its name); IoError when it cannot
/// be opened, FormatError naming the file when it is not a readable PNG or JPEG.
Image read_image(const std::string& path);
/// Writes image as PNG (1, 2, 3 or 4 channels); IoError on failure.
void write_png(const std::string& path, const Image& image);
/// Writes image as JPEG (1 or 3 channels) at quality 1..100.
void write_jpeg(const std::string& path, const Image& image, int quality = 90);
/// image resampled to height × width with bilinear interpolation (pixel centres aligned).
Image resize(const Image& image, size_t height, size_t width);
/// image with channels (1: gray by luma; 3: RGB, alpha dropped, gray repeated).
Image convert_channels(const Image& image, size_t channels);
/// f32 [C, H, W] values (pixel / 255 - mean[c]) / std[c]; mean and std have one entry per channel (or one for all).
TensorData normalize(const Image& image, std::span<const float> mean, std::span<const float> std);

/// An image of an ImageFolderDataset, its class index and where it came from.
struct ImageItem {
  Image image;
  size_t label = 0;
  std::string path;
};

/// `root/<class>/<image files>`: classes sorted by name (or as given), files (.png, .jpg, .jpeg,
/// any case) sorted by path. Images are decoded in get(), which throws naming an unreadable file.
class ImageFolderDataset final : public Dataset<ImageItem> {
 public:
  /// Every sub-folder of root is a class; IoError if root is not a folder, ValueError if it has no images.
  static ImageFolderDataset new_classification(const std::string& root);
  /// Only the listed classes, labelled in this order.
  static ImageFolderDataset new_classification_with(const std::string& root, std::vector<std::string> classes);
  std::optional<ImageItem> get(size_t index) const override;
  size_t len() const override { return files_.size(); }
  const std::vector<std::string>& classes() const { return classes_; }

 private:
  ImageFolderDataset(std::vector<std::string> classes, std::vector<std::pair<std::string, size_t>> files)
      : classes_(std::move(classes)), files_(std::move(files)) {}
  std::vector<std::string> classes_;
  std::vector<std::pair<std::string, size_t>> files_;
};

}  // namespace scorch::data
