// Elementwise operators: arithmetic with broadcasting, math functions, activations, comparisons and logic, Where,
// Clip, Cast, and the variadic Min/Max/Sum/Mean.
#include <limits>

#include "scorch/import/onnx/runtime/op_call_impl.h"

namespace scorch::onnx {
namespace {

template <class B> using Values = std::vector<Value<B>>;
template <class B> using F = typename B::FloatTensor;
template <class B> using FO = KindOps<B, Float>;
template <class B> using IO = KindOps<B, Int>;
template <class B> using BO = KindOps<B, Bool>;

template <class B> F<B> take_float(const OpCall<B>& c, size_t i) {
  Value<B> v = c.take(i);
  if (!v.template is<Float>()) c.fail_dtype(i, v.dtype());
  return std::move(v).template take<Float>();
}

/// fn<K>(a, b) on a and b brought to one rank, for float and int operands of one dtype.
template <class B, class Fn> Value<B> numeric_binary(const OpCall<B>& c, Value<B> a, Value<B> b, Fn&& fn) {
  check::same_dtype(c.op(), a.dtype(), b.dtype());
  auto [x, y] = align_ranks(c, std::move(a), std::move(b));
  if (x.template is<Float>())
    return fn.template operator()<Float>(std::move(x).template take<Float>(), std::move(y).template take<Float>());
  if (x.template is<Int>())
    return fn.template operator()<Int>(std::move(x).template take<Int>(), std::move(y).template take<Int>());
  c.fail_dtype(0, x.dtype());
}

/// A binary op of numeric kinds registered under name: op<K>(a, b) returns K's primitive.
template <class B, class Op> void add_binary(OpTable<B>& t, const std::string& name, Op op) {
  t[name] = [op](const OpCall<B>& c) -> Values<B> {
    return {numeric_binary(c, c.take(0), c.take(1), [&]<class K>(auto a, auto b) {
      return Value<B>::template of<K>(op.template operator()<K>(std::move(a), std::move(b)));
    })};
  };
}

/// Signed integer division truncating toward zero (the backend's floors): |a| / |b| with the sign of a·b.
template <class B> typename B::IntTensor trunc_div(typename B::IntTensor a, typename B::IntTensor b) {
  auto sign = IO<B>::mul(IO<B>::sign(a), IO<B>::sign(b));
  return IO<B>::mul(IO<B>::div(IO<B>::abs(a), IO<B>::abs(b)), sign);
}

template <class B> Value<B> fmod(const OpCall<B>& c, Value<B> a, Value<B> b) {
  return numeric_binary(c, std::move(a), std::move(b), [&]<class K>(auto x, auto y) {
    if constexpr (std::is_same_v<K, Float>) {
      auto q = FO<B>::trunc(FO<B>::div(x, y));
      return Value<B>::template of<K>(FO<B>::sub(x, FO<B>::mul(q, y)));
    } else {
      return Value<B>::template of<K>(IO<B>::sub(x, IO<B>::mul(trunc_div<B>(x, y), y)));
    }
  });
}

/// Pow with ONNX's mixed types: the exponent is brought to the base's type; an int base with a float exponent
/// is computed in f64 and converted back.
template <class B> Value<B> pow(const OpCall<B>& c, Value<B> base, Value<B> exponent) {
  DType out = base.dtype();
  if (base.template is<Int>() && exponent.template is<Float>()) {
    Value<B> r = pow(c, cast(std::move(base), DType::F64), cast(std::move(exponent), DType::F64));
    return cast(std::move(r), out);
  }
  bool scalar = exponent.shape().num_elements() == 1 && exponent.shape().rank() <= base.shape().rank();
  if (scalar && base.template is<Float>()) {  // x², x³, 1/x and other one-value exponents: no pow per element
    double e = exponent.to_data().convert(DType::F64).template to_vector<double>()[0];
    auto x = std::move(base).template take<Float>();
    if (e == 1) return Value<B>::template of<Float>(x);
    if (e == 2) return Value<B>::template of<Float>(FO<B>::mul(x, x));
    if (e == 3) return Value<B>::template of<Float>(FO<B>::mul(FO<B>::mul(x, x), x));
    if (e == -1) return Value<B>::template of<Float>(FO<B>::recip(x));
    return Value<B>::template of<Float>(FO<B>::powf_scalar(x, Scalar(e)));
  }
  return numeric_binary(c, std::move(base), cast(std::move(exponent), out), [&]<class K>(auto x, auto y) {
    if constexpr (std::is_same_v<K, Float>) return Value<B>::template of<K>(FO<B>::powf(x, y));
    else return Value<B>::template of<K>(IO<B>::powi(x, y));
  });
}

/// The elementwise larger (or smaller) of a and b, broadcast.
template <class B> Value<B> extremum(const OpCall<B>& c, Value<B> a, Value<B> b, bool larger) {
  Shape out = broadcast_shape(c.op(), a.shape(), b.shape());
  return numeric_binary(c, std::move(a), std::move(b), [&]<class K>(auto x, auto y) {
    using O = KindOps<B, K>;
    auto xe = O::expand(x, out), ye = O::expand(y, out);
    auto pick_y = larger ? O::lower(xe, ye) : O::greater(xe, ye);
    if constexpr (std::is_same_v<K, Float>) pick_y = BO<B>::logical_or(pick_y, FO<B>::is_nan(ye));
    return Value<B>::template of<K>(O::mask_where(xe, pick_y, ye));
  });
}

/// Min, Max, Sum, Mean: a left fold over every input.
template <class B> void add_variadic(OpTable<B>& t) {
  auto fold = [](const OpCall<B>& c, auto combine) {
    Value<B> acc = c.take(0);
    for (size_t i = 1; i < c.num_inputs(); ++i) acc = combine(c, std::move(acc), c.take(i));
    return acc;
  };
  t["Max"] = [fold](const OpCall<B>& c) -> Values<B> {
    return {fold(c, [](auto& c2, auto a, auto b) { return extremum(c2, std::move(a), std::move(b), true); })};
  };
  t["Min"] = [fold](const OpCall<B>& c) -> Values<B> {
    return {fold(c, [](auto& c2, auto a, auto b) { return extremum(c2, std::move(a), std::move(b), false); })};
  };
  auto sum = [fold](const OpCall<B>& c) {
    return fold(c, [](auto& c2, auto a, auto b) {
      return numeric_binary(c2, std::move(a), std::move(b), [&]<class K>(auto x, auto y) {
        return Value<B>::template of<K>(KindOps<B, K>::add(x, y));
      });
    });
  };
  t["Sum"] = [sum](const OpCall<B>& c) -> Values<B> { return {sum(c)}; };
  t["Mean"] = [sum](const OpCall<B>& c) -> Values<B> {
    Value<B> total = sum(c);
    if (!total.template is<Float>()) c.fail_dtype(0, total.dtype());
    auto n = static_cast<double>(c.num_inputs());
    return {Value<B>::template of<Float>(FO<B>::div_scalar(std::move(total).template take<Float>(), Scalar(n)))};
  };
}

template <class B> void add_arithmetic(OpTable<B>& t) {
  add_binary(t, "Add", []<class K>(auto a, auto b) { return KindOps<B, K>::add(std::move(a), std::move(b)); });
  add_binary(t, "Sub", []<class K>(auto a, auto b) { return KindOps<B, K>::sub(std::move(a), std::move(b)); });
  add_binary(t, "Mul", []<class K>(auto a, auto b) { return KindOps<B, K>::mul(std::move(a), std::move(b)); });
  add_binary(t, "Div", []<class K>(auto a, auto b) {
    if constexpr (std::is_same_v<K, Float>) return FO<B>::div(std::move(a), std::move(b));
    else return trunc_div<B>(std::move(a), std::move(b));
  });
  t["Mod"] = [](const OpCall<B>& c) -> Values<B> {
    if (c.attr_int("fmod", 0)) return {fmod(c, c.take(0), c.take(1))};
    if (c.in(0).template is<Float>()) c.template fail<ValueError>("a float Mod needs fmod = 1");
    return {numeric_binary(c, c.take(0), c.take(1), [&]<class K>(auto x, auto y) {
      return Value<B>::template of<K>(KindOps<B, K>::remainder(x, y));
    })};
  };
  t["Pow"] = [](const OpCall<B>& c) -> Values<B> { return {pow(c, c.take(0), c.take(1))}; };
  add_variadic(t);
}

/// A float → float function registered under name.
template <class B> void add_float_unary(OpTable<B>& t, const std::string& name, F<B> (*fn)(F<B>)) {
  t[name] = [fn](const OpCall<B>& c) -> Values<B> { return {Value<B>::template of<Float>(fn(take_float(c, 0)))}; };
}

/// A float activation with attributes: fn(call, x).
template <class B, class Fn> void add_activation(OpTable<B>& t, const std::string& name, Fn fn) {
  t[name] = [fn](const OpCall<B>& c) -> Values<B> { return {Value<B>::template of<Float>(fn(c, take_float(c, 0)))}; };
}

/// x where x > 0, else negative(x).
template <class B, class Neg> F<B> split_at_zero(F<B> x, Neg negative) {
  auto below = FO<B>::lower_elem(x, Scalar(0.0));
  return FO<B>::mask_where(x, below, negative(x));
}

template <class B> void add_math(OpTable<B>& t) {
  const std::pair<const char*, F<B> (*)(F<B>)> unary[] = {
      {"Exp", FO<B>::exp},        {"Log", FO<B>::log},     {"Sqrt", FO<B>::sqrt},   {"Sin", FO<B>::sin},
      {"Cos", FO<B>::cos},        {"Tan", FO<B>::tan},     {"Asin", FO<B>::asin},   {"Acos", FO<B>::acos},
      {"Atan", FO<B>::atan},      {"Sinh", FO<B>::sinh},   {"Cosh", FO<B>::cosh},   {"Tanh", FO<B>::tanh},
      {"Asinh", FO<B>::asinh},    {"Acosh", FO<B>::acosh}, {"Atanh", FO<B>::atanh}, {"Erf", FO<B>::erf},
      {"Floor", FO<B>::floor},    {"Ceil", FO<B>::ceil},   {"Round", FO<B>::round}, {"Reciprocal", FO<B>::recip},
      {"Sigmoid", FO<B>::sigmoid}};
  for (const auto& [name, fn] : unary) add_float_unary<B>(t, name, fn);
  t["Neg"] = [](const OpCall<B>& c) -> Values<B> {
    return {visit_numeric(c, 0, c.take(0),
                          [&]<class K>(auto p) { return Value<B>::template of<K>(KindOps<B, K>::neg(p)); })};
  };
  t["Abs"] = [](const OpCall<B>& c) -> Values<B> {
    return {visit_numeric(c, 0, c.take(0),
                          [&]<class K>(auto p) { return Value<B>::template of<K>(KindOps<B, K>::abs(p)); })};
  };
  t["Sign"] = [](const OpCall<B>& c) -> Values<B> {
    return {visit_numeric(c, 0, c.take(0),
                          [&]<class K>(auto p) { return Value<B>::template of<K>(KindOps<B, K>::sign(p)); })};
  };
  t["IsNaN"] = [](const OpCall<B>& c) -> Values<B> {
    return {Value<B>::template of<Bool>(FO<B>::is_nan(take_float(c, 0)))};
  };
  t["IsInf"] = [](const OpCall<B>& c) -> Values<B> {
    auto x = take_float(c, 0);
    bool pos = c.attr_int("detect_positive", 1), neg = c.attr_int("detect_negative", 1);
    auto inf = std::numeric_limits<double>::infinity();
    auto hit_pos = FO<B>::equal_elem(x, Scalar(inf)), hit_neg = FO<B>::equal_elem(x, Scalar(-inf));
    if (pos && neg) return {Value<B>::template of<Bool>(BO<B>::logical_or(hit_pos, hit_neg))};
    if (pos) return {Value<B>::template of<Bool>(hit_pos)};
    if (neg) return {Value<B>::template of<Bool>(hit_neg)};
    return {Value<B>::template of<Bool>(BO<B>::zeros(x.shape(), c.device(), DType::Bool))};
  };
}

template <class B> void add_activations(OpTable<B>& t) {
  t["Relu"] = [](const OpCall<B>& c) -> Values<B> {
    return {visit_numeric(c, 0, c.take(0), [&]<class K>(auto p) {
      if constexpr (std::is_same_v<K, Float>) return Value<B>::template of<K>(FO<B>::relu(p));
      else return Value<B>::template of<K>(IO<B>::clamp_min(p, Scalar(int64_t{0})));
    })};
  };
  add_activation<B>(t, "LeakyRelu", [](const OpCall<B>& c, F<B> x) {
    return FO<B>::leaky_relu(x, Scalar(c.attr_float("alpha", 0.01)));
  });
  add_activation<B>(t, "Elu", [](const OpCall<B>& c, F<B> x) {
    double alpha = c.attr_float("alpha", 1.0);
    return split_at_zero<B>(
        x, [&](F<B> v) { return FO<B>::mul_scalar(FO<B>::sub_scalar(FO<B>::exp(v), Scalar(1.0)), Scalar(alpha)); });
  });
  add_activation<B>(t, "Celu", [](const OpCall<B>& c, F<B> x) {
    double alpha = c.attr_float("alpha", 1.0);
    return split_at_zero<B>(x, [&](F<B> v) {
      auto e = FO<B>::sub_scalar(FO<B>::exp(FO<B>::div_scalar(v, Scalar(alpha))), Scalar(1.0));
      return FO<B>::mul_scalar(e, Scalar(alpha));
    });
  });
  add_activation<B>(t, "Selu", [](const OpCall<B>& c, F<B> x) {
    double alpha = c.attr_float("alpha", 1.67326319217681884765625);
    double gamma = c.attr_float("gamma", 1.05070102214813232421875);
    auto y = split_at_zero<B>(
        x, [&](F<B> v) { return FO<B>::mul_scalar(FO<B>::sub_scalar(FO<B>::exp(v), Scalar(1.0)), Scalar(alpha)); });
    return FO<B>::mul_scalar(y, Scalar(gamma));
  });
}

/// The activations without an exponential: hard, soft-sign, thresholded, shrink, PRelu.
template <class B> void add_piecewise_activations(OpTable<B>& t) {
  add_activation<B>(t, "HardSigmoid", [](const OpCall<B>& c, F<B> x) {
    return FO<B>::hard_sigmoid(x, Scalar(c.attr_float("alpha", 0.2)), Scalar(c.attr_float("beta", 0.5)));
  });
  add_activation<B>(t, "HardSwish", [](const OpCall<B>&, F<B> x) {
    return FO<B>::mul(x, FO<B>::hard_sigmoid(x, Scalar(1.0 / 6), Scalar(0.5)));
  });
  add_activation<B>(t, "Softsign", [](const OpCall<B>&, F<B> x) {
    return FO<B>::div(x, FO<B>::add_scalar(FO<B>::abs(x), Scalar(1.0)));
  });
  add_activation<B>(t, "Softplus", [](const OpCall<B>&, F<B> x) {
    // log(1 + e^x) = max(x, 0) + log1p(e^-|x|), which neither overflows nor loses small values.
    return FO<B>::add(FO<B>::relu(x), FO<B>::log1p(FO<B>::exp(FO<B>::neg(FO<B>::abs(x)))));
  });
  add_activation<B>(t, "Mish", [](const OpCall<B>&, F<B> x) {
    auto softplus = FO<B>::add(FO<B>::relu(x), FO<B>::log1p(FO<B>::exp(FO<B>::neg(FO<B>::abs(x)))));
    return FO<B>::mul(x, FO<B>::tanh(softplus));
  });
  add_activation<B>(t, "ThresholdedRelu", [](const OpCall<B>& c, F<B> x) {
    auto keep = FO<B>::greater_elem(x, Scalar(c.attr_float("alpha", 1.0)));
    return FO<B>::mask_fill(x, BO<B>::logical_not(keep), Scalar(0.0));
  });
  add_activation<B>(t, "Shrink", [](const OpCall<B>& c, F<B> x) {
    double lambd = c.attr_float("lambd", 0.5), bias = c.attr_float("bias", 0.0);
    auto low = FO<B>::lower_elem(x, Scalar(-lambd)), high = FO<B>::greater_elem(x, Scalar(lambd));
    auto y = FO<B>::mask_fill(x, BO<B>::logical_not(BO<B>::logical_or(low, high)), Scalar(0.0));
    y = FO<B>::mask_where(y, low, FO<B>::add_scalar(x, Scalar(bias)));
    return FO<B>::mask_where(y, high, FO<B>::sub_scalar(x, Scalar(bias)));
  });
  t["PRelu"] = [](const OpCall<B>& c) -> Values<B> {
    Value<B> x = c.take(0);
    Shape out = broadcast_shape(c.op(), x.shape(), c.in(1).shape());
    auto [xv, sv] = align_ranks(c, std::move(x), c.take(1));
    if (!xv.template is<Float>()) c.fail_dtype(0, xv.dtype());
    if (!sv.template is<Float>() || sv.dtype() != xv.dtype()) c.fail_dtype(1, sv.dtype());
    auto xe = FO<B>::expand(std::move(xv).template take<Float>(), out);
    auto slope = FO<B>::expand(std::move(sv).template take<Float>(), out);
    return {
        Value<B>::template of<Float>(FO<B>::mask_where(xe, FO<B>::lower_elem(xe, Scalar(0.0)), FO<B>::mul(xe, slope)))};
  };
}

/// A comparison registered under name: op<K>(a, b) → bool primitive.
template <class B, class Op> void add_compare(OpTable<B>& t, const std::string& name, Op op, bool bools) {
  t[name] = [op, bools](const OpCall<B>& c) -> Values<B> {
    if (bools && c.in(0).template is<Bool>()) {
      check::same_dtype(c.op(), c.in(0).dtype(), c.in(1).dtype());
      auto [x, y] = align_ranks(c, c.take(0), c.take(1));
      return {Value<B>::template of<Bool>(
          BO<B>::equal(std::move(x).template take<Bool>(), std::move(y).template take<Bool>()))};
    }
    return {numeric_binary(c, c.take(0), c.take(1), [&]<class K>(auto a, auto b) {
      return Value<B>::template of<Bool>(op.template operator()<K>(std::move(a), std::move(b)));
    })};
  };
}

template <class B> using BoolFn = typename B::BoolTensor (*)(typename B::BoolTensor, typename B::BoolTensor);

template <class B> void add_logic(OpTable<B>& t) {
  add_compare(
      t, "Equal", []<class K>(auto a, auto b) { return KindOps<B, K>::equal(a, b); }, true);
  add_compare(
      t, "Less", []<class K>(auto a, auto b) { return KindOps<B, K>::lower(a, b); }, false);
  add_compare(
      t, "LessOrEqual", []<class K>(auto a, auto b) { return KindOps<B, K>::lower_equal(a, b); }, false);
  add_compare(
      t, "Greater", []<class K>(auto a, auto b) { return KindOps<B, K>::greater(a, b); }, false);
  add_compare(
      t, "GreaterOrEqual", []<class K>(auto a, auto b) { return KindOps<B, K>::greater_equal(a, b); }, false);
  const std::pair<const char*, BoolFn<B>> logic[] = {
      {"And", BO<B>::logical_and}, {"Or", BO<B>::logical_or}, {"Xor", BO<B>::logical_xor}};
  for (const auto& [name, fn] : logic) {
    t[name] = [fn](const OpCall<B>& c) -> Values<B> {
      if (!c.in(0).template is<Bool>()) c.fail_dtype(0, c.in(0).dtype());
      if (!c.in(1).template is<Bool>()) c.fail_dtype(1, c.in(1).dtype());
      auto [x, y] = align_ranks(c, c.take(0), c.take(1));
      return {Value<B>::template of<Bool>(fn(std::move(x).template take<Bool>(), std::move(y).template take<Bool>()))};
    };
  }
  t["Not"] = [](const OpCall<B>& c) -> Values<B> {
    return {Value<B>::template of<Bool>(BO<B>::logical_not(c.template in_as<Bool>(0)))};
  };
  t["BitShift"] = [](const OpCall<B>& c) -> Values<B> {
    bool left = c.attr_string("direction", "") == "LEFT";
    if (!left && c.attr_string("direction", "") != "RIGHT")
      c.template fail<ValueError>("direction must be LEFT or RIGHT");
    return {numeric_binary(c, c.take(0), c.take(1), [&]<class K>(auto a, auto b) {
      if constexpr (std::is_same_v<K, Float>) {
        c.fail_dtype(0, a.dtype());
        return Value<B>::template of<K>(a);
      } else {
        return Value<B>::template of<K>(left ? IO<B>::bitwise_left_shift(a, b) : IO<B>::bitwise_right_shift(a, b));
      }
    })};
  };
}

/// Where(cond, x, y): the three broadcast to one shape.
template <class B> Value<B> where(const OpCall<B>& c) {
  Shape out = broadcast_shape(c.op(), broadcast_shape(c.op(), c.in(0).shape(), c.in(1).shape()), c.in(2).shape());
  if (!c.in(0).template is<Bool>()) c.fail_dtype(0, c.in(0).dtype());
  check::same_dtype(c.op(), c.in(1).dtype(), c.in(2).dtype());
  auto one_value = [&](size_t i) {
    return c.in(i).shape().num_elements() == 1 && c.in(i).shape().rank() <= out.rank();
  };
  if (one_value(1) || one_value(2)) {  // a mask_fill of the other branch (masking attention scores with -inf)
    size_t fill = one_value(1) ? 1 : 2, other = 3 - fill;
    // The mask stays small: the backend broadcasts it (an expanded one would be cast and walked element by element).
    auto mask = left_pad_rank(Value<B>(c.in(0)), out.rank()).template take<Bool>();
    if (fill == 2) mask = BO<B>::logical_not(mask);
    TensorData v = c.in(fill).to_data();
    Value<B> base = expand(left_pad_rank(c.take(other), out.rank()), out);
    return visit_kind(std::move(base), [&]<class K>(auto p) {
      Scalar s = visit_dtype(v.dtype(), [&]<class T>() { return Scalar(v.as_span<T>()[0]); });
      return Value<B>::template of<K>(KindOps<B, K>::mask_fill(p, mask, s));
    });
  }
  auto cond = BO<B>::expand(left_pad_rank(Value<B>(c.in(0)), out.rank()).template take<Bool>(), out);
  check::same_dtype(c.op(), c.in(1).dtype(), c.in(2).dtype());
  Value<B> x = expand(left_pad_rank(c.take(1), out.rank()), out);
  Value<B> y = expand(left_pad_rank(c.take(2), out.rank()), out);
  return visit_kind(std::move(y), [&]<class K>(auto yp) {
    return Value<B>::template of<K>(KindOps<B, K>::mask_where(yp, cond, std::move(x).template take<K>()));
  });
}

/// Clip's bounds: inputs 1 and 2 from opset 11, attributes min and max before.
template <class B> Value<B> clip(const OpCall<B>& c) {
  std::optional<Scalar> lo, hi;
  bool is_int = c.in(0).template is<Int>();
  auto bound = [&](size_t i, const char* attr) -> std::optional<Scalar> {
    if (c.opset() < 11) {
      if (!c.has_attr(attr)) return std::nullopt;
      return Scalar(c.attr_float(attr, 0));
    }
    if (!c.has(i)) return std::nullopt;
    if (c.in(i).shape().num_elements() != 1) c.template fail<ShapeError>(std::string(attr) + " must be a scalar");
    if (is_int) return Scalar(c.host_ints(i)[0]);  // exact: int64 bounds do not pass through double
    return Scalar(c.host_doubles(i)[0]);
  };
  lo = bound(1, "min"), hi = bound(2, "max");
  return visit_numeric(c, 0, c.take(0), [&]<class K>(auto p) {
    using O = KindOps<B, K>;
    if (lo && hi) return Value<B>::template of<K>(O::clamp(p, *lo, *hi));
    if (lo) return Value<B>::template of<K>(O::clamp_min(p, *lo));
    if (hi) return Value<B>::template of<K>(O::clamp_max(p, *hi));
    return Value<B>::template of<K>(p);
  });
}

template <class B> void add_casts(OpTable<B>& t) {
  t["Where"] = [](const OpCall<B>& c) -> Values<B> { return {where(c)}; };
  t["Clip"] = [](const OpCall<B>& c) -> Values<B> { return {clip(c)}; };
  t["Cast"] = [](const OpCall<B>& c) -> Values<B> { return {cast(c.take(0), onnx_dtype(c, c.attr_int("to", 0)))}; };
  t["CastLike"] = [](const OpCall<B>& c) -> Values<B> { return {cast(c.take(0), c.in(1).dtype())}; };
  t["Identity"] = [](const OpCall<B>& c) -> Values<B> { return {c.take(0)}; };
  t["Dropout"] = [](const OpCall<B>& c) -> Values<B> {
    bool training = c.has(2) && c.host_ints(2).at(0) != 0;
    double ratio = c.has(1) ? c.host_doubles(1).at(0) : 0.5;
    if (training && ratio != 0)
      c.template fail<ValueError>("training with a ratio above 0 draws a random mask ONNX does not define");
    Value<B> x = c.take(0);
    Shape s = x.shape();
    return {std::move(x), Value<B>::template of<Bool>(BO<B>::ones(s, c.device(), DType::Bool))};
  };
}

}  // namespace

template <class B> void register_elementwise_ops(OpTable<B>& t) {
  add_arithmetic(t);
  add_math(t);
  add_activations(t);
  add_piecewise_activations(t);
  add_logic(t);
  add_casts(t);
}

}  // namespace scorch::onnx

SCORCH_ONNX_INSTANTIATE(register_elementwise_ops)
