// Reductions and operators along one axis: ReduceSum/Mean/Max/Min/Prod/L1/L2/LogSum/LogSumExp/SumSquare,
// ArgMax/ArgMin, Softmax/LogSoftmax/Hardmax (with opset 1-12's flattening to 2-D), CumSum, TopK.
#include "scorch/import/onnx/runtime/op_call_impl.h"

namespace scorch::onnx {
namespace {

template <class B> using Values = std::vector<Value<B>>;
template <class B> using F = typename B::FloatTensor;
template <class B> using FO = KindOps<B, Float>;

enum class Reduce { Sum, Mean, Max, Min, Prod };

/// The reduced axes: ReduceSum's input from opset 13, the attribute otherwise; empty means every axis unless
/// noop_with_empty_axes.
template <class B> std::vector<size_t> reduce_axes(const OpCall<B>& c, size_t rank, bool& noop) {
  bool from_input = c.node().op_type == "ReduceSum" && c.opset() >= 13;
  std::vector<size_t> axes = from_input ? (c.has(1) ? axes_of(c, 1, rank) : std::vector<size_t>{}) : axes_attr(c, rank);
  noop = axes.empty() && c.attr_int("noop_with_empty_axes", 0) != 0;
  if (axes.empty())
    for (size_t i = 0; i < rank; ++i) axes.push_back(i);
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  return axes;
}

/// v reduced by kind over axes (each kept with size 1), then the axes dropped unless keepdims.
template <class B> Value<B> reduce(const OpCall<B>& c, Value<B> v, Reduce how) {
  Shape s = v.shape();
  bool noop = false;
  std::vector<size_t> axes = reduce_axes(c, s.rank(), noop);
  if (noop) return v;
  Value<B> r = visit_numeric(c, 0, std::move(v), [&]<class K>(auto p) {
    using O = KindOps<B, K>;
    for (size_t a : axes) {
      switch (how) {
        case Reduce::Sum: p = O::sum_dim(p, a); break;
        case Reduce::Mean: p = O::mean_dim(p, a); break;
        case Reduce::Max: p = O::max_dim(p, a); break;
        case Reduce::Min: p = O::min_dim(p, a); break;
        case Reduce::Prod: p = O::prod_dim(p, a); break;
      }
    }
    return Value<B>::template of<K>(p);
  });
  if (c.attr_int("keepdims", 1)) return r;
  return reshape(std::move(r), without_dims(s, axes));
}

/// A reduce op computed as post(reduce(pre(x))) on floats (L1, L2, LogSum, SumSquare).
template <class B>
void add_composite_reduce(OpTable<B>& t, const std::string& name, F<B> (*pre)(F<B>), F<B> (*post)(F<B>)) {
  t[name] = [pre, post](const OpCall<B>& c) -> Values<B> {
    Value<B> x = c.take(0);
    bool is_float = x.template is<Float>();
    if (is_float && pre) x = Value<B>::template of<Float>(pre(std::move(x).template take<Float>()));
    if (!is_float && pre) {  // integer L1 / SumSquare: abs or square in the int kind
      x = visit_numeric(c, 0, std::move(x), [&]<class K>(auto p) {
        if (pre == FO<B>::abs) return Value<B>::template of<K>(KindOps<B, K>::abs(p));
        return Value<B>::template of<K>(KindOps<B, K>::mul(p, p));
      });
    }
    Value<B> r = reduce(c, std::move(x), Reduce::Sum);
    if (post && !r.template is<Float>()) c.fail_dtype(0, r.dtype());  // L2 and LogSum are float-only here
    if (post) r = Value<B>::template of<Float>(post(std::move(r).template take<Float>()));
    return {std::move(r)};
  };
}

template <class B> F<B> square(F<B> x) { return FO<B>::mul(x, x); }

template <class B> void add_reductions(OpTable<B>& t) {
  const std::pair<const char*, Reduce> plain[] = {{"ReduceSum", Reduce::Sum},
                                                  {"ReduceMean", Reduce::Mean},
                                                  {"ReduceMax", Reduce::Max},
                                                  {"ReduceMin", Reduce::Min},
                                                  {"ReduceProd", Reduce::Prod}};
  for (const auto& [name, how] : plain) {
    Reduce h = how;
    t[name] = [h](const OpCall<B>& c) -> Values<B> { return {reduce(c, c.take(0), h)}; };
  }
  add_composite_reduce<B>(t, "ReduceL1", FO<B>::abs, nullptr);
  add_composite_reduce<B>(t, "ReduceL2", square<B>, FO<B>::sqrt);
  add_composite_reduce<B>(t, "ReduceSumSquare", square<B>, nullptr);
  add_composite_reduce<B>(t, "ReduceLogSum", nullptr, FO<B>::log);
  t["ReduceLogSumExp"] = [](const OpCall<B>& c) -> Values<B> {
    F<B> x = c.template in_as<Float>(0);
    Shape s = x.shape();
    bool noop = false;
    std::vector<size_t> axes = reduce_axes(c, s.rank(), noop);
    F<B> m = x;
    for (size_t a : axes) m = FO<B>::max_dim(m, a);
    m = FO<B>::mask_fill(m, FO<B>::is_inf(m), Scalar(0.0));  // all -inf (or +inf) rows: shift by nothing
    F<B> e = FO<B>::exp(FO<B>::sub(x, m));
    for (size_t a : axes) e = FO<B>::sum_dim(e, a);
    F<B> r = FO<B>::add(FO<B>::log(e), m);
    if (c.attr_int("keepdims", 1)) return {Value<B>::template of<Float>(r)};
    return {Value<B>::template of<Float>(FO<B>::reshape(r, without_dims(s, axes)))};
  };
}

/// ArgMax / ArgMin with keepdims and select_last_index.
template <class B> Value<B> arg_extremum(const OpCall<B>& c, bool largest) {
  Value<B> x = c.take(0);
  Shape s = x.shape();
  size_t axis = c.axis(c.attr_int("axis", 0), s.rank());
  bool last = c.attr_int("select_last_index", 0) != 0;
  if (last) x = flip(std::move(x), {axis});
  Value<B> idx = visit_numeric(c, 0, std::move(x), [&]<class K>(auto p) {
    return Value<B>::template of<Int>(largest ? KindOps<B, K>::argmax(p, axis) : KindOps<B, K>::argmin(p, axis));
  });
  if (last) {
    auto i = std::move(idx).template take<Int>();
    idx =
        Value<B>::template of<Int>(KindOps<B, Int>::add_scalar(KindOps<B, Int>::neg(i), Scalar(int64_t(s[axis]) - 1)));
  }
  if (c.attr_int("keepdims", 1)) return idx;
  return reshape(std::move(idx), without_dim(s, axis));
}

/// Softmax-like fn along the node's axis; before opset 13 the input is seen as 2-D [outer, inner] split at axis.
template <class B, class Fn> Value<B> along_axis(const OpCall<B>& c, Fn fn) {
  F<B> x = c.template in_as<Float>(0);
  Shape s = x.shape();
  if (c.opset() >= 13) return Value<B>::template of<Float>(fn(x, c.axis(c.attr_int("axis", -1), s.rank())));
  int64_t a = c.attr_int("axis", 1), r = int64_t(s.rank());
  if (a < -r || a > r)
    c.template fail<ShapeError>("axis " + std::to_string(a) + " is out of range for " + s.to_string());
  size_t axis = size_t(a < 0 ? a + r : a), outer = 1, inner = 1;
  for (size_t i = 0; i < s.rank(); ++i) (i < axis ? outer : inner) *= s[i];
  F<B> y = fn(FO<B>::reshape(x, Shape{outer, inner}), 1);
  return Value<B>::template of<Float>(FO<B>::reshape(y, s));
}

/// 1 at the first largest element along dim, 0 elsewhere.
template <class B> F<B> hardmax(F<B> x, size_t dim, const typename B::Device& device) {
  Shape s = x.shape();
  auto idx = FO<B>::argmax(x, dim);
  Shape line;
  for (size_t i = 0; i < s.rank(); ++i) line.push_back(i == dim ? s[i] : 1);
  auto positions = KindOps<B, Int>::reshape(KindOps<B, Int>::arange(0, int64_t(s[dim]), 1, device, DType::I64), line);
  auto hit = KindOps<B, Int>::equal(KindOps<B, Int>::expand(positions, s), KindOps<B, Int>::expand(idx, s));
  return KindOps<B, Bool>::into_float(hit, x.dtype());
}

template <class B> Values<B> topk(const OpCall<B>& c) {
  Value<B> x = c.take(0);
  Shape s = x.shape();
  size_t axis = c.axis(c.attr_int("axis", -1), s.rank());
  int64_t k = c.opset() >= 10 ? c.host_ints(1).at(0) : c.attr_int("k", 0);
  if (k < 0 || size_t(k) > s[axis])
    c.template fail<ShapeError>("k = " + std::to_string(k) + " for dim " + std::to_string(s[axis]));
  bool largest = c.attr_int("largest", 1) != 0;
  SliceRanges first;
  for (size_t d : s) first.push_back({0, d, 1});
  first[axis] = {0, size_t(k), 1};
  Values<B> out;
  Value<B> values = visit_numeric(c, 0, std::move(x), [&]<class K>(auto p) {
    auto [sorted, idx] = KindOps<B, K>::sort_with_indices(p, axis, largest);
    out.push_back(Value<B>::template of<Int>(KindOps<B, Int>::slice(idx, first)));
    return Value<B>::template of<K>(KindOps<B, K>::slice(sorted, first));
  });
  return {std::move(values), std::move(out[0])};
}

template <class B> void add_axis_ops(OpTable<B>& t) {
  t["ArgMax"] = [](const OpCall<B>& c) -> Values<B> { return {arg_extremum(c, true)}; };
  t["ArgMin"] = [](const OpCall<B>& c) -> Values<B> { return {arg_extremum(c, false)}; };
  t["Softmax"] = [](const OpCall<B>& c) -> Values<B> { return {along_axis(c, FO<B>::softmax)}; };
  t["LogSoftmax"] = [](const OpCall<B>& c) -> Values<B> { return {along_axis(c, FO<B>::log_softmax)}; };
  t["Hardmax"] = [](const OpCall<B>& c) -> Values<B> {
    return {along_axis(c, [&](F<B> x, size_t dim) { return hardmax<B>(x, dim, c.device()); })};
  };
  t["CumSum"] = [](const OpCall<B>& c) -> Values<B> {
    Value<B> x = c.take(0);
    size_t axis = c.axis(c.host_ints(1).at(0), x.shape().rank());
    bool reverse = c.attr_int("reverse", 0) != 0, exclusive = c.attr_int("exclusive", 0) != 0;
    if (reverse) x = flip(std::move(x), {axis});
    Value<B> y = visit_numeric(c, 0, std::move(x), [&]<class K>(auto p) {
      using O = KindOps<B, K>;
      auto sum = O::cumsum(p, axis);
      Shape s = sum.shape();
      if (!exclusive || s[axis] == 0) return Value<B>::template of<K>(sum);
      // Exclusive: the inclusive sums shifted one place along the axis, a zero first.
      SliceRanges head;
      for (size_t d : s) head.push_back({0, d, 1});
      head[axis] = {0, s[axis] - 1, 1};
      Shape first = s;
      first[axis] = 1;
      return Value<B>::template of<K>(O::cat({O::zeros(first, c.device(), sum.dtype()), O::slice(sum, head)}, axis));
    });
    return {reverse ? flip(std::move(y), {axis}) : std::move(y)};
  };
  t["TopK"] = [](const OpCall<B>& c) -> Values<B> { return topk(c); };
}

}  // namespace

template <class B> void register_reduce_ops(OpTable<B>& t) {
  add_reductions(t);
  add_axis_ops(t);
}

}  // namespace scorch::onnx

SCORCH_ONNX_INSTANTIATE(register_reduce_ops)
