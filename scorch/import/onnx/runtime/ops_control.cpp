// Control flow: If (the branch its condition picks, run with the outer values visible) and Loop (a body run while its
// trip count and condition allow, carrying values and stacking scan outputs along a new first dim).
#include "scorch/import/onnx/runtime/op_call_impl.h"

namespace scorch::onnx {
namespace {

template <class B> using Values = std::vector<Value<B>>;

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
  bool go = c.has(1) ? host_bool(c, 1) : true;
  size_t carried = c.num_inputs() - 2;
  if (g.inputs.size() != carried + 2 || g.outputs.size() < carried + 1)
    c.template fail<ShapeError>("the body's inputs and outputs do not match the loop's carried values");
  Values<B> state;
  for (size_t i = 0; i < carried; ++i) state.push_back(c.in(i + 2));
  std::vector<Values<B>> scans(g.outputs.size() - 1 - carried);
  for (int64_t i = 0; go && (!trips || i < *trips); ++i) {
    std::map<std::string, Value<B>> feed;
    feed.insert_or_assign(g.inputs[0].name, int_tensor(c, {i}, Shape{}));
    feed.insert_or_assign(g.inputs[1].name,
                          Value<B>::from_data(TensorData(std::vector<bool>{go}, Shape{}), c.device()));
    for (size_t k = 0; k < carried; ++k) feed.insert_or_assign(g.inputs[k + 2].name, state[k]);
    Values<B> out = c.subgraphs()(g, feed);
    go = out[0].to_data().convert(DType::I64).template to_vector<int64_t>().at(0) != 0;
    for (size_t k = 0; k < carried; ++k) state[k] = out[k + 1];
    for (size_t k = 0; k < scans.size(); ++k) {
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

}  // namespace

template <class B> void register_control_ops(OpTable<B>& t) {
  t["If"] = [](const OpCall<B>& c) { return if_op(c); };
  t["Loop"] = [](const OpCall<B>& c) { return loop(c); };
}

}  // namespace scorch::onnx

SCORCH_ONNX_INSTANTIATE(register_control_ops)
