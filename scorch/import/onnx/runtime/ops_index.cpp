// Indexing operators: Gather, GatherElements, GatherND, ScatterElements (and the older Scatter), ScatterND, OneHot,
// Compress, NonZero, and the losses built on picking a class: NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss.
#include "scorch/import/onnx/runtime/op_call_impl.h"

namespace scorch::onnx {
namespace {

template <class B> using Values = std::vector<Value<B>>;
template <class B> using F = typename B::FloatTensor;
template <class B> using I = typename B::IntTensor;
template <class B> using FO = KindOps<B, Float>;
template <class B> using IO = KindOps<B, Int>;

/// Int indices as i64 with negative ones counted from the end of a dim of size n; out-of-range ones are the
/// backend's ShapeError.
template <class B> I<B> wrap_indices(const OpCall<B>& c, size_t input, size_t n) {
  Value<B> v = c.in(input);
  if (!v.template is<Int>()) c.fail_dtype(input, v.dtype());
  I<B> idx = IO<B>::cast(std::move(v).template take<Int>(), DType::I64);
  auto negative = IO<B>::lower_elem(idx, Scalar(int64_t{0}));
  return IO<B>::mask_where(idx, negative, IO<B>::add_scalar(idx, Scalar(int64_t(n))));
}

template <class B> Value<B> gather(const OpCall<B>& c) {
  Shape s = c.in(0).shape(), is = c.in(1).shape();
  size_t axis = c.axis(c.attr_int("axis", 0), s.rank());
  I<B> idx = IO<B>::reshape(wrap_indices(c, 1, s[axis]), Shape{is.num_elements()});
  Shape out;
  for (size_t i = 0; i < axis; ++i) out.push_back(s[i]);
  for (size_t d : is) out.push_back(d);
  for (size_t i = axis + 1; i < s.rank(); ++i) out.push_back(s[i]);
  return reshape(select(c.take(0), axis, idx), out);
}

template <class B> Value<B> gather_elements(const OpCall<B>& c) {
  Shape s = c.in(0).shape();
  size_t axis = c.axis(c.attr_int("axis", 0), s.rank());
  I<B> idx = wrap_indices(c, 1, s[axis]);
  check::gather(c.op(), s, idx.shape(), axis);
  return visit_kind(c.take(0),
                    [&]<class K>(auto p) { return Value<B>::template of<K>(KindOps<B, K>::gather(axis, p, idx)); });
}

/// GatherND / ScatterND's row numbers: data seen as [batch·rows, rest...] and each index tuple (the last dim of
/// indices) turned into one row; returns the rows and the shape data is seen with.
template <class B> std::pair<I<B>, Shape> nd_rows(const OpCall<B>& c, const Shape& data, size_t batch_dims) {
  Shape is = c.in(1).shape();
  if (is.rank() < 1 || is.rank() <= batch_dims)
    c.template fail<ShapeError>("indices " + is.to_string() + " are too small");
  size_t k = is[is.rank() - 1];
  if (batch_dims + k > data.rank())
    c.template fail<ShapeError>("index tuples of " + std::to_string(k) + " do not fit " + data.to_string());
  size_t batch = 1, rows = 1, tuples = is.num_elements() / std::max<size_t>(k, 1);
  for (size_t i = 0; i < batch_dims; ++i) batch *= data[i];
  std::vector<int64_t> strides(k);
  for (size_t j = k; j-- > 0;) strides[j] = int64_t(rows), rows *= data[batch_dims + j];
  auto host = c.host_ints(1);  // every component in range (the backend sees only the combined row)
  for (size_t t = 0; k && t < host.size(); ++t) {
    auto dim = int64_t(data[batch_dims + t % k]);
    if (host[t] < -dim || host[t] >= dim)
      c.template fail<ShapeError>("index " + std::to_string(host[t]) + " is out of range for dim " +
                                  std::to_string(dim));
  }
  for (size_t i = 0; i < batch_dims; ++i)
    if (is[i] != data[i])
      c.template fail<ShapeError>("batch dims of indices " + is.to_string() + " and data " + data.to_string() +
                                  " differ");
  I<B> idx = IO<B>::cast(c.template in_as<Int>(1), DType::I64);
  I<B> lin = IO<B>::zeros(Shape{tuples}, c.device(), DType::I64);
  if (k > 0) {
    idx = IO<B>::reshape(idx, Shape{tuples, k});
    for (size_t j = 0; j < k; ++j) {
      auto col = IO<B>::reshape(IO<B>::slice(idx, {{0, tuples, 1}, {j, j + 1, 1}}), Shape{tuples});
      auto dim = int64_t(data[batch_dims + j]);
      col = IO<B>::mask_where(col, IO<B>::lower_elem(col, Scalar(int64_t{0})), IO<B>::add_scalar(col, Scalar(dim)));
      lin = IO<B>::add(lin, IO<B>::mul_scalar(col, Scalar(strides[j])));
    }
  }
  if (batch_dims > 0) {  // tuples are grouped by batch: offset each group by its batch's first row
    size_t per_batch = tuples / std::max<size_t>(batch, 1);
    auto b = IO<B>::div_scalar(IO<B>::arange(0, int64_t(tuples), 1, c.device(), DType::I64),
                               Scalar(int64_t(std::max<size_t>(per_batch, 1))));
    lin = IO<B>::add(lin, IO<B>::mul_scalar(b, Scalar(int64_t(rows))));
  }
  Shape seen{batch * rows};
  for (size_t i = batch_dims + k; i < data.rank(); ++i) seen.push_back(data[i]);
  return {lin, seen};
}

template <class B> Value<B> gather_nd(const OpCall<B>& c) {
  Shape s = c.in(0).shape(), is = c.in(1).shape();
  size_t batch_dims = size_t(c.attr_int("batch_dims", 0));
  auto [rows, seen] = nd_rows(c, s, batch_dims);
  Shape out;
  for (size_t i = 0; i + 1 < is.rank(); ++i) out.push_back(is[i]);
  for (size_t i = 1; i < seen.rank(); ++i) out.push_back(seen[i]);
  return reshape(select(reshape(c.take(0), seen), 0, rows), out);
}

/// Scatter's reduction: "none" replaces (indices assumed distinct, as ONNX requires), "add" adds.
template <class B> bool scatter_adds(const OpCall<B>& c) {
  std::string r = c.attr_string("reduction", "none");
  if (r != "none" && r != "add") c.template fail<ValueError>("reduction '" + r + "' is not supported");
  return r == "add";
}

template <class B> Value<B> scatter_elements(const OpCall<B>& c) {
  Shape s = c.in(0).shape();
  size_t axis = c.axis(c.attr_int("axis", 0), s.rank());
  I<B> idx = wrap_indices(c, 1, s[axis]);
  check::same_dtype(c.op(), c.in(0).dtype(), c.in(2).dtype());
  check::scatter(s, idx.shape(), c.in(2).shape(), axis);
  bool add = scatter_adds(c);
  Value<B> updates = c.take(2);
  return visit_numeric(c, 0, c.take(0), [&]<class K>(auto data) {
    using O = KindOps<B, K>;
    auto u = std::move(updates).template take<K>();
    if (!add) {
      auto ones = O::ones(u.shape(), c.device(), u.dtype());
      auto hit =
          O::greater_elem(O::scatter_add(axis, O::zeros(s, c.device(), u.dtype()), idx, ones), Scalar(int64_t{0}));
      data = O::mask_fill(data, hit, Scalar(int64_t{0}));
    }
    return Value<B>::template of<K>(O::scatter_add(axis, data, idx, u));
  });
}

/// ScatterND with reduction "mul", on the host: each indexed row multiplied by its update, in order.
template <class B> Value<B> scatter_nd_mul(const OpCall<B>& c) {
  TensorData data = c.in(0).to_data();
  DType dtype = data.dtype();
  Shape s = data.shape(), is = c.in(1).shape();
  auto v = data.convert(DType::F64).template to_vector<double>();
  auto idx = c.host_ints(1);
  auto upd = c.in(2).to_data().convert(DType::F64).template to_vector<double>();
  size_t k = is.rank() ? is[is.rank() - 1] : 0, tuples = k ? idx.size() / k : 0, row = 1;
  if (k == 0 || k > s.rank()) c.template fail<ShapeError>("index tuples do not fit " + s.to_string());
  for (size_t i = k; i < s.rank(); ++i) row *= s[i];
  if (upd.size() != tuples * row) c.template fail<ShapeError>("updates do not match the indexed rows");
  for (size_t t = 0; t < tuples; ++t) {
    size_t at = 0;
    for (size_t j = 0; j < k; ++j) {
      int64_t i = idx[t * k + j] < 0 ? idx[t * k + j] + int64_t(s[j]) : idx[t * k + j];
      if (i < 0 || i >= int64_t(s[j]))
        c.template fail<ShapeError>("index " + std::to_string(idx[t * k + j]) + " is out of range");
      at = at * s[j] + size_t(i);
    }
    for (size_t e = 0; e < row; ++e) v[at * row + e] *= upd[t * row + e];
  }
  return Value<B>::from_data(TensorData(v, s).convert(dtype), c.device());
}

template <class B> Value<B> scatter_nd(const OpCall<B>& c) {
  if (c.attr_string("reduction", "none") == "mul") return scatter_nd_mul(c);
  Shape s = c.in(0).shape();
  auto [rows, seen] = nd_rows(c, s, 0);
  check::same_dtype(c.op(), c.in(0).dtype(), c.in(2).dtype());
  Shape useen{rows.shape()[0]};
  for (size_t i = 1; i < seen.rank(); ++i) useen.push_back(seen[i]);
  if (c.in(2).shape().num_elements() != useen.num_elements())
    c.template fail<ShapeError>("updates " + c.in(2).shape().to_string() + " do not match the indexed rows");
  bool add = scatter_adds(c);
  Value<B> updates = reshape(c.take(2), useen);
  Value<B> r = visit_numeric(c, 0, reshape(c.take(0), seen), [&]<class K>(auto data) {
    using O = KindOps<B, K>;
    auto u = std::move(updates).template take<K>();
    if (!add) {  // replace: zero the indexed rows, then add the updates
      auto ones = O::ones(u.shape(), c.device(), u.dtype());
      auto hits = O::select_add(O::zeros(data.shape(), c.device(), u.dtype()), 0, rows, ones);
      data = O::mask_fill(data, O::greater_elem(hits, Scalar(int64_t{0})), Scalar(int64_t{0}));
    }
    return Value<B>::template of<K>(O::select_add(data, 0, rows, u));
  });
  return reshape(std::move(r), s);
}

template <class B> Value<B> one_hot(const OpCall<B>& c) {
  Shape is = c.in(0).shape();
  double depth_value = c.host_doubles(1).at(0);
  if (depth_value < 1 || depth_value > 1e8) c.template fail<ValueError>("depth " + std::to_string(depth_value));
  auto depth = int64_t(depth_value);
  check_created(c, depth_value);
  check_created(c, double(is.num_elements()) * depth_value);
  Value<B> values = c.in(2);
  if (values.shape().num_elements() != 2) c.template fail<ShapeError>("values must hold [off, on]");
  size_t axis = c.axis(c.attr_int("axis", -1), is.rank() + 1);
  Value<B> idx_v = cast(Value<B>(c.in(0)), DType::I64);
  I<B> idx = std::move(idx_v).template take<Int>();
  idx = IO<B>::mask_where(idx, IO<B>::lower_elem(idx, Scalar(int64_t{0})), IO<B>::add_scalar(idx, Scalar(depth)));
  Shape out = is, line;
  out.insert(axis, size_t(depth));
  for (size_t i = 0; i < out.rank(); ++i) line.push_back(i == axis ? size_t(depth) : 1);
  Shape idx_shape = is;
  idx_shape.insert(axis, 1);
  auto positions = IO<B>::expand(IO<B>::reshape(IO<B>::arange(0, depth, 1, c.device(), DType::I64), line), out);
  auto hit = IO<B>::equal(positions, IO<B>::expand(IO<B>::reshape(idx, idx_shape), out));
  Value<B> off = slice(values, {{0, 1, 1}}), on = slice(values, {{1, 2, 1}});
  Shape ones(std::vector<size_t>(out.rank(), 1));
  return visit_numeric(c, 2, expand(reshape(std::move(off), ones), out), [&]<class K>(auto base) {
    auto top = KindOps<B, K>::expand(reshape(on, ones).template take<K>(), out);
    return Value<B>::template of<K>(KindOps<B, K>::mask_where(base, hit, top));
  });
}

template <class B> Value<B> compress(const OpCall<B>& c) {
  Value<B> x = c.take(0);
  auto cond = c.host_ints(1);
  if (!c.has_attr("axis")) x = reshape(std::move(x), Shape{x.shape().num_elements()});
  size_t axis = c.has_attr("axis") ? c.axis(c.attr_int("axis", 0), x.shape().rank()) : 0;
  if (cond.size() > x.shape()[axis])
    c.template fail<ShapeError>("condition is longer than dim " + std::to_string(axis));
  std::vector<int64_t> kept;
  for (size_t i = 0; i < cond.size(); ++i)
    if (cond[i]) kept.push_back(int64_t(i));
  auto idx = IO<B>::from_data(TensorData(kept, Shape{kept.size()}), c.device());
  return select(std::move(x), axis, idx);
}

template <class B> Value<B> non_zero(const OpCall<B>& c) {
  Value<B> x = c.take(0);
  auto mask = std::move(cast(std::move(x), DType::Bool)).template take<Bool>();
  auto where = KindOps<B, Bool>::argwhere(mask);  // [count, rank]
  return Value<B>::template of<Int>(IO<B>::permute(IO<B>::cast(where, DType::I64), {1, 0}));
}

/// Picks input[n, target[n, ...], ...] weighted, for NLL: returns (loss per element, weight per element).
template <class B> std::pair<F<B>, F<B>> picked_loss(const OpCall<B>& c, F<B> log_prob, size_t weight_input) {
  Shape s = log_prob.shape();
  if (s.rank() < 2) c.template fail<ShapeError>("input must be [N, C, ...], got " + s.to_string());
  I<B> target = IO<B>::cast(c.template in_as<Int>(1), DType::I64);
  Shape ts = target.shape(), kept = s;
  kept[1] = 1;
  if (without_dim(s, 1) != ts)
    c.template fail<ShapeError>("target " + ts.to_string() + " does not match input " + s.to_string());
  auto ignored = IO<B>::equal_elem(target, Scalar(c.attr_int("ignore_index", INT64_MIN)));
  target = IO<B>::mask_fill(target, ignored, Scalar(int64_t{0}));
  F<B> picked = FO<B>::reshape(FO<B>::gather(1, log_prob, IO<B>::reshape(target, kept)), ts);
  F<B> w = c.has(weight_input)
               ? FO<B>::reshape(
                     FO<B>::select(c.in_float(weight_input), 0, IO<B>::reshape(target, Shape{ts.num_elements()})), ts)
               : FO<B>::ones(ts, c.device(), log_prob.dtype());
  w = FO<B>::mask_fill(w, ignored, Scalar(0.0));
  return {FO<B>::neg(FO<B>::mul(picked, w)), w};
}

/// The loss reduced as the node's reduction says (mean divides by the summed weights).
template <class B> F<B> reduce_loss(const OpCall<B>& c, F<B> loss, F<B> weights) {
  std::string r = c.attr_string("reduction", "mean");
  if (r == "none") return loss;
  F<B> total = FO<B>::reshape(FO<B>::sum(loss), Shape{});
  if (r == "sum") return total;
  if (r != "mean") c.template fail<ValueError>("reduction '" + r + "' is not supported");
  return FO<B>::div(total, FO<B>::reshape(FO<B>::sum(weights), Shape{}));
}

template <class B> void add_losses(OpTable<B>& t) {
  t["NegativeLogLikelihoodLoss"] = [](const OpCall<B>& c) -> Values<B> {
    auto [loss, w] = picked_loss(c, c.in_float(0), 2);
    return {Value<B>::template of<Float>(reduce_loss(c, loss, w))};
  };
  t["SoftmaxCrossEntropyLoss"] = [](const OpCall<B>& c) -> Values<B> {
    F<B> log_prob = FO<B>::log_softmax(c.in_float(0), 1);
    auto [loss, w] = picked_loss(c, log_prob, 2);
    return {Value<B>::template of<Float>(reduce_loss(c, loss, w)), Value<B>::template of<Float>(log_prob)};
  };
}

}  // namespace

template <class B> void register_index_ops(OpTable<B>& t) {
  t["Gather"] = [](const OpCall<B>& c) -> Values<B> { return {gather(c)}; };
  t["GatherElements"] = [](const OpCall<B>& c) -> Values<B> { return {gather_elements(c)}; };
  t["GatherND"] = [](const OpCall<B>& c) -> Values<B> { return {gather_nd(c)}; };
  t["ScatterElements"] = [](const OpCall<B>& c) -> Values<B> { return {scatter_elements(c)}; };
  t["Scatter"] = t["ScatterElements"];
  t["ScatterND"] = [](const OpCall<B>& c) -> Values<B> { return {scatter_nd(c)}; };
  t["OneHot"] = [](const OpCall<B>& c) -> Values<B> { return {one_hot(c)}; };
  t["Compress"] = [](const OpCall<B>& c) -> Values<B> { return {compress(c)}; };
  t["NonZero"] = [](const OpCall<B>& c) -> Values<B> { return {non_zero(c)}; };
  add_losses(t);
}

}  // namespace scorch::onnx

SCORCH_ONNX_INSTANTIATE(register_index_ops)
