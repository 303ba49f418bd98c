// DataLoader throughput: one epoch of Fashion-MNIST's train split (60,000 images) in batches of
// 64 → [64, 28, 28] f32 images scaled to [0, 1] and i64 labels, with 1 and 2 workers.
#include <scorch/data/dataloader.h>
#include <scorch/data/sources/mnist.h>

#include "bench.h"

namespace scorch::bench {
namespace {

struct FashionBatch {
  Tensor<Cpu, 3> images;
  Tensor<Cpu, 1, Int> labels;
};

struct FashionBatcher : data::Batcher<Cpu, data::MnistItem, FashionBatch> {
  FashionBatch batch(std::vector<data::MnistItem> items, const CpuDevice& device) const override {
    size_t n = items.size();
    std::vector<float> pixels(n * 28 * 28);
    std::vector<int64_t> labels(n);
    for (size_t i = 0; i < n; ++i) {
      for (size_t p = 0; p < 28 * 28; ++p) pixels[i * 28 * 28 + p] = items[i].image[p] / 255.f;
      labels[i] = items[i].label;
    }
    return {Tensor<Cpu, 3>::from_data(TensorData(pixels, Shape{n, 28, 28}), device),
            Tensor<Cpu, 1, Int>::from_data(TensorData(labels, Shape{n}), device)};
  }
};

}  // namespace

void data_workloads(const Options& o) {
  const std::string name = "dataloader_fashion_mnist_b64_w";
  if (!selected(o, name + "1") && !selected(o, name + "2")) return;  // skip the load
  auto dataset = data::share(data::MnistDataset::fashion_train());
  for (size_t workers : {1, 2}) {
    auto loader = data::dataloader_builder(std::make_shared<FashionBatcher>())
                      .batch_size(64)
                      .shuffle(0)
                      .num_workers(workers)
                      .build(dataset);
    double batches = static_cast<double>(loader->num_batches());
    run(
        o, name + std::to_string(workers), 1,
        [&] {
          for (const auto& batch : loader->iter()) (void)batch;
        },
        "batches_per_s", [batches](double ms) { return batches / ms * 1e3; });
  }
}

}  // namespace scorch::bench
