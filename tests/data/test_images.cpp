// Images: PNG/JPEG decoding, resize, channel conversion, normalization, ImageFolderDataset and
// its errors (an unreadable image names its file).
#include <gtest/gtest.h>

#include <fstream>

#include <scorch/data/sources/image.h>
#include <scorch/scorch.hpp>

#include "support/expect_error.h"
#include "support/temp_dir.h"

namespace scorch::data {
namespace {

using scorch::testing::expect_error_mentions;
using scorch::testing::TempDir;

/// A width×height gradient: R = 10x, G = 20y, B = 7.
Image gradient(size_t height, size_t width, size_t channels = 3) {
  Image image{height, width, channels, std::vector<uint8_t>(height * width * channels)};
  for (size_t y = 0; y < height; ++y)
    for (size_t x = 0; x < width; ++x)
      for (size_t c = 0; c < channels; ++c)
        image.pixels[(y * width + x) * channels + c] = static_cast<uint8_t>(c == 0 ? 10 * x : c == 1 ? 20 * y : 7);
  return image;
}

TEST(Images, PngRoundTripsExactly) {
  TempDir dir("png");
  for (size_t channels : {1, 2, 3, 4}) {
    Image image = gradient(5, 7, channels);
    write_png(dir.file("a.png"), image);
    Image back = read_image(dir.file("a.png"));
    EXPECT_EQ(back.channels, channels);
    EXPECT_EQ(back.pixels, image.pixels);
  }
}

TEST(Images, JpegDecodesCloseToTheOriginal) {
  TempDir dir("jpeg");
  for (size_t channels : {1, 3}) {  // colour is chroma-subsampled, so compare the mean error
    Image image = gradient(16, 16, channels);
    write_jpeg(dir.file("a.jpg"), image, 100);
    Image back = read_image(dir.file("a.jpg"));
    ASSERT_EQ(back.height, 16u);
    ASSERT_EQ(back.channels, channels);
    double error = 0;
    for (size_t i = 0; i < image.pixels.size(); ++i) error += std::abs(int(image.pixels[i]) - int(back.pixels[i]));
    EXPECT_LE(error / image.pixels.size(), channels == 1 ? 1.0 : 8.0);
  }
}

TEST(Images, ResizeConvertAndNormalize) {
  Image image = gradient(4, 4);
  Image same = resize(image, 4, 4);
  EXPECT_EQ(same.pixels, image.pixels);
  Image half = resize(image, 2, 2);  // each output pixel averages a 2×2 block
  EXPECT_EQ(half.at(0, 0, 0), 5);    // (0 + 10) / 2
  EXPECT_EQ(half.at(1, 1, 1), 50);   // (40 + 60) / 2
  Image gray = convert_channels(image, 1);
  EXPECT_EQ(gray.at(0, 1, 0), std::lround(0.299 * 10 + 0.114 * 7));
  EXPECT_EQ(convert_channels(gray, 3).at(0, 1, 2), gray.at(0, 1, 0));
  const float mean[] = {0.5f}, std[] = {0.25f};
  TensorData t = normalize(image, mean, std);
  EXPECT_EQ(t.shape(), Shape({3, 4, 4}));
  EXPECT_FLOAT_EQ(t.to_vector<float>()[1], (10 / 255.f - 0.5f) / 0.25f);  // channel 0, x = 1
  const float two[] = {0.f, 0.f};
  expect_error_mentions<ValueError>([&] { (void)normalize(image, two, std); }, {"mean has 2 values for 3 channels"});
}

TEST(Images, FolderDatasetLabelsBySubfolder) {
  TempDir dir("folder");
  std::filesystem::create_directories(dir.file("cat"));
  std::filesystem::create_directories(dir.file("dog/nested"));
  write_png(dir.file("cat/1.png"), gradient(3, 3));
  write_jpeg(dir.file("dog/2.JPG"), gradient(3, 3));
  write_png(dir.file("dog/nested/3.png"), gradient(3, 3, 1));
  std::ofstream(dir.file("dog/notes.txt")) << "not an image";
  auto dataset = ImageFolderDataset::new_classification(dir.path().string());
  EXPECT_EQ(dataset.classes(), (std::vector<std::string>{"cat", "dog"}));
  ASSERT_EQ(dataset.len(), 3u);
  EXPECT_EQ(dataset.get(0)->label, 0u);
  EXPECT_EQ(dataset.get(2)->label, 1u);
  EXPECT_EQ(dataset.get(2)->image.channels, 1u);
  auto only_dogs = ImageFolderDataset::new_classification_with(dir.path().string(), {"dog"});
  EXPECT_EQ(only_dogs.len(), 2u);
  EXPECT_EQ(only_dogs.get(0)->label, 0u);
}

TEST(Images, UnreadableImagesAreErrorsNamingTheFile) {
  TempDir dir("bad-images");
  std::filesystem::create_directories(dir.file("cls"));
  std::ofstream(dir.file("cls/fake.png")) << "this is text";
  write_png(dir.file("cls/cut.png"), gradient(8, 8));
  std::filesystem::resize_file(dir.file("cls/cut.png"), 40);
  write_jpeg(dir.file("cls/cut.jpg"), gradient(8, 8));
  std::filesystem::resize_file(dir.file("cls/cut.jpg"), 20);
  auto dataset = ImageFolderDataset::new_classification(dir.path().string());  // cut.jpg, cut.png, fake.png
  expect_error_mentions<FormatError>([&] { (void)dataset.get(0); }, {"cut.jpg", "unreadable JPEG"});
  expect_error_mentions<FormatError>([&] { (void)dataset.get(1); }, {"cut.png", "unreadable PNG"});
  expect_error_mentions<FormatError>([&] { (void)dataset.get(2); }, {"fake.png", "not a PNG or JPEG"});
  expect_error_mentions<IoError>([&] { (void)read_image(dir.file("none.png")); }, {"none.png", "cannot open"});
  expect_error_mentions<IoError>([&] { (void)ImageFolderDataset::new_classification(dir.file("none")); },
                                 {"not a folder"});
  expect_error_mentions<IoError>(
      [&] { (void)ImageFolderDataset::new_classification_with(dir.path().string(), {"bird"}); },
      {"no folder for class 'bird'"});
}

}  // namespace
}  // namespace scorch::data
