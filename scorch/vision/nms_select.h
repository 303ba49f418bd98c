#pragma once
// Non-maximum suppression on the host (vision::nms, batched_nms and the ONNX NonMaxSuppression): greedy by score, a
// box kept when its intersection over union with every box kept before it is at most the threshold. Kept boxes are
// found through a uniform grid over the candidates, so a candidate is compared with the kept boxes near it only (the
// result is the all-pairs one).
#include <cstddef>
#include <vector>

namespace scorch::vision::suppression {

/// A box by its corners (y1 <= y2, x1 <= x2) and area.
struct Box {
  double y1, x1, y2, x2, area;
};

/// count boxes from [y1, x1, y2, x2] (corners in either order) or, with center, [x_center, y_center, width, height].
std::vector<Box> corners(const double* values, size_t count, bool center);

/// candidates (indices into scores) by descending score, ties by index, NaN scores last.
std::vector<size_t> by_score(const double* scores, std::vector<size_t> candidates);

/// The boxes kept, in the order kept: order lists the candidates' indices into boxes, best first; each is kept when
/// its IoU with every kept box is at most iou_limit (boxes of no area overlap nothing), until max_out are kept.
std::vector<size_t> select(const std::vector<Box>& boxes, const std::vector<size_t>& order, double iou_limit,
                           size_t max_out);

}  // namespace scorch::vision::suppression
