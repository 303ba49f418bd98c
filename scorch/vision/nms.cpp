// vision::nms and batched_nms on the host: shape checks, and the selection per category.
#include "scorch/vision/nms.h"

#include <map>

#include "scorch/vision/nms_select.h"

namespace scorch::vision::detail {

void check_nms(const char* op, const Shape& boxes, const Shape& scores, const Shape* categories) {
  bool ok = boxes.rank() == 2 && boxes[1] == 4 && scores.rank() == 1 && scores[0] == boxes[0];
  if (categories) ok = ok && categories->rank() == 1 && (*categories)[0] == boxes[0];
  if (ok) return;
  std::string got = "boxes " + boxes.to_string() + ", scores " + scores.to_string();
  if (categories) got += ", categories " + categories->to_string();
  throw ShapeError(op, "expects boxes [N, 4] (x1, y1, x2, y2), scores [N]" +
                           std::string(categories ? " and categories [N]" : "") + "; got " + got);
}

std::vector<int64_t> nms_indices(const std::vector<double>& boxes, const std::vector<double>& scores,
                                 const std::vector<int64_t>* categories, double iou_threshold) {
  std::vector<suppression::Box> corners = suppression::corners(boxes.data(), scores.size(), false);
  std::map<int64_t, std::vector<size_t>> members;  // category → its boxes (one category without categories)
  for (size_t i = 0; i < scores.size(); ++i) members[categories ? (*categories)[i] : 0].push_back(i);
  std::vector<size_t> kept;
  for (auto& [category, indices] : members) {
    auto order = suppression::by_score(scores.data(), std::move(indices));
    auto chosen = suppression::select(corners, order, iou_threshold, SIZE_MAX);
    kept.insert(kept.end(), chosen.begin(), chosen.end());
  }
  if (members.size() > 1) kept = suppression::by_score(scores.data(), std::move(kept));
  return std::vector<int64_t>(kept.begin(), kept.end());
}

}  // namespace scorch::vision::detail
