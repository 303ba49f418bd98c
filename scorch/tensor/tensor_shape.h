#pragma once
// Shape methods of Tensor (every kind): reshape, squeeze, permute, expand, slice, cat, ...
#include <numeric>
#include <vector>

#include "scorch/tensor/dim_arg.h"

namespace scorch {

template <class B, size_t D, class K> class ShapeMethods {
  using Self = Tensor<B, D, K>;
  using Ops = KindOps<B, K>;
  template <size_t N> using Ranked = Tensor<B, N, K>;
  // self() and prim() throw "[method] tensor is empty" for an empty handle, naming the method that calls them.
  const Self& self(const char* where = __builtin_FUNCTION()) const {
    static_cast<const Self&>(*this).require_values(where);
    return static_cast<const Self&>(*this);
  }
  auto prim(const char* where = __builtin_FUNCTION()) const { return static_cast<const Self&>(*this).primitive(where); }

 public:
  /// Same values in a new shape of rank N; -1 infers one dim, a literal 0 keeps the source dim (a size_t 0 is
  /// a zero-size dim).
  template <size_t N> Ranked<N> reshape(const DimArg (&dims)[N]) const { return reshape_to<N>(reshape_values(dims)); }
  /// Same values in exactly the dims of another tensor's dims() or a Shape (0 is a zero-size dim here;
  /// templates, so braced lists pick the form above).
  template <size_t N, class A>
  requires std::same_as<A, std::array<size_t, N>> Ranked<N> reshape(const A& dims)
  const { return reshape_exact<N>(Shape(std::span<const size_t>(dims.data(), dims.size()))); }
  /// Same values in the dims of a Shape (its rank must be N).
  template <size_t N, std::same_as<Shape> S> Ranked<N> reshape(const S& shape) const { return reshape_exact<N>(shape); }
  /// Merges dims start..end (inclusive) into one; the result has rank N = D - (end - start).
  template <size_t N> Ranked<N> flatten(int64_t start, int64_t end) const {
    size_t s = check::dim("flatten", start, D), e = check::dim("flatten", end, D);
    if (s > e || N != D - (e - s))
      throw ShapeError("flatten", "dims " + std::to_string(s) + ".." + std::to_string(e) + " of rank " +
                                      std::to_string(D) + " cannot give rank " + std::to_string(N));
    Shape sh = self().shape(), out;
    for (size_t i = 0; i < D; ++i) {
      if (i <= s || i > e) out.push_back(sh[i]);
      else out[out.rank() - 1] *= sh[i];
    }
    return reshape_exact<N>(out);
  }
  /// Removes dim (which must have size 1).
  template <size_t N = D - 1> Ranked<N> squeeze(int64_t dim) const { return squeeze_dims<N>({dim}); }
  /// The same as squeeze(dim).
  template <size_t N = D - 1> Ranked<N> squeeze_dim(int64_t dim) const { return squeeze_dims<N>({dim}); }
  /// Removes the listed dims (each must have size 1).
  template <size_t N> Ranked<N> squeeze_dims(std::initializer_list<int64_t> dims) const {
    auto ds = check::dims("squeeze", std::vector<int64_t>(dims), D);
    std::sort(ds.begin(), ds.end());
    Shape sh = self().shape();
    for (size_t i = ds.size(); i-- > 0;) {
      check::squeezable(sh, ds[i]);
      sh.remove(ds[i]);
    }
    return reshape<N>(sh);
  }
  /// Adds leading dims of size 1 up to rank N.
  template <size_t N> Ranked<N> unsqueeze() const {
    static_assert(N >= D, "unsqueeze cannot lower the rank");
    Shape sh = self().shape();
    while (sh.rank() < N) sh.insert(0, 1);
    return reshape<N>(sh);
  }
  /// Inserts a dim of size 1 at dim (negative counts from the end of the result).
  template <size_t N = D + 1> Ranked<N> unsqueeze_dim(int64_t dim) const { return unsqueeze_dims<N>({dim}); }
  /// Inserts dims of size 1 at the listed positions of the result.
  template <size_t N> Ranked<N> unsqueeze_dims(std::initializer_list<int64_t> dims) const {
    auto ds = check::dims("unsqueeze", std::vector<int64_t>(dims), N);
    std::sort(ds.begin(), ds.end());
    Shape sh = self().shape();
    for (size_t d : ds) sh.insert(std::min(d, sh.rank()), 1);
    return reshape<N>(sh);
  }
  /// Exchanges dims a and b.
  Self swap_dims(int64_t a, int64_t b) const {
    return Self(Ops::swap_dims(prim(), check::dim("swap_dims", a, D), check::dim("swap_dims", b, D)));
  }
  /// Swaps the last two dims.
  Self transpose() const { return D < 2 ? self() : swap_dims(-2, -1); }
  /// The same as transpose().
  Self t() const { return transpose(); }
  /// Reorders dims: result dim i is source dim axes[i].
  Self permute(const std::array<int64_t, D>& axes) const {
    return Self(Ops::permute(prim(), check::permutation("permute", axes, D)));
  }
  /// Moves dim src to position dst, keeping the order of the others.
  Self movedim(int64_t src, int64_t dst) const {
    size_t s = check::dim("movedim", src, D), t = check::dim("movedim", dst, D);
    std::vector<size_t> order;
    for (size_t i = 0; i < D; ++i)
      if (i != s) order.push_back(i);
    order.insert(order.begin() + static_cast<std::ptrdiff_t>(t), s);
    return Self(Ops::permute(prim(), order));
  }
  /// Reverses the listed dims.
  Self flip(std::initializer_list<int64_t> axes) const {
    return Self(Ops::flip(prim(), check::dims("flip", std::vector<int64_t>(axes), D)));
  }
  /// Broadcasts to rank N dims (size-1 dims grow; -1 keeps a dim; new leading dims allowed).
  template <size_t N> Ranked<N> expand(const DimArg (&dims)[N]) const {
    Shape target = check::expand(self().shape(), dim_values(dims));
    Shape lifted = self().shape();
    while (lifted.rank() < N) lifted.insert(0, 1);
    auto p = Ops::reshape(prim(), lifted);
    return Ranked<N>(Ops::expand(std::move(p), target));
  }
  /// Sliding windows of size along dim with step; rank D + 1, the window is the last dim.
  Ranked<D + 1> unfold(int64_t dim, size_t size, size_t step) const {
    size_t d = check::dim("unfold", dim, D);
    check::positive("unfold", "step", static_cast<int64_t>(step));
    check::positive("unfold", "size", static_cast<int64_t>(size));
    return Ranked<D + 1>(Ops::unfold(prim(), d, size, step));
  }
  /// Rolls values along dim by shift (wrapping around).
  Self roll_dim(int64_t shift, int64_t dim) const {
    size_t d = check::dim("roll", dim, D);
    auto n = static_cast<int64_t>(self().shape()[d]);
    if (n == 0) return self();
    int64_t s = ((shift % n) + n) % n;
    if (s == 0) return self();
    return Self::cat({slice_dim(d, Slice(n - s, n)), slice_dim(d, Slice(0, n - s))}, static_cast<int64_t>(d));
  }
  /// Rolls along each listed dim by the matching shift.
  Self roll(std::initializer_list<int64_t> shifts, std::initializer_list<int64_t> dims) const {
    if (shifts.size() != dims.size()) throw ShapeError("roll", "shifts and dims differ in length");
    Self out = self();
    auto d = dims.begin();
    for (int64_t s : shifts) out = out.roll_dim(s, *d++);
    return out;
  }
  /// Repeats the whole tensor sizes[i] times along each dim i.
  Self repeat(const std::array<size_t, D>& sizes) const {
    Self out = self();
    for (size_t i = 0; i < D; ++i)
      if (sizes[i] != 1) out = out.repeat_dim(static_cast<int64_t>(i), sizes[i]);
    return out;
  }
  /// Repeats the tensor times along dim.
  Self repeat_dim(int64_t dim, size_t times) const {
    return Self(Ops::repeat_dim(prim(), check::dim("repeat_dim", dim, D), times));
  }

  // ---- slicing
  /// The sub-tensor selected by one Slice per leading dim (missing ones take the whole dim).
  Self slice(std::initializer_list<Slice> slices) const { return slice(std::vector<Slice>(slices)); }
  /// The same with the slices in a vector.
  Self slice(const std::vector<Slice>& slices) const {
    return Self(Ops::slice(prim(), check::slices("slice", self().shape(), slices)));
  }
  /// One dim sliced, the others whole.
  Self slice_dim(int64_t dim, Slice s) const {
    std::vector<Slice> all(check::dim("slice_dim", dim, D) + 1);
    all.back() = s;
    return slice(all);
  }
  /// A copy with the sliced region replaced by values (whose shape must be the region's).
  Self slice_assign(const std::vector<Slice>& slices, const Self& values) const {
    auto ranges = check::slices("slice_assign", self().shape(), slices);
    Shape region = self().shape();
    for (size_t i = 0; i < D; ++i) region[i] = ranges[i].length();
    if (!(region == values.shape()))
      throw ShapeError("slice_assign", "values " + values.shape().to_string() + " do not match the sliced region " +
                                           region.to_string());
    auto [base, fill] = amp::to_common(self(), values);  // promoted inside an autocast scope
    check::same_dtype("slice_assign", base.dtype(), fill.dtype());
    return Self(Ops::slice_assign(base.primitive(), ranges, fill.primitive()));
  }
  /// A copy with the sliced region filled with value.
  Self slice_fill(const std::vector<Slice>& slices, Scalar value) const {
    auto ranges = check::slices("slice_fill", self().shape(), slices);
    Shape region = self().shape();
    for (size_t i = 0; i < D; ++i) region[i] = ranges[i].length();
    return Self(Ops::slice_assign(prim(), ranges, Ops::full(region, value, self().device(), self().dtype())));
  }
  /// length values of dim starting at start.
  Self narrow(int64_t dim, size_t start, size_t length) const {
    size_t d = check::dim("narrow", dim, D);
    if (start + length > self().shape()[d])
      throw ShapeError("narrow", "start " + std::to_string(start) + " + length " + std::to_string(length) +
                                     " exceeds dim " + std::to_string(d) + " of " + self().shape().to_string());
    return slice_dim(static_cast<int64_t>(d), Slice(static_cast<int64_t>(start), static_cast<int64_t>(start + length)));
  }
  /// Splits dim into pieces of the given sizes.
  std::vector<Self> split_with_sizes(const std::vector<size_t>& sizes, int64_t dim) const {
    size_t d = check::dim("split_with_sizes", dim, D), total = 0;
    for (size_t s : sizes) total += s;
    if (total != self().shape()[d])
      throw ShapeError("split_with_sizes", "sizes sum to " + std::to_string(total) + ", dim " + std::to_string(d) +
                                               " of " + self().shape().to_string() + " has " +
                                               std::to_string(self().shape()[d]));
    std::vector<Self> out;
    size_t start = 0;
    for (size_t s : sizes) {
      out.push_back(narrow(static_cast<int64_t>(d), start, s));
      start += s;
    }
    return out;
  }
  /// Splits dim into pieces of split_size (the last may be smaller).
  std::vector<Self> split(size_t split_size, int64_t dim) const {
    check::positive("split", "split_size", static_cast<int64_t>(split_size));
    size_t n = self().shape()[check::dim("split", dim, D)];
    std::vector<size_t> sizes;
    for (size_t s = 0; s < n; s += split_size) sizes.push_back(std::min(split_size, n - s));
    return split_with_sizes(sizes, dim);
  }
  /// Splits dim into at most chunks pieces of equal size (the last may be smaller), like torch.chunk.
  std::vector<Self> chunk(size_t chunks, int64_t dim) const {
    check::positive("chunk", "chunks", static_cast<int64_t>(chunks));
    size_t n = self().shape()[check::dim("chunk", dim, D)];
    if (n == 0) return std::vector<Self>(chunks, self());  // as PyTorch: every chunk of an empty dim is empty
    return split(std::max<size_t>(1, (n + chunks - 1) / chunks), dim);
  }
  /// Each index of dim as a tensor that keeps dim with size 1.
  std::vector<Self> iter_dim(int64_t dim) const { return split(1, dim); }

  /// Concatenates tensors along dim.
  static Self cat(const std::vector<Self>& tensors, int64_t dim) {
    size_t d = check::dim("cat", dim, D);
    std::vector<Shape> shapes;
    std::vector<DType> dtypes;
    std::vector<typename Self::Primitive> prims;
    for (const Self& t : amp::to_widest(tensors)) {  // promoted inside an autocast scope
      shapes.push_back(t.shape());
      dtypes.push_back(t.dtype());
      prims.push_back(t.primitive());
    }
    check::cat("cat", shapes, dtypes, d);
    return Self(Ops::cat(prims, d));
  }
  /// Stacks rank-D tensors along a new dim, giving rank N = D + 1.
  template <size_t N = D + 1> static Ranked<N> stack(const std::vector<Self>& tensors, int64_t dim) {
    static_assert(N == D + 1, "stack adds exactly one dim");
    size_t d = check::dim("stack", dim, N);
    std::vector<Ranked<N>> lifted;
    for (const Self& t : tensors) lifted.push_back(t.template unsqueeze_dim<N>(static_cast<int64_t>(d)));
    if (tensors.empty()) throw ValueError("stack", "needs at least one tensor");
    return Ranked<N>::cat(lifted, static_cast<int64_t>(d));
  }

 private:
  template <size_t N>
  Ranked<N> reshape_to(const std::vector<int64_t>& dims, const char* where = __builtin_FUNCTION()) const {
    self(where);
    if (dims.size() != N)
      throw ShapeError("reshape", std::to_string(dims.size()) + " dims given for rank " + std::to_string(N));
    return Ranked<N>(Ops::reshape(prim(), check::reshape(self().shape(), dims)));
  }
  template <size_t N> Ranked<N> reshape_exact(const Shape& shape, const char* where = __builtin_FUNCTION()) const {
    self(where);
    if (shape.rank() != N) throw ShapeError("reshape", shape.to_string() + " given for rank " + std::to_string(N));
    check::same_element_count("reshape", self().shape(), shape);
    return Ranked<N>(Ops::reshape(prim(), shape));
  }
};

}  // namespace scorch
