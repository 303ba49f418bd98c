#include "scorch/data/sources/image.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "scorch/core/error.h"

namespace scorch::data {

namespace fs = std::filesystem;

Image resize(const Image& image, size_t height, size_t width) {
  if (height == 0 || width == 0)
    throw ValueError("resize",
                     "target size " + std::to_string(height) + "x" + std::to_string(width) + " must be positive");
  Image out{height, width, image.channels, std::vector<uint8_t>(height * width * image.channels)};
  auto source = [](size_t i, size_t out_size, size_t in_size) {  // aligned pixel centres
    double s = (static_cast<double>(i) + 0.5) * static_cast<double>(in_size) / static_cast<double>(out_size) - 0.5;
    return std::clamp(s, 0.0, static_cast<double>(in_size - 1));
  };
  for (size_t y = 0; y < height; ++y) {
    double sy = source(y, height, image.height);
    size_t y0 = static_cast<size_t>(sy), y1 = std::min(y0 + 1, image.height - 1);
    double fy = sy - static_cast<double>(y0);
    for (size_t x = 0; x < width; ++x) {
      double sx = source(x, width, image.width);
      size_t x0 = static_cast<size_t>(sx), x1 = std::min(x0 + 1, image.width - 1);
      double fx = sx - static_cast<double>(x0);
      for (size_t c = 0; c < image.channels; ++c) {
        double top = image.at(y0, x0, c) * (1 - fx) + image.at(y0, x1, c) * fx;
        double bottom = image.at(y1, x0, c) * (1 - fx) + image.at(y1, x1, c) * fx;
        out.pixels[(y * width + x) * image.channels + c] =
            static_cast<uint8_t>(std::lround(top * (1 - fy) + bottom * fy));
      }
    }
  }
  return out;
}

Image convert_channels(const Image& image, size_t channels) {
  if (channels != 1 && channels != 3)
    throw ValueError("convert_channels", "channels must be 1 or 3, not " + std::to_string(channels));
  Image out{image.height, image.width, channels, std::vector<uint8_t>(image.height * image.width * channels)};
  bool color = image.channels >= 3;
  for (size_t i = 0; i < image.height * image.width; ++i) {
    const uint8_t* p = image.pixels.data() + i * image.channels;
    if (channels == 1)
      out.pixels[i] = color ? static_cast<uint8_t>(std::lround(0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2])) : p[0];
    else
      for (size_t c = 0; c < 3; ++c) out.pixels[i * 3 + c] = color ? p[c] : p[0];
  }
  return out;
}

TensorData normalize(const Image& image, std::span<const float> mean, std::span<const float> std) {
  size_t c_count = image.channels;
  auto pick = [&](std::span<const float> v, size_t c, const char* what) {
    if (v.size() != 1 && v.size() != c_count)
      throw ValueError("normalize", std::string(what) + " has " + std::to_string(v.size()) + " values for " +
                                        std::to_string(c_count) + " channels");
    return v[v.size() == 1 ? 0 : c];
  };
  std::vector<float> values(c_count * image.height * image.width);
  for (size_t c = 0; c < c_count; ++c) {
    float m = pick(mean, c, "mean"), s = pick(std, c, "std");
    if (s == 0) throw ValueError("normalize", "std of channel " + std::to_string(c) + " is 0");
    for (size_t i = 0; i < image.height * image.width; ++i)
      values[c * image.height * image.width + i] = (image.pixels[i * c_count + c] / 255.f - m) / s;
  }
  return TensorData(values, Shape{c_count, image.height, image.width});
}

namespace {
bool is_image_file(const fs::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext == ".png" || ext == ".jpg" || ext == ".jpeg";
}
}  // namespace

ImageFolderDataset ImageFolderDataset::new_classification(const std::string& root) {
  if (!fs::is_directory(root)) throw IoError("ImageFolderDataset", root + ": not a folder");
  std::vector<std::string> classes;
  for (const auto& entry : fs::directory_iterator(root))
    if (entry.is_directory()) classes.push_back(entry.path().filename().string());
  std::sort(classes.begin(), classes.end());
  return new_classification_with(root, std::move(classes));
}

ImageFolderDataset ImageFolderDataset::new_classification_with(const std::string& root,
                                                               std::vector<std::string> classes) {
  std::vector<std::pair<std::string, size_t>> files;
  for (size_t label = 0; label < classes.size(); ++label) {
    fs::path folder = fs::path(root) / classes[label];
    if (!fs::is_directory(folder))
      throw IoError("ImageFolderDataset", folder.string() + ": no folder for class '" + classes[label] + "'");
    std::vector<std::string> found;
    for (const auto& entry : fs::recursive_directory_iterator(folder))
      if (entry.is_regular_file() && is_image_file(entry.path())) found.push_back(entry.path().string());
    std::sort(found.begin(), found.end());
    for (auto& f : found) files.emplace_back(std::move(f), label);
  }
  if (files.empty())
    throw ValueError("ImageFolderDataset", root + ": no .png, .jpg or .jpeg files in the class folders");
  return ImageFolderDataset(std::move(classes), std::move(files));
}

std::optional<ImageItem> ImageFolderDataset::get(size_t index) const {
  if (index >= files_.size()) return std::nullopt;
  return ImageItem{read_image(files_[index].first), files_[index].second, files_[index].first};
}

}  // namespace scorch::data
