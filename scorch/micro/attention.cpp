// MultiHeadAttention (attention.h).
#include "scorch/micro/attention.h"

#include <cmath>

#include "scorch/micro/activation.h"
#include "scorch/micro/quant.h"

namespace scorch::micro {
inline namespace SCORCH_MICRO_POLICY {

Status MultiHeadAttention::load(const WeightTable& table, const char* prefix) {
  char key[80];
  const char* parts[] = {"query", "key", "value", "output"};
  Linear loaded[4];  // kept only when everything checks out
  Linear* layers[] = {&loaded[0], &loaded[1], &loaded[2], &loaded[3]};
  for (int i = 0; i < 4; ++i) {
    if (!join_key(prefix, parts[i], key, sizeof key))
      return raise(Message(Code::value, name()) << "key too long: " << prefix);
    SCORCH_MICRO_TRY(layers[i]->load(table, key));
  }
  uint32_t d = loaded[0].d_input();
  for (Linear* l : layers)
    if (l->d_input() != d || l->d_output() != d)
      return raise(Message(Code::shape, name()) << "projections must all be " << int64_t(d) << " x " << int64_t(d));
  if (n_heads_ == 0 || d % n_heads_ != 0)
    return raise(Message(Code::value, name())
                 << "n_heads " << int64_t(n_heads_) << " must divide d_model " << int64_t(d));
  query_ = loaded[0], key_ = loaded[1], value_ = loaded[2], output_ = loaded[3];
  return {};
}

Status MultiHeadAttention::infer(const Shape* in, Shape& out) const {
  if (query_.d_input() == 0) return (Message(Code::value, name()) << "used before load()");
  if (in[0].rank() != 3 || in[0][2] != query_.d_input())
    return (Message(Code::shape, name()) << "input " << in[0] << " should be [batch, seq, " << int64_t(query_.d_input())
                                         << "]");
  out = in[0];
  return {};
}

uint64_t MultiHeadAttention::scratch_bytes(const Shape* in) const {
  uint64_t values = align16(in[0].count() * sizeof(float)), scores = align16(uint64_t(in[0][1]) * sizeof(float));
  uint64_t linear = 0;
  for (const Linear* l : {&query_, &key_, &value_, &output_}) {
    uint64_t s = l->scratch_bytes(in);
    linear = s > linear ? s : linear;
  }
  return 4 * values + scores + linear;
}

Status MultiHeadAttention::forward(const Args& args) const {
  const Shape& s = args.in_shape[0];
  size_t rows = s.rows(), values = align16(s.numel() * sizeof(float));
  char* base = static_cast<char*>(args.scratch);
  auto* q = reinterpret_cast<float*>(base);
  auto* k = reinterpret_cast<float*>(base + values);
  auto* v = reinterpret_cast<float*>(base + 2 * values);
  auto* context = reinterpret_cast<float*>(base + 3 * values);
  auto* scores = reinterpret_cast<float*>(base + 4 * values);
  void* linear = base + 4 * values + align16(s[1] * sizeof(float));
  query_.apply(args.in[0], rows, q, linear);
  key_.apply(args.in[0], rows, k, linear);
  value_.apply(args.in[0], rows, v, linear);
  attend(q, k, v, s[0], s[1], context, scores);
  output_.apply(context, rows, args.out, linear);
  return {};
}

void MultiHeadAttention::attend(const float* q, const float* k, const float* v, uint32_t batch, uint32_t seq,
                                float* context, float* scores) const {
  uint32_t d = query_.d_input(), d_head = d / n_heads_;
  float scale = 1.0f / std::sqrt(float(d_head));
  for (uint32_t b = 0; b < batch; ++b)
    for (uint32_t h = 0; h < n_heads_; ++h)
      for (uint32_t i = 0; i < seq; ++i) {
        const float* qi = q + (size_t(b) * seq + i) * d + h * d_head;
        uint32_t visible = causal_ ? i + 1 : seq;
        for (uint32_t j = 0; j < visible; ++j) {
          const float* kj = k + (size_t(b) * seq + j) * d + h * d_head;
          float dot = 0.0f;
          for (uint32_t t = 0; t < d_head; ++t) dot += qi[t] * kj[t];
          scores[j] = dot * scale;
        }
        Softmax::apply(scores, 1, visible);
        float* ci = context + (size_t(b) * seq + i) * d + h * d_head;
        for (uint32_t t = 0; t < d_head; ++t) ci[t] = 0.0f;
        for (uint32_t j = 0; j < visible; ++j) {
          const float* vj = v + (size_t(b) * seq + j) * d + h * d_head;
          for (uint32_t t = 0; t < d_head; ++t) ci[t] += scores[j] * vj[t];
        }
      }
}

}  // namespace SCORCH_MICRO_POLICY
}  // namespace scorch::micro
