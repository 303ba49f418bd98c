#pragma once
// The circle task of examples/pytorch-import and examples/onnx-inference: points on a grid over [-1.5, 1.5]², each
// labelled 1 when it lies inside the unit circle, and the share of them a model's predictions get right.
#include <cstdint>
#include <iostream>
#include <vector>

namespace circle {

/// n × n grid points as [x, y] pairs, row-major, and their labels.
struct Grid {
  std::vector<float> points;
  std::vector<int64_t> inside;
};

inline Grid grid(size_t n) {
  Grid g;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) {
      float x = -1.5f + 3.0f * i / (n - 1), y = -1.5f + 3.0f * j / (n - 1);
      g.points.insert(g.points.end(), {x, y});
      g.inside.push_back(x * x + y * y < 1 ? 1 : 0);
    }
  return g;
}

/// Prints the percentage of the grid's labels the predicted classes match.
inline void print_accuracy(const std::vector<int64_t>& predicted, const Grid& g) {
  size_t right = 0;
  for (size_t k = 0; k < g.inside.size(); ++k) right += predicted[k] == g.inside[k];
  std::cout << "grid accuracy: " << 100.0 * double(right) / double(g.inside.size()) << "% of " << g.inside.size()
            << " points\n";
}

}  // namespace circle
