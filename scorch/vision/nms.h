#pragma once
// Non-maximum suppression in the Tensor API (torchvision.ops.nms and batched_nms), on every backend: the boxes and
// scores are read on the host (nms_select.h picks the boxes) and the kept indices come back on the boxes' device.
#include <cstdint>
#include <vector>

#include "scorch/tensor/tensor.h"

namespace scorch::vision {

namespace detail {
/// Throws ShapeError from op unless boxes is [N, 4], scores [N] and categories (when given) [N].
void check_nms(const char* op, const Shape& boxes, const Shape& scores, const Shape* categories);
/// The indices kept from boxes (N rows of four corners) by descending score, suppressing within each category
/// when categories is given (else all boxes are one category).
std::vector<int64_t> nms_indices(const std::vector<double>& boxes, const std::vector<double>& scores,
                                 const std::vector<int64_t>* categories, double iou_threshold);
template <class B, size_t D, class K> std::vector<double> host_doubles(const Tensor<B, D, K>& t) {
  return t.to_data().convert(DType::F64).template to_vector<double>();
}
}  // namespace detail

/// The indices of the boxes non-maximum suppression keeps, by descending score (torchvision.ops.nms): boxes [N, 4]
/// as (x1, y1, x2, y2) (corners in either order), scores [N]; a box is dropped when its intersection over union
/// with a kept box of higher score exceeds iou_threshold. Ties keep the lower index; NaN scores come last. The
/// result is an Int tensor [K] on the boxes' device (empty for N = 0). Throws ShapeError for other shapes.
template <class B> Tensor<B, 1, Int> nms(const Tensor<B, 2>& boxes, const Tensor<B, 1>& scores, double iou_threshold) {
  detail::check_nms("nms", boxes.shape(), scores.shape(), nullptr);
  auto kept = detail::nms_indices(detail::host_doubles(boxes), detail::host_doubles(scores), nullptr, iou_threshold);
  return Tensor<B, 1, Int>::from_data(TensorData(kept, Shape{kept.size()}), boxes.device());
}

/// nms within each category (torchvision.ops.batched_nms): boxes of different categories [N] never suppress each
/// other; the kept indices of every category together, by descending score.
template <class B> Tensor<B, 1, Int> batched_nms(const Tensor<B, 2>& boxes, const Tensor<B, 1>& scores,
                                                 const Tensor<B, 1, Int>& categories, double iou_threshold) {
  Shape category_shape = categories.shape();
  detail::check_nms("batched_nms", boxes.shape(), scores.shape(), &category_shape);
  auto ids = categories.to_data().convert(DType::I64).template to_vector<int64_t>();
  auto kept = detail::nms_indices(detail::host_doubles(boxes), detail::host_doubles(scores), &ids, iou_threshold);
  return Tensor<B, 1, Int>::from_data(TensorData(kept, Shape{kept.size()}), boxes.device());
}

}  // namespace scorch::vision
