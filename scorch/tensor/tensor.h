#pragma once
// Tensor<B, D, K>: a thin handle over one backend primitive. D is the static rank, K the kind
// (Float, Int, Bool). Methods check their arguments and call the backend through KindOps.
// Method groups live in mixins (tensor_*.h) so each stays small; Tensor joins them.
#include <array>
#include <concepts>
#include <cstddef>
#include <string>
#include <utility>

#include "scorch/backend/concepts.h"
#include "scorch/gen/kind_ops.h"
#include "scorch/core/distribution.h"
#include "scorch/core/tensor_data.h"
#include "scorch/tensor/autocast_policy.h"
#include "scorch/tensor/checks.h"
#include "scorch/tensor/nested.h"

namespace scorch {

template <class B, size_t D, class K = Float> class Tensor;

/// Kinds with arithmetic (Float, Int).
template <class K>
concept NumericKind = std::same_as<K, Float> || std::same_as<K, Int>;
/// The Float kind.
template <class K>
concept FloatKind = std::same_as<K, Float>;
/// The Int kind.
template <class K>
concept IntKind = std::same_as<K, Int>;
/// The Bool kind.
template <class K>
concept BoolKind = std::same_as<K, Bool>;

/// The C++ type of a kind's literal elements.
template <class K> struct LiteralElem { using type = double; };
template <> struct LiteralElem<Int> { using type = int64_t; };
template <> struct LiteralElem<Bool> { using type = bool; };

namespace detail {
/// Checks that a and b broadcast and share a dtype, then wraps f(a, b)'s primitive as Out;
/// a is taken by value so a temporary hands its buffer on.
/// Inside an autocast scope, float operands of different dtypes first meet in the wider one.
template <class Out, class T, class F> Out checked_binary(const char* op, T a, const T& b, F f) {
  if (a.is_empty() || b.is_empty()) [[unlikely]]
    check::empty_operand(op, a.is_empty() ? "lhs" : "rhs");
  check::broadcast(op, a.shape(), b.shape());
  if constexpr (std::same_as<typename T::Kind, Float>) {
    if (a.dtype() != b.dtype() && amp::autocast_dtype()) {
      auto [wide_a, wide_b] = amp::to_common(std::move(a), b);
      return Out(f(std::move(wide_a).into_primitive(), wide_b.primitive()));
    }
  }
  check::same_dtype(op, a.dtype(), b.dtype());
  return Out(f(std::move(a).into_primitive(), b.primitive()));
}
}  // namespace detail

}  // namespace scorch

#include "scorch/tensor/tensor_autodiff.h"
#include "scorch/tensor/tensor_float.h"
#include "scorch/tensor/tensor_index.h"
#include "scorch/tensor/tensor_int_bool.h"
#include "scorch/tensor/tensor_numeric.h"
#include "scorch/tensor/tensor_ordered.h"
#include "scorch/tensor/tensor_shape.h"

namespace scorch {

template <class B, size_t D, class K> class Tensor : public ShapeMethods<B, D, K>,
                                                     public IndexMethods<B, D, K>,
                                                     public NumericMethods<B, D, K>,
                                                     public OrderedMethods<B, D, K>,
                                                     public FloatMethods<B, D, K>,
                                                     public IntBoolMethods<B, D, K>,
                                                     public AutodiffMethods<B, D, K> {
  static_assert(D >= 1 && D <= kMaxRank, "Tensor rank must be between 1 and kMaxRank");

 public:
  /// The backend the tensor lives on.
  using Backend = B;
  /// Float, Int or Bool.
  using Kind = K;
  /// The backend's device type.
  using Device = typename B::Device;
  /// The backend's primitive for this kind (what Ops take and return).
  using Primitive = typename K::template Primitive<B>;
  /// The backend's ops for this kind.
  using Ops = KindOps<B, K>;
  /// The C++ type of literals of this kind: double, int64_t or bool.
  using Elem = typename LiteralElem<K>::type;
  /// The rank D, checked at compile time.
  static constexpr size_t kRank = D;
  using FloatMethods<B, D, K>::int_;  // Float → Int and Bool → Int share the name
  using IntBoolMethods<B, D, K>::int_;

  /// An empty handle (no values, shape []); an op on it throws "[op] tensor is empty". Assign a tensor first.
  Tensor() = default;
  /// Wraps a primitive (rank trusted; use from_primitive to check it).
  explicit Tensor(Primitive p) : prim_(std::move(p)), present_(true) {}
  Tensor(const Tensor&) = default;
  /// Copies share the values (a handle copy, no data copy).
  Tensor& operator=(const Tensor&) = default;
  /// Moving leaves other empty, as a default-constructed handle.
  Tensor(Tensor&& other) noexcept : prim_(std::move(other.prim_)), present_(std::exchange(other.present_, false)) {}
  /// Moving leaves other empty.
  Tensor& operator=(Tensor&& other) noexcept {
    if (this != &other) {
      prim_ = std::move(other.prim_);
      present_ = std::exchange(other.present_, false);
    }
    return *this;
  }
  /// Wraps a primitive after checking its rank is D.
  static Tensor from_primitive(Primitive p) {
    check::rank("from_primitive", D, p.shape());
    return Tensor(std::move(p));
  }
  /// True for a default-constructed or moved-from handle (no values).
  bool is_empty() const { return !present_; }
  /// Throws "[op] tensor is empty" for an empty handle, op being the calling function (where's default) or the name
  /// passed.
  void require_values(const char* where = __builtin_FUNCTION()) const {
    if (!present_) [[unlikely]]
      check::empty_tensor(where);
  }
  /// The primitive, shared (cheap: reference counted); an empty handle throws, naming the calling op.
  const Primitive& primitive(const char* where = __builtin_FUNCTION()) const& {
    require_values(where);
    return prim_;
  }
  /// The primitive, moved out (the handle becomes empty): lets the next op reuse the buffer.
  Primitive into_primitive(const char* where = __builtin_FUNCTION()) && {
    require_values(where);
    present_ = false;
    return std::move(prim_);
  }
  Primitive into_primitive(const char* where = __builtin_FUNCTION()) const& {
    require_values(where);
    return prim_;
  }

  // ---- creation
  /// Uninitialized values of shape.
  static Tensor empty(const Shape& shape, const Device& device = {}) {
    check::rank("empty", D, shape);
    return Tensor(Ops::empty(shape, device, K::default_dtype));
  }
  /// Zeros of shape.
  static Tensor zeros(const Shape& shape, const Device& device = {}) { return full(shape, Scalar(0), device); }
  /// Ones of shape.
  static Tensor ones(const Shape& shape, const Device& device = {}) { return full(shape, Scalar(1), device); }
  /// shape filled with value.
  static Tensor full(const Shape& shape, Scalar value, const Device& device = {}, DType dtype = K::default_dtype) {
    check::rank("full", D, shape);
    check::data_kind("full", dtype, dtype_fits_kind<K>(dtype), K::name.data());
    return Tensor(Ops::full(shape, value, device, dtype));
  }
  /// A nested literal, e.g. {{2., 3.}, {4., 5.}}, stored in the kind's default dtype.
  static Tensor from_data(nested_t<Elem, D> literal, const Device& device = {}) {
    auto [values, shape] = flatten_nested<Elem, D>(literal);
    return from_data(TensorData(values, shape).convert(K::default_dtype), device);
  }
  /// Host data; kept in its dtype when it fits the kind, else converted to the kind's default.
  template <std::same_as<TensorData> Data> static Tensor from_data(const Data& data, const Device& device = {}) {
    check::rank("from_data", D, data.shape());
    if (dtype_fits_kind<K>(data.dtype())) return Tensor(Ops::from_data(data, device));
    return Tensor(Ops::from_data(data.convert(K::default_dtype), device));
  }
  /// Values drawn from dist (float kinds; ints take the floor of the draw).
  static Tensor random(const Shape& shape, Distribution dist, const Device& device = {}) requires(!BoolKind<K>) {
    check::rank("random", D, shape);
    return Tensor(Ops::random(shape, dist, device, K::default_dtype));
  }
  /// Uninitialized values of the same shape, dtype and device.
  Tensor empty_like() const {
    require_values("empty_like");
    return Tensor(Ops::empty(shape(), device(), dtype()));
  }
  /// Zeros of the same shape, dtype and device.
  Tensor zeros_like() const {
    require_values("zeros_like");
    return full_like(Scalar(0));
  }
  /// Ones of the same shape, dtype and device.
  Tensor ones_like() const {
    require_values("ones_like");
    return full_like(Scalar(1));
  }
  /// value everywhere, same shape, dtype and device.
  Tensor full_like(Scalar value) const {
    require_values("full_like");
    return Tensor(Ops::full(shape(), value, device(), dtype()));
  }
  /// The same as other.zeros_like() etc., in the book's `Tensor::<B, D>::ones_like(&t)` form.
  static Tensor zeros_like(const Tensor& other) { return other.zeros_like(); }
  /// other.ones_like().
  static Tensor ones_like(const Tensor& other) { return other.ones_like(); }
  /// other.full_like(value).
  static Tensor full_like(const Tensor& other, Scalar value) { return other.full_like(value); }
  /// Values drawn from dist, same shape, dtype and device.
  Tensor random_like(Distribution dist) const requires(!BoolKind<K>) {
    require_values("random_like");
    return Tensor(Ops::random(shape(), dist, device(), dtype()));
  }

  // ---- metadata
  /// The dims as an array (structured bindings: auto [b, h, w] = x.dims()); an empty handle throws.
  std::array<size_t, D> dims() const {
    require_values("dims");
    return prim_.shape().template dims<D>();
  }
  /// The shape; [] for an empty handle.
  Shape shape() const { return present_ ? prim_.shape() : Shape{}; }
  /// The rank D (a compile-time constant).
  static constexpr size_t rank() { return D; }
  /// The element type of the values.
  DType dtype() const {
    require_values("dtype");
    return prim_.dtype();
  }
  /// The device holding the values.
  Device device() const {
    require_values("device");
    return prim_.device();
  }
  /// The number of values; 0 for an empty handle.
  size_t num_elements() const { return present_ ? prim_.shape().num_elements() : 0; }

  // ---- data out (waits for async backends)
  /// The values on the host (waits for async backends); an rvalue hands its buffer over and is left empty.
  TensorData into_data() && {
    require_values("into_data");
    present_ = false;
    return Ops::into_data(std::move(prim_));
  }
  TensorData into_data() const& {
    require_values("into_data");
    return Ops::into_data(prim_);
  }
  /// The values on the host, the tensor kept (waits for async backends).
  TensorData to_data() const {
    require_values("to_data");
    return Ops::into_data(prim_);
  }
  /// The single value of a one-element tensor; throws ShapeError otherwise.
  Scalar into_scalar() const {
    require_values("into_scalar");
    if (num_elements() != 1)
      throw ShapeError("into_scalar", "tensor of shape " + shape().to_string() + " has more than one value");
    return to_data().scalar_at(0);
  }
  /// The tensor on another device.
  Tensor to_device(const Device& target) const {
    require_values("to_device");
    return Tensor(Ops::to_device(prim_, target));
  }
  /// Values converted to another dtype of the same kind (Float: f64/f32/f16/bf16; Int: i64...u8).
  Tensor cast(DType target) const requires(!BoolKind<K>) {
    require_values("cast");
    check::data_kind("cast", target, dtype_fits_kind<K>(target), K::name.data());
    return Tensor(Ops::cast(prim_, target));
  }

 private:
  Primitive prim_;
  bool present_ = false;  ///< false for a default-constructed or moved-from handle
};

}  // namespace scorch

namespace scorch {

/// Rank-D mask of shape: over the last two dims, true where col - row >= offset (upper) or
/// col - row <= offset (lower); leading dims broadcast.
template <class B, size_t D>
Tensor<B, D, Bool> triangle_mask(const Shape& shape, int64_t offset, bool upper, const typename B::Device& device) {
  check::rank("triangle_mask", D, shape);
  if (D < 2) throw ShapeError("triangle_mask", "needs rank >= 2, got " + shape.to_string());
  size_t rows = shape[D - 2], cols = shape[D - 1];
  auto r = Tensor<B, 1, Int>::arange(0, static_cast<int64_t>(rows), device).template reshape<2>({rows, size_t{1}});
  auto c = Tensor<B, 1, Int>::arange(0, static_cast<int64_t>(cols), device).template reshape<2>({size_t{1}, cols});
  auto diff = c.sub(r);
  auto mask = upper ? diff.greater_equal_elem(Scalar(offset)) : diff.lower_equal_elem(Scalar(offset));
  Shape lifted = mask.shape();
  while (lifted.rank() < D) lifted.insert(0, 1);
  return mask.template reshape<D>(lifted).expand_to(shape);
}

}  // namespace scorch

#include "scorch/tensor/operators.h"
