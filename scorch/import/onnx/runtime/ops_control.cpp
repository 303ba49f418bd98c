// Control flow: If (the branch its condition picks, run with the outer values visible), Loop (a body run while its
// trip count and condition allow, carrying values and stacking scan outputs along a new first dim) and Scan (a body
// run once per slice of its scan inputs, opset 8's batched form included).
#include "scorch/import/onnx/runtime/op_call_impl.h"

namespace scorch::onnx {
namespace {

template <class B> using Values = std::vector<Value<B>>;

/// Most iterations a Loop may run (a hostile trip count or condition cannot spin forever).
constexpr int64_t kMaxLoopIterations = int64_t(1) << 24;

template <class B> const Graph& body(const OpCall<B>& c, const char* name) {
  const Attribute* a = c.attr(name);
  if (!a || a->graphs.empty()) c.template fail<ValueError>(std::string("attribute '") + name + "' must hold a graph");
  return a->graphs.front();
}

template <class B> bool host_bool(const OpCall<B>& c, size_t input) {
  std::vector<int64_t> v = c.host_ints(input);
  if (v.size() != 1) c.template fail<ShapeError>("condition must hold one value");
  return v[0] != 0;
}

template <class B> Values<B> if_op(const OpCall<B>& c) {
  const Graph& branch = body(c, host_bool(c, 0) ? "then_branch" : "else_branch");
  return c.subgraphs()(branch, {});
}

template <class B> Values<B> loop(const OpCall<B>& c) {
  const Graph& g = body(c, "body");
  std::optional<int64_t> trips;
  if (c.has(0)) trips = c.host_ints(0).at(0);
  if (trips && *trips > kMaxLoopIterations)  // refused before it runs, not after 2^24 iterations
    c.template fail<ValueError>("a trip count of " + std::to_string(*trips) + " exceeds the limit of " +
                                std::to_string(kMaxLoopIterations) + " iterations");
  bool go = c.has(1) ? host_bool(c, 1) : true;
  size_t carried = c.num_inputs() - 2;
  if (g.inputs.size() != carried + 2 || g.outputs.size() < carried + 1)
    c.template fail<ShapeError>("the body's inputs and outputs do not match the loop's carried values");
  Values<B> state;
  for (size_t i = 0; i < carried; ++i) state.push_back(c.in(i + 2));
  std::vector<Values<B>> scans(g.outputs.size() - 1 - carried);
  double scanned = 0;  // elements of the scan outputs so far
  for (int64_t i = 0; go && (!trips || i < *trips); ++i) {
    if (i >= kMaxLoopIterations)
      c.template fail<ValueError>("more than " + std::to_string(kMaxLoopIterations) + " iterations");
    std::map<std::string, Value<B>> feed;
    feed.insert_or_assign(g.inputs[0].name, int_tensor(c, {i}, Shape{}));
    feed.insert_or_assign(g.inputs[1].name,
                          Value<B>::from_data(TensorData(std::vector<bool>{go}, Shape{}), c.device()));
    for (size_t k = 0; k < carried; ++k) feed.insert_or_assign(g.inputs[k + 2].name, state[k]);
    Values<B> out = c.subgraphs()(g, feed);
    go = out[0].to_data().convert(DType::I64).template to_vector<int64_t>().at(0) != 0;
    for (size_t k = 0; k < carried; ++k) state[k] = out[k + 1];
    for (size_t k = 0; k < scans.size(); ++k) {
      scanned += double(out[k + 1 + carried].shape().num_elements());
      check_created(c, scanned);
      Shape s = out[k + 1 + carried].shape();
      s.insert(0, 1);
      scans[k].push_back(reshape(out[k + 1 + carried], s));
    }
  }
  for (auto& stacked : scans) {
    if (stacked.empty()) c.template fail<ValueError>("a loop that runs no iteration has no scan output shape");
    state.push_back(concat(c, stacked, 0));
  }
  return state;
}

/// v's slice i along axis, with that dim removed.
template <class B> Value<B> slice_at(Value<B> v, size_t axis, size_t i) {
  Shape s = v.shape();
  SliceRanges r;
  for (size_t d : s) r.push_back({0, d, 1});
  r[axis] = {i, i + 1, 1};
  return reshape(slice(std::move(v), r), without_dim(s, axis));
}

/// Scan (opset 9 form) over states and scan inputs given as values.
template <class B> Values<B> scan_values(const OpCall<B>& c, Values<B> state, Values<B> scans, bool opset8) {
  const Graph& g = body(c, "body");
  size_t m = scans.size(), n = state.size();
  auto axes_in = opset8 ? std::vector<int64_t>{} : c.attr_ints("scan_input_axes");
  auto dirs_in = c.attr_ints(opset8 ? "directions" : "scan_input_directions");
  auto axes_out = c.attr_ints("scan_output_axes"), dirs_out = c.attr_ints("scan_output_directions");
  if (g.inputs.size() != n + m || g.outputs.size() < n)
    c.template fail<ShapeError>("the body does not match the scan's inputs");
  std::vector<size_t> axis(m);
  std::optional<size_t> length;
  for (size_t j = 0; j < m; ++j) {
    axis[j] = c.axis(axes_in.empty() ? 0 : axes_in.at(j), scans[j].shape().rank());
    size_t len = scans[j].shape()[axis[j]];
    if (length && *length != len) c.template fail<ShapeError>("scan inputs differ in length");
    length = len;
  }
  size_t k_out = g.outputs.size() - n;
  std::vector<Values<B>> stacked(k_out);
  for (size_t t = 0; t < length.value_or(0); ++t) {
    std::map<std::string, Value<B>> feed;
    for (size_t i = 0; i < n; ++i) feed.insert_or_assign(g.inputs[i].name, state[i]);
    for (size_t j = 0; j < m; ++j) {
      size_t at = !dirs_in.empty() && dirs_in.at(j) ? *length - 1 - t : t;
      feed.insert_or_assign(g.inputs[n + j].name, slice_at(scans[j], axis[j], at));
    }
    Values<B> out = c.subgraphs()(g, feed);
    for (size_t i = 0; i < n; ++i) state[i] = out[i];
    for (size_t k = 0; k < k_out; ++k) stacked[k].push_back(out[n + k]);
  }
  for (size_t k = 0; k < k_out; ++k) {
    if (stacked[k].empty()) c.template fail<ValueError>("a scan of length 0 has no output shape");
    if (!dirs_out.empty() && dirs_out.at(k)) std::reverse(stacked[k].begin(), stacked[k].end());
    size_t rank = stacked[k][0].shape().rank() + 1, ax = c.axis(axes_out.empty() ? 0 : axes_out.at(k), rank);
    Values<B> parts;
    for (auto& v : stacked[k]) {
      Shape s = v.shape();
      s.insert(ax, 1);
      parts.push_back(reshape(std::move(v), s));
    }
    state.push_back(concat(c, parts, ax));
  }
  return state;
}

template <class B> Values<B> scan(const OpCall<B>& c) {
  bool opset8 = c.opset() < 9;
  size_t first = opset8 ? 1 : 0, m = size_t(c.attr_int("num_scan_inputs", 0));
  if (m > c.num_inputs() - first) c.template fail<ValueError>("num_scan_inputs is larger than the inputs");
  size_t n = c.num_inputs() - first - m;
  Values<B> state, scans;
  for (size_t i = 0; i < n; ++i) state.push_back(c.in(first + i));
  for (size_t j = 0; j < m; ++j) scans.push_back(c.in(first + n + j));
  if (!opset8) return scan_values(c, state, scans, false);
  // Opset 8: every input has a leading batch dim; each batch entry is scanned on its own, then restacked.
  if (c.has(0)) {
    auto lens = c.host_ints(0);
    for (int64_t len : lens)
      if (m && len != int64_t(scans[0].shape()[1]))
        c.template fail<ValueError>("sequence_lens shorter than the input are not supported");
  }
  size_t batch = n ? state[0].shape()[0] : scans[0].shape()[0];
  std::vector<Values<B>> per_output;
  for (size_t b = 0; b < batch; ++b) {
    Values<B> sb, xb;
    for (auto& v : state) sb.push_back(slice_at(v, 0, b));
    for (auto& v : scans) xb.push_back(slice_at(v, 0, b));
    Values<B> out = scan_values(c, sb, xb, true);
    per_output.resize(out.size());
    for (size_t k = 0; k < out.size(); ++k) {
      Shape s = out[k].shape();
      s.insert(0, 1);
      per_output[k].push_back(reshape(std::move(out[k]), s));
    }
  }
  Values<B> result;
  for (auto& parts : per_output) result.push_back(concat(c, parts, 0));
  return result;
}

}  // namespace

template <class B> void register_control_ops(OpTable<B>& t) {
  t["If"] = [](const OpCall<B>& c) { return if_op(c); };
  t["Loop"] = [](const OpCall<B>& c) { return loop(c); };
  t["Scan"] = [](const OpCall<B>& c) { return scan(c); };
}

}  // namespace scorch::onnx

SCORCH_ONNX_INSTANTIATE(register_control_ops)
