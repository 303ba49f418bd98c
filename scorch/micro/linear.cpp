// Linear and Embedding (linear.h).
#include "scorch/micro/linear.h"

#include "scorch/core/quant_params.h"
#include "scorch/micro/quant.h"

namespace scorch::micro {
inline namespace SCORCH_MICRO_POLICY {

Status Linear::load(const WeightTable& table, const char* prefix) {
  const Weight *weight = nullptr, *bias = nullptr;  // kept only when everything checks out
  SCORCH_MICRO_TRY(table.get(name(), prefix, "weight", &weight));
  SCORCH_MICRO_TRY(check_weight(name(), *weight, 2, 1));
  uint32_t d_output = weight->shape[1];
  SCORCH_MICRO_TRY(table.get(name(), prefix, "bias", &bias, true));
  if (bias && (bias->dtype != DType::f32 || !(bias->shape == Shape{d_output})))
    return raise(Message(Code::shape, name())
                 << "bias '" << bias->name << "' " << bias->shape << " should be f32 [" << int64_t(d_output) << "]");
  weight_ = weight, bias_ = bias, d_input_ = weight->shape[0], d_output_ = d_output;
  return {};
}

Status Linear::infer(const Shape* in, Shape& out) const {
  if (!weight_) return (Message(Code::value, name()) << "used before load()");
  if (in[0].rank() == 0 || in[0].last() != d_input_)
    return (Message(Code::shape, name()) << "input " << in[0] << " should end in d_input " << int64_t(d_input_));
  out = in[0];
  out.set(out.rank() - 1, d_output_);
  return {};
}

uint64_t Linear::scratch_bytes(const Shape* in) const {
  (void)in;
  if (!weight_ || weight_->dtype != DType::i8) return 0;
  return align16(uint64_t(d_input_) * sizeof(int16_t)) + uint64_t(d_output_) * sizeof(int32_t);
}

Status Linear::forward(const Args& args) const {
  apply(args.in[0], args.in_shape[0].rows(), args.out, args.scratch);
  return {};
}

void Linear::apply(const float* x, size_t rows, float* y, void* scratch) const {
  if (weight_->dtype == DType::i8) return apply_int8(x, rows, y, scratch);
  const float* w = weight_->f32();
  for (size_t r = 0; r < rows; ++r, x += d_input_, y += d_output_) {
    for (uint32_t j = 0; j < d_output_; ++j) y[j] = bias_ ? bias_->f32()[j] : 0.0f;
    for (uint32_t k = 0; k < d_input_; ++k) {
      float xv = x[k];
      const float* wk = w + size_t(k) * d_output_;
      for (uint32_t j = 0; j < d_output_; ++j) y[j] += xv * wk[j];
    }
  }
}

void Linear::apply_int8(const float* x, size_t rows, float* y, void* scratch) const {
  InputQuantizer q = InputQuantizer::dynamic(x, rows * d_input_);
  auto* xq = static_cast<int16_t*>(scratch);
  auto* acc = reinterpret_cast<int32_t*>(static_cast<char*>(scratch) + align16(d_input_ * sizeof(int16_t)));
  const int8_t* w = weight_->i8();
  for (size_t r = 0; r < rows; ++r, x += d_input_, y += d_output_) {
    for (uint32_t k = 0; k < d_input_; ++k) xq[k] = q(x[k]);
    for (uint32_t j = 0; j < d_output_; ++j) acc[j] = 0;
    for (uint32_t k = 0; k < d_input_; ++k) {
      int32_t xv = xq[k];
      if (xv == 0) continue;  // zeros (ReLU's) add nothing
      const int8_t* wk = w + size_t(k) * d_output_;
      for (uint32_t j = 0; j < d_output_; ++j) acc[j] += xv * wk[j];
    }
    for (uint32_t j = 0; j < d_output_; ++j)
      y[j] = q.dequantize(acc[j], weight_->scales[j]) + (bias_ ? bias_->f32()[j] : 0.0f);
  }
}

Status Embedding::load(const WeightTable& table, const char* prefix) {
  const Weight* weight = nullptr;
  SCORCH_MICRO_TRY(table.get(name(), prefix, "weight", &weight));
  SCORCH_MICRO_TRY(check_weight(name(), *weight, 2, 1));
  weight_ = weight;
  return {};
}

Status Embedding::infer(const Shape* in, Shape& out) const {
  if (!weight_) return (Message(Code::value, name()) << "used before load()");
  if (in[0].rank() == 0 || in[0].rank() >= Shape::kMaxRank)
    return (Message(Code::shape, name()) << "ids " << in[0] << " should have rank 1 to 3");
  out = in[0].append(weight_->shape[1]);
  return {};
}

Status Embedding::forward(const Args& args) const {
  uint32_t vocab = weight_->shape[0], d = weight_->shape[1];
  size_t n = args.in_shape[0].numel();
  for (size_t i = 0; i < n; ++i) {
    float id = args.in[0][i];
    if (!(id >= 0.0f && id < float(vocab)) || float(int64_t(id)) != id)
      return (Message(Code::value, name()) << "id at " << int64_t(i) << " is not in [0, " << int64_t(vocab) << ")");
    size_t row = size_t(id) * d;
    for (uint32_t j = 0; j < d; ++j) args.out[i * d + j] = weight_->at(row + j);
  }
  return {};
}

}  // namespace SCORCH_MICRO_POLICY
}  // namespace scorch::micro
