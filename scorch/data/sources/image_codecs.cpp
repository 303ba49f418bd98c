// PNG through libpng's simplified API; JPEG through libjpeg, whose errors longjmp out of the
// decoder (the frames in between hold only C objects).
#include <atomic>
#include <csetjmp>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <memory>

#include <jpeglib.h>  // needs size_t and FILE declared first
// jerror.h after jpeglib.h: the JWRN_* codes
#include <jerror.h>
#include <png.h>

#include <filesystem>
#include <optional>
#include <string>

#include "scorch/core/deflate.h"
#include "scorch/core/error.h"
#include "scorch/core/shape.h"
#include "scorch/data/sources/image.h"

namespace scorch::data {

namespace {
std::atomic<size_t> max_pixels{kDefaultMaxImagePixels};
}  // namespace

size_t max_image_pixels() { return max_pixels.load(std::memory_order_relaxed); }

void set_max_image_pixels(size_t pixels) {
  if (pixels == 0) throw ValueError("set_max_image_pixels", "the limit must be at least 1 pixel");
  max_pixels.store(pixels, std::memory_order_relaxed);
}

namespace {
constexpr size_t kMaxImageBytes = size_t{1} << 30;  // decoded bytes (height × width × channels) of one image
constexpr size_t kMaxJpegPixelsPerByte = 1024;      // JPEG: baseline files hold at most ~256 pixels per byte

struct JpegError {
  jpeg_error_mgr manager;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};
[[noreturn]] void on_jpeg_error(j_common_ptr info) {
  auto* error = reinterpret_cast<JpegError*>(info->err);
  (*info->err->format_message)(info, error->message);
  std::longjmp(error->jump, 1);
}
/// Warnings that mean the data is truncated or corrupt are errors; the others (unknown JFIF revision, ...) pass
/// silently.
void on_jpeg_message(j_common_ptr info, int level) {
  if (level >= 0) return;  // trace messages
  switch (info->err->msg_code) {
    case JWRN_JPEG_EOF:
    case JWRN_HIT_MARKER:
    case JWRN_HUFF_BAD_CODE:
    case JWRN_ARITH_BAD_CODE:
    case JWRN_MUST_RESYNC:
    case JWRN_NOT_SEQUENTIAL:
    case JWRN_BOGUS_PROGRESSION: on_jpeg_error(info);
    default: return;
  }
}

/// Empty when an image of these dims can come from a file of file_size bytes holding at most pixels_per_byte pixels
/// per byte; otherwise why not.
std::string dims_problem(size_t height, size_t width, size_t channels, size_t file_size, size_t pixels_per_byte) {
  auto pixels = checked_mul(height, width);
  auto bytes = pixels ? checked_mul(*pixels, channels) : std::nullopt;
  std::string dims = std::to_string(width) + "x" + std::to_string(height) + "x" + std::to_string(channels);
  if (!bytes || *bytes > kMaxImageBytes)
    return "header claims " + dims + " pixels, over the " + std::to_string(kMaxImageBytes) + "-byte limit";
  if (*pixels / pixels_per_byte > file_size)
    return "header claims " + dims + " pixels, more than a " + std::to_string(file_size) + "-byte file can hold";
  if (*pixels > max_image_pixels())
    return "header claims " + dims + " pixels (" + std::to_string(*pixels) + "), over the limit of " +
           std::to_string(max_image_pixels()) +
           " pixels against decompression bombs; data::set_max_image_pixels(n) "
           "raises it (PIL's Image.MAX_IMAGE_PIXELS)";
  return "";
}

/// Decodes a JPEG from f (of file_size bytes) into image; returns false with message set on error.
bool decode_jpeg(std::FILE* f, size_t file_size, Image& image, std::string& message) {
  jpeg_decompress_struct info{};
  JpegError error{};
  info.err = jpeg_std_error(&error.manager);
  error.manager.error_exit = on_jpeg_error;
  error.manager.emit_message = on_jpeg_message;
  if (setjmp(error.jump)) {
    message = error.message;
    jpeg_destroy_decompress(&info);
    return false;
  }
  jpeg_create_decompress(&info);
  jpeg_stdio_src(&info, f);
  jpeg_read_header(&info, TRUE);
  if (info.num_components != 1) info.out_color_space = JCS_RGB;
  jpeg_calc_output_dimensions(&info);
  message = dims_problem(info.output_height, info.output_width, static_cast<size_t>(info.output_components), file_size,
                         kMaxJpegPixelsPerByte);
  if (!message.empty()) {
    jpeg_destroy_decompress(&info);
    return false;
  }
  jpeg_start_decompress(&info);
  image.height = info.output_height;
  image.width = info.output_width;
  image.channels = static_cast<size_t>(info.output_components);
  image.pixels.resize(image.height * image.width * image.channels);
  while (info.output_scanline < info.output_height) {
    JSAMPROW row = image.pixels.data() + static_cast<size_t>(info.output_scanline) * image.width * image.channels;
    jpeg_read_scanlines(&info, &row, 1);
  }
  jpeg_finish_decompress(&info);
  jpeg_destroy_decompress(&info);
  return true;
}

Image decode_png(const std::string& path, size_t file_size) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&png, path.c_str()))
    throw FormatError("read_image", path + ": unreadable PNG (" + png.message + ")");
  bool alpha = png.format & PNG_FORMAT_FLAG_ALPHA, color = png.format & PNG_FORMAT_FLAG_COLOR;
  png.format = color ? (alpha ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB) : (alpha ? PNG_FORMAT_GA : PNG_FORMAT_GRAY);
  // Each pixel takes at least one bit of deflate input (palette and gray images pack 1-bit pixels).
  std::string problem =
      dims_problem(png.height, png.width, PNG_IMAGE_SAMPLE_CHANNELS(png.format), file_size, 8 * kMaxDeflateRatio);
  if (!problem.empty()) {
    png_image_free(&png);
    throw FormatError("read_image", path + ": unreadable PNG (" + problem + ")");
  }
  Image image{png.height, png.width, PNG_IMAGE_SAMPLE_CHANNELS(png.format), {}};
  image.pixels.resize(PNG_IMAGE_SIZE(png));
  if (!png_image_finish_read(&png, nullptr, image.pixels.data(), 0, nullptr)) {
    std::string why = png.message;
    png_image_free(&png);
    throw FormatError("read_image", path + ": unreadable PNG (" + why + ")");
  }
  return image;
}
}  // namespace

Image read_image(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw IoError("read_image", path + ": cannot open");
  unsigned char magic[8] = {};
  size_t n = std::fread(magic, 1, sizeof magic, f.get());
  std::error_code ec;
  size_t file_size = std::filesystem::file_size(path, ec);
  if (ec) throw IoError("read_image", path + ": cannot read its size (" + ec.message() + ")");
  if (n == 8 && png_sig_cmp(magic, 0, 8) == 0) return decode_png(path, file_size);
  if (n >= 3 && magic[0] == 0xFF && magic[1] == 0xD8 && magic[2] == 0xFF) {
    std::rewind(f.get());
    Image image;
    std::string message;
    if (!decode_jpeg(f.get(), file_size, image, message))
      throw FormatError("read_image", path + ": unreadable JPEG (" + message + ")");
    return image;
  }
  throw FormatError("read_image", path + ": not a PNG or JPEG file");
}

void write_png(const std::string& path, const Image& image) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  png.width = static_cast<png_uint_32>(image.width);
  png.height = static_cast<png_uint_32>(image.height);
  static constexpr png_uint_32 formats[] = {0, PNG_FORMAT_GRAY, PNG_FORMAT_GA, PNG_FORMAT_RGB, PNG_FORMAT_RGBA};
  if (image.channels < 1 || image.channels > 4)
    throw ValueError("write_png", path + ": " + std::to_string(image.channels) + " channels");
  png.format = formats[image.channels];
  if (!png_image_write_to_file(&png, path.c_str(), 0, image.pixels.data(), 0, nullptr))
    throw IoError("write_png", path + ": " + png.message);
}

void write_jpeg(const std::string& path, const Image& image, int quality) {
  if (image.channels != 1 && image.channels != 3)
    throw ValueError("write_jpeg", path + ": JPEG needs 1 or 3 channels, not " + std::to_string(image.channels));
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "wb"), &std::fclose);
  if (!f) throw IoError("write_jpeg", path + ": cannot create");
  jpeg_compress_struct info{};
  JpegError error{};
  info.err = jpeg_std_error(&error.manager);
  error.manager.error_exit = on_jpeg_error;
  if (setjmp(error.jump)) {
    jpeg_destroy_compress(&info);
    throw IoError("write_jpeg", path + ": " + error.message);
  }
  jpeg_create_compress(&info);
  jpeg_stdio_dest(&info, f.get());
  info.image_width = static_cast<JDIMENSION>(image.width);
  info.image_height = static_cast<JDIMENSION>(image.height);
  info.input_components = static_cast<int>(image.channels);
  info.in_color_space = image.channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&info);
  jpeg_set_quality(&info, quality, TRUE);
  jpeg_start_compress(&info, TRUE);
  while (info.next_scanline < info.image_height) {
    JSAMPROW row = const_cast<uint8_t*>(image.pixels.data()) +
                   static_cast<size_t>(info.next_scanline) * image.width * image.channels;
    jpeg_write_scanlines(&info, &row, 1);
  }
  jpeg_finish_compress(&info);
  jpeg_destroy_compress(&info);
}

}  // namespace scorch::data
