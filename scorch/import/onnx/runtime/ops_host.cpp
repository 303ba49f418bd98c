// Operators computed on the host from the inputs' values (small, irregular or sequential work that gains nothing
// from a device kernel): the window functions, ReverseSequence, MaxUnpool, Det, Unique, NonMaxSuppression,
// TfIdfVectorizer (integer n-grams) and the ai.onnx.preview.training optimizers Adagrad, Momentum and Adam.
#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <numeric>

#include "scorch/import/onnx/runtime/op_call_impl.h"
#include "scorch/vision/nms_select.h"

namespace scorch::onnx {
namespace {

template <class B> using Values = std::vector<Value<B>>;
template <class B> using IO = KindOps<B, Int>;

/// Hann, Hamming and Blackman windows: a0 − a1·cos(2πn/N) + a2·cos(4πn/N), N = size (periodic) or size − 1.
template <class B> Value<B> window(const OpCall<B>& c, double a0, double a1, double a2) {
  int64_t size = c.host_ints(0).at(0);
  if (size < 0) c.template fail<ValueError>("size " + std::to_string(size));
  check_created(c, double(size));
  double n = c.attr_int("periodic", 1) ? double(size) : double(size - 1);
  std::vector<double> w(size_t(size), 0.0);
  for (size_t i = 0; i < w.size(); ++i) {
    double x = 2 * std::numbers::pi * double(i) / n;
    w[i] = a0 - a1 * std::cos(x) + a2 * std::cos(2 * x);
  }
  return Value<B>::from_data(TensorData(w, Shape{w.size()}).convert(onnx_dtype(c, c.attr_int("output_datatype", 1))),
                             c.device());
}

template <class B> Value<B> reverse_sequence(const OpCall<B>& c) {
  Shape s = c.in(0).shape();
  if (s.rank() < 2) c.template fail<ShapeError>("input must have rank 2 or more");
  size_t batch_axis = c.axis(c.attr_int("batch_axis", 1), s.rank()),
         time_axis = c.axis(c.attr_int("time_axis", 0), s.rank());
  if (batch_axis == time_axis) c.template fail<ValueError>("batch_axis and time_axis are the same");
  auto lens = c.host_ints(1);
  size_t batch = s[batch_axis], time = s[time_axis];
  if (lens.size() != batch) c.template fail<ShapeError>("sequence_lens must have one value per batch entry");
  Shape line(std::vector<size_t>(s.rank(), 1));
  line[batch_axis] = batch, line[time_axis] = time;
  std::vector<int64_t> idx(batch * time);
  for (size_t b = 0; b < batch; ++b) {
    if (lens[b] < 0 || size_t(lens[b]) > time)
      c.template fail<ValueError>("sequence length " + std::to_string(lens[b]));
    for (size_t t = 0; t < time; ++t) {
      size_t at = batch_axis < time_axis ? b * time + t : t * batch + b;
      idx[at] = int64_t(t) < lens[b] ? lens[b] - 1 - int64_t(t) : int64_t(t);
    }
  }
  auto indices = IO<B>::expand(IO<B>::from_data(TensorData(idx, line), c.device()), s);
  return visit_kind(c.take(0), [&]<class K>(auto p) {
    return Value<B>::template of<K>(KindOps<B, K>::gather(time_axis, p, indices));
  });
}

template <class B> Value<B> max_unpool(const OpCall<B>& c) {
  Shape s = c.in(0).shape();
  if (s.rank() < 3) c.template fail<ShapeError>("input must be [N, C, spatial...]");
  size_t n = s.rank() - 2;
  auto k = c.attr_ints("kernel_shape"), st = c.attr_ints("strides"), p = c.attr_ints("pads");
  if (k.size() != n || (!st.empty() && st.size() != n) || (!p.empty() && p.size() != 2 * n))
    c.template fail<ShapeError>("kernel_shape, strides and pads must have one value (pads two) per spatial dim");
  if (c.in(1).shape() != s)
    c.template fail<ShapeError>("indices " + c.in(1).shape().to_string() + " must have X's shape " + s.to_string());
  Shape natural = s;  // the unpooled shape the indices count in
  for (size_t i = 0; i < n; ++i) {
    int64_t stride = st.empty() ? 1 : st[i], pads = p.empty() ? 0 : p[i] + p[i + n];
    natural[i + 2] = size_t(std::max<int64_t>(0, (int64_t(s[i + 2]) - 1) * stride + k[i] - pads));
  }
  Shape out = natural;
  if (c.has(2)) {
    auto dims = c.host_ints(2);
    if (dims.size() != s.rank()) c.template fail<ShapeError>("output_shape must have one value per dim");
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] < 0) c.template fail<ValueError>("output_shape must not be negative");
      out[i] = size_t(dims[i]);
    }
  }
  check_created(c, out);
  size_t total = out.num_elements(), count = s.num_elements();
  auto idx = IO<B>::reshape(IO<B>::cast(c.template in_as<Int>(1), DType::I64), Shape{count});
  if (out != natural) {  // re-count each index's place in the larger output
    auto rest = idx;
    idx = IO<B>::zeros(Shape{count}, c.device(), DType::I64);
    int64_t stride = 1;
    for (size_t d = s.rank(); d-- > 0;) {
      auto coord = IO<B>::remainder_scalar(rest, Scalar(int64_t(natural[d])));
      rest = IO<B>::div_scalar(rest, Scalar(int64_t(natural[d])));
      idx = IO<B>::add(idx, IO<B>::mul_scalar(coord, Scalar(stride)));
      stride *= int64_t(out[d]);
    }
  }
  auto x = KindOps<B, Float>::reshape(c.in_float(0), Shape{count});
  auto zeros = KindOps<B, Float>::zeros(Shape{total}, c.device(), x.dtype());
  return Value<B>::template of<Float>(KindOps<B, Float>::reshape(KindOps<B, Float>::select_add(zeros, 0, idx, x), out));
}

/// Determinants of the trailing square matrices, by LU with partial pivoting in f64.
template <class B> Value<B> det(const OpCall<B>& c) {
  TensorData d = c.in(0).to_data();
  Shape s = d.shape();
  if (s.rank() < 2 || s[s.rank() - 1] != s[s.rank() - 2])
    c.template fail<ShapeError>("input must end in square matrices, got " + s.to_string());
  size_t n = s[s.rank() - 1], count = n ? s.num_elements() / (n * n) : 0;
  auto v = d.convert(DType::F64).to_vector<double>();
  std::vector<double> out(count);
  for (size_t m = 0; m < count; ++m) {
    double* a = v.data() + m * n * n;
    double result = 1;
    for (size_t col = 0; col < n; ++col) {
      size_t pivot = col;
      for (size_t r = col + 1; r < n; ++r)
        if (std::abs(a[r * n + col]) > std::abs(a[pivot * n + col])) pivot = r;
      if (a[pivot * n + col] == 0) {
        result = 0;
        break;
      }
      if (pivot != col) {
        for (size_t k = 0; k < n; ++k) std::swap(a[pivot * n + k], a[col * n + k]);
        result = -result;
      }
      result *= a[col * n + col];
      for (size_t r = col + 1; r < n; ++r) {
        double f = a[r * n + col] / a[col * n + col];
        for (size_t k = col; k < n; ++k) a[r * n + k] -= f * a[col * n + k];
      }
    }
    out[m] = result;
  }
  Shape os;
  for (size_t i = 0; i + 2 < s.rank(); ++i) os.push_back(s[i]);
  return Value<B>::from_data(TensorData(out, os).convert(d.dtype()), c.device());
}

/// Unique slices along axis (or unique elements): Y, first indices, inverse indices, counts.
template <class B> Values<B> unique(const OpCall<B>& c) {
  TensorData d = c.in(0).to_data();
  Shape s = d.shape();
  bool flat = !c.has_attr("axis");
  size_t axis = flat ? 0 : c.axis(c.attr_int("axis", 0), s.rank());
  if (flat) s = Shape{s.num_elements()};
  size_t n = s.rank() ? s[axis] : 0, outer = 1, inner = 1;
  for (size_t i = 0; i < axis; ++i) outer *= s[i];
  for (size_t i = axis + 1; i < s.rank(); ++i) inner *= s[i];
  auto v = d.convert(DType::F64).to_vector<double>();
  auto slice_of = [&](size_t k) {
    std::vector<double> out;
    for (size_t o = 0; o < outer; ++o)
      for (size_t i = 0; i < inner; ++i) out.push_back(v[(o * n + k) * inner + i]);
    return out;
  };
  std::vector<std::vector<double>> slices;
  for (size_t k = 0; k < n; ++k) slices.push_back(slice_of(k));
  std::vector<size_t> firsts;  // first occurrence of each distinct slice, in order of appearance
  std::vector<int64_t> inverse(n), counts;
  for (size_t k = 0; k < n; ++k) {
    auto it = std::find_if(firsts.begin(), firsts.end(), [&](size_t f) { return slices[f] == slices[k]; });
    if (it == firsts.end()) firsts.push_back(k), counts.push_back(0), it = firsts.end() - 1;
    inverse[k] = int64_t(it - firsts.begin());
    ++counts[size_t(inverse[k])];
  }
  std::vector<size_t> order(firsts.size());
  std::iota(order.begin(), order.end(), 0);
  if (c.attr_int("sorted", 1))
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return slices[firsts[a]] < slices[firsts[b]]; });
  std::vector<int64_t> rank_of(order.size()), first_idx, count_out;
  for (size_t r = 0; r < order.size(); ++r)
    rank_of[order[r]] = int64_t(r), first_idx.push_back(int64_t(firsts[order[r]])),
    count_out.push_back(counts[order[r]]);
  for (auto& i : inverse) i = rank_of[size_t(i)];
  auto picked = IO<B>::from_data(TensorData(first_idx, Shape{first_idx.size()}), c.device());
  Value<B> x = c.take(0);
  if (flat) x = reshape(std::move(x), s);
  return {select(std::move(x), axis, picked), int_tensor(c, first_idx, Shape{first_idx.size()}),
          int_tensor(c, inverse, Shape{inverse.size()}), int_tensor(c, count_out, Shape{count_out.size()})};
}

/// NonMaxSuppression per batch and class: boxes by descending score (ties by index), kept when their IoU with every
/// kept box is at most the threshold (vision/nms_select.h); output rows [batch, class, box]. Corners are computed once
/// a batch.
template <class B> Value<B> non_max_suppression(const OpCall<B>& c) {
  TensorData boxes_d = c.in(0).to_data().convert(DType::F64), scores_d = c.in(1).to_data().convert(DType::F64);
  Shape bs = boxes_d.shape(), ss = scores_d.shape();
  if (bs.rank() != 3 || bs[2] != 4 || ss.rank() != 3 || ss[0] != bs[0] || ss[2] != bs[1])
    c.template fail<ShapeError>("boxes " + bs.to_string() + " and scores " + ss.to_string() + " do not match");
  int64_t max_out = c.has(2) ? c.host_ints(2).at(0) : 0;
  double iou_limit = c.has(3) ? c.host_doubles(3).at(0) : 0.0;
  std::optional<double> score_min;
  if (c.has(4)) score_min = c.host_doubles(4).at(0);
  bool center = c.attr_int("center_point_box", 0) != 0;
  auto boxes = boxes_d.to_vector<double>(), scores = scores_d.to_vector<double>();
  std::vector<int64_t> rows;
  std::vector<size_t> order;
  for (size_t b = 0; b < bs[0] && max_out > 0; ++b) {
    std::vector<vision::suppression::Box> corners = vision::suppression::corners(&boxes[b * bs[1] * 4], bs[1], center);
    for (size_t k = 0; k < ss[1]; ++k) {
      const double* score = &scores[(b * ss[1] + k) * bs[1]];
      order.clear();
      for (size_t i = 0; i < bs[1]; ++i)
        if (!score_min || score[i] > *score_min) order.push_back(i);
      order = vision::suppression::by_score(score, std::move(order));
      for (size_t i : vision::suppression::select(corners, order, iou_limit, size_t(max_out)))
        rows.insert(rows.end(), {int64_t(b), int64_t(k), int64_t(i)});
    }
  }
  return int_tensor(c, rows, Shape{rows.size() / 3, 3});
}

/// TfIdfVectorizer's n-gram pool: each n-gram of pool_int64s (lengths per ngram_counts) → its output column.
struct NgramPool {
  std::map<std::vector<int64_t>, size_t> column;
  size_t columns = 0;
};

template <class B> NgramPool ngram_pool(const OpCall<B>& c, size_t max_n) {
  auto pool = c.attr_ints("pool_int64s"), counts = c.attr_ints("ngram_counts"), indexes = c.attr_ints("ngram_indexes");
  if (pool.empty()) c.template fail<ValueError>("only pool_int64s is supported (Scorch has no string tensors)");
  if (counts.size() > max_n || counts.empty() || counts[0] != 0)
    c.template fail<ValueError>("ngram_counts must start at 0 and have at most max_gram_length entries");
  NgramPool out;
  size_t k = 0;  // n-grams seen, the index into ngram_indexes
  for (size_t n = 1; n <= counts.size(); ++n) {
    int64_t begin = counts[n - 1], end = n < counts.size() ? counts[n] : int64_t(pool.size());
    if (begin < 0 || end < begin || end > int64_t(pool.size()) || (end - begin) % int64_t(n) != 0)
      c.template fail<ValueError>("ngram_counts does not split pool_int64s into n-grams");
    for (int64_t at = begin; at < end; at += int64_t(n), ++k) {
      if (k >= indexes.size() || indexes[k] < 0 || indexes[k] >= int64_t(1) << 24)
        c.template fail<ValueError>("ngram_indexes must give each n-gram a column in [0, 2^24)");
      out.column[std::vector<int64_t>(pool.begin() + at, pool.begin() + at + int64_t(n))] = size_t(indexes[k]);
      out.columns = std::max(out.columns, size_t(indexes[k]) + 1);
    }
  }
  return out;
}

/// TfIdfVectorizer on int32/int64 rows: per row, the count of each pooled n-gram (min..max_gram_length tokens, taken
/// every 1..max_skip_count + 1 tokens; single tokens counted once), then weighted as mode says (TF, IDF, TFIDF).
template <class B> Value<B> tfidf_vectorizer(const OpCall<B>& c) {
  Shape s = c.in(0).shape();
  if (s.rank() < 1 || s.rank() > 2) c.template fail<ShapeError>("input must be [C] or [N, C]");
  size_t min_n = size_t(std::max<int64_t>(1, c.attr_int("min_gram_length", 1)));
  size_t max_n = size_t(std::clamp<int64_t>(c.attr_int("max_gram_length", 1), 1, 64));
  size_t max_skip = size_t(std::clamp<int64_t>(c.attr_int("max_skip_count", 0), 0, 1 << 16));
  if (!c.has_attr("mode")) c.template fail<ValueError>("attribute 'mode' is required");
  std::string mode = c.attr_string("mode", "TF");
  if (min_n > max_n || (mode != "TF" && mode != "IDF" && mode != "TFIDF"))
    c.template fail<ValueError>("min_gram_length > max_gram_length or mode '" + mode + "' (TF, IDF or TFIDF)");
  NgramPool pool = ngram_pool(c, max_n);
  auto weights = c.attr_floats("weights");
  if (!weights.empty() && weights.size() < pool.columns) c.template fail<ValueError>("weights has too few entries");
  std::vector<int64_t> tokens = c.host_ints(0);
  size_t rows = s.rank() == 2 ? s[0] : 1, width = s.rank() == 2 ? s[1] : s[0];
  check_created(c, double(rows) * double(pool.columns));
  std::vector<float> out(rows * pool.columns, 0.0f);
  for (size_t r = 0; r < rows; ++r) {
    const int64_t* row = tokens.data() + r * width;
    for (size_t skip = 1, first_n = min_n; skip <= max_skip + 1 && first_n <= max_n; ++skip) {
      if ((first_n - 1) * skip >= width) break;  // no n-gram of first_n tokens fits at this or a wider skip
      for (size_t start = 0; start < width; ++start)
        for (size_t n = first_n; n <= max_n && start + (n - 1) * skip < width; ++n) {
          std::vector<int64_t> gram;
          for (size_t i = 0; i < n; ++i) gram.push_back(row[start + i * skip]);
          if (auto hit = pool.column.find(gram); hit != pool.column.end()) out[r * pool.columns + hit->second] += 1;
        }
      if (first_n == 1) first_n = 2;  // single tokens do not depend on the skip: counted once
    }
  }
  for (size_t i = 0; i < out.size(); ++i) {
    double w = weights.empty() ? 1.0 : weights[i % pool.columns];
    if (mode == "IDF") out[i] = out[i] > 0 ? float(w) : 0.0f;
    else if (mode == "TFIDF") out[i] = float(out[i] * w);
  }
  Shape shape = s.rank() == 2 ? Shape{rows, pool.columns} : Shape{pool.columns};
  return Value<B>::from_data(TensorData(out, shape), c.device());
}

/// The training optimizers' operands: rate R, step count T, then `groups` lists of n tensors (X, G, V, H, ...)
/// read on the host as doubles.
template <class B> struct OptimizerInputs {
  double rate = 0;
  int64_t step = 0;
  size_t n = 0;
  std::vector<std::vector<std::vector<double>>> groups;  // group → tensor → values
};

template <class B> OptimizerInputs<B> optimizer_inputs(const OpCall<B>& c, size_t groups) {
  if (c.num_inputs() < 2 || (c.num_inputs() - 2) % groups != 0 || c.num_inputs() == 2)
    c.template fail<ValueError>("inputs must be R, T, then " + std::to_string(groups) + " lists of equal length");
  OptimizerInputs<B> in;
  in.rate = c.host_doubles(0).at(0);
  in.step = c.host_ints(1).at(0);
  in.n = (c.num_inputs() - 2) / groups;
  in.groups.resize(groups);
  for (size_t g = 0; g < groups; ++g)
    for (size_t i = 0; i < in.n; ++i) {
      if (c.in(2 + g * in.n + i).shape() != c.in(2 + i).shape())
        c.template fail<ShapeError>("input " + std::to_string(2 + g * in.n + i) + " differs in shape from its X");
      in.groups[g].push_back(c.host_doubles(2 + g * in.n + i));
    }
  return in;
}

/// The optimizer's outputs: `groups` lists of n tensors shaped and typed as the X inputs.
template <class B> Values<B> optimizer_outputs(const OpCall<B>& c, const OptimizerInputs<B>& in,
                                               const std::vector<std::vector<std::vector<double>>>& groups) {
  Values<B> out;
  for (const auto& group : groups)
    for (size_t i = 0; i < in.n; ++i)
      out.push_back(
          Value<B>::from_data(TensorData(group[i], c.in(2 + i).shape()).convert(c.in(2 + i).dtype()), c.device()));
  return out;
}

/// Adagrad: H += G'², X −= r·G' / (√H + ε), with G' = G + λ·X and r = R / (1 + T·decay_factor).
template <class B> Values<B> adagrad(const OpCall<B>& c) {
  auto in = optimizer_inputs(c, 3);
  double decay = c.attr_float("decay_factor", 0), eps = c.attr_float("epsilon", 1e-6),
         lambda = c.attr_float("norm_coefficient", 0), r = in.rate / (1 + double(in.step) * decay);
  auto x = in.groups[0], h = in.groups[2];
  for (size_t i = 0; i < in.n; ++i)
    for (size_t j = 0; j < x[i].size(); ++j) {
      double g = in.groups[1][i][j] + lambda * x[i][j];
      h[i][j] += g * g;
      x[i][j] -= r * g / (std::sqrt(h[i][j]) + eps);
    }
  return optimizer_outputs(c, in, {x, h});
}

/// Momentum: V = α·V + β'·G', X −= R·V (standard) or R·(G' + α·V) (nesterov); β' = β after the first step,
/// else 1.
template <class B> Values<B> momentum(const OpCall<B>& c) {
  for (const char* required : {"alpha", "beta", "mode"})
    if (!c.has_attr(required)) c.template fail<ValueError>(std::string("attribute '") + required + "' is required");
  auto in = optimizer_inputs(c, 3);
  double alpha = c.attr_float("alpha", 0), beta = in.step > 0 ? c.attr_float("beta", 0) : 1.0,
         lambda = c.attr_float("norm_coefficient", 0);
  std::string mode = c.attr_string("mode", "standard");
  if (mode != "standard" && mode != "nesterov") c.template fail<ValueError>("mode '" + mode + "'");
  auto x = in.groups[0], v = in.groups[2];
  for (size_t i = 0; i < in.n; ++i)
    for (size_t j = 0; j < x[i].size(); ++j) {
      double g = in.groups[1][i][j] + lambda * x[i][j];
      v[i][j] = alpha * v[i][j] + beta * g;
      x[i][j] -= in.rate * (mode == "standard" ? v[i][j] : g + alpha * v[i][j]);
    }
  return optimizer_outputs(c, in, {x, v});
}

/// Adam: V = α·V + (1 − α)·G', H = β·H + (1 − β)·G'², X −= R'·V / (√H + ε) with R' bias-corrected
/// after the first step, then X scaled by 1 − norm_coefficient_post.
template <class B> Values<B> adam(const OpCall<B>& c) {
  auto in = optimizer_inputs(c, 4);
  double alpha = c.attr_float("alpha", 0.9), beta = c.attr_float("beta", 0.999), eps = c.attr_float("epsilon", 1e-6),
         lambda = c.attr_float("norm_coefficient", 0), post = c.attr_float("norm_coefficient_post", 0);
  double t = double(in.step);
  double r = in.step > 0 ? in.rate * std::sqrt(1 - std::pow(beta, t)) / (1 - std::pow(alpha, t)) : in.rate;
  auto x = in.groups[0], v = in.groups[2], h = in.groups[3];
  for (size_t i = 0; i < in.n; ++i)
    for (size_t j = 0; j < x[i].size(); ++j) {
      double g = in.groups[1][i][j] + lambda * x[i][j];
      v[i][j] = alpha * v[i][j] + (1 - alpha) * g;
      h[i][j] = beta * h[i][j] + (1 - beta) * g * g;
      x[i][j] = (1 - post) * (x[i][j] - r * v[i][j] / (std::sqrt(h[i][j]) + eps));
    }
  return optimizer_outputs(c, in, {x, v, h});
}

}  // namespace

template <class B> void register_host_ops(OpTable<B>& t) {
  t["TfIdfVectorizer"] = [](const OpCall<B>& c) -> Values<B> { return {tfidf_vectorizer(c)}; };
  t["ai.onnx.preview.training.Adagrad"] = [](const OpCall<B>& c) { return adagrad(c); };
  t["ai.onnx.preview.training.Momentum"] = [](const OpCall<B>& c) { return momentum(c); };
  t["ai.onnx.preview.training.Adam"] = [](const OpCall<B>& c) { return adam(c); };
  t["HannWindow"] = [](const OpCall<B>& c) -> Values<B> { return {window(c, 0.5, 0.5, 0.0)}; };
  t["HammingWindow"] = [](const OpCall<B>& c) -> Values<B> { return {window(c, 25.0 / 46, 21.0 / 46, 0.0)}; };
  t["BlackmanWindow"] = [](const OpCall<B>& c) -> Values<B> { return {window(c, 0.42, 0.5, 0.08)}; };
  t["ReverseSequence"] = [](const OpCall<B>& c) -> Values<B> { return {reverse_sequence(c)}; };
  t["MaxUnpool"] = [](const OpCall<B>& c) -> Values<B> { return {max_unpool(c)}; };
  t["Det"] = [](const OpCall<B>& c) -> Values<B> { return {det(c)}; };
  t["Unique"] = [](const OpCall<B>& c) { return unique(c); };
  t["NonMaxSuppression"] = [](const OpCall<B>& c) -> Values<B> { return {non_max_suppression(c)}; };
}

}  // namespace scorch::onnx

SCORCH_ONNX_INSTANTIATE(register_host_ops)
