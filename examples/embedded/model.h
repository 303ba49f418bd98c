#pragma once
// The guide's CNN (examples/guide/model.hpp) for the micro runtime: the same layers, read from the same record by
// name, wired once at start-up. Compiled both into the firmware (errors as a Status) and into the hosted prepare
// step (errors thrown), which plans the arena the firmware reserves.
#include <scorch/micro/micro.h>

namespace embedded {

namespace micro = scorch::micro;

/// images [1, 1, 28, 28] (normalized as the guide's batcher) → logits [1, num_classes].
struct DigitModel {
  micro::Conv2d conv1, conv2;
  micro::Relu relu;
  micro::AdaptiveAvgPool2d pool{8, 8};
  micro::Flatten flatten{1};
  micro::Linear linear1, linear2;
  micro::Graph<12> graph;

  // [book:model]
  /// Loads the weights and plans the graph; graph.arena_bytes() is then the arena run() needs.
  micro::Status build(const micro::WeightTable& weights) {
    SCORCH_MICRO_TRY(conv1.load(weights, "conv1"));
    SCORCH_MICRO_TRY(conv2.load(weights, "conv2"));
    SCORCH_MICRO_TRY(linear1.load(weights, "linear1"));
    SCORCH_MICRO_TRY(linear2.load(weights, "linear2"));
    micro::Value x = graph.input({1, 1, 28, 28});
    x = graph.add(conv1, x);  // the guide applies its activation after conv2 only
    x = graph.add(relu, graph.add(conv2, x));
    x = graph.add(flatten, graph.add(pool, x));
    x = graph.add(relu, graph.add(linear1, x));
    return graph.finish(graph.add(linear2, x));
  }
  // [/book:model]
  /// The number of classes (linear2's outputs).
  uint32_t classes() const { return linear2.d_output(); }
};

/// Normalizes 28×28 pixels as the guide's batcher: ((p / 255) − 0.1307) / 0.3081.
inline void normalize(const uint8_t* pixels, float* out) {
  for (int i = 0; i < 28 * 28; ++i) out[i] = (pixels[i] / 255.0f - 0.1307f) / 0.3081f;
}

/// The index of the largest logit (the first on ties).
inline uint32_t argmax(const float* logits, uint32_t n) {
  uint32_t best = 0;
  for (uint32_t i = 1; i < n; ++i) best = logits[i] > logits[best] ? i : best;
  return best;
}

}  // namespace embedded
