// Groups the plan runs with its own host kernels (select.h): Where (lower.h).
#include "scorch/graph/lower.h"
#include "scorch/graph/select.h"

namespace scorch::graph {

void Lowering::add_where(const Group& g) {
  const onnx::Node& n = m_.interpreter->plan().nodes[g.nodes[0]];
  const Shape& out = m_.meta.at(g.output).shape;
  // Each operand: a constant's bytes (kept by the plan) or its arena buffer, read plain, with broadcast strides.
  struct Operand {
    const void* constant = nullptr;
    size_t buffer = 0;
    std::vector<int64_t> strides;
  };
  std::vector<Operand> operands;
  for (const auto& name : n.inputs) {
    Operand o;
    if (auto c = m_.constants.find(name); c != m_.constants.end()) {
      o.constant = c->second.bytes().data(), o.strides = broadcast_strides(c->second.shape(), out);
    } else {
      o.buffer = dense_f32(m_.meta.at(name)) ? as_plain(name) : buffer_of(name);
      o.strides = broadcast_strides(m_.meta.at(name).shape, out);
    }
    operands.push_back(std::move(o));
  }
  size_t dst = define(g.output, plain_desc(out));
  for (const auto& o : operands)
    if (!o.constant) use(o.buffer);
  Step step;
  step.info = info_of(g, "where");
  CompiledModel::Impl* m = &m_;
  step.bind = [m, operands, dst, out]() -> std::function<void()> {
    std::vector<StridedOperand> bound;
    for (const auto& o : operands) bound.push_back({o.constant ? o.constant : m->data(o.buffer), o.strides});
    float* target = reinterpret_cast<float*>(m->data(dst));
    return [m, bound, target, out]() {
      m->stream.wait();  // the oneDNN steps before have written the operands
      select(out, bound[0], bound[1], bound[2], target);
    };
  };
  m_.steps.push_back(std::move(step));
}

}  // namespace scorch::graph
