#pragma once
// NamedTensor<B, Dims...>: a float tensor whose dims carry names checked by the compiler (Burn's named tensors).
// Names are types declared with SCORCH_NAMED_DIM; sizes stay run-time values. matmul, elementwise ops and dim swaps
// only compile when the names line up, so a [Batch, SeqLength, DModel] input cannot meet [Batch, DModel, SeqLength]
// weights by accident.
#include <array>
#include <concepts>
#include <ostream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "scorch/tensor/tensor.h"

/// Declares a dimension name: a type whose name() is its spelling.
#define SCORCH_NAMED_DIM(Name)                                 \
  struct Name {                                                \
    static constexpr std::string_view name() { return #Name; } \
  }

namespace scorch {

/// A type declared by SCORCH_NAMED_DIM.
template <class T>
concept NamedDim = requires {
  { T::name() } -> std::convertible_to<std::string_view>;
};

template <class B, NamedDim... Dims> class NamedTensor;

namespace named_detail {

template <class... Dims> struct List {};
template <class B, class L> struct FromList;
template <class B, class... Dims> struct FromList<B, List<Dims...>> { using type = NamedTensor<B, Dims...>; };

/// The dims with positions I and J exchanged.
template <size_t I, size_t J, class Tuple, size_t... K> auto swapped(std::index_sequence<K...>)
    -> List<std::tuple_element_t<(K == I   ? J
                                  : K == J ? I
                                           : K),
                                 Tuple>...>;

/// matmul's dims: the leading (batch) dims, the left operand's rows and the right operand's columns.
template <class Lhs, class Rhs, size_t... K> auto product(std::index_sequence<K...>)
    -> List<std::tuple_element_t<K, Lhs>..., std::tuple_element_t<sizeof...(K), Lhs>,
            std::tuple_element_t<sizeof...(K) + 1, Rhs>>;

/// Whether Lhs · Rhs is defined: same rank ≥ 2, the same leading dims, Lhs's last dim is Rhs's second-to-last.
template <class Lhs, class Rhs, size_t... K> constexpr bool multipliable(std::index_sequence<K...>) {
  constexpr size_t n = sizeof...(K) + 2;
  return (std::is_same_v<std::tuple_element_t<K, Lhs>, std::tuple_element_t<K, Rhs>> && ...) &&
         std::is_same_v<std::tuple_element_t<n - 1, Lhs>, std::tuple_element_t<n - 2, Rhs>>;
}

/// The position of Dim among Dims (Dims must name it exactly once).
template <class Dim, class... Dims> constexpr size_t position() {
  constexpr bool matches[] = {std::is_same_v<Dim, Dims>...};
  size_t found = 0;
  for (size_t i = 0; i < sizeof...(Dims); ++i)
    if (matches[i]) found = i;
  return found;
}
template <class Dim, class... Dims> constexpr size_t count = (size_t(std::is_same_v<Dim, Dims>) + ... + 0);

}  // namespace named_detail

template <class B, NamedDim... Dims> class NamedTensor {
 public:
  static constexpr size_t kRank = sizeof...(Dims);
  /// The leading dims a matmul keeps (0 below rank 2: the index sequence stays small when clang forms it eagerly).
  static constexpr size_t kBatchDims = kRank >= 2 ? kRank - 2 : 0;
  static_assert(kRank > 0, "NamedTensor needs at least one named dim");
  using Inner = Tensor<B, kRank>;
  using Device = typename B::Device;

  /// The tensor with its dims named Dims..., in order.
  explicit NamedTensor(Inner tensor) : tensor_(std::move(tensor)) {}
  /// Values drawn from distribution, of the given sizes (one per named dim).
  static NamedTensor random(const std::array<size_t, kRank>& sizes, Distribution distribution,
                            const Device& device = {}) {
    return NamedTensor(Inner::random(Shape(sizes), distribution, device));
  }
  /// Zeros of the given sizes.
  static NamedTensor zeros(const std::array<size_t, kRank>& sizes, const Device& device = {}) {
    return NamedTensor(Inner::zeros(Shape(sizes), device));
  }

  /// The unnamed tensor.
  const Inner& tensor() const { return tensor_; }
  /// The position of dim Dim (only for a Dim that Dims name exactly once).
  template <NamedDim Dim> static constexpr size_t index_of() requires(named_detail::count<Dim, Dims...> == 1) {
    return named_detail::position<Dim, Dims...>();
  }
  /// The size of dim Dim (only for a Dim that Dims name exactly once).
  template <NamedDim Dim> size_t size() const requires(named_detail::count<Dim, Dims...> == 1) {
    return tensor_.dims()[index_of<Dim>()];
  }

  /// The tensor with dims I and J exchanged (their names too).
  template <size_t I, size_t J> auto swap_dims() const requires(I < kRank && J < kRank) {
    using Swapped = decltype(named_detail::swapped<I, J, std::tuple<Dims...>>(std::make_index_sequence<kRank>{}));
    return typename named_detail::FromList<B, Swapped>::type(tensor_.swap_dims(int64_t(I), int64_t(J)));
  }
  /// The tensor with the dims named First and Second exchanged (each named exactly once).
  template <NamedDim First, NamedDim Second> auto swap_dims() const
      requires(named_detail::count<First, Dims...> == 1 && named_detail::count<Second, Dims...> == 1) {
    return swap_dims<index_of<First>(), index_of<Second>()>();
  }
  /// The same values with dim Old (named exactly once) called New.
  template <NamedDim Old, NamedDim New> auto rename() const requires(named_detail::count<Old, Dims...> == 1) {
    constexpr size_t at = index_of<Old>();
    return renamed<at, New>(std::make_index_sequence<kRank>{});
  }

  /// The batched matrix product: [..., Rows, Inner] · [..., Inner, Columns] → [..., Rows, Columns].
  template <NamedDim... Others> auto matmul(const NamedTensor<B, Others...>& other) const requires(
      sizeof...(Others) == kRank && kRank >= 2 &&
      named_detail::multipliable<std::tuple<Dims...>, std::tuple<Others...>>(std::make_index_sequence<kBatchDims>{})) {
    using Dims_ = decltype(named_detail::product<std::tuple<Dims...>, std::tuple<Others...>>(
        std::make_index_sequence<kBatchDims>{}));
    return typename named_detail::FromList<B, Dims_>::type(tensor_.matmul(other.tensor()));
  }

  /// Elementwise ops between tensors with the same names in the same order (sizes broadcast as Tensor's).
  NamedTensor operator+(const NamedTensor& other) const { return NamedTensor(tensor_ + other.tensor_); }
  NamedTensor operator-(const NamedTensor& other) const { return NamedTensor(tensor_ - other.tensor_); }
  NamedTensor operator*(const NamedTensor& other) const { return NamedTensor(tensor_ * other.tensor_); }
  NamedTensor operator*(double factor) const { return NamedTensor(tensor_ * factor); }

  /// "NamedTensor[Batch: 3, SeqLength: 10, DModel: 8]".
  std::string to_string() const {
    std::string text = "NamedTensor[";
    size_t i = 0;
    auto dims = tensor_.dims();
    ((text += (i ? ", " : "") + std::string(Dims::name()) + ": " + std::to_string(dims[i]), ++i), ...);
    return text + "]";
  }

 private:
  template <size_t At, class New, size_t... K> auto renamed(std::index_sequence<K...>) const {
    return NamedTensor<B, std::conditional_t<K == At, New, std::tuple_element_t<K, std::tuple<Dims...>>>...>(tensor_);
  }
  Inner tensor_;
};

/// Writes to_string().
template <class B, NamedDim... Dims> std::ostream& operator<<(std::ostream& out, const NamedTensor<B, Dims...>& t) {
  return out << t.to_string();
}

}  // namespace scorch
