#pragma once
// Between Scorch and ATen, for backends/libtorch/*.cpp only (it includes LibTorch): dtype and
// device maps, handle <-> at::Tensor, the uniqueness test behind in-place reuse, and the guard
// that turns LibTorch's errors into scorch::Error.
#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <string>
#include <vector>

#include "scorch/backends/libtorch/ops.h"
#include "scorch/core/error.h"

namespace scorch::backends::libtorch::detail {

at::ScalarType to_torch(DType dtype);
DType from_torch(at::ScalarType type);
at::Device to_torch(TorchDevice device);
TorchDevice from_torch(const at::Device& device);
/// LibTorch options for a new tensor of dtype on device.
at::TensorOptions options(DType dtype, TorchDevice device);
/// Shape's dims as LibTorch sizes.
std::vector<int64_t> sizes(const Shape& shape);
std::vector<int64_t> sizes(const std::vector<size_t>& dims);

/// Another reference to t's tensor.
at::Tensor get(const TorchTensor& t);
/// t's tensor, moved out of t (left empty): unique when t was its only handle.
at::Tensor take(TorchTensor& t);
/// A handle owning x.
TorchTensor wrap(at::Tensor x);
/// True when x's values may be overwritten: x is the only reference to its tensor and storage.
bool unique(const at::Tensor& x);
/// s converted to integer dtype's storage type and back (wrapping, as Scalar::as does).
int64_t wrapped_int(DType dtype, Scalar s);
/// s as a LibTorch scalar of dtype's kind (floats as double, ints wrapped into dtype, bools as bool).
at::Scalar scalar_for(DType dtype, Scalar s);
/// True for f16/bf16 on the host, which ops compute in f32 (as the Cpu backend does).
bool low_precision_host(const at::Tensor& x);
/// x, widened to f32 when low_precision_host(x).
at::Tensor widened(const at::Tensor& x);
/// Attention's scores q·kᵀ·scale with -inf where mask is true and, when causal, where key j > query i
/// (torch_fused.cpp).
at::Tensor attention_scores(const at::Tensor& q, const at::Tensor& k, const std::optional<TorchTensor>& mask,
                            double scale, bool causal);
/// probs ∘ the attention dropout factors of DropoutMask (probs itself without dropout), the mask built on the host.
at::Tensor attention_dropped(const at::Tensor& probs, const AttentionDropout& dropout);
/// Throws ShapeError unless every index is in [0, size).
void check_indices(const char* op, const at::Tensor& indices, int64_t size);
/// Throws ValueError if an integer divisor holds a zero.
void check_divisor(const char* op, const at::Tensor& divisor);
/// The first line of a LibTorch error message.
std::string first_line(const char* message);

/// Runs body with LibTorch's autograd off; LibTorch errors become ValueError/ShapeError of op.
template <class F> auto guarded(const char* op, F&& body) {
  try {
    c10::InferenceMode no_autograd;
    return body();
  } catch (const scorch::Error&) { throw; } catch (const c10::IndexError& e) {
    throw ShapeError(op, first_line(e.what_without_backtrace()));
  } catch (const c10::Error& e) { throw ValueError(op, "LibTorch: " + first_line(e.what_without_backtrace())); }
}

}  // namespace scorch::backends::libtorch::detail
