// Datasets, transformations and the DataLoader: contents, determinism, errors, and flat
// threads and memory over many epochs.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <numeric>
#include <set>

#include <scorch/backends/cpu/host_cache.h>
#include <scorch/data/dataloader.h>
#include <scorch/scorch.hpp>

#include "support/expect_error.h"

namespace scorch::data {
namespace {

using scorch::testing::expect_error;

InMemDataset<int> numbers(int n) {
  std::vector<int> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return InMemDataset<int>(v);
}

std::vector<int> all_items(const Dataset<int>& d) {
  std::vector<int> out;
  for (size_t i = 0; i < d.len(); ++i) out.push_back(*d.get(i));
  return out;
}

TEST(Dataset, InMemory) {
  auto d = numbers(5);
  EXPECT_EQ(d.len(), 5u);
  EXPECT_EQ(*d.get(3), 3);
  EXPECT_FALSE(d.get(5).has_value());
  EXPECT_FALSE(d.is_empty());
  auto many = d.get_many({4, 9});
  EXPECT_EQ(*many[0], 4);
  EXPECT_FALSE(many[1].has_value());
  EXPECT_EQ(all_items(InMemDataset<int>::from_dataset(d)), all_items(d));
}

TEST(Dataset, MapperIsLazyAndComposedConcatenates) {
  auto calls = std::make_shared<int>(0);
  auto squared = map(numbers(4), [calls](const int& x) {
    ++*calls;
    return std::to_string(x * x);
  });
  EXPECT_EQ(*calls, 0);
  EXPECT_EQ(*squared.get(3), "9");
  EXPECT_EQ(*calls, 1);
  ComposedDataset<int> both({share(numbers(2)), share(numbers(3))});
  EXPECT_EQ(all_items(both), (std::vector<int>{0, 1, 0, 1, 2}));
  EXPECT_FALSE(both.get(5).has_value());
}

TEST(Dataset, PartialAndSplit) {
  auto source = share(numbers(10));
  EXPECT_EQ(all_items(PartialDataset<int>(source, 2, 5)), (std::vector<int>{2, 3, 4}));
  EXPECT_EQ(PartialDataset<int>(source, 8, 100).len(), 2u);
  expect_error<ValueError>([&] { PartialDataset<int>(source, 6, 3); }, "[PartialDataset] start 6 is past end 3");
  auto parts = PartialDataset<int>::split(source, 3);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(all_items(parts[0]), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(all_items(parts[2]), (std::vector<int>{7, 8, 9}));
}

TEST(Dataset, ShuffledIsASeededPermutation) {
  auto source = share(numbers(50));
  auto a = all_items(ShuffledDataset<int>(source, 7)), b = all_items(ShuffledDataset<int>(source, 7));
  EXPECT_EQ(a, b);
  EXPECT_NE(a, all_items(ShuffledDataset<int>(source, 8)));
  EXPECT_NE(a, all_items(*source));
  std::sort(a.begin(), a.end());
  EXPECT_EQ(a, all_items(*source));
}

TEST(Dataset, SamplerWithAndWithoutReplacement) {
  auto source = share(numbers(10));
  SamplerDataset<int> without(source, 25, false, 3);
  std::map<int, int> counts;
  for (int v : all_items(without)) ++counts[v];
  for (const auto& [v, c] : counts) EXPECT_TRUE(c == 2 || c == 3) << v;  // whole passes, the last cut
  SamplerDataset<int> with(source, 1000, true, 3);
  std::set<int> seen;
  for (int v : all_items(with)) seen.insert(v);
  EXPECT_EQ(seen.size(), 10u);
  EXPECT_EQ(all_items(with), all_items(SamplerDataset<int>(source, 1000, true, 3)));
  EXPECT_EQ(SamplerDataset<int>(source, 4, false, 1).len(), 4u);
  expect_error<ValueError>([] { SamplerDataset<int>(share(numbers(0)), 3, true, 1); },
                           "[SamplerDataset] cannot draw 3 items");
}

TEST(Dataset, SelectionAndWindows) {
  auto source = share(numbers(6));
  SelectionDataset<int> picked(source, {5, 0, 3});
  EXPECT_EQ(all_items(picked), (std::vector<int>{5, 0, 3}));
  EXPECT_EQ(all_items(picked.slice(1, 3)), (std::vector<int>{0, 3}));
  EXPECT_EQ(all_items(SelectionDataset<int>::all(source)), all_items(*source));
  expect_error<ValueError>([&] { SelectionDataset<int>(source, {1, 6}); }, "[SelectionDataset] index 6 at position 1");
  WindowsDataset<int> windows(source, 4);
  EXPECT_EQ(windows.len(), 3u);
  EXPECT_EQ(*windows.get(2), (std::vector<int>{2, 3, 4, 5}));
  EXPECT_EQ(WindowsDataset<int>(source, 7).len(), 0u);
  expect_error<ValueError>([&] { WindowsDataset<int>(source, 0); }, "[WindowsDataset] window size must be positive");
}

/// Items to a rank-1 f32 tensor on the device.
struct TensorBatcher : Batcher<Cpu, int, Tensor<Cpu, 1>> {
  Tensor<Cpu, 1> batch(std::vector<int> items, const CpuDevice& device) const override {
    std::vector<float> v(items.begin(), items.end());
    return Tensor<Cpu, 1>::from_data(TensorData(v, Shape{v.size()}), device);
  }
};

std::vector<std::vector<float>> epoch(const DataLoader<Cpu, int, Tensor<Cpu, 1>>& loader) {
  std::vector<std::vector<float>> out;
  for (const auto& batch : loader.iter()) out.push_back(batch.to_data().to_vector<float>());
  return out;
}

TEST(DataLoader, SameBatchesForAnyWorkerCount) {
  auto builder = dataloader_builder(std::make_shared<TensorBatcher>()).batch_size(8).shuffle(42);
  auto one = builder.num_workers(1).build(numbers(100));
  auto four = builder.num_workers(4).build(numbers(100));
  auto none = builder.num_workers(0).build(numbers(100));
  auto first = epoch(*one);
  EXPECT_EQ(first, epoch(*four));
  EXPECT_EQ(first, epoch(*none));
  ASSERT_EQ(first.size(), 13u);
  EXPECT_EQ(first.back().size(), 4u);  // 100 = 12·8 + 4
  auto second = epoch(*one);
  EXPECT_NE(first, second);  // reshuffled every epoch
  EXPECT_EQ(second, epoch(*four));
  std::vector<float> seen;
  for (const auto& b : second) seen.insert(seen.end(), b.begin(), b.end());
  std::sort(seen.begin(), seen.end());
  for (size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], static_cast<float>(i));
}

TEST(DataLoader, InOrderWithoutShuffleAndCountsProgress) {
  auto loader = dataloader_builder(std::make_shared<TensorBatcher>()).batch_size(4).num_workers(2).build(numbers(10));
  auto it = loader->iter();
  EXPECT_EQ(it.progress().items_total, 10u);
  auto b = it.next();
  EXPECT_EQ(b->to_data().to_vector<float>(), (std::vector<float>{0, 1, 2, 3}));
  EXPECT_EQ(it.progress().items_processed, 4u);
  it.next();
  it.next();
  EXPECT_EQ(it.progress().items_processed, 10u);
  EXPECT_FALSE(it.next().has_value());
  EXPECT_EQ(loader->num_batches(), 3u);
}

/// A dataset whose item 13 cannot be read.
struct Faulty : Dataset<int> {
  std::optional<int> get(size_t i) const override {
    if (i == 13) throw IoError("Faulty", "item 13 is unreadable");
    return static_cast<int>(i);
  }
  size_t len() const override { return 20; }
};

TEST(DataLoader, WorkerErrorsReachTheCaller) {
  auto loader = dataloader_builder(std::make_shared<TensorBatcher>()).batch_size(5).num_workers(3).build(Faulty{});
  auto it = loader->iter();
  EXPECT_TRUE(it.next().has_value());
  EXPECT_TRUE(it.next().has_value());
  expect_error<IoError>([&] { it.next(); }, "[Faulty] item 13 is unreadable");
  expect_error<ValueError>(
      [] { dataloader_builder(std::make_shared<TensorBatcher>()).batch_size(0).build(numbers(3)); },
      "[DataLoaderBuilder] batch_size");
}

size_t thread_count() {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

TEST(DataLoader, ThreadsAndMemoryFlatOverFiftyEpochs) {
  auto loader = dataloader_builder(std::make_shared<TensorBatcher>())
                    .batch_size(16)
                    .shuffle(1)
                    .num_workers(4)
                    .build(numbers(500));
  epoch(*loader);
  size_t threads = thread_count(), bytes = backends::cpu::host_cache::live_bytes();
  for (int e = 0; e < 50; ++e) {
    auto it = loader->iter();
    if (e % 7 == 3) {  // an epoch abandoned half way leaves nothing behind either
      it.next();
      continue;
    }
    while (it.next()) {}
  }
  EXPECT_EQ(thread_count(), threads);
  EXPECT_EQ(backends::cpu::host_cache::live_bytes(), bytes);
}

TEST(DataLoader, SplitAcrossDevices) {
  auto loader = dataloader_builder(std::make_shared<TensorBatcher>()).batch_size(3).build(numbers(10));
  auto parts = split_dataloader(*loader, {CpuDevice{}, CpuDevice{}});
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0]->num_items(), 5u);
  EXPECT_EQ(epoch(*parts[1]).front(), (std::vector<float>{5, 6, 7}));
}

}  // namespace
}  // namespace scorch::data
