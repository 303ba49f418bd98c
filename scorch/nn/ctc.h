#pragma once
// Connectionist temporal classification loss: the negative log-likelihood of each target
// sequence summed over all its alignments, by the forward (alpha) recursion in log space. Built
// from tensor ops, so its gradient comes from autodiff.
#include "scorch/nn/loss.h"

namespace scorch::nn {

struct CtcLoss;

/// CTC settings: the blank class and whether infinite losses (impossible alignments) become 0.
struct CtcLossConfig {
  size_t blank = 0;
  bool zero_infinity = false;
  SCORCH_CONFIG(CtcLossConfig, (), (blank, zero_infinity))
  CtcLoss init() const;
};

struct CtcLoss {
  size_t blank = 0;
  bool zero_infinity = false;

  /// log_probs [T, batch, classes] (log-softmax outputs), targets Int [batch, S] (padded),
  /// input_lengths and target_lengths Int [batch]. Mean divides each loss by its target
  /// length before averaging (PyTorch's rule).
  template <class B> Tensor<B, 1> forward(const Tensor<B, 3>& log_probs, const Tensor<B, 2, Int>& targets,
                                          const Tensor<B, 1, Int>& input_lengths,
                                          const Tensor<B, 1, Int>& target_lengths,
                                          Reduction reduction = Reduction::Mean) const {
    auto [steps, batch, classes] = log_probs.dims();
    check(log_probs.shape(), targets.shape(), input_lengths.shape(), target_lengths.shape());
    size_t labels = 2 * targets.shape()[1] + 1;
    auto device = log_probs.device();
    auto ext = extended(targets, labels);      // [batch, L]: blank, t1, blank, t2, ...
    auto skip_ok = skip_allowed(ext, labels);  // may come from s − 2
    const double neg = -1e30;
    auto emit = [&](size_t t) {
      return log_probs.slice_dim(0, Slice(static_cast<int64_t>(t))).template squeeze_dim<2>(0).gather(1, ext);
    };
    auto first = Tensor<B, 1, Int>::arange(0, static_cast<int64_t>(labels), device)
                     .template reshape<2>({size_t{1}, labels})
                     .expand_to({batch, labels});
    auto alpha = emit(0).mask_fill(first.greater_elem(Scalar(int64_t{1})), neg);
    auto lengths = input_lengths.template reshape<2>({batch, size_t{1}}).expand_to({batch, labels});
    for (size_t t = 1; t < steps; ++t) {
      auto pad = Tensor<B, 2>::full({batch, size_t{1}}, Scalar(neg), device, alpha.dtype());
      auto pad2 = Tensor<B, 2>::full({batch, size_t{2}}, Scalar(neg), device, alpha.dtype());
      auto a1 = Tensor<B, 2>::cat({pad, alpha.slice_dim(1, Slice(0, static_cast<int64_t>(labels) - 1))}, 1);
      auto a2 = Tensor<B, 2>::cat({pad2, alpha.slice_dim(1, Slice(0, static_cast<int64_t>(labels) - 2))}, 1)
                    .mask_fill(skip_ok.bool_not(), neg);
      auto m = alpha.max_pair(a1).max_pair(a2);
      auto next = m + ((alpha - m).exp() + (a1 - m).exp() + (a2 - m).exp()).log() + emit(t);
      alpha = alpha.mask_where(lengths.greater_elem(Scalar(static_cast<int64_t>(t))), next);
    }
    auto last = (target_lengths * int64_t{2}).template reshape<2>({batch, size_t{1}});
    auto end_a = alpha.gather(1, last), end_b = alpha.gather(1, (last - int64_t{1}).clamp_min(Scalar(int64_t{0})));
    end_b = end_b.mask_fill(target_lengths.template reshape<2>({batch, size_t{1}}).equal_elem(Scalar(int64_t{0})), neg);
    auto m = end_a.max_pair(end_b);
    auto loss = -(m + ((end_a - m).exp() + (end_b - m).exp()).log()).template reshape<1>({batch});
    if (zero_infinity) loss = loss.mask_fill(loss.greater_elem(1e29), 0.0);
    if (reduction == Reduction::Sum) return loss.sum();
    return (loss / target_lengths.float_().clamp_min(1.0)).mean();
  }

 private:
  void check(const Shape& lp, const Shape& targets, const Shape& in_len, const Shape& tgt_len) const;
  template <class B> Tensor<B, 2, Int> extended(const Tensor<B, 2, Int>& targets, size_t labels) const {
    size_t batch = targets.shape()[0];
    auto blanks =
        Tensor<B, 2, Int>::full({batch, targets.shape()[1]}, Scalar(static_cast<int64_t>(blank)), targets.device());
    auto interleaved = Tensor<B, 2, Int>::stack({blanks, targets}, 2).template reshape<2>({batch, labels - 1});
    auto tail = Tensor<B, 2, Int>::full({batch, size_t{1}}, Scalar(static_cast<int64_t>(blank)), targets.device());
    return Tensor<B, 2, Int>::cat({interleaved, tail}, 1);
  }
  template <class B> Tensor<B, 2, Bool> skip_allowed(const Tensor<B, 2, Int>& ext, size_t labels) const {
    size_t batch = ext.shape()[0];
    auto fill = Tensor<B, 2, Int>::full({batch, size_t{2}}, Scalar(static_cast<int64_t>(blank)), ext.device());
    auto prev2 = Tensor<B, 2, Int>::cat({fill, ext.slice_dim(1, Slice(0, static_cast<int64_t>(labels) - 2))}, 1);
    return ext.not_equal_elem(Scalar(static_cast<int64_t>(blank))).bool_and(ext.not_equal(prev2));
  }
};

inline CtcLoss CtcLossConfig::init() const { return {blank, zero_infinity}; }

}  // namespace scorch::nn
