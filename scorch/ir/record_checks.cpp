#include "scorch/ir/record_checks.h"

#include <algorithm>
#include <array>
#include <string>

#include "scorch/core/error.h"
#include "scorch/tensor/checks.h"
#include "scorch/tensor/functional_checks.h"

namespace scorch::ir::checks {
namespace {

std::string str(size_t v) { return std::to_string(v); }
std::string described(const char* name, const Meta& m) {
  return std::string(name) + " " + m.shape.to_string() + " " + std::string(dtype_name(m.dtype));
}
void kind_of(const char* op, const char* name, const Meta& m, bool ok, const char* kind) {
  if (!ok) throw DTypeError(op, described(name, m) + " is not a " + kind + " tensor (the op's signature wants one)");
}
std::optional<Shape> shape_of(const OptMeta& m) { return m ? std::optional<Shape>(m->shape) : std::nullopt; }
void same_rank(const char* op, const char* name, const Meta& m, size_t rank) {
  if (m.shape.rank() != rank) throw ShapeError(op, described(name, m) + " must have rank " + str(rank));
}

}  // namespace

namespace {
template <class E> [[noreturn]] void rename(std::string_view op, const E& e) {
  std::string name(op);
  if (std::string(e.what()).rfind("[" + name + "]", 0) == 0) throw e;
  throw E(name, e.what());
}
}  // namespace

void rethrow_naming(std::string_view op) {
  try {
    throw;
  } catch (const ShapeError& e) { rename(op, e); } catch (const DTypeError& e) {
    rename(op, e);
  } catch (const ValueError& e) { rename(op, e); } catch (const DeviceError& e) {
    rename(op, e);
  }
}

void is_float(const char* op, const char* name, const Meta& m) {
  kind_of(op, name, m, scorch::is_float(m.dtype), "float");
}
void is_int(const char* op, const char* name, const Meta& m) {
  kind_of(op, name, m, !scorch::is_float(m.dtype) && !scorch::is_bool(m.dtype), "int");
}
void is_bool(const char* op, const char* name, const Meta& m) {
  kind_of(op, name, m, scorch::is_bool(m.dtype), "bool");
}
void float_dtype(const char* op, DType d) {
  check::kind(op, "the dtype asked", d, scorch::is_float(d), "a float dtype");
}
void int_dtype(const char* op, DType d) {
  check::kind(op, "the dtype asked", d, !scorch::is_float(d) && !scorch::is_bool(d), "an int dtype");
}
void bool_dtype(const char* op, DType d) { check::kind(op, "the dtype asked", d, scorch::is_bool(d), "bool"); }

Shape broadcast(const char* op, std::initializer_list<const Meta*> operands) {
  Shape out = (*operands.begin())->shape;
  for (const Meta* m : operands) out = check::broadcast(op, out, m->shape);
  return out;
}

void same_dtype(const char* op, std::initializer_list<const Meta*> operands) {
  for (const Meta* m : operands) check::same_dtype(op, (*operands.begin())->dtype, m->dtype);
}

void dim(const char* op, const char* name, size_t d, const Meta& x) {
  if (d >= x.shape.rank())
    throw ShapeError(op, std::string(name) + " " + str(d) + " is not a dim of " + x.shape.to_string());
}

void permutation(const char* op, const std::vector<size_t>& axes, const Meta& x) {
  if (axes.size() != x.shape.rank())
    throw ShapeError(op, str(axes.size()) + " axes for " + x.shape.to_string() + ": a permutation names every dim");
  distinct_dims(op, axes, x);
}

void distinct_dims(const char* op, const std::vector<size_t>& axes, const Meta& x) {
  std::vector<bool> seen(x.shape.rank());
  for (size_t a : axes) {
    dim(op, "axis", a, x);
    if (seen[a]) throw ShapeError(op, "axis " + str(a) + " is listed twice");
    seen[a] = true;
  }
}

void reshape(const char* op, const Meta& x, const Shape& shape) {
  if (!shape.checked_num_bytes(8)) throw ShapeError(op, "target " + shape.to_string() + " is too large");
  check::same_element_count(op, x.shape, shape);
}

Shape expand(const char* op, const Meta& x, const Shape& shape) {
  std::vector<int64_t> to(shape.begin(), shape.end());
  if (!shape.checked_num_bytes(8)) throw ShapeError(op, "target " + shape.to_string() + " is too large");
  for (int64_t v : to)
    if (v < 0) throw ShapeError(op, "target " + shape.to_string() + " is too large");
  (void)check::expand(x.shape, to);
  return shape;  // a view, but every op on it makes a tensor of this size
}

void slice(const char* op, const Meta& x, const SliceRanges& ranges) {
  if (ranges.size() != x.shape.rank())
    throw ShapeError(op, str(ranges.size()) + " ranges for " + x.shape.to_string() + ": one per dim");
  for (size_t d = 0; d < ranges.size(); ++d) {
    const SliceRange& r = ranges[d];
    if (r.step == 0 || r.start > r.end || r.end > x.shape[d])
      throw ShapeError(op, "range [" + str(r.start) + ", " + str(r.end) + ") step " + std::to_string(r.step) +
                               " at dim " + str(d) + " is not inside " + x.shape.to_string());
  }
}

void slice_assign(const char* op, const Meta& x, const SliceRanges& ranges, const Meta& values) {
  slice(op, x, ranges);
  check::same_dtype(op, x.dtype, values.dtype);
  std::vector<size_t> dims;
  for (const SliceRange& r : ranges) dims.push_back(r.length());
  if (!(values.shape == Shape(dims)))
    throw ShapeError(op,
                     "values " + values.shape.to_string() + " must have the slice's shape " + Shape(dims).to_string());
}

Shape cat(const char* op, const Metas& parts, size_t d) {
  if (parts.empty()) throw ValueError(op, "needs at least one tensor");
  std::vector<Shape> shapes;
  std::vector<DType> dtypes;
  for (const Meta& m : parts) {
    same_rank(op, "each part", m, parts[0].shape.rank());
    shapes.push_back(m.shape);
    dtypes.push_back(m.dtype);
  }
  dim(op, "dim", d, parts[0]);
  check::cat(op, shapes, dtypes, d);
  std::vector<size_t> dims(parts[0].shape.begin(), parts[0].shape.end());
  dims[d] = 0;
  for (const Meta& m : parts) dims[d] = m.shape[d] > ~size_t{0} - dims[d] ? ~size_t{0} : dims[d] + m.shape[d];
  return Shape(dims);
}

Shape unfold(const char* op, const Meta& x, size_t d, size_t size, size_t step) {
  dim(op, "dim", d, x);
  if (step == 0 || size == 0)
    throw ValueError(op, "window size and step must be at least 1, got " + str(size) + " and " + str(step));
  std::vector<size_t> dims(x.shape.begin(), x.shape.end());
  dims[d] = x.shape[d] >= size ? (x.shape[d] - size) / step + 1 : 0;
  dims.push_back(size);
  return Shape(dims);
}

void matmul(const char* op, const Meta& a, const Meta& b) {
  check::same_dtype(op, a.dtype, b.dtype);
  check::matmul(a.shape, b.shape);
}

void arange(const char* op, int64_t step) {
  if (step == 0) throw ValueError(op, "step must not be 0");
}

void gather(const char* op, size_t d, const Meta& x, const Meta& indices) {
  dim(op, "dim", d, x);
  check::gather(op, x.shape, indices.shape, d);
}

void scatter(const char* op, size_t d, const Meta& x, const Meta& indices, const Meta& values) {
  dim(op, "dim", d, x);
  check::same_dtype(op, x.dtype, values.dtype);
  check::scatter(x.shape, indices.shape, values.shape, d);
}

Shape select(const char* op, const Meta& x, size_t d, const Meta& indices) {
  dim(op, "dim", d, x);
  check::select(op, indices.shape);
  std::vector<size_t> dims(x.shape.begin(), x.shape.end());
  dims[d] = indices.shape[0];
  return Shape(dims);
}

void select_add(const char* op, const Meta& x, size_t d, const Meta& indices, const Meta& values) {
  (void)select(op, x, d, indices);
  check::same_dtype(op, x.dtype, values.dtype);
  check::select_assign(x.shape, d, indices.shape[0], values.shape);
}

void mask(const char* op, const Meta& x, const Meta& m) { (void)broadcast(op, {&x, &m}); }

Shape conv(const char* op, const Meta& x, const Meta& w, const OptMeta& bias, const ConvSpec& spec, bool transposed) {
  check::conv(op, x.shape, x.dtype, w.shape, w.dtype, shape_of(bias), spec, transposed);
  if (bias) check::same_dtype(op, x.dtype, bias->dtype);
  return check::conv_output(x.shape, w.shape, spec, transposed);
}

void conv_backward(const char* op, const Meta& x, const Meta& w, const Meta& grad, const ConvSpec& spec,
                   bool transposed) {
  Shape out = conv(op, x, w, std::nullopt, spec, transposed);
  check::same_dtype(op, x.dtype, grad.dtype);
  check::grad_shape(op, out, grad.shape);
}

Shape pool(const char* op, const Meta& x, const PoolSpec& spec, bool unfold) {
  check::pool(op, x.shape, x.dtype, spec, unfold);
  Shape pooled = check::pool_output(x.shape, spec);
  if (!unfold) return pooled;
  // unfold's columns: [batch, channels · kernel elements, windows]
  auto times = [](size_t a, size_t b) { return b && a > ~size_t{0} / b ? ~size_t{0} : a * b; };
  size_t rows = x.shape[1], windows = 1;
  for (size_t k : spec.kernel) rows = times(rows, k);
  for (size_t d = 2; d < pooled.rank(); ++d) windows = times(windows, pooled[d]);
  return Shape{x.shape[0], rows, windows};
}

void pool_backward(const char* op, const Meta& x, const Meta& grad, const PoolSpec& spec) {
  Shape out = pool(op, x, spec, false);
  check::same_dtype(op, x.dtype, grad.dtype);
  check::grad_shape(op, out, grad.shape);
}

void max_pool_backward(const char* op, const Meta& x, const Meta& grad, const Meta& indices) {
  check::same_dtype(op, x.dtype, grad.dtype);
  if (x.shape.rank() < 3 || grad.shape.rank() != x.shape.rank())
    throw ShapeError(op, "input " + x.shape.to_string() + " and grad " + grad.shape.to_string() +
                             " must be [batch, channels, spatial...] of one rank");
  check::same_shape(op, grad.shape, indices.shape);
  for (size_t d = 0; d < 2; ++d)
    if (grad.shape[d] != x.shape[d])
      throw ShapeError(
          op, "grad " + grad.shape.to_string() + " and input " + x.shape.to_string() + " differ in batch or channels");
}

Shape adaptive(const char* op, const Meta& x, const SpatialDims& output_size) {
  check::adaptive(op, x.shape, x.dtype, output_size);
  return check::resized(x.shape, output_size);
}

void adaptive_backward(const char* op, const Meta& x, const Meta& grad) {
  check::same_dtype(op, x.dtype, grad.dtype);
  if (x.shape.rank() < 3) throw ShapeError(op, "input " + x.shape.to_string() + " has no spatial dims");
  SpatialDims size(grad.shape.begin() + std::min<size_t>(2, grad.shape.rank()), grad.shape.end());
  Shape out = adaptive(op, x, size);
  check::grad_shape(op, out, grad.shape);
}

Shape interpolate(const char* op, const Meta& x, const InterpolateSpec& spec) {
  check::interpolate(op, x.shape, x.dtype, spec);
  return check::resized(x.shape, spec.output_size);
}

void interpolate_backward(const char* op, const Meta& x, const Meta& grad, const InterpolateSpec& spec) {
  Shape out = interpolate(op, x, spec);
  check::same_dtype(op, x.dtype, grad.dtype);
  check::grad_shape(op, out, grad.shape);
}

Shape fold(const char* op, const Meta& x, const SpatialDims& output_size, const PoolSpec& spec) {
  check::fold(op, x.shape, x.dtype, output_size, spec);
  std::vector<size_t> dims{x.shape[0], 0};
  size_t window = 1;
  for (size_t k : spec.kernel) window *= k;
  dims[1] = window ? x.shape[1] / window : 0;
  dims.insert(dims.end(), output_size.begin(), output_size.end());
  return Shape(dims);
}

void attention(const char* op, const Meta& q, const Meta& k, const Meta& v, const OptMeta& mask,
               const AttentionDropout& dropout) {
  for (const Meta* m : {&q, &k, &v}) same_rank(op, "q, k and v", *m, 4);
  check::attention(q.shape, k.shape, v.shape, shape_of(mask), q.dtype, k.dtype, v.dtype);
  check::attention_dropout(dropout.prob);
}

void attention_backward(const char* op, const Meta& q, const Meta& k, const Meta& v, const OptMeta& mask,
                        const AttentionDropout& dropout, const Meta& output, const Meta& logsumexp, const Meta& grad) {
  attention(op, q, k, v, mask, dropout);
  check::attention_backward(q.shape, v.shape, output.shape, logsumexp.shape, grad.shape);
  check::same_dtype(op, q.dtype, grad.dtype);
}

void cross_entropy(const char* op, const Meta& logits, const Meta& targets) {
  same_rank(op, "logits", logits, 2);
  check::cross_entropy(op, logits.shape, targets.shape);
}

void cross_entropy_backward(const char* op, const Meta& logits, const Meta& targets, const Meta& logsumexp,
                            const Meta& grad) {
  cross_entropy(op, logits, targets);
  check::cross_entropy(op, logits.shape, logsumexp.shape, "logsumexp");
  check::cross_entropy(op, logits.shape, grad.shape, "grad");
}

void norm(const char* op, const Meta& x, const OptMeta& gamma, const OptMeta& beta, const OptMeta& grad) {
  check::norm(op, x.shape, x.dtype, shape_of(gamma), shape_of(beta), shape_of(grad));
  for (const OptMeta* p : {&gamma, &beta, &grad})
    if (*p) check::same_dtype(op, x.dtype, (*p)->dtype);
}

void linear(const char* op, const Meta& x, const Meta& weight, const OptMeta& bias) {
  check::linear(op, x.shape, x.dtype, weight.shape, weight.dtype, shape_of(bias), bias ? bias->dtype : x.dtype);
}

void linear_backward(const char* op, const Meta& x, const Meta& weight, const Meta& output, const Meta& grad) {
  linear(op, x, weight, std::nullopt);
  std::vector<size_t> dims(x.shape.begin(), x.shape.end());
  dims.back() = weight.shape[1];
  check::linear_result(op, "output", Shape(dims), x.dtype, output.shape, output.dtype);
  check::linear_result(op, "grad", Shape(dims), x.dtype, grad.shape, grad.dtype);
}

void adam_update(const char* op, const Meta& param, const Meta& grad, const Meta& moment_1, const Meta& moment_2,
                 double beta_1, double beta_2, double step) {
  (void)op;
  std::array<std::pair<Shape, DType>, 3> others{
      {{grad.shape, grad.dtype}, {moment_1.shape, moment_1.dtype}, {moment_2.shape, moment_2.dtype}}};
  check::adam_update(param.shape, param.dtype, others, beta_1, beta_2, step);
}

namespace {
/// Each list beside params has one entry per parameter, of its shape and dtype (an empty list where may_be_empty).
void beside(const char* op, const Metas& params, const Metas& list, const char* name, bool may_be_empty) {
  if (list.empty() && may_be_empty) return;
  if (list.size() != params.size())
    throw ShapeError(op, str(params.size()) + " parameters but " + str(list.size()) + " " + name);
  for (size_t i = 0; i < list.size(); ++i) {
    check::same_shape(op, params[i].shape, list[i].shape);
    check::same_dtype(op, params[i].dtype, list[i].dtype);
  }
}
}  // namespace

void adam_update_many(const char* op, const Metas& params, const Metas& grads, const Metas& moments_1,
                      const Metas& moments_2, const AdamStep& step) {
  beside(op, params, grads, "gradients", false);
  beside(op, params, moments_1, "first moments", false);
  beside(op, params, moments_2, "second moments", false);
  for (const Meta& p : params) adam_update(op, p, p, p, p, step.beta_1, step.beta_2, step.step);
}

void sgd_update_many(const char* op, const Metas& params, const Metas& grads, const Metas& velocities) {
  beside(op, params, grads, "gradients", false);
  beside(op, params, velocities, "velocities", true);
}

void quantize(const char* op, const Meta& x, const Meta& scales, const Meta& offsets, const QuantScheme& scheme) {
  quant::check_params(op, x.shape, scales.shape, offsets.shape, scheme);
}

void dequantize(const char* op, const Meta& values, const Meta& scales, const Meta& offsets,
                const QuantScheme& scheme) {
  Shape logical = values.shape;
  if (scheme.value == QuantValue::Q4 && logical.rank() > 0) logical[logical.rank() - 1] *= 2;  // two to a byte
  quant::check_params(op, logical, scales.shape, offsets.shape, scheme);
}

void quantized_linear(const char* op, const Meta& x, const Meta& weight, const Meta& scales, const Meta& offsets,
                      const OptMeta& bias, const QuantScheme& scheme) {
  Shape logical = weight.shape;
  if (scheme.value == QuantValue::Q4 && logical.rank() > 0) logical[logical.rank() - 1] *= 2;
  std::optional<Shape> b = shape_of(bias);
  quant::check_linear(op, x.shape, logical, scales.shape, offsets.shape, scheme, b ? &*b : nullptr);
}

}  // namespace scorch::ir::checks
