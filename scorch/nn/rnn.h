#pragma once
// Recurrent layers: Lstm/BiLstm, Gru/BiGru, Rnn/BiRnn over GateControllers.
// The input transforms of every time step run as one matmul; each step then costs one hidden
// matmul per gate. Inputs are [batch, seq, d_input] (batch_first) or [seq, batch, d_input].
#include "scorch/nn/activation.h"
#include "scorch/nn/linear.h"

namespace scorch::nn {

/// One gate's transforms: input_transform(x) + hidden_transform(h).
template <class B> struct GateController {
  Linear<B> input_transform, hidden_transform;
  SCORCH_MODULE(GateController, input_transform, hidden_transform)
  static GateController make(size_t d_input, size_t d_hidden, bool bias, const Initializer& init,
                             const typename B::Device& device) {
    return {LinearConfig(d_input, d_hidden).with_bias(bias).with_initializer(init).template init<B>(device),
            LinearConfig(d_hidden, d_hidden).with_bias(bias).with_initializer(init).template init<B>(device)};
  }
};

namespace detail {
/// x as [batch, seq, d] whatever the layout.
template <class B> Tensor<B, 3> batch_major(const Tensor<B, 3>& x, bool batch_first) {
  return batch_first ? x : x.swap_dims(0, 1);
}
/// Row t of [batch, seq, d] as [batch, d].
template <class B> Tensor<B, 2> step(const Tensor<B, 3>& x, size_t t) {
  return x.slice_dim(1, Slice(static_cast<int64_t>(t))).template squeeze_dim<2>(1);
}
/// Time indices in processing order.
inline std::vector<size_t> time_order(size_t seq, bool reverse) {
  std::vector<size_t> order(seq);
  for (size_t i = 0; i < seq; ++i) order[i] = reverse ? seq - 1 - i : i;
  return order;
}
/// Per-step outputs [batch, d] (in time order) stacked into [batch, seq, d] or [seq, batch, d].
template <class B> Tensor<B, 3> stack_steps(const std::vector<Tensor<B, 2>>& steps, bool batch_first) {
  return Tensor<B, 2>::stack(steps, batch_first ? 1 : 0);
}
/// Throws ShapeError unless x is [.., .., d_input].
void check_rnn_input(const char* op, const Shape& x, size_t d_input);
}  // namespace detail

/// LSTM cell and hidden state, each [batch, d_hidden].
template <class B> struct LstmState { Tensor<B, 2> cell, hidden; };

template <class B> struct Lstm;
/// LSTM settings (Burn's defaults; Xavier-normal weights).
struct LstmConfig {
  size_t d_input, d_hidden;
  bool bias = true;
  Initializer initializer = Initializer::xavier_normal(1.0);
  bool batch_first = true, reverse = false;
  std::optional<double> clip;
  bool input_forget = false;
  ActivationConfig gate_activation = ActivationConfig::of(ActivationKind::Sigmoid);
  ActivationConfig cell_activation = ActivationConfig::of(ActivationKind::Tanh);
  ActivationConfig hidden_activation = ActivationConfig::of(ActivationKind::Tanh);
  SCORCH_CONFIG(LstmConfig, (d_input, d_hidden),
                (bias, initializer, batch_first, reverse, clip, input_forget, gate_activation, cell_activation,
                 hidden_activation))
  /// The layer with its parameters read from record (as saved by into_record / a recorder).
  template <class B> auto init_with(const Record& record, const typename B::Device& device = {}) const {
    return init_from_record(record, [&] { return this->template init<B>(device); });
  }
  template <class B> Lstm<B> init(const typename B::Device& device = {}) const;
};

/// Long short-term memory. input_forget couples the gates (forget = 1 − input); clip bounds the cell state.
template <class B> struct Lstm {
  GateController<B> input_gate, forget_gate, output_gate, cell_gate;
  Activation<B> gate_activation, cell_activation, hidden_activation;
  size_t d_input = 0, d_hidden = 0;
  bool batch_first = true, reverse = false, input_forget = false;
  std::optional<double> clip;
  SCORCH_MODULE(Lstm, input_gate, forget_gate, output_gate, cell_gate, gate_activation, cell_activation,
                hidden_activation, d_input, d_hidden, batch_first, reverse, input_forget, clip)

  /// (all hidden states [batch, seq, d_hidden] in the input's layout, the final state).
  std::pair<Tensor<B, 3>, LstmState<B>> forward(const Tensor<B, 3>& input,
                                                std::optional<LstmState<B>> state = std::nullopt) const {
    detail::check_rnn_input("Lstm::forward", input.shape(), d_input);
    auto x = detail::batch_major(input, batch_first);
    auto [batch, seq, d] = x.dims();
    auto zeros = Tensor<B, 2>::full({batch, d_hidden}, Scalar(0.0), x.device(), x.dtype());
    Tensor<B, 2> c = state ? state->cell : zeros, h = state ? state->hidden : zeros;
    auto xi = input_gate.input_transform.forward(x), xf = forget_gate.input_transform.forward(x);
    auto xo = output_gate.input_transform.forward(x), xc = cell_gate.input_transform.forward(x);
    std::vector<Tensor<B, 2>> outputs(seq);
    for (size_t t : detail::time_order(seq, reverse)) {
      auto i = gate_activation.forward(detail::step(xi, t) + input_gate.hidden_transform.forward(h));
      auto f = input_forget ? (-i + 1.0)
                            : gate_activation.forward(detail::step(xf, t) + forget_gate.hidden_transform.forward(h));
      auto o = gate_activation.forward(detail::step(xo, t) + output_gate.hidden_transform.forward(h));
      auto g = cell_activation.forward(detail::step(xc, t) + cell_gate.hidden_transform.forward(h));
      c = f * c + i * g;
      if (clip) c = c.clamp(-*clip, *clip);
      h = o * hidden_activation.forward(c);
      outputs[t] = h;
    }
    return {detail::stack_steps(outputs, batch_first), {c, h}};
  }
};

template <class B> Lstm<B> LstmConfig::init(const typename B::Device& device) const {
  auto gate = [&] { return GateController<B>::make(d_input, d_hidden, bias, initializer, device); };
  return {gate(),
          gate(),
          gate(),
          gate(),
          gate_activation.template init<B>(device),
          cell_activation.template init<B>(device),
          hidden_activation.template init<B>(device),
          d_input,
          d_hidden,
          batch_first,
          reverse,
          input_forget,
          clip};
}

/// Bidirectional LSTM state: cell and hidden [2 (forward, reverse), batch, d_hidden].
template <class B> struct BiLstmState { Tensor<B, 3> cell, hidden; };

/// A forward and a reverse Lstm; outputs concatenated on the feature dim.
template <class B> struct BiLstm {
  Lstm<B> forward_lstm, reverse_lstm;
  SCORCH_MODULE(BiLstm, forward_lstm, reverse_lstm)
  std::pair<Tensor<B, 3>, BiLstmState<B>> forward(const Tensor<B, 3>& x,
                                                  std::optional<BiLstmState<B>> state = std::nullopt) const {
    auto pick = [&](size_t i) -> std::optional<LstmState<B>> {
      if (!state) return std::nullopt;
      auto at = [&](const Tensor<B, 3>& t) {
        return t.slice_dim(0, Slice(static_cast<int64_t>(i))).template squeeze_dim<2>(0);
      };
      return LstmState<B>{at(state->cell), at(state->hidden)};
    };
    auto [out_f, st_f] = forward_lstm.forward(x, pick(0));
    auto [out_r, st_r] = reverse_lstm.forward(x, pick(1));
    return {Tensor<B, 3>::cat({out_f, out_r}, 2),
            {Tensor<B, 2>::stack({st_f.cell, st_r.cell}, 0), Tensor<B, 2>::stack({st_f.hidden, st_r.hidden}, 0)}};
  }
};
/// BiLstm settings: an LstmConfig whose reverse flag is ignored.
struct BiLstmConfig {
  LstmConfig lstm;
  SCORCH_CONFIG(BiLstmConfig, (lstm), ())
  /// The layer with its parameters read from record (as saved by into_record / a recorder).
  template <class B> auto init_with(const Record& record, const typename B::Device& device = {}) const {
    return init_from_record(record, [&] { return this->template init<B>(device); });
  }
  template <class B> BiLstm<B> init(const typename B::Device& device = {}) const {
    return {lstm.with_reverse(false).template init<B>(device), lstm.with_reverse(true).template init<B>(device)};
  }
};

template <class B> struct Gru;
/// GRU settings (reset_after = PyTorch's formulation).
struct GruConfig {
  size_t d_input, d_hidden;
  bool bias = true, reset_after = true;
  Initializer initializer = Initializer::xavier_normal(1.0);
  bool batch_first = true, reverse = false;
  std::optional<double> clip;
  ActivationConfig gate_activation = ActivationConfig::of(ActivationKind::Sigmoid);
  ActivationConfig hidden_activation = ActivationConfig::of(ActivationKind::Tanh);
  SCORCH_CONFIG(GruConfig, (d_input, d_hidden),
                (bias, reset_after, initializer, batch_first, reverse, clip, gate_activation, hidden_activation))
  /// The layer with its parameters read from record (as saved by into_record / a recorder).
  template <class B> auto init_with(const Record& record, const typename B::Device& device = {}) const {
    return init_from_record(record, [&] { return this->template init<B>(device); });
  }
  template <class B> Gru<B> init(const typename B::Device& device = {}) const;
};

/// Gated recurrent unit: h' = (1 − z)·n + z·h.
template <class B> struct Gru {
  GateController<B> update_gate, reset_gate, new_gate;
  Activation<B> gate_activation, hidden_activation;
  size_t d_input = 0, d_hidden = 0;
  bool reset_after = true, batch_first = true, reverse = false;
  std::optional<double> clip;
  SCORCH_MODULE(Gru, update_gate, reset_gate, new_gate, gate_activation, hidden_activation, d_input, d_hidden,
                reset_after, batch_first, reverse, clip)

  /// All hidden states [batch, seq, d_hidden] (in the input's layout); the last one is the final state.
  Tensor<B, 3> forward(const Tensor<B, 3>& input, std::optional<Tensor<B, 2>> state = std::nullopt) const {
    detail::check_rnn_input("Gru::forward", input.shape(), d_input);
    auto x = detail::batch_major(input, batch_first);
    auto [batch, seq, d] = x.dims();
    Tensor<B, 2> h = state ? *state : Tensor<B, 2>::full({batch, d_hidden}, Scalar(0.0), x.device(), x.dtype());
    auto xz = update_gate.input_transform.forward(x), xr = reset_gate.input_transform.forward(x),
         xn = new_gate.input_transform.forward(x);
    std::vector<Tensor<B, 2>> outputs(seq);
    for (size_t t : detail::time_order(seq, reverse)) {
      auto z = gate_activation.forward(detail::step(xz, t) + update_gate.hidden_transform.forward(h));
      auto r = gate_activation.forward(detail::step(xr, t) + reset_gate.hidden_transform.forward(h));
      auto hn = reset_after ? r * new_gate.hidden_transform.forward(h) : new_gate.hidden_transform.forward(r * h);
      auto n = hidden_activation.forward(detail::step(xn, t) + hn);
      h = (-z + 1.0) * n + z * h;
      if (clip) h = h.clamp(-*clip, *clip);
      outputs[t] = h;
    }
    return detail::stack_steps(outputs, batch_first);
  }
};

template <class B> Gru<B> GruConfig::init(const typename B::Device& device) const {
  auto gate = [&] { return GateController<B>::make(d_input, d_hidden, bias, initializer, device); };
  return {gate(),
          gate(),
          gate(),
          gate_activation.template init<B>(device),
          hidden_activation.template init<B>(device),
          d_input,
          d_hidden,
          reset_after,
          batch_first,
          reverse,
          clip};
}

/// A forward and a reverse Gru; outputs concatenated on the feature dim.
template <class B> struct BiGru {
  Gru<B> forward_gru, reverse_gru;
  SCORCH_MODULE(BiGru, forward_gru, reverse_gru)
  Tensor<B, 3> forward(const Tensor<B, 3>& x) const {
    return Tensor<B, 3>::cat({forward_gru.forward(x), reverse_gru.forward(x)}, 2);
  }
};
struct BiGruConfig {
  GruConfig gru;
  SCORCH_CONFIG(BiGruConfig, (gru), ())
  /// The layer with its parameters read from record (as saved by into_record / a recorder).
  template <class B> auto init_with(const Record& record, const typename B::Device& device = {}) const {
    return init_from_record(record, [&] { return this->template init<B>(device); });
  }
  template <class B> BiGru<B> init(const typename B::Device& device = {}) const {
    return {gru.with_reverse(false).template init<B>(device), gru.with_reverse(true).template init<B>(device)};
  }
};

template <class B> struct Rnn;
/// Elman RNN settings.
struct RnnConfig {
  size_t d_input, d_hidden;
  bool bias = true;
  Initializer initializer = Initializer::xavier_normal(1.0);
  bool batch_first = true, reverse = false;
  std::optional<double> clip;
  ActivationConfig hidden_activation = ActivationConfig::of(ActivationKind::Tanh);
  SCORCH_CONFIG(RnnConfig, (d_input, d_hidden), (bias, initializer, batch_first, reverse, clip, hidden_activation))
  /// The layer with its parameters read from record (as saved by into_record / a recorder).
  template <class B> auto init_with(const Record& record, const typename B::Device& device = {}) const {
    return init_from_record(record, [&] { return this->template init<B>(device); });
  }
  template <class B> Rnn<B> init(const typename B::Device& device = {}) const;
};

/// h' = activation(W·x + U·h).
template <class B> struct Rnn {
  GateController<B> gate;
  Activation<B> hidden_activation;
  size_t d_input = 0, d_hidden = 0;
  bool batch_first = true, reverse = false;
  std::optional<double> clip;
  SCORCH_MODULE(Rnn, gate, hidden_activation, d_input, d_hidden, batch_first, reverse, clip)

  /// (all hidden states, the final state [batch, d_hidden]).
  std::pair<Tensor<B, 3>, Tensor<B, 2>> forward(const Tensor<B, 3>& input,
                                                std::optional<Tensor<B, 2>> state = std::nullopt) const {
    detail::check_rnn_input("Rnn::forward", input.shape(), d_input);
    auto x = detail::batch_major(input, batch_first);
    auto [batch, seq, d] = x.dims();
    Tensor<B, 2> h = state ? *state : Tensor<B, 2>::full({batch, d_hidden}, Scalar(0.0), x.device(), x.dtype());
    auto xw = gate.input_transform.forward(x);
    std::vector<Tensor<B, 2>> outputs(seq);
    for (size_t t : detail::time_order(seq, reverse)) {
      h = hidden_activation.forward(detail::step(xw, t) + gate.hidden_transform.forward(h));
      if (clip) h = h.clamp(-*clip, *clip);
      outputs[t] = h;
    }
    return {detail::stack_steps(outputs, batch_first), h};
  }
};

template <class B> Rnn<B> RnnConfig::init(const typename B::Device& device) const {
  return {GateController<B>::make(d_input, d_hidden, bias, initializer, device),
          hidden_activation.template init<B>(device),
          d_input,
          d_hidden,
          batch_first,
          reverse,
          clip};
}

/// A forward and a reverse Rnn; outputs concatenated on the feature dim, final states stacked [2, batch, d_hidden].
template <class B> struct BiRnn {
  Rnn<B> forward_rnn, reverse_rnn;
  SCORCH_MODULE(BiRnn, forward_rnn, reverse_rnn)
  std::pair<Tensor<B, 3>, Tensor<B, 3>> forward(const Tensor<B, 3>& x) const {
    auto [of, hf] = forward_rnn.forward(x);
    auto [orv, hr] = reverse_rnn.forward(x);
    return {Tensor<B, 3>::cat({of, orv}, 2), Tensor<B, 2>::stack({hf, hr}, 0)};
  }
};
struct BiRnnConfig {
  RnnConfig rnn;
  SCORCH_CONFIG(BiRnnConfig, (rnn), ())
  /// The layer with its parameters read from record (as saved by into_record / a recorder).
  template <class B> auto init_with(const Record& record, const typename B::Device& device = {}) const {
    return init_from_record(record, [&] { return this->template init<B>(device); });
  }
  template <class B> BiRnn<B> init(const typename B::Device& device = {}) const {
    return {rnn.with_reverse(false).template init<B>(device), rnn.with_reverse(true).template init<B>(device)};
  }
};

}  // namespace scorch::nn
