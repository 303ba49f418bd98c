// Recurrent operators: RNN, GRU and LSTM (forward, reverse or bidirectional; layout 0 or 1; sequence_lens; clip;
// LSTM peepholes and input_forget; GRU's linear_before_reset). The input projection of every step is one matmul;
// each step then adds h·Rᵀ and applies the gates. On Cpu a standard LSTM step is one matmul and one fused pass over
// the gates (lstm_cell_host), instead of a dozen small ops.
#include "scorch/backends/common/fast_math.h"
#include "scorch/backends/cpu/cpu_backend.h"
#include "scorch/import/onnx/runtime/op_call_impl.h"

namespace scorch::onnx {
namespace {

template <class B> using Values = std::vector<Value<B>>;
template <class B> using F = typename B::FloatTensor;
template <class B> using FO = KindOps<B, Float>;

enum class Cell { Rnn, Gru, Lstm };

/// An activation by its ONNX name, with the node's alpha/beta where it takes them.
template <class B> F<B> activate(const OpCall<B>& c, const std::string& name, double alpha, double beta, F<B> x) {
  if (name == "Sigmoid") return FO<B>::sigmoid(x);
  if (name == "Tanh") return FO<B>::tanh(x);
  if (name == "Relu") return FO<B>::relu(x);
  if (name == "LeakyRelu") return FO<B>::leaky_relu(x, Scalar(alpha));
  if (name == "HardSigmoid") return FO<B>::hard_sigmoid(x, Scalar(alpha), Scalar(beta));
  if (name == "Softsign") return FO<B>::div(x, FO<B>::add_scalar(FO<B>::abs(x), Scalar(1.0)));
  if (name == "ScaledTanh") return FO<B>::mul_scalar(FO<B>::tanh(FO<B>::mul_scalar(x, Scalar(beta))), Scalar(alpha));
  if (name == "Affine") return FO<B>::add_scalar(FO<B>::mul_scalar(x, Scalar(alpha)), Scalar(beta));
  c.template fail<ValueError>("activation '" + name + "' is not supported");
}

/// The columns [from, from + n) of a [rows, cols] matrix.
template <class B> F<B> cols(F<B> m, size_t from, size_t n) {
  Shape s = m.shape();
  return FO<B>::slice(m, {{0, s[0], 1}, {from, from + n, 1}});
}

template <class B> struct Direction {
  F<B> w, r;                             // [G·H, I], [G·H, H]
  std::optional<F<B>> r_t;               // Rᵀ made contiguous once, for the host LSTM step
  std::optional<F<B>> wb, rb, peephole;  // [G·H], [G·H], [3H]
  F<B> h, c;                             // [batch, H]
};

/// The node's optional tensor inputs (W, R, B, initial_h, initial_c, P at their ONNX positions), each checked
/// against its expected shape, with initial states in [dirs, batch, H] whatever the layout.
template <class B> using Params = std::vector<std::optional<F<B>>>;

template <class B> Params<B> params(const OpCall<B>& c, size_t dirs, size_t gates, size_t H, size_t input, size_t batch,
                                    bool batch_first) {
  Params<B> p(8);
  const std::pair<size_t, Shape> expected[] = {{1, Shape{dirs, gates * H, input}}, {2, Shape{dirs, gates * H, H}},
                                               {3, Shape{dirs, 2 * gates * H}},    {5, Shape{dirs, batch, H}},
                                               {6, Shape{dirs, batch, H}},         {7, Shape{dirs, 3 * H}}};
  for (const auto& [i, shape] : expected) {
    if (!c.has(i) || (gates != 4 && i >= 6)) continue;
    F<B> t = c.in_float(i);
    if (batch_first && (i == 5 || i == 6)) t = FO<B>::permute(t, {1, 0, 2});
    if (t.shape() != shape)
      c.template fail<ShapeError>("input " + std::to_string(i) + " is " + c.in(i).shape().to_string() + ", expected " +
                                  shape.to_string() +
                                  (batch_first && (i == 5 || i == 6) ? " (layout 1: batch first)" : ""));
    p[i] = t;
  }
  if (!p[1] || !p[2]) c.template fail<ValueError>("W and R are required");
  return p;
}

/// Direction d's weights and initial states.
template <class B> Direction<B> direction(const OpCall<B>& c, const Params<B>& p, size_t d, size_t gates, size_t hidden,
                                          size_t batch, DType dtype) {
  auto row = [&](size_t input) {
    Shape s = p[input]->shape();
    SliceRanges r{{d, d + 1, 1}};
    for (size_t i = 1; i < s.rank(); ++i) r.push_back({0, s[i], 1});
    s.remove(0);
    return FO<B>::reshape(FO<B>::slice(*p[input], r), s);
  };
  Direction<B> dir{row(1),
                   row(2),
                   {},
                   {},
                   {},
                   {},
                   FO<B>::zeros(Shape{batch, hidden}, c.device(), dtype),
                   FO<B>::zeros(Shape{batch, hidden}, c.device(), dtype)};
  if (p[3]) {
    F<B> b = row(3);
    dir.wb = FO<B>::slice(b, {{0, gates * hidden, 1}}),
    dir.rb = FO<B>::slice(b, {{gates * hidden, 2 * gates * hidden, 1}});
  }
  if (p[5]) dir.h = row(5);
  if (p[6]) dir.c = row(6);
  if (p[7]) dir.peephole = row(7);
  return dir;
}

template <class B> struct Settings {
  Cell cell = Cell::Rnn;
  size_t hidden = 0;
  std::vector<std::string> act;
  std::vector<double> alpha, beta;
  double clip = 0;
  bool linear_before_reset = false, input_forget = false;
};

template <class B> F<B> clipped(const Settings<B>& s, F<B> x) {
  return s.clip > 0 ? FO<B>::clamp(x, Scalar(-s.clip), Scalar(s.clip)) : x;
}

using backends::cpu::CpuTensor;
using CpuOps = KindOps<Cpu, Float>;

/// x as a Cpu tensor (sharing its buffer) when it lives on Dyn's "cpu" stack, else none: the LSTM step may then run
/// as one fused pass.
template <class B> std::optional<CpuTensor> on_host(const F<B>& x) {
  if constexpr (std::is_same_v<B, Dyn>) {
    if (x.stack() && x.stack() == dyn::stack_of<Cpu>) return dyn::unbox<Cpu>(x);
  }
  return std::nullopt;
}
/// A Cpu tensor as B's (on Dyn's "cpu" stack).
template <class B> F<B> from_host_tensor(CpuTensor t) { return dyn::boxed<Cpu, Float>(std::move(t)); }

inline float sigmoid_f32(float x) { return 1.0f / (1.0f + fast_math::exp(-x)); }
/// tanh from one exp, branch-free (vectorizable); within a few f32 ulp (a Taylor polynomial below |x| = 1/16,
/// where 1 − e^(−2|x|) would cancel).
inline float tanh_f32(float x) {
  float a = x < 0 ? -x : x, e = fast_math::exp(-2.0f * a), t = (1.0f - e) / (1.0f + e);
  float x2 = x * x, small = x * (1.0f - x2 * (1.0f / 3.0f - x2 * (2.0f / 15.0f)));
  return a < 0.0625f ? small : (x < 0 ? -t : t);
}

/// c' = f·c + i·g̃ and h' = o·tanh(c') over one batch row, from the gate pre-activations x + r (+ bias) laid out
/// [i | o | f | c] (H each), with ONNX's default activations.
[[gnu::flatten]] inline void lstm_row(size_t H, const float* x, const float* r, const float* bias, const float* c,
                                      float* __restrict c_out, float* __restrict h_out) {
  for (size_t j = 0; j < H; ++j) {
    auto gate = [&](size_t g) { return x[g * H + j] + r[g * H + j] + (bias ? bias[g * H + j] : 0.0f); };
    float i = sigmoid_f32(gate(0)), o = sigmoid_f32(gate(1)), f = sigmoid_f32(gate(2)), g = tanh_f32(gate(3));
    float cj = f * c[j] + i * g;
    c_out[j] = cj;
    h_out[j] = o * tanh_f32(cj);
  }
}

/// The standard LSTM step (Sigmoid/Tanh/Tanh, no clip, peepholes or input_forget, f32) on host tensors: h·Rᵀ as one
/// matmul, then one pass over the gates. False (nothing done) when the step is not of that form.
template <class B> bool lstm_cell_host(const Settings<B>& s, size_t k, Direction<B>& d, const F<B>& xw) {
  bool standard = s.cell == Cell::Lstm && s.clip == 0 && !s.input_forget && !d.peephole && s.act[k] == "Sigmoid" &&
                  s.act[k + 1] == "Tanh" && s.act[k + 2] == "Tanh" && xw.dtype() == DType::F32;
  if (!standard) return false;
  auto x = on_host<B>(xw), h = on_host<B>(d.h), c = on_host<B>(d.c), r = on_host<B>(d.r);
  std::optional<CpuTensor> rb;
  if (d.rb && !(rb = on_host<B>(*d.rb))) return false;
  auto dense = [](const std::optional<CpuTensor>& t) { return t && t->is_contiguous(); };
  if (!dense(x) || !dense(h) || !dense(c) || !r || (d.rb && !dense(rb))) return false;
  size_t H = s.hidden, batch = xw.shape()[0];
  if (!d.r_t) d.r_t = from_host_tensor<B>(backends::cpu::contiguous(CpuOps::permute(*r, {1, 0})));
  CpuTensor hr = CpuOps::matmul(*h, *on_host<B>(*d.r_t));
  if (!hr.is_contiguous()) return false;
  CpuTensor c_new(Shape{batch, H}, DType::F32), h_new(Shape{batch, H}, DType::F32);
  const float* bias = rb ? rb->template data<float>() : nullptr;
  for (size_t b = 0; b < batch; ++b)
    lstm_row(H, x->template data<float>() + b * 4 * H, hr.template data<float>() + b * 4 * H, bias,
             c->template data<float>() + b * H, c_new.template data<float>() + b * H,
             h_new.template data<float>() + b * H);
  d.c = from_host_tensor<B>(std::move(c_new)), d.h = from_host_tensor<B>(std::move(h_new));
  return true;
}

/// One step: the new h (and c for LSTM) from the step's input projection xw [batch, G·H].
template <class B> void step(const OpCall<B>& c, const Settings<B>& s, size_t k, Direction<B>& d, F<B> xw) {
  if (lstm_cell_host(s, k, d, xw)) return;
  size_t H = s.hidden;
  auto f = [&](size_t i, F<B> x) { return activate(c, s.act[k + i], s.alpha[k + i], s.beta[k + i], x); };
  F<B> hr = FO<B>::matmul(d.h, FO<B>::permute(d.r, {1, 0}));
  if (d.rb) hr = FO<B>::add(hr, FO<B>::reshape(*d.rb, Shape{1, d.rb->shape()[0]}));
  if (s.cell == Cell::Rnn) {
    d.h = f(0, clipped(s, FO<B>::add(xw, hr)));
    return;
  }
  if (s.cell == Cell::Gru) {
    F<B> z = f(0, clipped(s, FO<B>::add(cols<B>(xw, 0, H), cols<B>(hr, 0, H))));
    F<B> r = f(0, clipped(s, FO<B>::add(cols<B>(xw, H, H), cols<B>(hr, H, H))));
    F<B> hh;
    if (s.linear_before_reset) {
      hh = FO<B>::add(cols<B>(xw, 2 * H, H), FO<B>::mul(r, cols<B>(hr, 2 * H, H)));
    } else {
      F<B> rh = FO<B>::matmul(FO<B>::mul(r, d.h), cols<B>(FO<B>::permute(d.r, {1, 0}), 2 * H, H));
      if (d.rb) rh = FO<B>::add(rh, FO<B>::reshape(FO<B>::slice(*d.rb, {{2 * H, 3 * H, 1}}), Shape{1, H}));
      hh = FO<B>::add(cols<B>(xw, 2 * H, H), rh);
    }
    hh = f(1, clipped(s, hh));
    d.h = FO<B>::add(FO<B>::mul(FO<B>::add_scalar(FO<B>::neg(z), Scalar(1.0)), hh), FO<B>::mul(z, d.h));
    return;
  }
  F<B> g = FO<B>::add(xw, hr);  // LSTM gates i, o, f, c
  auto peep = [&](size_t i, F<B> x, const F<B>& cell) {
    if (!d.peephole) return x;
    return FO<B>::add(
        x, FO<B>::mul(FO<B>::reshape(FO<B>::slice(*d.peephole, {{i * H, i * H + H, 1}}), Shape{1, H}), cell));
  };
  F<B> i = f(0, clipped(s, peep(0, cols<B>(g, 0, H), d.c)));
  F<B> fg = s.input_forget ? FO<B>::add_scalar(FO<B>::neg(i), Scalar(1.0))
                           : f(0, clipped(s, peep(2, cols<B>(g, 2 * H, H), d.c)));
  F<B> cc = f(1, clipped(s, cols<B>(g, 3 * H, H)));
  d.c = FO<B>::add(FO<B>::mul(fg, d.c), FO<B>::mul(i, cc));
  F<B> o = f(0, clipped(s, peep(1, cols<B>(g, H, H), d.c)));
  d.h = FO<B>::mul(o, f(2, d.c));
}

template <class B> Settings<B> settings(const OpCall<B>& c, Cell cell) {
  Settings<B> s;
  s.cell = cell, s.hidden = size_t(c.attr_int("hidden_size", 0));
  if (s.hidden == 0 && c.in(2).shape().rank() == 3) s.hidden = c.in(2).shape()[2];
  if (s.hidden == 0 || s.hidden > (size_t(1) << 24)) c.template fail<ValueError>("hidden_size must be positive");
  std::vector<std::string> defaults = cell == Cell::Rnn   ? std::vector<std::string>{"Tanh"}
                                      : cell == Cell::Gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                          : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
  if (const Attribute* a = c.attr("activations")) s.act = a->strings;
  bool both = c.attr_string("direction", "forward") == "bidirectional";
  if (s.act.empty())
    for (int d = 0; d < (both ? 2 : 1); ++d) s.act.insert(s.act.end(), defaults.begin(), defaults.end());
  if (s.act.size() != defaults.size() * (both ? 2 : 1)) c.template fail<ValueError>("activations has the wrong count");
  auto alpha = c.attr_floats("activation_alpha"), beta = c.attr_floats("activation_beta");
  for (size_t i = 0; i < s.act.size(); ++i) {
    bool leaky = s.act[i] == "LeakyRelu", hard = s.act[i] == "HardSigmoid";
    s.alpha.push_back(i < alpha.size() ? alpha[i] : leaky ? 0.01 : hard ? 0.2 : 1.0);
    s.beta.push_back(i < beta.size() ? beta[i] : hard ? 0.5 : 0.0);
  }
  s.clip = c.attr_float("clip", 0.0);
  s.linear_before_reset = c.attr_int("linear_before_reset", 0) != 0;
  s.input_forget = c.attr_int("input_forget", 0) != 0;
  return s;
}

template <class B> Values<B> recurrent(const OpCall<B>& c, Cell cell) {
  Settings<B> s = settings(c, cell);
  bool batch_first = c.attr_int("layout", 0) != 0;
  F<B> x = c.in_float(0);
  if (x.shape().rank() != 3) c.template fail<ShapeError>("X must be 3-D, got " + x.shape().to_string());
  if (batch_first) x = FO<B>::permute(x, {1, 0, 2});
  size_t seq = x.shape()[0], batch = x.shape()[1], input = x.shape()[2], H = s.hidden;
  size_t gates = cell == Cell::Rnn ? 1 : cell == Cell::Gru ? 3 : 4;
  std::string dir_name = c.attr_string("direction", "forward");
  size_t dirs = dir_name == "bidirectional" ? 2 : 1;
  Params<B> p = params(c, dirs, gates, H, input, batch, batch_first);
  std::optional<std::vector<int64_t>> lens;
  if (c.has(4)) lens = c.host_ints(4);
  if (lens && lens->size() != batch) c.template fail<ShapeError>("sequence_lens must have one value per batch entry");
  for (int64_t len : lens.value_or(std::vector<int64_t>{}))
    if (len < 0 || size_t(len) > seq)
      c.template fail<ValueError>("sequence length " + std::to_string(len) + " is outside [0, " + std::to_string(seq) +
                                  "]");
  std::vector<F<B>> ys(dirs), hs, cs;
  std::vector<std::vector<F<B>>> per_step(dirs);
  for (size_t d = 0; d < dirs; ++d) {
    Direction<B> dir = direction(c, p, d, gates, H, batch, x.dtype());
    F<B> xw = FO<B>::matmul(FO<B>::reshape(x, Shape{seq * batch, input}), FO<B>::permute(dir.w, {1, 0}));
    if (dir.wb) xw = FO<B>::add(xw, FO<B>::reshape(*dir.wb, Shape{1, gates * H}));
    xw = FO<B>::reshape(xw, Shape{seq, batch, gates * H});
    bool reverse = dir_name == "reverse" || d == 1;
    per_step[d].resize(seq);
    for (size_t k = 0; k < seq; ++k) {
      size_t t = reverse ? seq - 1 - k : k;
      F<B> xt =
          FO<B>::reshape(FO<B>::slice(xw, {{t, t + 1, 1}, {0, batch, 1}, {0, gates * H, 1}}), Shape{batch, gates * H});
      Direction<B> before = dir;
      step(c, s, d * (s.act.size() / dirs), dir, xt);
      if (lens) {  // batch entries whose sequence has ended keep their state and output zeros
        std::vector<uint8_t> done(batch);
        for (size_t b = 0; b < batch; ++b) done[b] = int64_t(t) >= lens->at(b);
        auto mask = KindOps<B, Bool>::expand(
            KindOps<B, Bool>::from_data(TensorData(done, Shape{batch, 1}).convert(DType::Bool), c.device()),
            Shape{batch, H});
        per_step[d][t] = FO<B>::mask_fill(dir.h, mask, Scalar(0.0));
        dir.h = FO<B>::mask_where(dir.h, mask, before.h), dir.c = FO<B>::mask_where(dir.c, mask, before.c);
      } else {
        per_step[d][t] = dir.h;
      }
    }
    hs.push_back(FO<B>::reshape(dir.h, Shape{1, batch, H})), cs.push_back(FO<B>::reshape(dir.c, Shape{1, batch, H}));
  }
  std::vector<F<B>> steps;
  for (size_t t = 0; t < seq; ++t)
    for (size_t d = 0; d < dirs; ++d) steps.push_back(FO<B>::reshape(per_step[d][t], Shape{1, 1, batch, H}));
  F<B> y = seq ? FO<B>::reshape(FO<B>::cat(steps, 0), Shape{seq, dirs, batch, H})
               : FO<B>::zeros(Shape{0, dirs, batch, H}, c.device(), x.dtype());
  F<B> yh = FO<B>::cat(hs, 0), yc = FO<B>::cat(cs, 0);
  if (batch_first)
    y = FO<B>::permute(y, {2, 0, 1, 3}), yh = FO<B>::permute(yh, {1, 0, 2}), yc = FO<B>::permute(yc, {1, 0, 2});
  Values<B> out{Value<B>::template of<Float>(y), Value<B>::template of<Float>(yh)};
  if (cell == Cell::Lstm) out.push_back(Value<B>::template of<Float>(yc));
  return out;
}

}  // namespace

template <class B> void register_recurrent_ops(OpTable<B>& t) {
  t["RNN"] = [](const OpCall<B>& c) { return recurrent(c, Cell::Rnn); };
  t["GRU"] = [](const OpCall<B>& c) { return recurrent(c, Cell::Gru); };
  t["LSTM"] = [](const OpCall<B>& c) { return recurrent(c, Cell::Lstm); };
}

}  // namespace scorch::onnx

SCORCH_ONNX_INSTANTIATE(register_recurrent_ops)
