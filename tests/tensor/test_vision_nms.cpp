// Non-maximum suppression: the host selection (scorch/vision/nms_select.h) against the greedy all-pairs definition
// written out here (the same kept boxes in the same order, through the grid and without it), and vision::nms /
// batched_nms in the Tensor API (torchvision's semantics).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include <scorch/scorch.hpp>

#include "scorch/vision/nms_select.h"

namespace {

using scorch::vision::suppression::Box;

/// The ONNX definition: candidates best first, one kept when IoU(it, kept) <= limit for every kept box.
std::vector<size_t> all_pairs(const std::vector<Box>& boxes, const std::vector<size_t>& order, double limit,
                              size_t max_out) {
  std::vector<size_t> kept;
  for (size_t i : order) {
    if (kept.size() >= max_out) break;
    const Box& a = boxes[i];
    bool suppressed = false;
    for (size_t k : kept) {
      const Box& b = boxes[k];
      double h = std::max(0.0, std::min(a.y2, b.y2) - std::max(a.y1, b.y1));
      double w = std::max(0.0, std::min(a.x2, b.x2) - std::max(a.x1, b.x1));
      double inter = h * w, uni = a.area + b.area - inter;
      suppressed = suppressed || (uni > 0 ? inter / uni : 0.0) > limit;
    }
    if (!suppressed) kept.push_back(i);
  }
  return kept;
}

/// count boxes [y1, x1, y2, x2]: centers uniform in [0, extent)², sides in [low, high); class c (of classes) shifted
/// by c·(extent + 1) on both axes, as torchvision's batched NMS offsets its classes.
std::vector<double> random_boxes(size_t count, double extent, double low, double high, size_t classes, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> v;
  for (size_t i = 0; i < count; ++i) {
    double shift = double(i % classes) * (extent + 1), cy = u(rng) * extent + shift, cx = u(rng) * extent + shift;
    double h = low + u(rng) * (high - low), w = low + u(rng) * (high - low);
    v.insert(v.end(), {cy - h / 2, cx + w / 2, cy + h / 2, cx - w / 2});  // x corners reversed: either order reads
  }
  return v;
}

/// Every candidate, by a random score.
std::vector<size_t> random_order(size_t count, uint64_t seed) {
  std::vector<size_t> order(count);
  std::iota(order.begin(), order.end(), size_t(0));
  std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
  return order;
}

void expect_all_pairs(const std::vector<double>& raw, double limit, size_t max_out = SIZE_MAX) {
  auto boxes = scorch::vision::suppression::corners(raw.data(), raw.size() / 4, false);
  auto order = random_order(boxes.size(), 11);
  auto kept = scorch::vision::suppression::select(boxes, order, limit, max_out);
  EXPECT_EQ(kept, all_pairs(boxes, order, limit, max_out)) << boxes.size() << " boxes, IoU limit " << limit;
  EXPECT_LE(kept.size(), max_out);
}

TEST(VisionNms, SmallBoxesKeepTheAllPairsSelectionAtEveryThreshold) {
  auto raw = random_boxes(3000, 1.0, 0.01, 0.06, 1, 1);
  for (double limit : {0.0, 0.3, 0.55, 0.9, 1.0}) expect_all_pairs(raw, limit);
}

TEST(VisionNms, MixedSizesHugeAndEmptyBoxesKeepTheAllPairsSelection) {
  auto raw = random_boxes(2000, 1.0, 0.001, 0.2, 1, 2);
  for (size_t i = 0; i < 100; ++i) {  // boxes over the whole extent (the grid's wide list) and boxes of no area
    double* b = &raw[i * 40];
    if (i % 2) b[0] = -0.5, b[1] = -0.5, b[2] = 1.5, b[3] = 1.5;
    else b[2] = b[0];
  }
  for (size_t i = 0; i < 50; ++i) std::copy_n(&raw[4 * i], 4, &raw[4 * (1000 + i)]);  // duplicates
  for (double limit : {0.0, 0.5, 1.0}) expect_all_pairs(raw, limit);
}

TEST(VisionNms, ClassesOffsetAlongTheDiagonalKeepTheAllPairsSelection) {
  auto raw = random_boxes(4000, 300.0, 5.0, 60.0, 20, 3);
  expect_all_pairs(raw, 0.55);
  expect_all_pairs(raw, 0.55, 100);  // max_output_boxes_per_class stops early
}

TEST(VisionNms, NonFiniteBoxesAndNegativeThresholdsFollowTheDefinition) {
  auto raw = random_boxes(600, 1.0, 0.01, 0.1, 1, 4);
  raw[8] = NAN, raw[21] = INFINITY, raw[42] = -INFINITY;
  expect_all_pairs(raw, 0.5);
  auto boxes = scorch::vision::suppression::corners(raw.data(), 600, false);
  auto order = random_order(600, 5);
  // IoU 0 exceeds a negative threshold: the best box suppresses every other finite one.
  auto kept = scorch::vision::suppression::select(boxes, order, -0.1, SIZE_MAX);
  EXPECT_EQ(kept, all_pairs(boxes, order, -0.1, SIZE_MAX));
  EXPECT_EQ(scorch::vision::suppression::select(boxes, order, 0.5, 0), std::vector<size_t>{});
}

TEST(VisionNms, CenterBoxesReadAsCornersAndArea) {
  std::vector<double> center{0.5, 0.25, 0.2, 0.1};  // x_center, y_center, width, height
  auto b = scorch::vision::suppression::corners(center.data(), 1, true).at(0);
  EXPECT_DOUBLE_EQ(b.y1, 0.2);
  EXPECT_DOUBLE_EQ(b.x1, 0.4);
  EXPECT_DOUBLE_EQ(b.y2, 0.3);
  EXPECT_DOUBLE_EQ(b.x2, 0.6);
  EXPECT_NEAR(b.area, 0.02, 1e-15);
}

TEST(VisionNms, TensorApiKeepsTorchvisionsSelection) {
  using namespace scorch;
  auto boxes =
      Tensor<Cpu, 2>::from_data({{0., 0., 10., 10.}, {1., 1., 11., 11.}, {20., 20., 30., 30.}, {0., 0., 10., 10.}});
  auto scores = Tensor<Cpu, 1>::from_data({0.7, 0.9, 0.8, 0.7});
  // IoU(box 1, box 0) = 81 / 119 > 0.5; box 3 ties box 0 (same box, same score): the lower index stays.
  EXPECT_EQ(vision::nms(boxes, scores, 0.5).to_data().to_vector<int64_t>(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(vision::nms(boxes, scores, 0.7).to_data().to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 0}));
  auto categories = Tensor<Cpu, 1, Int>::from_data({0, 1, 0, 2});
  EXPECT_EQ(vision::batched_nms(boxes, scores, categories, 0.5).to_data().to_vector<int64_t>(),
            (std::vector<int64_t>{1, 2, 0, 3}));
}

TEST(VisionNms, TensorApiOnAutodiffEmptyAndNanScores) {
  using namespace scorch;
  using B = Autodiff<Cpu>;
  auto boxes = Tensor<B, 2>::from_data({{0., 0., 1., 1.}, {5., 5., 6., 6.}, {0., 0., 1., 1.}});
  auto scores = Tensor<B, 1>::from_data({std::nan(""), 0.5, 0.4});
  EXPECT_EQ(vision::nms(boxes, scores, 0.5).to_data().to_vector<int64_t>(), (std::vector<int64_t>{1, 2}));
  auto none = vision::nms(Tensor<Cpu, 2>::zeros({0, 4}), Tensor<Cpu, 1>::zeros({0}), 0.5);
  EXPECT_EQ(none.shape(), Shape{0});
}

TEST(VisionNms, BadShapesNameTheOperands) {
  using namespace scorch;
  try {
    vision::nms(Tensor<Cpu, 2>::zeros({3, 5}), Tensor<Cpu, 1>::zeros({3}), 0.5);
    FAIL() << "boxes [3, 5] accepted";
  } catch (const ShapeError& e) {
    EXPECT_EQ(std::string(e.what()),
              "[nms] expects boxes [N, 4] (x1, y1, x2, y2), scores [N]; got boxes [3, 5], "
              "scores [3]");
  }
  EXPECT_THROW(vision::batched_nms(Tensor<Cpu, 2>::zeros({3, 4}), Tensor<Cpu, 1>::zeros({3}),
                                   Tensor<Cpu, 1, Int>::zeros({2}), 0.5),
               ShapeError);
}

}  // namespace
