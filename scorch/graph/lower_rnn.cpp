// Lowering of LSTM and GRU nodes to oneDNN's recurrent primitives (lower.h).
#include "scorch/graph/lower.h"
#include "scorch/graph/node_attrs.h"

namespace scorch::graph {

using dnnl::memory;
using onnx::Node;
using tag = memory::format_tag;
using dt = memory::data_type;

namespace {

// ONNX's recurrent weights [D, G·H, K] as oneDNN's ldigo [1, D, K, G, H], gate g read from ONNX's gate order[g]
// (an LSTM's i, o, f, c become i, f, c, o; a GRU's z, r, h stay).
std::vector<float> rnn_weights(const TensorData& w, size_t hidden, const std::vector<size_t>& order) {
  size_t dirs = w.shape()[0], k = w.shape()[2], gates = order.size();
  auto src = w.as_span<float>();
  std::vector<float> out(src.size());
  for (size_t d = 0; d < dirs; ++d)
    for (size_t i = 0; i < k; ++i)
      for (size_t g = 0; g < gates; ++g)
        for (size_t h = 0; h < hidden; ++h)
          out[((d * k + i) * gates + g) * hidden + h] = src[(d * gates * hidden + order[g] * hidden + h) * k + i];
  return out;
}

// ONNX's biases [D, 2·G·H] (input then recurrent) as oneDNN's ldgo [1, D, G, H], each gate's two summed; a GRU with
// linear_before_reset keeps the candidate's recurrent bias apart, as a fourth row ([1, D, 4, H]).
std::vector<float> rnn_bias(const TensorData* b, size_t dirs, size_t hidden, const std::vector<size_t>& order,
                            bool separate_candidate) {
  size_t gates = order.size(), rows = gates + (separate_candidate ? 1 : 0);
  std::vector<float> out(dirs * rows * hidden, 0.f);
  if (!b) return out;
  auto src = b->as_span<float>();
  for (size_t d = 0; d < dirs; ++d)
    for (size_t g = 0; g < gates; ++g)
      for (size_t h = 0; h < hidden; ++h) {
        size_t at = d * 2 * gates * hidden + order[g] * hidden + h, recurrent = at + gates * hidden;
        bool apart = separate_candidate && g == gates - 1;
        out[(d * rows + g) * hidden + h] = src[at] + (apart ? 0.f : src[recurrent]);
        if (apart) out[(d * rows + gates) * hidden + h] = src[recurrent];
      }
  return out;
}

// ONNX's direction attribute as oneDNN's (a bidirectional run's outputs concatenated).
dnnl::rnn_direction direction_of(const Node& n) {
  std::string direction = attr_string(n, "direction", "forward");
  return direction == "bidirectional" ? dnnl::rnn_direction::bidirectional_concat
         : direction == "reverse"     ? dnnl::rnn_direction::unidirectional_right2left
                                      : dnnl::rnn_direction::unidirectional_left2right;
}

}  // namespace

void Lowering::add_rnn(const Group& g) {
  const Node& n = m_.interpreter->plan().nodes[g.nodes[0]];
  auto given = [&](size_t i) { return i < n.inputs.size() && !n.inputs[i].empty(); };
  auto output = [&](size_t i) { return i < n.outputs.size() && !n.outputs[i].empty(); };
  bool lstm = n.op_type == "LSTM", lbr = !lstm && attr_int(n, "linear_before_reset", 0) != 0;
  std::vector<size_t> order = lstm ? std::vector<size_t>{0, 2, 3, 1} : std::vector<size_t>{0, 1, 2};
  auto gates = memory::dim(order.size()), bias_rows = gates + (lbr ? 1 : 0);
  const Shape& xs = m_.meta.at(n.inputs[0]).shape;
  const TensorData &w = m_.constants.at(n.inputs[1]), &r = m_.constants.at(n.inputs[2]);
  auto steps = memory::dim(xs[0]), batch = memory::dim(xs[1]), in = memory::dim(xs[2]);
  auto dirs = memory::dim(w.shape()[0]), hidden = memory::dim(w.shape()[1]) / gates;
  auto dir = direction_of(n);
  memory::desc src_md({steps, batch, in}, dt::f32, tag::tnc), state({1, dirs, batch, hidden}, dt::f32, tag::ldnc);
  memory::desc wl({1, dirs, in, gates, hidden}, dt::f32, tag::ldigo), wl_any(wl.dims(), dt::f32, tag::any);
  memory::desc wi({1, dirs, hidden, gates, hidden}, dt::f32, tag::ldigo), wi_any(wi.dims(), dt::f32, tag::any);
  memory::desc b_md({1, dirs, bias_rows, hidden}, dt::f32, tag::ldgo);
  memory::desc dst_md({steps, batch, dirs * hidden}, dt::f32, tag::tnc);
  memory::desc h0 = given(5) ? state : memory::desc(), c0 = lstm && given(6) ? state : memory::desc();
  auto kind = dnnl::prop_kind::forward_inference;
  dnnl::primitive p;
  memory::desc wl_md, wi_md;
  if (lstm) {
    dnnl::lstm_forward::primitive_desc pd(
        dnnl::lstm_forward::desc(kind, dir, src_md, h0, c0, wl_any, wi_any, b_md, dst_md, state, state), m_.engine);
    p = dnnl::lstm_forward(pd), wl_md = pd.weights_layer_desc(), wi_md = pd.weights_iter_desc();
  } else if (lbr) {
    dnnl::lbr_gru_forward::primitive_desc pd(
        dnnl::lbr_gru_forward::desc(kind, dir, src_md, h0, wl_any, wi_any, b_md, dst_md, state), m_.engine);
    p = dnnl::lbr_gru_forward(pd), wl_md = pd.weights_layer_desc(), wi_md = pd.weights_iter_desc();
  } else {
    dnnl::gru_forward::primitive_desc pd(
        dnnl::gru_forward::desc(kind, dir, src_md, h0, wl_any, wi_any, b_md, dst_md, state), m_.engine);
    p = dnnl::gru_forward(pd), wl_md = pd.weights_layer_desc(), wi_md = pd.weights_iter_desc();
  }
  auto wl_data = rnn_weights(w, size_t(hidden), order), wi_data = rnn_weights(r, size_t(hidden), order);
  auto b_data = rnn_bias(given(3) ? &m_.constants.at(n.inputs[3]) : nullptr, size_t(dirs), size_t(hidden), order, lbr);
  std::vector<std::pair<int, memory>> fixed{{DNNL_ARG_WEIGHTS_LAYER, owned_memory(wl_data.data(), wl, wl_md)},
                                            {DNNL_ARG_WEIGHTS_ITER, owned_memory(wi_data.data(), wi, wi_md)},
                                            {DNNL_ARG_BIAS, owned_memory(b_data.data(), b_md, b_md)}};
  std::vector<std::pair<int, size_t>> args{{DNNL_ARG_SRC_LAYER, as_layout(n.inputs[0], src_md)}};
  std::vector<std::pair<size_t, int>> states_in{{5, DNNL_ARG_SRC_ITER}}, states_out{{1, DNNL_ARG_DST_ITER}};
  if (lstm) states_in.emplace_back(6, DNNL_ARG_SRC_ITER_C), states_out.emplace_back(2, DNNL_ARG_DST_ITER_C);
  for (auto [i, arg] : states_in) {
    if (!given(i)) continue;
    if (m_.constants.count(n.inputs[i])) fixed.emplace_back(arg, constant_memory(n.inputs[i], state, state));
    else args.emplace_back(arg, view(as_plain(n.inputs[i]), state));
  }
  size_t layer = new_buffer(dst_md.get_size(), dst_md);
  args.emplace_back(DNNL_ARG_DST_LAYER, layer);
  for (auto [i, arg] : states_out)
    args.emplace_back(arg, output(i) ? view(define(n.outputs[i], plain_desc(m_.meta.at(n.outputs[i]).shape)), state)
                                     : new_buffer(state.get_size(), state));
  push_primitive(info_of(g, lstm ? "lstm" : "gru"), p, std::move(args), std::move(fixed));
  if (output(0)) sequence_output(g, n.outputs[0], layer, {steps, batch, dirs, hidden});
}

void Lowering::sequence_output(const Group& g, const std::string& y, size_t layer, const memory::dims& tndh) {
  // Y [T, D, N, H] from oneDNN's [T, N, D·H]: the same values seen as [T, N, D, H], written with Y's strides.
  memory::dim batch = tndh[1], dirs = tndh[2], hidden = tndh[3];
  memory::desc from(tndh, dt::f32, tag::abcd), to(tndh, dt::f32, {dirs * batch * hidden, hidden, batch * hidden, 1});
  size_t src = view(layer, from), dst = view(define(y, plain_desc(m_.meta.at(y).shape)), to);
  dnnl::reorder::primitive_desc rd(m_.engine, from, m_.engine, to);
  push_primitive(info_of(g, "reorder"), dnnl::reorder(rd), {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}}, {});
}

}  // namespace scorch::graph
