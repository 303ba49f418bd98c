// Shape and layout operators: Constant, Shape, Size, Reshape, Flatten, Transpose, Squeeze, Unsqueeze, Concat,
// Split, Slice, Expand, Tile, Pad, ConstantOfShape, Range, Trilu, EyeLike, DepthToSpace, SpaceToDepth.
#include <cmath>

#include "scorch/import/onnx/runtime/op_call_impl.h"

namespace scorch::onnx {
namespace {

template <class B> using Values = std::vector<Value<B>>;
template <class B> using IO = KindOps<B, Int>;

/// Dims as int64 values.
std::vector<int64_t> signed_dims(const Shape& s) { return {s.begin(), s.end()}; }

/// A shape from validated non-negative dims.
template <class B> Shape to_shape(const OpCall<B>& c, const std::vector<int64_t>& dims) {
  if (dims.size() > kMaxRank) c.template fail<ShapeError>("rank " + std::to_string(dims.size()) + " is above 8");
  Shape s;
  for (int64_t d : dims) {
    if (d < 0) c.template fail<ShapeError>("dim " + std::to_string(d) + " is negative");
    s.push_back(static_cast<size_t>(d));
  }
  if (!s.checked_num_elements()) c.template fail<ShapeError>("shape " + s.to_string() + " is too large");
  check_created(c, s);
  return s;
}

template <class B> Value<B> constant(const OpCall<B>& c) {
  if (const Attribute* a = c.attr("value"); a && a->t) return Value<B>::from_data(*a->t, c.device());
  if (c.has_attr("value_float"))
    return Value<B>::from_data(TensorData({float(c.attr_float("value_float", 0))}, {}), c.device());
  if (c.has_attr("value_int")) return Value<B>::from_data(TensorData({c.attr_int("value_int", 0)}, {}), c.device());
  if (c.has_attr("value_floats")) {
    std::vector<float> v;
    for (double f : c.attr_floats("value_floats")) v.push_back(float(f));
    return Value<B>::from_data(TensorData(v, {v.size()}), c.device());
  }
  if (c.has_attr("value_ints")) {
    auto v = c.attr_ints("value_ints");
    return Value<B>::from_data(TensorData(v, {v.size()}), c.device());
  }
  c.template fail<ValueError>("only tensor, float(s) and int(s) values are supported");
}

/// Reshape's target: 0 copies the input's dim (unless allowzero), -1 takes what is left.
template <class B> Shape reshape_target(const OpCall<B>& c, const Shape& in, std::vector<int64_t> to) {
  bool allow_zero = c.attr_int("allowzero", 0) != 0;
  for (size_t i = 0; i < to.size(); ++i)
    if (to[i] == 0 && !allow_zero) {
      if (i >= in.rank()) c.template fail<ShapeError>("dim " + std::to_string(i) + " copies a dim the input lacks");
      to[i] = static_cast<int64_t>(in[i]);
    }
  return check::reshape(in, to);
}

template <class B> Value<B> squeeze(const OpCall<B>& c, Value<B> x) {
  Shape s = x.shape();
  std::vector<size_t> axes = axes_of(c, 1, s.rank());
  Shape out;
  for (size_t i = 0; i < s.rank(); ++i) {
    bool listed = std::find(axes.begin(), axes.end(), i) != axes.end();
    if (listed && s[i] != 1)
      c.template fail<ShapeError>("dim " + std::to_string(i) + " of " + s.to_string() + " is not 1");
    if (!(listed || (axes.empty() && s[i] == 1))) out.push_back(s[i]);
  }
  return reshape(std::move(x), out);
}

template <class B> Value<B> unsqueeze(const OpCall<B>& c, Value<B> x) {
  Shape s = x.shape();
  std::vector<int64_t> raw = c.has(1) ? c.host_ints(1) : c.attr_ints("axes");
  size_t rank = s.rank() + raw.size();
  std::vector<bool> inserted(rank, false);
  for (int64_t a : raw) {
    size_t axis = c.axis(a, rank);
    if (inserted[axis]) c.template fail<ShapeError>("axis " + std::to_string(a) + " is repeated");
    inserted[axis] = true;
  }
  Shape out;
  for (size_t i = 0, j = 0; i < rank; ++i) out.push_back(inserted[i] ? 1 : s[j++]);
  return reshape(std::move(x), out);
}

/// One ONNX slice (start, end, step; negative from the end, clamped) as Scorch's SliceRange.
SliceRange onnx_range(int64_t start, int64_t end, int64_t step, size_t size) {
  int64_t n = static_cast<int64_t>(size);
  if (start < 0) start += n;
  if (end < 0) end += n;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, n), end = std::clamp<int64_t>(end, 0, n);
    return end <= start ? SliceRange{0, 0, 1} : SliceRange{size_t(start), size_t(end), step};
  }
  start = std::clamp<int64_t>(start, -1, n - 1), end = std::clamp<int64_t>(end, -1, n - 1);
  // ONNX walks start, start+step, ... above end; Scorch's range walks down from its end-1 to its start.
  if (start <= end) return SliceRange{0, 0, 1};
  return SliceRange{size_t(end + 1), size_t(start + 1), step};
}

template <class B> Value<B> slice_op(const OpCall<B>& c) {
  Shape s = c.in(0).shape();
  bool from_inputs = c.opset() >= 10;
  auto starts = from_inputs ? c.host_ints(1) : c.attr_ints("starts");
  auto ends = from_inputs ? c.host_ints(2) : c.attr_ints("ends");
  std::vector<int64_t> axes = from_inputs ? (c.has(3) ? c.host_ints(3) : std::vector<int64_t>{}) : c.attr_ints("axes");
  std::vector<int64_t> steps = from_inputs && c.has(4) ? c.host_ints(4) : std::vector<int64_t>{};
  if (starts.size() != ends.size()) c.template fail<ShapeError>("starts and ends differ in length");
  SliceRanges ranges;
  for (size_t d : s) ranges.push_back({0, d, 1});
  for (size_t i = 0; i < starts.size(); ++i) {
    size_t axis = c.axis(axes.empty() ? int64_t(i) : axes.at(i), s.rank());
    int64_t step = steps.empty() ? 1 : steps.at(i);
    if (step == 0) c.template fail<ValueError>("step 0");
    ranges[axis] = onnx_range(starts[i], ends[i], step, s[axis]);
  }
  return slice(c.take(0), ranges);
}

template <class B> Values<B> split(const OpCall<B>& c) {
  Shape s = c.in(0).shape();
  size_t axis = c.axis(c.attr_int("axis", 0), s.rank());
  std::vector<int64_t> sizes = c.has(1) ? c.host_ints(1) : c.attr_ints("split");
  size_t parts = c.node().outputs.size();
  if (sizes.empty()) {
    if (parts == 0 || s[axis] % parts)
      c.template fail<ShapeError>("dim " + std::to_string(s[axis]) + " does not split evenly");
    sizes.assign(parts, int64_t(s[axis] / parts));
  }
  Values<B> out;
  size_t at = 0;
  for (int64_t n : sizes) {
    if (n < 0 || at + size_t(n) > s[axis])
      c.template fail<ShapeError>("split sizes do not fit dim " + std::to_string(s[axis]));
    SliceRanges r;
    for (size_t d : s) r.push_back({0, d, 1});
    r[axis] = {at, at + size_t(n), 1};
    out.push_back(slice(Value<B>(c.in(0)), r));
    at += size_t(n);
  }
  if (at != s[axis]) c.template fail<ShapeError>("split sizes do not add up to dim " + std::to_string(s[axis]));
  return out;
}

template <class B> Value<B> tile(const OpCall<B>& c) {
  Value<B> x = c.take(0);
  auto repeats = c.host_ints(1);
  if (repeats.size() != x.shape().rank()) c.template fail<ShapeError>("repeats must have one value per dim");
  double total = 1;
  for (size_t d = 0; d < repeats.size(); ++d) total *= double(x.shape()[d]) * double(std::max<int64_t>(repeats[d], 0));
  check_created(c, total);
  for (size_t d = 0; d < repeats.size(); ++d) {
    if (repeats[d] < 0) c.template fail<ValueError>("negative repeat");
    if (repeats[d] == 1) continue;
    size_t times = size_t(repeats[d]);
    x = visit_kind(std::move(x),
                   [&]<class K>(auto p) { return Value<B>::template of<K>(KindOps<B, K>::repeat_dim(p, d, times)); });
  }
  return x;
}

/// x padded along dim by before/after elements repeating its edge (or mirroring it, without the edge).
template <class B>
Value<B> pad_dim_copy(const OpCall<B>& c, Value<B> x, size_t dim, size_t before, size_t after, bool reflect) {
  Shape s = x.shape();
  size_t n = s[dim];
  if (n == 0 || (reflect && (before >= n || after >= n)))
    c.template fail<ShapeError>("pads too large for dim " + std::to_string(n));
  auto part = [&](size_t from, size_t to) {
    SliceRanges r;
    for (size_t d : s) r.push_back({0, d, 1});
    r[dim] = {from, to, 1};
    return slice(Value<B>(x), r);
  };
  std::vector<Value<B>> pieces;
  if (before) {
    Value<B> p = reflect ? flip(part(1, before + 1), {dim}) : part(0, 1);
    if (!reflect)
      p = visit_kind(std::move(p), [&]<class K>(auto q) {
        return Value<B>::template of<K>(KindOps<B, K>::repeat_dim(q, dim, before));
      });
    pieces.push_back(std::move(p));
  }
  pieces.push_back(x);
  if (after) {
    Value<B> p = reflect ? flip(part(n - 1 - after, n - 1), {dim}) : part(n - 1, n);
    if (!reflect)
      p = visit_kind(std::move(p), [&]<class K>(auto q) {
        return Value<B>::template of<K>(KindOps<B, K>::repeat_dim(q, dim, after));
      });
    pieces.push_back(std::move(p));
  }
  return concat(c, pieces, dim);
}

template <class B> Value<B> pad(const OpCall<B>& c) {
  Value<B> x = c.take(0);
  Shape s = x.shape();
  auto pads = c.opset() >= 11 ? c.host_ints(1) : c.attr_ints("pads");
  if (pads.size() != 2 * s.rank()) c.template fail<ShapeError>("pads must have 2 values per dim");
  std::string mode = c.attr_string("mode", "constant");
  // Negative pads crop first.
  SliceRanges crop;
  for (size_t d = 0; d < s.rank(); ++d) {
    int64_t lo = std::max<int64_t>(0, -pads[d]), hi = std::max<int64_t>(0, -pads[d + s.rank()]);
    if (lo + hi > int64_t(s[d])) c.template fail<ShapeError>("negative pads remove more than dim " + std::to_string(d));
    crop.push_back({size_t(lo), s[d] - size_t(hi), 1});
  }
  x = slice(std::move(x), crop);
  s = x.shape();
  double total = 1;
  for (size_t d = 0; d < s.rank(); ++d)
    total *= double(s[d]) + double(std::max<int64_t>(0, pads[d])) + double(std::max<int64_t>(0, pads[d + s.rank()]));
  check_created(c, total);
  if (mode == "constant") {
    double value = c.opset() >= 11 ? (c.has(2) ? c.host_doubles(2).at(0) : 0.0) : c.attr_float("value", 0.0);
    Shape out;
    SliceRanges where;
    for (size_t d = 0; d < s.rank(); ++d) {
      size_t lo = size_t(std::max<int64_t>(0, pads[d])), hi = size_t(std::max<int64_t>(0, pads[d + s.rank()]));
      out.push_back(s[d] + lo + hi);
      where.push_back({lo, lo + s[d], 1});
    }
    return visit_kind(std::move(x), [&]<class K>(auto p) {
      Scalar fill = std::is_same_v<K, Float> ? Scalar(value) : Scalar(static_cast<int64_t>(value));
      auto base = KindOps<B, K>::full(out, fill, c.device(), p.dtype());
      return Value<B>::template of<K>(KindOps<B, K>::slice_assign(base, where, p));
    });
  }
  if (mode != "edge" && mode != "reflect") c.template fail<ValueError>("mode '" + mode + "' is not supported");
  for (size_t d = 0; d < s.rank(); ++d) {
    size_t lo = size_t(std::max<int64_t>(0, pads[d])), hi = size_t(std::max<int64_t>(0, pads[d + s.rank()]));
    if (lo || hi) x = pad_dim_copy(c, std::move(x), d, lo, hi, mode == "reflect");
  }
  return x;
}

/// A host tensor of the scalar input i (Range's start, limit, delta).
template <class B> Value<B> range(const OpCall<B>& c) {
  DType dtype = c.in(0).dtype();
  double start = c.host_doubles(0).at(0), limit = c.host_doubles(1).at(0), delta = c.host_doubles(2).at(0);
  if (delta == 0) c.template fail<ValueError>("delta is 0");
  double count = std::max(std::ceil((limit - start) / delta), 0.0);
  check_created(c, count);
  std::vector<double> v(static_cast<size_t>(count));
  for (size_t i = 0; i < v.size(); ++i) v[i] = start + double(i) * delta;
  return Value<B>::from_data(TensorData(v, {v.size()}).convert(dtype), c.device());
}

/// Trilu: elements above (upper) or below the k-th diagonal of the last two dims are zeroed.
template <class B> Value<B> trilu(const OpCall<B>& c) {
  Value<B> x = c.take(0);
  Shape s = x.shape();
  if (s.rank() < 2) c.template fail<ShapeError>("input must have rank 2 or more, got " + s.to_string());
  int64_t k = c.has(1) ? c.host_ints(1).at(0) : 0;
  bool upper = c.attr_int("upper", 1) != 0;
  size_t rows = s[s.rank() - 2], cols = s[s.rank() - 1];
  check_created(c, double(rows) * double(cols));
  std::vector<bool> drop_flags(rows * cols);
  for (size_t i = 0; i < rows; ++i)
    for (size_t j = 0; j < cols; ++j)
      drop_flags[i * cols + j] = upper ? int64_t(j) - int64_t(i) < k : int64_t(j) - int64_t(i) > k;
  std::vector<uint8_t> bytes(drop_flags.begin(), drop_flags.end());
  Shape mask_shape;
  for (size_t i = 0; i + 2 < s.rank(); ++i) mask_shape.push_back(1);
  mask_shape.push_back(rows), mask_shape.push_back(cols);
  auto mask_data = TensorData(bytes, mask_shape).convert(DType::Bool);
  auto mask = KindOps<B, Bool>::expand(KindOps<B, Bool>::from_data(mask_data, c.device()), s);
  return visit_kind(std::move(x), [&]<class K>(auto p) {
    Scalar zero = std::is_same_v<K, Float> ? Scalar(0.0) : std::is_same_v<K, Int> ? Scalar(int64_t{0}) : Scalar(false);
    return Value<B>::template of<K>(KindOps<B, K>::mask_fill(p, mask, zero));
  });
}

/// EyeLike: ones on the k-th diagonal of a 2-D shape, in dtype (the input's unless given).
template <class B> Value<B> eye_like(const OpCall<B>& c) {
  Shape s = c.in(0).shape();
  if (s.rank() != 2) c.template fail<ShapeError>("input must be 2-D, got " + s.to_string());
  DType dtype = c.in(0).dtype();
  if (c.has_attr("dtype")) dtype = onnx_dtype(c, c.attr_int("dtype", 1));
  int64_t k = c.attr_int("k", 0);
  std::vector<double> v(s[0] * s[1], 0.0);
  for (size_t i = 0; i < s[0]; ++i) {
    int64_t j = int64_t(i) + k;
    if (j >= 0 && j < int64_t(s[1])) v[i * s[1] + size_t(j)] = 1.0;
  }
  return Value<B>::from_data(TensorData(v, s).convert(dtype), c.device());
}

/// DepthToSpace (DCR or CRD) and SpaceToDepth on [N, C, H, W].
template <class B> Value<B> depth_space(const OpCall<B>& c, bool to_space) {
  Value<B> x = c.take(0);
  Shape s = x.shape();
  if (s.rank() != 4) c.template fail<ShapeError>("input must be 4-D, got " + s.to_string());
  int64_t block = c.attr_int("blocksize", 0);
  if (block <= 0 || block > (int64_t(1) << 16)) c.template fail<ValueError>("blocksize must be in [1, 65536]");
  size_t b = size_t(block), n = s[0], ch = s[1], h = s[2], w = s[3];
  if (to_space) {
    if (ch % (b * b)) c.template fail<ShapeError>("channels " + std::to_string(ch) + " do not divide by blocksize²");
    bool crd = c.attr_string("mode", "DCR") == "CRD";
    size_t oc = ch / (b * b);
    Value<B> y =
        crd ? reshape(std::move(x), Shape{n, oc, b, b, h, w}) : reshape(std::move(x), Shape{n, b, b, oc, h, w});
    y = crd ? permute(std::move(y), {0, 1, 4, 2, 5, 3}) : permute(std::move(y), {0, 3, 4, 1, 5, 2});
    return reshape(std::move(y), Shape{n, oc, h * b, w * b});
  }
  if (h % b || w % b) c.template fail<ShapeError>("spatial dims of " + s.to_string() + " do not divide by blocksize");
  Value<B> y = reshape(std::move(x), Shape{n, ch, h / b, b, w / b, b});
  y = permute(std::move(y), {0, 3, 5, 1, 2, 4});
  return reshape(std::move(y), Shape{n, ch * b * b, h / b, w / b});
}

template <class B> void add_shape_ops(OpTable<B>& t) {
  t["Constant"] = [](const OpCall<B>& c) -> Values<B> { return {constant(c)}; };
  t["Shape"] = [](const OpCall<B>& c) -> Values<B> {
    auto dims = signed_dims(c.in(0).shape());
    int64_t r = int64_t(dims.size());
    int64_t start = c.attr_int("start", 0), end = c.attr_int("end", r);
    start = std::clamp<int64_t>(start < 0 ? start + r : start, 0, r);
    end = std::clamp<int64_t>(end < 0 ? end + r : end, 0, r);
    std::vector<int64_t> kept(dims.begin() + start, dims.begin() + std::max(start, end));
    return {int_tensor(c, kept, Shape{kept.size()})};
  };
  t["Size"] = [](const OpCall<B>& c) -> Values<B> {
    return {int_tensor(c, {int64_t(c.in(0).shape().num_elements())}, Shape{})};
  };
  t["ConstantOfShape"] = [](const OpCall<B>& c) -> Values<B> {
    Shape s = to_shape(c, c.host_ints(0));
    const Attribute* a = c.attr("value");
    TensorData v = a && a->t ? *a->t : TensorData({0.0f}, {1});
    if (v.shape().num_elements() != 1) c.template fail<ShapeError>("value must hold one element");
    return {Value<B>::from_data(
        TensorData::full(s, visit_dtype(v.dtype(), [&]<class T>() { return Scalar(v.as_span<T>()[0]); }), v.dtype()),
        c.device())};
  };
  t["Range"] = [](const OpCall<B>& c) -> Values<B> { return {range(c)}; };
  t["EyeLike"] = [](const OpCall<B>& c) -> Values<B> { return {eye_like(c)}; };
}

template <class B> void add_layout_ops(OpTable<B>& t) {
  t["Reshape"] = [](const OpCall<B>& c) -> Values<B> {
    Shape in = c.in(0).shape();
    auto to = c.opset() >= 5 ? c.host_ints(1) : c.attr_ints("shape");
    return {reshape(c.take(0), reshape_target(c, in, to))};
  };
  t["Flatten"] = [](const OpCall<B>& c) -> Values<B> {
    Shape s = c.in(0).shape();
    int64_t a = c.attr_int("axis", 1), r = int64_t(s.rank());
    if (a < -r || a > r)
      c.template fail<ShapeError>("axis " + std::to_string(a) + " is out of range for " + s.to_string());
    size_t axis = size_t(a < 0 ? a + r : a), outer = 1, inner = 1;
    for (size_t i = 0; i < s.rank(); ++i) (i < axis ? outer : inner) *= s[i];
    return {reshape(c.take(0), Shape{outer, inner})};
  };
  t["Transpose"] = [](const OpCall<B>& c) -> Values<B> {
    size_t rank = c.in(0).shape().rank();
    auto perm = c.attr_ints("perm");
    if (perm.empty())
      for (size_t i = rank; i-- > 0;) perm.push_back(int64_t(i));
    return {permute(c.take(0), check::permutation(c.op(), perm, rank))};
  };
  t["Squeeze"] = [](const OpCall<B>& c) -> Values<B> { return {squeeze(c, c.take(0))}; };
  t["Unsqueeze"] = [](const OpCall<B>& c) -> Values<B> { return {unsqueeze(c, c.take(0))}; };
  t["Concat"] = [](const OpCall<B>& c) -> Values<B> {
    std::vector<Value<B>> parts;
    for (size_t i = 0; i < c.num_inputs(); ++i)
      if (c.has(i)) parts.push_back(c.take(i));
    if (parts.empty()) c.template fail<ValueError>("no inputs");
    return {concat(c, parts, c.axis(c.attr_int("axis", 0), parts[0].shape().rank()))};
  };
  t["Split"] = [](const OpCall<B>& c) -> Values<B> { return split(c); };
  t["Slice"] = [](const OpCall<B>& c) -> Values<B> { return {slice_op(c)}; };
  t["Expand"] = [](const OpCall<B>& c) -> Values<B> {
    Shape to = to_shape(c, c.host_ints(1));
    Shape out = broadcast_shape(c.op(), c.in(0).shape(), to);
    return {expand(left_pad_rank(c.take(0), out.rank()), out)};
  };
  t["Tile"] = [](const OpCall<B>& c) -> Values<B> { return {tile(c)}; };
  t["Pad"] = [](const OpCall<B>& c) -> Values<B> { return {pad(c)}; };
  t["Trilu"] = [](const OpCall<B>& c) -> Values<B> { return {trilu(c)}; };
  t["DepthToSpace"] = [](const OpCall<B>& c) -> Values<B> { return {depth_space(c, true)}; };
  t["SpaceToDepth"] = [](const OpCall<B>& c) -> Values<B> { return {depth_space(c, false)}; };
}

}  // namespace

template <class B> void register_layout_ops(OpTable<B>& t) {
  add_shape_ops(t);
  add_layout_ops(t);
}

}  // namespace scorch::onnx

SCORCH_ONNX_INSTANTIATE(register_layout_ops)
