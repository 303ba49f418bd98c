// Hostile data files (issue 21): IDX dims that wrap or claim more than the file holds, gzip bombs, a line of
// delimiters, deep or out-of-range JSON lines, images whose headers claim gigapixels, truncated JPEG and SQLite
// files. Each gives a scorch::Error naming the file, quickly and without allocating what the file claims.
#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>

#include <scorch/data/sources/csv.h>
#include <scorch/data/sources/idx.h>
#include <scorch/data/sources/image.h>
#include <scorch/data/sources/mnist.h>
#include <scorch/data/sources/sqlite.h>
#include <scorch/scorch.hpp>

#include "support/expect_error.h"
#include "support/temp_dir.h"

namespace scorch::data {
namespace {

using scorch::testing::expect_rejected;
using scorch::testing::TempDir;
using Bytes = std::vector<uint8_t>;

void write_file(const std::string& path, const Bytes& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}
void write_file(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

Bytes read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), {});
}

Bytes idx_header(const std::vector<uint32_t>& dims) {
  Bytes out{0, 0, 0x08, static_cast<uint8_t>(dims.size())};
  for (uint32_t d : dims)
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<uint8_t>(d >> shift));
  return out;
}

/// A gzip member of bytes (level 9).
Bytes gzip_member(const Bytes& bytes) {
  z_stream z{};
  deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY);
  Bytes out(deflateBound(&z, bytes.size()));
  z.next_in = const_cast<Bytef*>(bytes.data());
  z.avail_in = static_cast<uInt>(bytes.size());
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

/// prefix then 1 GiB of zeros, as 1,024 gzip members of 1 MiB each (about 1 MB on disk).
Bytes gzip_bomb(const Bytes& prefix) {
  Bytes out = gzip_member(prefix), zeros = gzip_member(Bytes(size_t{1} << 20));
  for (int i = 0; i < 1024; ++i) out.insert(out.end(), zeros.begin(), zeros.end());
  return out;
}

TEST(AdversarialSources, IdxDimsThatWrapOrExceedTheFile) {
  TempDir dir("adv-idx");
  write_file(dir.file("wrap.idx"), idx_header({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}));
  expect_rejected([&] { read_idx(dir.file("wrap.idx")); }, "read_idx", dir.file("wrap.idx"),
                  "dims at byte 4 overflow the element count");
  write_file(dir.file("big.idx"), idx_header({65536, 65536}));
  expect_rejected([&] { read_idx(dir.file("big.idx")); }, "read_idx", dir.file("big.idx"),
                  "truncated at byte 12: dims need 4294967296 values");
  write_file(dir.file("big.idx.gz"), gzip_member(idx_header({1 << 20, 1 << 20})));
  expect_rejected([&] { read_idx(dir.file("big.idx.gz")); }, "read_idx", dir.file("big.idx.gz"),
                  "declare 1099511627776 values, more than");
}

TEST(AdversarialSources, IdxGzipBombsStopAtTheHeader) {
  TempDir dir("adv-idx-bomb");
  write_file(dir.file("zeros.gz"), gzip_bomb({}));
  expect_rejected([&] { read_idx(dir.file("zeros.gz")); }, "read_idx", dir.file("zeros.gz"), "element type 0x0");
  Bytes four = idx_header({4});
  four.insert(four.end(), {1, 2, 3, 4});
  write_file(dir.file("crafted.gz"), gzip_bomb(four));
  expect_rejected([&] { read_idx(dir.file("crafted.gz")); }, "read_idx", dir.file("crafted.gz"),
                  "unexpected data at byte 12, after the 4 values the dims declare");
  Bytes honest = idx_header({1 << 30});  // dims that match the 1 GiB of zeros: still over 16 times the file's size
  write_file(dir.file("honest.gz"), gzip_bomb(honest));
  expect_rejected([&] { read_idx(dir.file("honest.gz")); }, "read_idx", dir.file("honest.gz"),
                  "declare 1073741824 values, more than the limit of 67108864 bytes");
  write_file(dir.file("small.gz"), gzip_member(four));
  EXPECT_EQ(read_idx(dir.file("small.gz"), 12).values.size(), 4u);  // max_inflated: 12 header bytes + 4 values
  expect_rejected([&] { read_idx(dir.file("small.gz"), 11); }, "read_idx", dir.file("small.gz"), "limit of 11 bytes");
  write_file(dir.file("labels"), idx_header({3}));
  expect_rejected([&] { MnistDataset(dir.file("crafted.gz"), dir.file("labels")); }, "read_idx", dir.file("crafted.gz"),
                  "unexpected data");
}

TEST(AdversarialSources, CsvLineOfDelimitersStreams) {
  TempDir dir("adv-csv");
  write_file(dir.file("header.csv"), std::string(100 << 20, ','));  // a 100 MB line
  expect_rejected([&] { read_csv(dir.file("header.csv")); }, "read_csv", dir.file("header.csv") + ":1",
                  "more than 1048576 fields (the most a CSV header may have)");
  write_file(dir.file("row.csv"), "a,b,c\n1,2,3\n" + std::string(100 << 20, ','));
  expect_rejected([&] { read_csv(dir.file("row.csv")); }, "read_csv", dir.file("row.csv") + ":3",
                  "more than 3 fields, the header has 3");
}

TEST(AdversarialSources, JsonLinesDeepOrOutOfRange) {
  TempDir dir("adv-jsonl");
  write_file(dir.file("deep.jsonl"), "{\"a\": 1}\n" + std::string(100000, '[') + std::string(100000, ']') + "\n");
  expect_rejected([&] { read_json_rows(dir.file("deep.jsonl")); }, "read_json_rows", dir.file("deep.jsonl") + ":2",
                  "nests deeper than 512 levels at byte 512");
  write_file(dir.file("big.jsonl"), "{\"x\": 1e400}\n");
  expect_rejected([&] { read_json_rows(dir.file("big.jsonl")); }, "read_json_rows", dir.file("big.jsonl") + ":1",
                  "number overflow");
  write_file(dir.file("ok.jsonl"), "{\"s\": \"[[[[\\\"\"}\n" + std::string(512, '[') + std::string(512, ']') + "\n");
  EXPECT_EQ(read_json_rows(dir.file("ok.jsonl")).size(), 2u);  // brackets in strings do not count; 512 levels pass
}

/// A PNG whose IHDR claims width × height 8-bit RGB pixels, with one tiny IDAT.
Bytes png_claiming(uint32_t width, uint32_t height) {
  Bytes out{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  auto chunk = [&](const char* type, const Bytes& data) {
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<uint8_t>(data.size() >> shift));
    Bytes body(type, type + 4);
    body.insert(body.end(), data.begin(), data.end());
    out.insert(out.end(), body.begin(), body.end());
    uLong crc = crc32(0, body.data(), static_cast<uInt>(body.size()));
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<uint8_t>(crc >> shift));
  };
  Bytes ihdr;
  for (uint32_t v : {width, height})
    for (int shift = 24; shift >= 0; shift -= 8) ihdr.push_back(static_cast<uint8_t>(v >> shift));
  ihdr.insert(ihdr.end(), {8, 2, 0, 0, 0});
  chunk("IHDR", ihdr);
  Bytes idat(64);
  uLongf size = idat.size();
  compress(idat.data(), &size, Bytes(16).data(), 16);
  idat.resize(size);
  chunk("IDAT", idat);
  chunk("IEND", {});
  return out;
}

TEST(AdversarialSources, ImageHeadersClaimingGigapixels) {
  TempDir dir("adv-img");
  write_file(dir.file("huge.png"), png_claiming(65535, 65535));
  expect_rejected([&] { read_image(dir.file("huge.png")); }, "read_image", dir.file("huge.png"),
                  "header claims 65535x65535x3 pixels, over the 1073741824-byte limit");
  write_file(dir.file("big.png"), png_claiming(10000, 10000));
  expect_rejected([&] { read_image(dir.file("big.png")); }, "read_image", dir.file("big.png"),
                  "header claims 10000x10000x3 pixels, more than a");
  Image image{64, 64, 3, Bytes(64 * 64 * 3, 90)};
  write_jpeg(dir.file("a.jpg"), image);
  Bytes jpeg = read_file(dir.file("a.jpg"));
  for (size_t i = 0; i + 8 < jpeg.size(); ++i)
    if (jpeg[i] == 0xff && jpeg[i + 1] == 0xc0) {  // SOF0: length, precision, height, width
      jpeg[i + 5] = 0xea, jpeg[i + 6] = 0x60, jpeg[i + 7] = 0xea, jpeg[i + 8] = 0x60;
      break;
    }
  write_file(dir.file("huge.jpg"), jpeg);
  expect_rejected([&] { read_image(dir.file("huge.jpg")); }, "read_image", dir.file("huge.jpg"),
                  "header claims 60000x60000x3 pixels");
}

TEST(AdversarialSources, ImagesOverThePixelLimitAreRefusedBeforeDecoding) {
  TempDir dir("adv-pixels");
  EXPECT_EQ(max_image_pixels(), kDefaultMaxImagePixels);
  Image image{100, 100, 3, Bytes(100 * 100 * 3, 7)};
  write_png(dir.file("a.png"), image);
  write_jpeg(dir.file("a.jpg"), image);
  struct Restore {
    ~Restore() { set_max_image_pixels(kDefaultMaxImagePixels); }
  } restore;
  set_max_image_pixels(5000);
  for (const char* name : {"a.png", "a.jpg"})
    expect_rejected([&] { read_image(dir.file(name)); }, "read_image", dir.file(name),
                    "header claims 100x100x3 pixels (10000), over the limit of 5000 pixels");
  set_max_image_pixels(10000);  // at the limit: decoded
  EXPECT_EQ(read_image(dir.file("a.png")).pixels, image.pixels);
  EXPECT_EQ(read_image(dir.file("a.jpg")).width, 100u);
  EXPECT_THROW(set_max_image_pixels(0), ValueError);
  // The limit holds before decoding: a header whose pixels its file could hold (a compressible image) is refused
  // from the header alone. The default is PIL's: 16384 × 16384 (268 M pixels) is over it.
  write_file(dir.file("600.png"), png_claiming(600, 600));
  set_max_image_pixels(100000);
  expect_rejected([&] { read_image(dir.file("600.png")); }, "read_image", dir.file("600.png"),
                  "header claims 600x600x3 pixels (360000), over the limit of 100000 pixels");
  EXPECT_EQ(kDefaultMaxImagePixels, 89478485u);
}

TEST(AdversarialSources, TruncatedJpegIsAnError) {
  TempDir dir("adv-jpeg");
  Image image{64, 64, 3, Bytes(64 * 64 * 3)};
  for (size_t i = 0; i < image.pixels.size(); ++i) image.pixels[i] = static_cast<uint8_t>(i * 37 % 251);
  write_jpeg(dir.file("a.jpg"), image);
  Bytes jpeg = read_file(dir.file("a.jpg"));
  jpeg.resize(jpeg.size() * 2 / 3);
  write_file(dir.file("cut.jpg"), jpeg);
  expect_rejected([&] { read_image(dir.file("cut.jpg")); }, "read_image", dir.file("cut.jpg"),
                  "unreadable JPEG (Premature end of JPEG file)");
}

TEST(AdversarialSources, TruncatedSqliteIsAnError) {
  TempDir dir("adv-sqlite");
  SqliteDatasetWriter<MnistItem> writer(dir.file("a.db"));
  for (size_t i = 0; i < 200; ++i) writer.write("train", MnistItem{});
  writer.set_completed();
  Bytes db = read_file(dir.file("a.db"));
  db.resize(db.size() / 2);
  write_file(dir.file("a.db"), db);
  expect_rejected(
      [&] {
        SqliteDataset<MnistItem> train(dir.file("a.db"), "train");
        for (size_t i = 0; i < train.len(); ++i) (void)train.get(i);
      },
      "SqliteDataset", dir.file("a.db"), "a.db");
}

}  // namespace
}  // namespace scorch::data
