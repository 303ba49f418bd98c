// NonMaxSuppression's selection: the kept boxes by coordinate (the all-pairs test vectorizes over them) and a
// uniform grid that finds the kept boxes a candidate can overlap. A candidate can only be suppressed by a box it
// intersects with positive area (for a threshold >= 0), and two such boxes share a point, so a cell: the grid's
// answer is the all-pairs answer, from the kept boxes of the cells the candidate covers.
#include "scorch/vision/nms_select.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

namespace scorch::vision::suppression {
namespace {

/// Candidates below this count are compared with every kept box (the grid's set-up costs more).
constexpr size_t kGridMinCandidates = 256;
/// Cells a grid has at most along an axis.
constexpr size_t kMaxAxisCells = 128;
/// A box covering more cells than this is compared with every candidate instead (a kept box) or every kept box (a
/// candidate).
constexpr size_t kMaxBoxCells = 64;

/// The boxes kept so far, by coordinate, so that the all-pairs test over them vectorizes.
struct Kept {
  std::vector<double> y1, x1, y2, x2, area;

  size_t size() const { return area.size(); }
  void add(const Box& b) {
    y1.push_back(b.y1), x1.push_back(b.x1), y2.push_back(b.y2), x2.push_back(b.x2), area.push_back(b.area);
  }
  double intersection(const Box& b, size_t k) const {
    double h = std::max(0.0, std::min(b.y2, y2[k]) - std::max(b.y1, y1[k]));
    double w = std::max(0.0, std::min(b.x2, x2[k]) - std::max(b.x1, x1[k]));
    return h * w;
  }
  /// Whether b's IoU with kept box k exceeds limit (0 for boxes of no area).
  bool exceeds(const Box& b, size_t k, double inter, double limit) const {
    double uni = b.area + area[k] - inter;
    return (uni > 0 ? inter / uni : 0.0) > limit;
  }
  /// Whether b's IoU with some kept box exceeds limit. Kept boxes are tested 64 at a time: intersections first (no
  /// branch, no division: vectorized), then the exact IoU only in a block where b meets some box.
  bool any_exceeds(const Box& b, double limit) const {
    std::array<double, 64> inter;
    for (size_t start = 0; start < size(); start += 64) {
      size_t count = std::min<size_t>(size() - start, 64);
      double met = 0;
      for (size_t j = 0; j < count; ++j) met = std::max(met, inter[j] = intersection(b, start + j));
      if (!(met > 0) && !(limit < 0)) continue;
      for (size_t j = 0; j < count; ++j)
        if (exceeds(b, start + j, inter[j], limit)) return true;
    }
    return false;
  }
};

/// Cells of one axis: [origin, origin + count / scale) cut in count equal cells.
struct Axis {
  double origin = 0, scale = 0;
  size_t count = 1;

  /// An axis over [low, high] whose cells are about typical long (at most kMaxAxisCells of them).
  static Axis over(double low, double high, double typical) {
    Axis a;
    a.origin = low;
    double extent = high - low;
    if (!(extent > 0)) return a;
    double cells = typical > 0 ? std::ceil(extent / typical) : double(kMaxAxisCells);
    a.count = size_t(std::clamp(cells, 1.0, double(kMaxAxisCells)));
    a.scale = double(a.count) / extent;
    return a;
  }
  /// The cell holding v: monotone in v, so a point inside a box is in a cell of the box's range.
  size_t cell(double v) const {
    double c = (v - origin) * scale;
    return c <= 0 ? 0 : std::min(count - 1, size_t(c));
  }
};

double median(std::vector<double> values) {
  auto middle = values.begin() + std::ptrdiff_t(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

/// The kept boxes by the grid cells they cover; boxes covering many cells are in a list of their own.
class Grid {
 public:
  Grid(const std::vector<Box>& boxes, const std::vector<size_t>& order) {
    double y_low = INFINITY, y_high = -INFINITY, x_low = INFINITY, x_high = -INFINITY;
    std::vector<double> heights, widths;
    for (size_t i : order) {
      const Box& b = boxes[i];
      y_low = std::min(y_low, b.y1), y_high = std::max(y_high, b.y2);
      x_low = std::min(x_low, b.x1), x_high = std::max(x_high, b.x2);
      heights.push_back(b.y2 - b.y1), widths.push_back(b.x2 - b.x1);
    }
    rows_ = Axis::over(y_low, y_high, median(std::move(heights)));
    cols_ = Axis::over(x_low, x_high, median(std::move(widths)));
    cells_.resize(rows_.count * cols_.count);
  }

  /// Whether b's IoU with a kept box exceeds limit (>= 0), testing the kept boxes that share a cell with b.
  bool any_exceeds(const Box& b, const Kept& kept, double limit) {
    Range r = range(b);
    if (r.cells() > kMaxBoxCells) return kept.any_exceeds(b, limit);
    ++query_;
    auto test = [&](uint32_t k) {
      if (seen_[k] == query_) return false;
      seen_[k] = query_;
      double inter = kept.intersection(b, k);
      return inter > 0 && kept.exceeds(b, k, inter, limit);
    };
    for (uint32_t k : wide_)
      if (test(k)) return true;
    for (size_t row = r.row0; row <= r.row1; ++row)
      for (size_t col = r.col0; col <= r.col1; ++col)
        for (uint32_t k : cells_[row * cols_.count + col])
          if (test(k)) return true;
    return false;
  }
  /// Registers b as kept box k (the next index of kept).
  void add(const Box& b, uint32_t k) {
    seen_.push_back(0);
    Range r = range(b);
    if (r.cells() > kMaxBoxCells) return wide_.push_back(k);
    for (size_t row = r.row0; row <= r.row1; ++row)
      for (size_t col = r.col0; col <= r.col1; ++col) cells_[row * cols_.count + col].push_back(k);
  }

 private:
  struct Range {
    size_t row0, row1, col0, col1;
    size_t cells() const { return (row1 - row0 + 1) * (col1 - col0 + 1); }
  };
  Range range(const Box& b) const { return {rows_.cell(b.y1), rows_.cell(b.y2), cols_.cell(b.x1), cols_.cell(b.x2)}; }

  Axis rows_, cols_;
  std::vector<std::vector<uint32_t>> cells_;
  std::vector<uint32_t> wide_;
  std::vector<uint32_t> seen_;  // the last query that tested each kept box (a box sits in several cells)
  uint32_t query_ = 0;
};

/// Whether the grid applies: enough candidates, finite boxes, and a threshold that boxes apart cannot exceed.
bool grid_applies(const std::vector<Box>& boxes, const std::vector<size_t>& order, double iou_limit) {
  if (order.size() < kGridMinCandidates || iou_limit < 0 || order.size() >= UINT32_MAX) return false;
  for (size_t i : order) {
    const Box& b = boxes[i];
    if (!std::isfinite(b.y1) || !std::isfinite(b.x1) || !std::isfinite(b.y2) || !std::isfinite(b.x2) ||
        !std::isfinite(b.area))
      return false;
  }
  return true;
}

}  // namespace

std::vector<Box> corners(const double* p, size_t count, bool center) {
  std::vector<Box> out(count);
  for (size_t i = 0; i < count; ++i, p += 4) {
    Box& b = out[i];
    if (center) b = {p[1] - p[3] / 2, p[0] - p[2] / 2, p[1] + p[3] / 2, p[0] + p[2] / 2, 0};
    else b = {std::min(p[0], p[2]), std::min(p[1], p[3]), std::max(p[0], p[2]), std::max(p[1], p[3]), 0};
    b.area = (b.y2 - b.y1) * (b.x2 - b.x1);
  }
  return out;
}

std::vector<size_t> by_score(const double* scores, std::vector<size_t> candidates) {
  std::sort(candidates.begin(), candidates.end(), [&](size_t x, size_t y) {
    double a = scores[x], b = scores[y];
    if (std::isnan(a) || std::isnan(b)) return !std::isnan(a) || (std::isnan(b) && x < y);  // NaN last
    return a > b || (a == b && x < y);
  });
  return candidates;
}

std::vector<size_t> select(const std::vector<Box>& boxes, const std::vector<size_t>& order, double iou_limit,
                           size_t max_out) {
  std::vector<size_t> out;
  Kept kept;
  if (!grid_applies(boxes, order, iou_limit)) {
    for (size_t i : order) {
      if (out.size() >= max_out) break;
      if (!kept.any_exceeds(boxes[i], iou_limit)) kept.add(boxes[i]), out.push_back(i);
    }
    return out;
  }
  Grid grid(boxes, order);
  for (size_t i : order) {
    if (out.size() >= max_out) break;
    if (grid.any_exceeds(boxes[i], kept, iou_limit)) continue;
    grid.add(boxes[i], uint32_t(kept.size()));
    kept.add(boxes[i]), out.push_back(i);
  }
  return out;
}

}  // namespace scorch::vision::suppression
