// BatchNorm and LayerNorm (norm.h).
#include "scorch/micro/norm.h"

#include <cmath>

namespace scorch::micro {
inline namespace SCORCH_MICRO_POLICY {
namespace {

// *out = prefix.leaf, a f32 vector of n values (n = 0: take its length), or an error naming it.
Status vector_weight(const char* op, const WeightTable& table, const char* prefix, const char* leaf, uint32_t& n,
                     const Weight** out, bool optional) {
  SCORCH_MICRO_TRY(table.get(op, prefix, leaf, out, optional));
  if (!*out) return {};
  const Weight& w = **out;
  if (w.dtype != DType::f32) return raise(Message(Code::dtype, op) << "'" << w.name << "' must be f32, not int8");
  if (w.shape.rank() != 1 || (n && w.shape[0] != n)) {
    Message m(Code::shape, op);
    m << "'" << w.name << "' " << w.shape << " should be a vector";
    if (n) m << " of " << int64_t(n);
    return raise(m);
  }
  n = w.shape[0];
  return {};
}

}  // namespace

Status BatchNorm::load(const WeightTable& table, const char* prefix) {
  uint32_t n = 0;
  const Weight *gamma = nullptr, *beta = nullptr, *mean = nullptr, *var = nullptr;
  SCORCH_MICRO_TRY(vector_weight(name(), table, prefix, "gamma", n, &gamma, false));
  SCORCH_MICRO_TRY(vector_weight(name(), table, prefix, "beta", n, &beta, false));
  SCORCH_MICRO_TRY(vector_weight(name(), table, prefix, "running_mean", n, &mean, false));
  SCORCH_MICRO_TRY(vector_weight(name(), table, prefix, "running_var", n, &var, false));
  gamma_ = gamma, beta_ = beta, mean_ = mean, var_ = var;
  return {};
}

Status BatchNorm::infer(const Shape* in, Shape& out) const {
  if (!gamma_) return (Message(Code::value, name()) << "used before load()");
  if (in[0].rank() < 2 || in[0][1] != gamma_->shape[0])
    return (Message(Code::shape, name()) << "input " << in[0] << " should have " << int64_t(gamma_->shape[0])
                                         << " channels in dim 1");
  out = in[0];
  return {};
}

Status BatchNorm::forward(const Args& args) const {
  const Shape& s = args.in_shape[0];
  uint32_t channels = s[1];
  size_t inner = 1;
  for (uint32_t d = 2; d < s.rank(); ++d) inner *= s[d];
  const float* x = args.in[0];
  float* y = args.out;
  for (uint32_t n = 0; n < s[0]; ++n)
    for (uint32_t c = 0; c < channels; ++c) {
      float scale = gamma_->f32()[c] / std::sqrt(var_->f32()[c] + epsilon_);
      float shift = beta_->f32()[c] - mean_->f32()[c] * scale;
      for (size_t i = 0; i < inner; ++i) *y++ = *x++ * scale + shift;
    }
  return {};
}

Status LayerNorm::load(const WeightTable& table, const char* prefix) {
  uint32_t d_model = 0;
  const Weight *gamma = nullptr, *beta = nullptr;
  SCORCH_MICRO_TRY(vector_weight(name(), table, prefix, "gamma", d_model, &gamma, true));
  SCORCH_MICRO_TRY(vector_weight(name(), table, prefix, "beta", d_model, &beta, true));
  if (d_model == 0) return raise(Message(Code::missing, name()) << "no gamma or beta under '" << prefix << "'");
  gamma_ = gamma, beta_ = beta, d_model_ = d_model;
  return {};
}

Status LayerNorm::infer(const Shape* in, Shape& out) const {
  if (d_model_ == 0) return (Message(Code::value, name()) << "used before load()");
  if (in[0].rank() == 0 || in[0].last() != d_model_)
    return (Message(Code::shape, name()) << "input " << in[0] << " should end in " << int64_t(d_model_));
  out = in[0];
  return {};
}

Status LayerNorm::forward(const Args& args) const {
  apply(args.in[0], args.in_shape[0].rows(), args.out);
  return {};
}

void LayerNorm::apply(const float* x, size_t rows, float* y) const {
  for (size_t r = 0; r < rows; ++r, x += d_model_, y += d_model_) {
    float mean = 0.0f, var = 0.0f;
    for (uint32_t j = 0; j < d_model_; ++j) mean += x[j];
    mean /= float(d_model_);
    for (uint32_t j = 0; j < d_model_; ++j) var += (x[j] - mean) * (x[j] - mean);
    float inv = 1.0f / std::sqrt(var / float(d_model_) + epsilon_);
    for (uint32_t j = 0; j < d_model_; ++j) {
      float v = (x[j] - mean) * inv;
      y[j] = v * (gamma_ ? gamma_->f32()[j] : 1.0f) + (beta_ ? beta_->f32()[j] : 0.0f);
    }
  }
}

}  // namespace SCORCH_MICRO_POLICY
}  // namespace scorch::micro
