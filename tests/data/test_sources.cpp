// Data sources: IDX (raw and gzip), MNIST/Fashion-MNIST, and their errors.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <scorch/data/sources/csv.h>
#include <scorch/data/sources/idx.h>
#include <scorch/data/sources/mnist.h>
#include <scorch/scorch.hpp>

#include "support/expect_error.h"
#include "support/temp_dir.h"

namespace scorch::data {
namespace {

using scorch::testing::expect_error;
namespace fs = std::filesystem;

using scorch::testing::TempDir;

/// IDX bytes of unsigned bytes with dims.
std::vector<uint8_t> idx_bytes(const std::vector<uint32_t>& dims, const std::vector<uint8_t>& values) {
  std::vector<uint8_t> out{0, 0, 0x08, static_cast<uint8_t>(dims.size())};
  for (uint32_t d : dims)
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<uint8_t>(d >> shift));
  out.insert(out.end(), values.begin(), values.end());
  return out;
}

void write_raw(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

void write_gzip(const std::string& path, const std::vector<uint8_t>& bytes) {
  gzFile gz = gzopen(path.c_str(), "wb");
  gzwrite(gz, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(gz);
}

std::vector<uint8_t> image_values(size_t n) {
  std::vector<uint8_t> v(n * 28 * 28);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<uint8_t>(i * 7 % 256);
  return v;
}

TEST(Idx, RawAndGzipReadTheSame) {
  TempDir dir;
  auto bytes = idx_bytes({2, 3}, {1, 2, 3, 4, 5, 6});
  write_raw(dir.file("a.idx"), bytes);
  write_gzip(dir.file("a.idx.gz"), bytes);
  for (const auto& name : {"a.idx", "a.idx.gz"}) {
    IdxArray a = read_idx(dir.file(name));
    EXPECT_EQ(a.dims, (std::vector<size_t>{2, 3}));
    EXPECT_EQ(a.values, (std::vector<uint8_t>{1, 2, 3, 4, 5, 6}));
  }
}

TEST(Idx, BadFilesGiveClearErrors) {
  TempDir dir;
  auto bytes = idx_bytes({2, 3}, {1, 2, 3, 4, 5, 6});
  bytes.resize(bytes.size() - 2);
  write_raw(dir.file("short.idx"), bytes);
  expect_error<FormatError>(
      [&] { read_idx(dir.file("short.idx")); },
      "[read_idx] " + dir.file("short.idx") + ": truncated at byte 16: dims need 6 values after byte 12");
  write_raw(dir.file("magic.idx"), {1, 2, 3, 4, 5});
  expect_error<FormatError>([&] { read_idx(dir.file("magic.idx")); },
                            "[read_idx] " + dir.file("magic.idx") + ": not an IDX file");
  auto floats = idx_bytes({1}, {0, 0, 0, 0});
  floats[2] = 0x0d;
  write_raw(dir.file("float.idx"), floats);
  expect_error<FormatError>([&] { read_idx(dir.file("float.idx")); },
                            "[read_idx] " + dir.file("float.idx") + ": element type");
  std::vector<uint8_t> gz_bytes;
  write_gzip(dir.file("cut.gz"), idx_bytes({100}, std::vector<uint8_t>(100, 9)));
  {
    std::ifstream in(dir.file("cut.gz"), std::ios::binary);
    gz_bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  gz_bytes.resize(gz_bytes.size() / 2);
  write_raw(dir.file("cut.gz"), gz_bytes);
  expect_error<FormatError>([&] { read_idx(dir.file("cut.gz")); }, "[read_idx] " + dir.file("cut.gz"));
  expect_error<IoError>([&] { read_idx(dir.file("missing.idx")); },
                        "[read_idx] cannot open " + dir.file("missing.idx"));
}

TEST(Mnist, ImagesAndLabelsFromIdxFiles) {
  TempDir dir;
  write_gzip(dir.file("img.gz"), idx_bytes({3, 28, 28}, image_values(3)));
  write_raw(dir.file("lbl"), idx_bytes({3}, {7, 2, 9}));
  MnistDataset d(dir.file("img.gz"), dir.file("lbl"));
  ASSERT_EQ(d.len(), 3u);
  auto item = *d.get(1);
  EXPECT_EQ(item.label, 2);
  EXPECT_EQ(item.image[0], static_cast<float>(784 * 7 % 256));
  EXPECT_FALSE(d.get(3).has_value());
  write_raw(dir.file("lbl2"), idx_bytes({2}, {1, 2}));
  expect_error<ValueError>([&] { MnistDataset(dir.file("img.gz"), dir.file("lbl2")); },
                           "[MnistDataset] " + dir.file("lbl2") + ": 2 labels for 3 images");
}

TEST(Mnist, FashionMnistFromTheDebianPackage) {
  auto test = MnistDataset::fashion_test();
  ASSERT_EQ(test.len(), 10000u);
  size_t counts[10] = {};
  for (size_t i = 0; i < test.len(); ++i) ++counts[test.get(i)->label];
  for (size_t c : counts) EXPECT_EQ(c, 1000u);  // Fashion-MNIST's test split is balanced
  float max = 0;
  MnistItem first = *test.get(0);
  for (float v : first.image) max = std::max(max, v);
  EXPECT_GT(max, 100.f);
}

struct Flower {
  double length;
  int petals;
  std::string name;
};

TEST(Csv, RowsToItemsWithQuotesAndCrlf) {
  TempDir dir;
  std::ofstream(dir.file("f.csv"))
      << "length,petals,name\r\n1.5,5,\"rose, red\"\r\n\n2.25,4,\"say \"\"hi\"\"\nthere\"\n";
  auto d = csv_dataset(dir.file("f.csv"), [](const CsvRow& r) {
    return Flower{r.get<double>("length"), r.get<int>("petals"), r.get<std::string>("name")};
  });
  ASSERT_EQ(d.len(), 2u);
  EXPECT_EQ(d.get(0)->name, "rose, red");
  EXPECT_EQ(d.get(1)->length, 2.25);
  EXPECT_EQ(d.get(1)->name, "say \"hi\"\nthere");
}

TEST(Csv, BadRowsNameFileLineAndColumn) {
  TempDir dir;
  std::ofstream(dir.file("missing.csv")) << "a,b,c\n1,2,3\n4,5\n";
  expect_error<FormatError>([&] { read_csv(dir.file("missing.csv")); },
                            "[read_csv] " + dir.file("missing.csv") + ":3: 2 fields, the header has 3");
  std::ofstream(dir.file("nan.csv")) << "a,b\n1,x\n";
  auto rows = read_csv(dir.file("nan.csv"));
  expect_error<FormatError>([&] { rows[0].get<double>("b"); },
                            "[read_csv] " + dir.file("nan.csv") + ":2, column 'b': cannot read 'x'");
  expect_error<FormatError>([&] { rows[0].at("z"); }, "[read_csv] " + dir.file("nan.csv") + ":2: no column 'z'");
  std::ofstream(dir.file("open.csv")) << "a\n\"never closed\n";
  expect_error<FormatError>([&] { read_csv(dir.file("open.csv")); },
                            "[read_csv] " + dir.file("open.csv") + ":2: a quoted field is never closed");
  expect_error<IoError>([&] { read_csv(dir.file("none.csv")); }, "[read_csv] cannot open");
}

TEST(Csv, ReadCsvKeepsRowsWithinItsLimitsAndCsvDatasetKeepsNone) {
  TempDir dir;
  {
    std::ofstream out(dir.file("big.csv"));
    out << "a,b\n";
    for (int i = 0; i < 1000; ++i) out << i << "," << i * 2 << "\n";
  }
  EXPECT_EQ(read_csv(dir.file("big.csv")).size(), 1000u);
  expect_error<FormatError>(
      [&] {
        read_csv(dir.file("big.csv"), ',', CsvLimits{100, size_t{1} << 30});
      },
      "[read_csv] " + dir.file("big.csv") +
          ":102: the rows read so far exceed 100 rows "
          "(CsvLimits::max_rows); raise CsvLimits, or convert rows as they are read");
  // Each row: 64 + 2 × 64 bytes of bookkeeping and its digits; 10 rows pass 1,920 bytes.
  expect_error<FormatError>(
      [&] {
        read_csv(dir.file("big.csv"), ',', CsvLimits{size_t{1} << 24, 2000});
      },
      "[read_csv] " + dir.file("big.csv") +
          ":12: the rows read so far exceed 2000 bytes "
          "(CsvLimits::max_bytes)");
  // csv_dataset converts each row as it is read: no row limit applies, and memory follows its items.
  auto sums = csv_dataset(dir.file("big.csv"), [](const CsvRow& r) { return r.get<int>("a") + r.get<int>("b"); });
  ASSERT_EQ(sums.len(), 1000u);
  EXPECT_EQ(*sums.get(999), 999 * 3);
  size_t seen = 0;
  for_each_csv_row(dir.file("big.csv"), [&](const CsvRow& row) {
    EXPECT_EQ(row.size(), 2u);
    EXPECT_EQ(row.field(0), std::to_string(seen++));
  });
  EXPECT_EQ(seen, 1000u);
}

TEST(JsonRows, LinesToItemsAndErrors) {
  TempDir dir;
  std::ofstream(dir.file("r.jsonl")) << "{\"x\": 1, \"y\": \"a\"}\n\n{\"x\": 2, \"y\": \"b\"}\n";
  auto d = json_rows_dataset(dir.file("r.jsonl"), [](const nlohmann::json& j) { return j.at("x").get<int>() * 10; });
  EXPECT_EQ(d.len(), 2u);
  EXPECT_EQ(*d.get(1), 20);
  std::ofstream(dir.file("bad.jsonl")) << "{\"x\": 1}\n{\"x\": \n";
  expect_error<FormatError>([&] { read_json_rows(dir.file("bad.jsonl")); },
                            "[read_json_rows] " + dir.file("bad.jsonl") + ":2: ");
}

}  // namespace
}  // namespace scorch::data
