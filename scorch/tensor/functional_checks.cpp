#include "scorch/tensor/functional_checks.h"

#include <algorithm>
#include <string>

#include "scorch/backend/module_shapes.h"
#include "scorch/core/error.h"
#include "scorch/tensor/checks.h"

namespace scorch::check {
namespace {

std::string str(size_t v) { return std::to_string(v); }
std::string list(const SpatialDims& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + str(d[i]);
  return s + "]";
}

void float_dtype(const char* op, const char* what, DType d) {
  if (!is_float(d))
    throw DTypeError(op, std::string(what) + " has dtype " + std::string(dtype_name(d)) + ", expected a float dtype");
}

void spatial_rank(const char* op, const Shape& x, size_t spatial) {
  if (x.rank() != spatial + 2 || spatial < 1 || spatial > 3)
    throw ShapeError(op, "input " + x.to_string() + " must be [batch, channels, " + str(spatial) +
                             " spatial dims] with 1 to 3 spatial dims");
}

void option_size(const char* op, const char* name, const SpatialDims& d, size_t spatial, size_t min) {
  if (d.size() != spatial)
    throw ShapeError(op, std::string(name) + " " + list(d) + " needs " + str(spatial) + " values");
  for (size_t v : d)
    if (v < min) throw ValueError(op, std::string(name) + " " + list(d) + " must be at least " + str(min));
}

void nonempty(const char* op, const Shape& x, size_t dim, int64_t out, const std::string& what) {
  if (out < 1)
    throw ShapeError(
        op, "input " + x.to_string() + " gives an empty output along spatial dim " + str(dim) + " (" + what + ")");
}

// Resampling ops read their output from the input's spatial extent, which must not be empty.
void spatial_nonempty(const char* op, const Shape& x) {
  for (size_t d = 2; d < x.rank(); ++d)
    if (x[d] == 0)
      throw ShapeError(op, "input " + x.to_string() + " has an empty spatial dim " + str(d - 2) +
                               ": there is nothing to resample from");
}

}  // namespace

void conv(const char* op, const Shape& x, DType xd, const Shape& w, DType wd, const std::optional<Shape>& bias,
          const ConvSpec& spec, bool transposed) {
  float_dtype(op, "input", xd);
  float_dtype(op, "weight", wd);
  if (xd != wd)
    throw DTypeError(op,
                     "input " + std::string(dtype_name(xd)) + " and weight " + std::string(dtype_name(wd)) + " differ");
  size_t spatial = x.rank() - 2;
  spatial_rank(op, x, spatial);
  if (w.rank() != x.rank())
    throw ShapeError(op, "weight " + w.to_string() + " must have the rank of input " + x.to_string());
  option_size(op, "stride", spec.stride, spatial, 1);
  option_size(op, "padding", spec.padding, spatial, 0);
  option_size(op, "dilation", spec.dilation, spatial, 1);
  if (transposed) {
    option_size(op, "padding_out", spec.padding_out, spatial, 0);
    spatial_nonempty(op, x);
  }
  size_t g = spec.groups;
  if (g < 1) throw ValueError(op, "groups must be at least 1");
  size_t in = x[1], out_channels = transposed ? w[1] * g : w[0];
  bool fits = transposed ? (w[0] == in && in % g == 0) : (w[1] * g == in && w[0] % g == 0);
  if (!fits)
    throw ShapeError(op, "input " + x.to_string() + " and weight " + w.to_string() + " do not fit " + str(g) +
                             " group(s): weight must be " +
                             (transposed ? "[in, out/groups, kernel...]"
                                         : "[out, in/groups, kernel...] with out divisible by groups"));
  if (bias && (bias->rank() != 1 || (*bias)[0] != out_channels))
    throw ShapeError(op, "bias " + bias->to_string() + " must be [" + str(out_channels) + "]");
  for (size_t d = 0; d < spatial; ++d) {
    size_t k = w[d + 2], in_len = x[d + 2];
    if (transposed) {
      if (spec.padding_out[d] >= std::max(spec.stride[d], spec.dilation[d]))
        throw ValueError(op, "padding_out " + list(spec.padding_out) + " must be smaller than stride or dilation");
      nonempty(op, x, d,
               module_shapes::conv_transpose_out(in_len, k, spec.stride[d], spec.padding[d], spec.dilation[d],
                                                 spec.padding_out[d]),
               "padding too large");
    } else {
      nonempty(op, x, d, module_shapes::conv_out(in_len, k, spec.stride[d], spec.padding[d], spec.dilation[d]),
               "kernel " + w.to_string() + " larger than the padded input");
    }
  }
}

void pool(const char* op, const Shape& x, DType xd, const PoolSpec& spec, bool unfold) {
  float_dtype(op, "input", xd);
  size_t spatial = x.rank() - 2;
  spatial_rank(op, x, spatial);
  option_size(op, "kernel", spec.kernel, spatial, 1);
  option_size(op, "stride", spec.stride, spatial, 1);
  option_size(op, "padding", spec.padding, spatial, 0);
  option_size(op, "dilation", spec.dilation, spatial, 1);
  for (size_t d = 0; d < spatial; ++d) {
    if (!unfold && 2 * spec.padding[d] > spec.kernel[d])
      throw ValueError(op, "padding " + list(spec.padding) + " must be at most half the kernel " + list(spec.kernel));
    nonempty(op, x, d,
             module_shapes::pool_out(x[d + 2], spec.kernel[d], spec.stride[d], spec.padding[d], spec.dilation[d],
                                     spec.ceil_mode),
             "kernel " + list(spec.kernel) + " larger than the padded input");
  }
}

void adaptive(const char* op, const Shape& x, DType xd, const SpatialDims& output_size) {
  float_dtype(op, "input", xd);
  size_t spatial = x.rank() - 2;
  spatial_rank(op, x, spatial);
  option_size(op, "output size", output_size, spatial, 1);
  spatial_nonempty(op, x);
}

void interpolate(const char* op, const Shape& x, DType xd, const InterpolateSpec& spec) {
  float_dtype(op, "input", xd);
  if (x.rank() != 4) throw ShapeError(op, "input " + x.to_string() + " must be [batch, channels, height, width]");
  option_size(op, "output size", spec.output_size, 2, 1);
  spatial_nonempty(op, x);
}

void fold(const char* op, const Shape& x, DType xd, const SpatialDims& output_size, const PoolSpec& spec) {
  float_dtype(op, "input", xd);
  if (x.rank() != 3) throw ShapeError(op, "input " + x.to_string() + " must be [batch, channels·kernel, windows]");
  option_size(op, "output size", output_size, 2, 1);
  option_size(op, "kernel", spec.kernel, 2, 1);
  option_size(op, "stride", spec.stride, 2, 1);
  option_size(op, "padding", spec.padding, 2, 0);
  option_size(op, "dilation", spec.dilation, 2, 1);
  size_t window = spec.kernel[0] * spec.kernel[1], count = 1;
  for (size_t d = 0; d < 2; ++d) {
    int64_t n =
        module_shapes::conv_out(output_size[d], spec.kernel[d], spec.stride[d], spec.padding[d], spec.dilation[d]);
    if (n < 1) throw ShapeError(op, "kernel " + list(spec.kernel) + " does not fit output size " + list(output_size));
    count *= static_cast<size_t>(n);
  }
  if (x[1] % window != 0 || x[2] != count)
    throw ShapeError(op, "input " + x.to_string() + " must be [batch, channels·" + str(window) + ", " + str(count) +
                             "] for output size " + list(output_size) + " and kernel " + list(spec.kernel));
}

void attention(const Shape& q, const Shape& k, const Shape& v, const std::optional<Shape>& mask, DType qd, DType kd,
               DType vd) {
  const char* op = "attention";
  float_dtype(op, "query", qd);
  if (qd != kd || qd != vd) throw DTypeError(op, "query, key and value dtypes differ");
  bool ok = q.rank() == 4 && k.rank() == 4 && v.rank() == 4 && q[0] == k[0] && q[1] == k[1] && q[3] == k[3] &&
            k[0] == v[0] && k[1] == v[1] && k[2] == v[2];
  if (!ok)
    throw ShapeError(op, "query " + q.to_string() + ", key " + k.to_string() + " and value " + v.to_string() +
                             " must be [batch, heads, seq, d] with matching batch, heads, key length and d");
  if (mask) {
    Shape scores{q[0], q[1], q[2], k[2]};
    bool fits = mask->rank() == 4;
    for (size_t i = 0; fits && i < 4; ++i) fits = (*mask)[i] == scores[i] || (*mask)[i] == 1;
    if (!fits)
      throw ShapeError(op, "mask " + mask->to_string() + " does not broadcast to the scores " + scores.to_string());
  }
}

void attention_dropout(double prob) {
  if (!(prob >= 0.0 && prob < 1.0))
    throw ValueError("attention", "dropout must be in [0, 1), got " + std::to_string(prob));
}

void attention_backward(const Shape& q, const Shape& v, const Shape& out, const Shape& logsumexp, const Shape& grad) {
  Shape expected{q[0], q[1], q[2], v[3]}, stats{q[0], q[1], q[2]};
  if (!(out == expected) || !(grad == expected) || !(logsumexp == stats))
    throw ShapeError("attention_backward", "output " + out.to_string() + " and gradient " + grad.to_string() +
                                               " must be " + expected.to_string() + " and the log-sum-exp " +
                                               logsumexp.to_string() + " must be " + stats.to_string());
}

void cross_entropy(const char* op, const Shape& logits, const Shape& rows, const char* name) {
  if (logits[1] == 0) throw ShapeError(op, "logits " + logits.to_string() + " have no class");
  if (!(rows == Shape{logits[0]}))
    throw ShapeError(op, std::string(name) + " " + rows.to_string() + " must be [rows] for logits " +
                             logits.to_string());
}

void adam_update(const Shape& param, DType dtype, const std::array<std::pair<Shape, DType>, 3>& others,
                 double beta_1, double beta_2, double step) {
  const char* op = "adam_update";
  float_dtype(op, "param", dtype);
  const char* names[3] = {"grad", "moment_1", "moment_2"};
  for (size_t i = 0; i < others.size(); ++i) {
    if (!(others[i].first == param))
      throw ShapeError(op, std::string(names[i]) + " " + others[i].first.to_string() + " must have the parameter's " +
                               "shape " + param.to_string());
    same_dtype(op, dtype, others[i].second);
  }
  for (double beta : {beta_1, beta_2})
    if (!(beta >= 0 && beta < 1)) throw ValueError(op, "betas must be in [0, 1), got " + std::to_string(beta));
  if (!(step >= 1)) throw ValueError(op, "step must be >= 1, got " + std::to_string(step));
}

void norm(const char* op, const Shape& x, DType dtype, const std::optional<Shape>& gamma,
          const std::optional<Shape>& beta, const std::optional<Shape>& grad) {
  float_dtype(op, "input", dtype);
  if (x.rank() == 0) throw ShapeError(op, "the input must have at least one dim, got a scalar");
  Shape row{x[x.rank() - 1]};
  auto check = [&](const char* what, const std::optional<Shape>& s) {
    if (s && !(*s == row))
      throw ShapeError(op, std::string(what) + " " + s->to_string() + " must be " + row.to_string() +
                               " (the last dim of the input " + x.to_string() + ")");
  };
  check("gamma", gamma);
  check("beta", beta);
  if (grad && !(*grad == x))
    throw ShapeError(op, "gradient " + grad->to_string() + " must have the input's shape " + x.to_string());
}

void linear(const char* op, const Shape& x, DType xd, const Shape& weight, DType wd, const std::optional<Shape>& bias,
            DType bd) {
  float_dtype(op, "x", xd);
  if (x.rank() == 0) throw ShapeError(op, "x must have rank >= 1, got a scalar");
  if (weight.rank() != 2 || weight[0] != x[x.rank() - 1])
    throw ShapeError(op, "weight " + weight.to_string() + " must be [k, n] with k = x's last dim (x " + x.to_string() +
                             ")");
  param_dtype(op, "weight", xd, wd);
  if (!bias) return;
  if (!(*bias == Shape{weight[1]}))
    throw ShapeError(op, "bias " + bias->to_string() + " must be [n] for weight " + weight.to_string());
  param_dtype(op, "bias", xd, bd);
}

void linear_result(const char* op, const char* what, const Shape& expected, DType xd, const Shape& shape, DType dtype) {
  if (shape != expected)
    throw ShapeError(op, std::string(what) + " " + shape.to_string() + " must be [rows, n] = " + expected.to_string());
  param_dtype(op, what, xd, dtype);
}

void param_dtype(const char* op, const char* what, DType input, DType param) {
  if (input != param)
    throw DTypeError(op, std::string(what) + " dtype " + std::string(dtype_name(param)) + " differs from the input's " +
                             std::string(dtype_name(input)));
}

SpatialDims spatial_of(const Shape& s) { return SpatialDims(s.begin() + std::min<size_t>(2, s.rank()), s.end()); }

Shape conv_output(const Shape& x, const Shape& w, const ConvSpec& spec, bool transposed) {
  Shape out = x;
  out[1] = transposed ? w[1] * spec.groups : w[0];
  for (size_t d = 0; d + 2 < x.rank(); ++d)
    out[d + 2] = static_cast<size_t>(
        transposed ? module_shapes::conv_transpose_out(x[d + 2], w[d + 2], spec.stride[d], spec.padding[d],
                                                       spec.dilation[d], spec.padding_out[d])
                   : module_shapes::conv_out(x[d + 2], w[d + 2], spec.stride[d], spec.padding[d], spec.dilation[d]));
  return out;
}

Shape pool_output(const Shape& x, const PoolSpec& spec) {
  Shape out = x;
  for (size_t d = 0; d + 2 < x.rank(); ++d)
    out[d + 2] = static_cast<size_t>(module_shapes::pool_out(x[d + 2], spec.kernel[d], spec.stride[d], spec.padding[d],
                                                             spec.dilation[d], spec.ceil_mode));
  return out;
}

Shape resized(const Shape& x, const SpatialDims& size) {
  Shape out = x;
  for (size_t d = 0; d < size.size() && d + 2 < x.rank(); ++d) out[d + 2] = size[d];
  return out;
}

void grad_shape(const char* op, const Shape& expected, const Shape& grad) {
  if (grad != expected)
    throw ShapeError(op, "grad " + grad.to_string() + " must have the forward output's shape " + expected.to_string());
}

void same_shape(const char* op, const Shape& a, const Shape& b) {
  if (a != b) throw ShapeError(op, "shapes " + a.to_string() + " and " + b.to_string() + " differ");
}

}  // namespace scorch::check
