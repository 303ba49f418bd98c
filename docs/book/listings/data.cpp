// The book's data chapter (docs/book/07-data.md): a dataset of items, transformations, a batcher and the
// DataLoader, on points of the plane labelled by the quadrant they lie in.
#include <iostream>

#include <scorch/data/dataloader.h>
#include <scorch/data/transforms.h>
#include <scorch/scorch.hpp>
#include <scorch/core/cli.h>

using namespace scorch;

// [book:item]
/// One example: a point and its class.
struct Point {
  float x, y;
  int64_t quadrant;
};

/// Points → a batch: coordinates [n, 2] and classes [n].
template <class B> struct PointBatch {
  Tensor<B, 2> coords;
  Tensor<B, 1, Int> classes;
};

template <class B> struct PointBatcher final : data::Batcher<B, Point, PointBatch<B>> {
  PointBatch<B> batch(std::vector<Point> items, const typename B::Device& device) const override {
    std::vector<float> coords;
    std::vector<int64_t> classes;
    for (const Point& p : items) {
      coords.insert(coords.end(), {p.x, p.y});
      classes.push_back(p.quadrant);
    }
    return {Tensor<B, 2>::from_data(TensorData(coords, {items.size(), size_t{2}}), device),
            Tensor<B, 1, Int>::from_data(TensorData(classes, {items.size()}), device)};
  }
};
// [/book:item]

int main(int argc, char** argv) {
  scorch::cli::answer_help(argc, argv,
                           "usage: data\nThe book's data chapter: a dataset, its transforms and a loader. No options.");
  using B = Cpu;
  // [book:dataset]
  std::vector<Point> points;
  for (int i = 0; i < 100; ++i) {
    float x = float(i % 10) - 4.5f, y = float(i / 10) - 4.5f;
    points.push_back({x, y, (x < 0 ? 1 : 0) + (y < 0 ? 2 : 0)});
  }
  auto all = data::share(data::InMemDataset<Point>(std::move(points)));
  auto scaled = data::share(data::map(all, [](const Point& p) { return Point{p.x / 4.5f, p.y / 4.5f, p.quadrant}; }));
  auto shuffled = data::share(data::ShuffledDataset<Point>(scaled, 42));
  auto parts = data::PartialDataset<Point>::split(shuffled, 5);  // five folds of 20
  std::cout << "items " << all->len() << ", first fold " << parts[0].len() << ", item 0 of the shuffled set: ("
            << shuffled->get(0)->x << ", " << shuffled->get(0)->y << ") in quadrant " << shuffled->get(0)->quadrant
            << "\n";
  // [/book:dataset]

  // [book:loader]
  auto loader = data::dataloader_builder(std::make_shared<PointBatcher<B>>())
                    .batch_size(32)
                    .shuffle(7)  // each epoch e shuffles with seed 7 + e
                    .num_workers(2)
                    .build(scaled);
  for (const auto& batch : loader->iter())
    std::cout << "batch " << batch.coords.shape().to_string() << ", classes 0..3 counted "
              << batch.classes.one_hot(4).sum_dim(0).to_data() << "\n";
  // [/book:loader]
}
