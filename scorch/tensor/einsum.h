#pragma once
// einsum in the Tensor API (torch.einsum), on every backend and differentiable on Autodiff<B>: the equation is
// planned once on the host (einsum_plan.h) and run as the backend's own diagonal masks, sums, permutes and batched
// matmuls, the pair of operands with the smallest result contracted first.
//   auto scores = einsum<"bhqd,bhkd->bhqk">(q, k);     // rank checked at compile time: Tensor<B, 4>
//   auto y = einsum<2>("ij,jk->ik", a, b);             // equation read at run time, result rank given
#include <algorithm>
#include <array>
#include <string_view>
#include <vector>

#include "scorch/tensor/einsum_plan.h"
#include "scorch/tensor/tensor.h"

namespace scorch {

namespace einsum_detail {

/// An equation as a template argument (einsum<"ij,jk->ik">): its text, read at compile time.
template <size_t N> struct Equation {
  char text[N]{};
  constexpr Equation(const char (&s)[N]) { std::copy(s, s + N, text); }  // NOLINT: implicit by design
  constexpr std::string_view view() const { return {text, N - 1}; }
};

/// The ones on the diagonal of dims dim and other (both n) of a rank-`rank` tensor, other dims of size 1.
template <class B> typename B::FloatTensor diagonal_mask(size_t n, size_t rank, size_t dim, size_t other, DType dtype,
                                                         const typename B::Device& device) {
  std::vector<double> eye(n * n, 0.0);
  for (size_t i = 0; i < n; ++i) eye[i * n + i] = 1.0;
  std::vector<size_t> dims(rank, 1);
  dims[dim] = dims[other] = n;
  return KindOps<B, Float>::from_data(TensorData(eye, Shape(dims)).convert(dtype), device);
}

/// x permuted (unless perm is the identity or empty) and broadcast to full (unless it has that shape already).
template <class B>
typename B::FloatTensor arrange(typename B::FloatTensor x, const std::vector<size_t>& perm, const Shape& full) {
  using O = KindOps<B, Float>;
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == i;
  if (!identity) x = O::permute(std::move(x), perm);
  if (full.rank() != 0 && x.shape() != full) x = O::expand(std::move(x), full);
  return x;
}

/// Runs plan over the operands' primitives (all of one dtype, on device); the result has plan.output's shape.
template <class B> typename B::FloatTensor run(const Plan& plan, std::vector<typename B::FloatTensor> terms,
                                               const typename B::Device& device) {
  using O = KindOps<B, Float>;
  for (const Step& s : plan.steps) {
    auto& x = terms[s.term];
    switch (s.kind) {
      case Step::Kind::Diagonal: {
        auto mask = diagonal_mask<B>(x.shape()[s.dim], x.shape().rank(), s.dim, s.other, x.dtype(), device);
        x = O::reshape(O::sum_dim(O::mul(std::move(x), std::move(mask)), s.other), s.shape);
        break;
      }
      case Step::Kind::Sum: x = O::reshape(O::sum_dim(std::move(x), s.dim), s.shape); break;
      case Step::Kind::Contract: {
        auto a = O::reshape(arrange<B>(std::move(x), s.perm, s.full_shape), s.three);
        auto b = O::reshape(arrange<B>(std::move(terms[s.other]), s.other_perm, s.other_full_shape), s.other_three);
        x = O::reshape(O::matmul(std::move(a), std::move(b)), s.shape);
        break;
      }
      case Step::Kind::Finish: x = O::reshape(arrange<B>(std::move(x), s.perm, s.full_shape), s.shape); break;
    }
  }
  return std::move(terms[plan.result]);
}

/// The operands' primitives after checking that each holds values and that they share a dtype.
template <class B, size_t... D> std::vector<typename B::FloatTensor> primitives(const Tensor<B, D>&... operands) {
  std::vector<typename B::FloatTensor> out{operands.primitive("einsum")...};
  for (const auto& p : out) check::same_dtype("einsum", out.front().dtype(), p.dtype());
  return out;
}

/// The device of the first operand.
template <class B, size_t D0, size_t... D>
typename B::Device first_device(const Tensor<B, D0>& first, const Tensor<B, D>&...) {
  return first.device();
}

}  // namespace einsum_detail

/// The Einstein sum `equation` names over the operands (torch.einsum): letters a-z and A-Z name dims, "..." the
/// broadcast ones, "->" the output (without it: the broadcast dims, then the letters used once, in ASCII order);
/// a letter repeated in an operand takes its diagonal, a letter absent from the output is summed, size-1 dims
/// broadcast. DOut is the output's rank (1 for a scalar, as [1]). Float operands of one dtype, on one device.
/// Throws ValueError / ShapeError "[einsum] ..." naming the equation and the shapes when they do not fit.
template <size_t DOut, class B, size_t... D>
Tensor<B, DOut> einsum(std::string_view equation, const Tensor<B, D>&... operands) {
  static_assert(sizeof...(D) >= 1, "einsum needs at least one operand");
  auto primitives = einsum_detail::primitives(operands...);  // empty handles and mixed dtypes throw first
  auto plan = einsum_detail::plan(equation, std::vector<Shape>{operands.shape()...});
  if (plan.output.rank() != DOut)
    throw ShapeError("einsum", "'" + std::string(equation) + "' gives a result of shape " + plan.output.to_string() +
                                   ", not the rank " + std::to_string(DOut) + " asked for (einsum<" +
                                   std::to_string(plan.output.rank()) + ">)");
  auto device = einsum_detail::first_device(operands...);
  return Tensor<B, DOut>(einsum_detail::run<B>(plan, std::move(primitives), device));
}

/// einsum with the equation a template argument: einsum<"bhqd,bhkd->bhqk">(q, k). The operand count and ranks are
/// checked and the result's rank deduced at compile time (sizes at run time).
template <einsum_detail::Equation E, class B, size_t... D> auto einsum(const Tensor<B, D>&... operands) {
  constexpr int rank = einsum_detail::output_rank(E.view(), std::array<size_t, sizeof...(D)>{D...});
  static_assert(rank >= 0,
                "einsum: the equation does not fit the operands (one term per operand, one letter per dim or "
                "'...' for several, letters a-z/A-Z, each output letter once and in some operand)");
  return einsum<size_t(std::max(rank, 1))>(E.view(), operands...);
}

}  // namespace scorch
