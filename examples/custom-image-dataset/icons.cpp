#include "icons.h"

#include <filesystem>
#include <map>

namespace icons {

namespace fs = std::filesystem;

namespace {

inline const std::vector<size_t> kSizes = {16, 24, 32, 48, 64, 96};
inline const std::string kSymbolic = "-symbolic.symbolic.png";

/// The symbolic icons' names of a category (the sizes' union), sorted.
std::vector<std::string> icon_names(const std::string& theme, const std::string& category) {
  std::map<std::string, bool> names;
  for (size_t size : kSizes) {
    fs::path dir = fs::path(theme) / (std::to_string(size) + "x" + std::to_string(size)) / category;
    if (!fs::is_directory(dir)) continue;
    for (const auto& entry : fs::directory_iterator(dir)) {
      std::string file = entry.path().filename();
      if (file.size() > kSymbolic.size() && file.ends_with(kSymbolic))
        names[file.substr(0, file.size() - kSymbolic.size())] = true;
    }
  }
  std::vector<std::string> sorted;
  for (const auto& entry : names) sorted.push_back(entry.first);
  return sorted;
}

/// The icon's alpha channel as a gray image of kSide × kSide.
data::Image coverage(const data::Image& icon, const std::string& path) {
  if (icon.channels != 2 && icon.channels != 4)
    throw FormatError("icons",
                      path + ": " + std::to_string(icon.channels) + " channels, expected gray or RGB with alpha");
  data::Image alpha{icon.height, icon.width, 1, std::vector<uint8_t>(icon.height * icon.width)};
  for (size_t i = 0; i < alpha.pixels.size(); ++i) alpha.pixels[i] = icon.pixels[i * icon.channels + icon.channels - 1];
  return data::resize(alpha, kSide, kSide);
}

}  // namespace

IconFolders build_icon_folder(const std::string& root, const std::string& theme) {
  IconFolders folders{root + "/train", root + "/test"};
  fs::remove_all(folders.train);
  fs::remove_all(folders.test);
  for (const auto& category : kCategories) {
    auto names = icon_names(theme, category);
    if (names.size() < 5)  // every fifth icon is a test icon: fewer leave the test without this category
      throw IoError("build_icon_folder", std::to_string(names.size()) + " symbolic icons of category " + category +
                                             " under " + theme + ", at least 5 needed (install adwaita-icon-theme)");
    for (size_t n = 0; n < names.size(); ++n) {
      bool test = n % 5 == 4;
      fs::path out = fs::path(test ? folders.test : folders.train) / category;
      fs::create_directories(out);
      for (size_t size : kSizes) {
        fs::path source =
            fs::path(theme) / (std::to_string(size) + "x" + std::to_string(size)) / category / (names[n] + kSymbolic);
        if (!fs::exists(source)) continue;
        data::write_png(out / (names[n] + "-" + std::to_string(size) + ".png"),
                        coverage(data::read_image(source), source));
        ++(test ? folders.test_images : folders.train_images);
      }
    }
  }
  return folders;
}

IconItem to_icon_item(const data::ImageItem& item) {
  if (item.image.channels != 1 || item.image.height != kSide || item.image.width != kSide)
    throw FormatError("icons", item.path + ": expected a 32 × 32 gray image, as build_icon_folder writes");
  static const float mean[] = {0.0f}, deviation[] = {1.0f};
  return {data::normalize(item.image, mean, deviation), item.label};
}

}  // namespace icons
