#pragma once
// A backend extension, after the book's "Custom Kernel" chapter: relu(lhs·rhs + bias) as one op.
//  - MatmulAddRelu<B> is the extension point. Its default composes existing ops, so every
//    backend supports the op without extra work.
//  - MatmulAddRelu<Cpu> replaces it with a custom kernel: the matmul writes a fresh buffer and
//    the bias add and relu then run in one pass over it.
//  - MatmulAddRelu<Autodiff<B>> makes the op trainable. The forward runs B's kernel (custom on
//    Cpu) through the same Graph helper every built-in op uses, and the backward is written
//    by hand: the relu mask, then a matmul with each transposed input.
#include <algorithm>
#include <array>

#include <scorch/scorch.hpp>

namespace custom {

using namespace scorch;
using scorch::backends::cpu::CpuTensor;

/// relu(lhs·rhs + bias) from existing ops of backend B.
template <class B> typename B::FloatTensor composed(typename B::FloatTensor lhs, typename B::FloatTensor rhs,
                                                    typename B::FloatTensor bias) {
  using F = KindOps<B, Float>;
  return F::relu(F::add(F::matmul(std::move(lhs), std::move(rhs)), std::move(bias)));
}

/// relu(lhs·rhs + bias) on backend B; the default is the composition.
template <class B> struct MatmulAddRelu {
  using P = typename B::FloatTensor;
  static P forward(P lhs, P rhs, P bias) { return composed<B>(std::move(lhs), std::move(rhs), std::move(bias)); }
};

/// Cpu: a custom kernel for f32 with a row-vector bias (anything else takes the default).
template <> struct MatmulAddRelu<Cpu> {
  static CpuTensor forward(CpuTensor lhs, CpuTensor rhs, CpuTensor bias) {
    size_t n = rhs.shape()[rhs.shape().rank() - 1];
    if (lhs.dtype() != DType::F32 || bias.numel() != n)
      return composed<Cpu>(std::move(lhs), std::move(rhs), std::move(bias));
    CpuTensor out = Cpu::float_matmul(std::move(lhs), std::move(rhs));
    CpuTensor b = backends::cpu::contiguous(std::move(bias));
    float* o = out.data<float>();
    const float* bv = b.data<float>();
    for (size_t row = 0, rows = out.numel() / n; row < rows; ++row)
      for (size_t j = 0; j < n; ++j) o[row * n + j] = std::max(o[row * n + j] + bv[j], 0.f);
    return out;
  }
};

/// Autodiff<B>: forward through B's kernel, backward by hand.
template <class B> struct MatmulAddRelu<Autodiff<B>> {
  using T = autodiff::AutodiffTensor<B>;
  static T forward(T lhs, T rhs, T bias) {
    using namespace autodiff;
    using I = KindOps<B, Float>;
    auto fwd = [](auto in) { return MatmulAddRelu<B>::forward(std::move(in[0]), std::move(in[1]), std::move(in[2])); };
    auto bwd = [](auto& c) {
      auto g = I::mask_fill(c.grad(), I::lower_equal_elem(c.output(), Scalar(0)), Scalar(0));  // relu backward
      size_t r = g.shape().rank();
      c.to(0, [&] { return I::matmul(g, I::swap_dims(c.input(1), r - 2, r - 1)); });
      c.to(1, [&] { return I::matmul(I::swap_dims(c.input(0), r - 2, r - 1), g); });
      c.to(2, [&] { return g; });  // summed over the rows the bias was broadcast to
    };
    // needs: lhs's gradient reads rhs and the output, rhs's reads lhs and the output, bias's the output.
    return Graph<B>::op("fused_matmul_add_relu", Bound::Compute,
                        std::array<T, 3>{std::move(lhs), std::move(rhs), std::move(bias)},
                        {in(1) | kOut, in(0) | kOut, kOut}, fwd, bwd);
  }
};

/// relu(lhs·rhs + bias) for tensors of any backend; trainable on Autodiff<B>.
template <class B, size_t D>
Tensor<B, D> fused_matmul_add_relu(const Tensor<B, D>& lhs, const Tensor<B, D>& rhs, const Tensor<B, D>& bias) {
  check::matmul(lhs.shape(), rhs.shape());
  if (bias.dims()[D - 1] != rhs.dims()[D - 1])
    throw ShapeError("fused_matmul_add_relu",
                     "bias " + bias.shape().to_string() + " does not match rhs " + rhs.shape().to_string());
  return Tensor<B, D>(MatmulAddRelu<B>::forward(lhs.primitive(), rhs.primitive(), bias.primitive()));
}

}  // namespace custom
