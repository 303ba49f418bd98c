// Lowering of the pass's groups to oneDNN primitives and interpreter calls (lower.h).
#include "scorch/graph/lower.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <unordered_map>

#include "scorch/core/error.h"
#include "scorch/dyn/dyn.h"
#include "scorch/graph/host_values.h"
#include "scorch/graph/node_attrs.h"
#include "scorch/import/onnx/runtime/op_call_impl.h"

namespace scorch::graph {
namespace {

using dnnl::memory;
using onnx::Node;
using tag = memory::format_tag;
using dt = memory::data_type;

// A row-major value of shape src read as its transpose by perm: dims and strides permuted.
memory::desc permuted_desc(const Shape& src, const std::vector<int64_t>& perm) {
  memory::dims dims, row_major(src.rank()), strides;
  for (size_t d = src.rank(), step = 1; d-- > 0; step *= src[d]) row_major[d] = memory::dim(step);
  for (int64_t p : perm) dims.push_back(memory::dim(src[size_t(p)])), strides.push_back(row_major[size_t(p)]);
  return {dims, dt::f32, strides};
}

// s's dims with leading 1s up to rank (a broadcast operand of oneDNN's binary has the result's rank).
memory::desc plain_desc_of_rank(const Shape& s, size_t rank) {
  memory::dims d(rank - s.rank(), 1);
  for (size_t i = 0; i < s.rank(); ++i) d.push_back(static_cast<memory::dim>(s[i]));
  return {d, dt::f32, plain_tag(rank)};
}

dnnl::algorithm algorithm_of(Activation::Kind k) {
  using A = dnnl::algorithm;
  switch (k) {
    case Activation::Kind::Relu: return A::eltwise_relu;
    case Activation::Kind::Clip: return A::eltwise_clip;
    case Activation::Kind::Logistic: return A::eltwise_logistic;
    case Activation::Kind::Tanh: return A::eltwise_tanh;
    case Activation::Kind::HardSwish: return A::eltwise_hardswish;
    case Activation::Kind::Elu: return A::eltwise_elu;
    case Activation::Kind::Linear: return A::eltwise_linear;
    case Activation::Kind::GeluErf: return A::eltwise_gelu_erf;
    case Activation::Kind::GeluTanh: return A::eltwise_gelu_tanh;
    case Activation::Kind::Swish: return A::eltwise_swish;
  }
  return A::eltwise_relu;
}

dnnl::primitive_attr post_ops_of(const Group& g) {
  dnnl::post_ops po;
  for (const auto& a : g.before_sum) po.append_eltwise(1.f, algorithm_of(a.kind), a.alpha, a.beta);
  if (g.sum) po.append_sum(1.f);
  for (const auto& a : g.after_sum) po.append_eltwise(1.f, algorithm_of(a.kind), a.alpha, a.beta);
  dnnl::primitive_attr attr;
  attr.set_post_ops(po);
  return attr;
}

// Padding before and after each of the two spatial dims, from the attributes and the shapes the example run saw
// (auto_pad SAME_* splits what the output needs; ceil_mode's extra padding comes from the output size).
void spatial_padding(const Node& n, const Shape& in, const Shape& out, const memory::dims& kernel,
                     const memory::dims& strides, const memory::dims& dilations, memory::dims& lo, memory::dims& hi) {
  std::string auto_pad = attr_string(n, "auto_pad", "NOTSET");
  size_t spatial = kernel.size();
  auto pads = attr_ints(n, "pads", std::vector<int64_t>(2 * spatial, 0));
  bool ceil = attr_int(n, "ceil_mode", 0) != 0;
  lo.assign(spatial, 0), hi.assign(spatial, 0);
  for (size_t d = 0; d < spatial; ++d) {
    int64_t reach = (kernel[d] - 1) * dilations[d] + 1;
    int64_t total = (int64_t(out[d + 2]) - 1) * strides[d] + reach - int64_t(in[d + 2]);
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      total = std::max<int64_t>(total, 0);
      lo[d] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      hi[d] = total - lo[d];
    } else if (auto_pad == "NOTSET" && pads.size() == 2 * spatial) {
      lo[d] = pads[d], hi[d] = ceil ? std::max<int64_t>(total - pads[d], pads[d + spatial]) : pads[d + spatial];
    }
  }
}

// ONNX's weights as a oneDNN desc of logical dims wd ([g,] o, i, k...): a convolution's are stored [g,] o, i, k...
// (a plain tag); a transposed one's [g,] i, o, k... (strides, as oneDNN 2.6 has no 1-D io tags).
memory::desc weights_desc(const memory::dims& wd, size_t spatial, bool grouped, bool transposed) {
  static const tag conv[2][3] = {{tag::oiw, tag::oihw, tag::oidhw}, {tag::goiw, tag::goihw, tag::goidhw}};
  if (!transposed) return {wd, dt::f32, conv[grouped ? 1 : 0][spatial - 1]};
  size_t g = grouped ? 1 : 0;
  memory::dims strides(wd.size());
  memory::dim step = 1;
  for (size_t d = wd.size(); d-- > g + 2;) strides[d] = step, step *= wd[d];
  strides[g] = step, strides[g + 1] = step * wd[g];  // o inside i
  if (grouped) strides[0] = step * wd[1] * wd[2];
  return {wd, dt::f32, strides};
}

// What a convolution or transposed convolution is made of.
struct ConvDescs {
  memory::desc src, weights, bias, dst;  // bias: a zero desc when there is none
  memory::dims strides, gaps, lo, hi;
};
// The primitive (Op: oneDNN's convolution_forward or deconvolution_forward) and the layouts it chose.
struct ConvParts {
  dnnl::primitive primitive;
  memory::desc weights, src, dst;
};
template <class Op> ConvParts conv_parts(dnnl::algorithm algo, const ConvDescs& c, const dnnl::primitive_attr& attr,
                                         const dnnl::engine& engine) {
  auto kind = dnnl::prop_kind::forward_inference;
  auto d = c.bias != memory::desc()
               ? typename Op::desc(kind, algo, c.src, c.weights, c.bias, c.dst, c.strides, c.gaps, c.lo, c.hi)
               : typename Op::desc(kind, algo, c.src, c.weights, c.dst, c.strides, c.gaps, c.lo, c.hi);
  typename Op::primitive_desc pd(d, attr, engine);
  return {Op(pd), pd.weights_desc(), pd.src_desc(), pd.dst_desc()};
}

}  // namespace

Lowering::Lowering(CompiledModel::Impl& m) : m_(m) {
  const auto& nodes = m_.interpreter->plan().nodes;
  for (size_t i = 0; i < nodes.size(); ++i)
    for (const auto& in : nodes[i].inputs) {  // a Transpose may run later, inside the product it feeds
      size_t at = nodes[i].op_type == "Transpose" ? SIZE_MAX : i;
      if (!in.empty()) last_read_[in] = std::max(last_read_[in], at);
    }
  for (const auto& out : m_.outputs) last_read_[out] = SIZE_MAX;
}

size_t Lowering::new_buffer(size_t bytes, std::optional<memory::desc> desc) {
  m_.buffers.push_back({{bytes, m_.steps.size(), m_.steps.size()}, std::move(desc)});
  return m_.buffers.size() - 1;
}

size_t Lowering::view(size_t owner, const memory::desc& desc) {
  size_t v = new_buffer(0, desc);
  aliases_.emplace_back(v, owner);
  owner_of_[v] = owner;
  use(owner);
  return v;
}

void Lowering::extend(size_t buffer, size_t step) {
  for (std::optional<size_t> b = buffer; b;) {
    auto& life = m_.buffers.at(*b).life;
    life.last = std::max(life.last, step);
    auto owner = owner_of_.find(*b);
    b = owner == owner_of_.end() ? std::nullopt : std::optional<size_t>(owner->second);
  }
}

size_t Lowering::root(size_t buffer) const {
  for (auto owner = owner_of_.find(buffer); owner != owner_of_.end(); owner = owner_of_.find(buffer))
    buffer = owner->second;
  return buffer;
}

bool Lowering::read_after(const std::string& name, size_t node) const {
  auto last = last_read_.find(name);
  return last != last_read_.end() && last->second >= node;
}

size_t Lowering::use(size_t buffer) {
  extend(buffer, m_.steps.size());
  return buffer;
}

size_t Lowering::define(const std::string& name, std::optional<memory::desc> desc) {
  const ValueMeta& meta = m_.meta.at(name);
  size_t bytes = desc ? desc->get_size() : meta.shape.num_elements() * dtype_size(meta.dtype);
  bool plain = !desc || *desc == plain_desc(meta.shape);
  size_t b = new_buffer(bytes, std::move(desc));
  m_.slots.insert_or_assign(name, Slot{b, meta, plain});
  return b;
}

void Lowering::define_input(const std::string& name) {
  const ValueMeta& meta = m_.meta.at(name);
  define(name, dense_f32(meta) ? std::optional(plain_desc(meta.shape)) : std::nullopt);
}

void Lowering::use_held(size_t i) { m_.held_last.at(i) = std::max(m_.held_last[i], m_.steps.size()); }

size_t Lowering::buffer_of(const std::string& name) {
  Slot& s = m_.slots.at(name);
  if (s.in_arena) return s.buffer;
  size_t held = *s.held, b = new_buffer(s.meta.shape.num_elements() * dtype_size(s.meta.dtype),
                                        dense_f32(s.meta) ? std::optional(plain_desc(s.meta.shape)) : std::nullopt);
  s.buffer = b, s.in_arena = true, s.plain = true;
  use_held(held);
  Step step;
  step.info = StepInfo{"to_arena", name, "Copy", 0};
  CompiledModel::Impl* m = &m_;
  size_t index = m_.steps.size();
  step.bind = [m, held, b, index]() -> std::function<void()> {
    return [m, held, b, index]() {
      copy_out(*m->held[held], m->data(b), m->buffers[b].life.bytes);
      if (m->held_last[held] == index) m->held[held].reset();
    };
  };
  m_.steps.push_back(std::move(step));
  return b;
}

size_t Lowering::as_layout(const std::string& name, const memory::desc& want) {
  size_t own = buffer_of(name);
  if (m_.buffers[own].desc && *m_.buffers[own].desc == want) return own;
  size_t src = use(own), temp = new_buffer(want.get_size(), want);
  push_reorder(src, temp, name);
  return temp;
}

size_t Lowering::residual_destination(const Group& g, const memory::desc& dst_md) {
  if (g.sum && g.sum_in_place) {  // the residual's own bytes, when it is in the arena in the result's layout
    size_t res = buffer_of(*g.sum);
    // The bytes may be overwritten only when no other value still to be read lives in them (a view of them, or what
    // they view): the head's own inputs included.
    bool shared = false;
    for (const auto& [name, slot] : m_.slots)
      shared |= name != *g.sum && slot.in_arena && root(slot.buffer) == root(res) && read_after(name, g.nodes[0]);
    if (!shared && m_.buffers[res].desc && *m_.buffers[res].desc == dst_md) {
      const ValueMeta& meta = m_.meta.at(g.output);
      size_t v = view(res, dst_md);
      m_.slots.insert_or_assign(g.output, Slot{v, meta, dst_md == plain_desc(meta.shape), true, std::nullopt});
      return v;
    }
  }
  size_t dst = define(g.output, dst_md);
  if (g.sum) push_reorder(use(buffer_of(*g.sum)), dst, *g.sum);
  return dst;
}

size_t Lowering::as_plain(const std::string& name) {
  size_t own = buffer_of(name);
  const Slot& s = m_.slots.at(name);
  return s.plain ? own : as_layout(name, plain_desc(s.meta.shape));
}

void Lowering::push_reorder(size_t src, size_t dst, const std::string& what) {
  memory::desc from = *m_.buffers[src].desc, to = *m_.buffers[dst].desc;
  dnnl::reorder::primitive_desc pd(m_.engine, from, m_.engine, to);
  StepInfo info{"reorder", what, "Reorder", 0};
  push_primitive(info, dnnl::reorder(pd), {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}}, {});
}

void Lowering::push_primitive(StepInfo info, dnnl::primitive p, std::vector<std::pair<int, size_t>> buffers,
                              std::vector<std::pair<int, memory>> fixed) {
  for (auto& [arg, b] : buffers) use(b);
  Step step;
  step.info = std::move(info);
  CompiledModel::Impl* m = &m_;
  step.bind = [m, p, buffers, fixed]() -> std::function<void()> {
    // The C API's argument array, built once: dnnl::primitive::execute builds one (on the heap) at every call.
    std::vector<memory> held;
    std::vector<dnnl_exec_arg_t> args;
    for (const auto& [arg, b] : buffers) held.push_back(m->memory(b)), args.push_back({arg, held.back().get()});
    for (const auto& [arg, mem] : fixed) held.push_back(mem), args.push_back({arg, mem.get()});
    return [m, p, held, args]() {
      if (dnnl_primitive_execute(p.get(), m->stream.get(), int(args.size()), args.data()) != dnnl_success)
        throw Error("graph::run", "oneDNN failed to run a primitive (a compiler bug: report it)");
    };
  };
  m_.steps.push_back(std::move(step));
}

StepInfo Lowering::info_of(const Group& g, const char* kind) const {
  StepInfo info{kind, "", "", 0};
  for (size_t i : g.nodes) {
    const Node& n = m_.interpreter->plan().nodes[i];
    info.nodes += (info.nodes.empty() ? "" : "+") + n.name;
    info.ops += (info.ops.empty() ? "" : "+") + n.op_type;
  }
  return info;
}

memory Lowering::constant_memory(const std::string& name, const memory::desc& plain, const memory::desc& want) {
  return owned_memory(m_.constants.at(name).bytes().data(), plain, want);
}

memory Lowering::owned_memory(const void* data, const memory::desc& plain, const memory::desc& want) {
  memory user(plain, m_.engine, const_cast<void*>(data)), out(want, m_.engine);
  dnnl::reorder(user, out).execute(m_.stream, user, out);
  m_.stream.wait();
  m_.owned.push_back(out);
  return out;
}

void Lowering::add_conv(const Group& g) {
  const Node& n = m_.interpreter->plan().nodes[g.nodes[0]];
  bool transposed = n.op_type == "ConvTranspose";
  const Shape &xs = m_.meta.at(n.inputs[0]).shape, &ys = m_.meta.at(g.output).shape;
  const Shape& ws = m_.constants.at(n.inputs[1]).shape();
  auto groups = static_cast<memory::dim>(attr_int(n, "group", 1));
  size_t spatial = xs.rank() - 2;
  memory::dims kernel(spatial), lo, hi;
  for (size_t d = 0; d < spatial; ++d) kernel[d] = memory::dim(ws[d + 2]);
  memory::dims strides = attr_ints(n, "strides", memory::dims(spatial, 1)),
               dilations = attr_ints(n, "dilations", memory::dims(spatial, 1));
  if (transposed) {  // the padding the output size implies beyond pads' begin (output_padding and output_shape in it)
    auto pads = attr_string(n, "auto_pad", "NOTSET") == "VALID" ? memory::dims(2 * spatial, 0)
                                                                : attr_ints(n, "pads", memory::dims(2 * spatial, 0));
    for (size_t d = 0; d < spatial; ++d)
      lo.push_back(pads[d]), hi.push_back((memory::dim(xs[d + 2]) - 1) * strides[d] + (kernel[d] - 1) * dilations[d] +
                                          1 - pads[d] - memory::dim(ys[d + 2]));
  } else {
    spatial_padding(n, xs, ys, kernel, strides, dilations, lo, hi);
  }
  // Weights: a convolution's [O, I/g, k...]; a transposed one's [I, O/g, k...] (oneDNN's io... order).
  auto out_ch = transposed ? memory::dim(ws[1]) * groups : memory::dim(ws[0]);
  auto in_g = transposed ? memory::dim(ws[0]) / groups : memory::dim(ws[1]);
  memory::dims wd = groups > 1 ? memory::dims{groups, out_ch / groups, in_g} : memory::dims{out_ch, in_g};
  wd.insert(wd.end(), kernel.begin(), kernel.end());
  memory::desc w_plain = weights_desc(wd, spatial, groups > 1, transposed), w_any(wd, dt::f32, tag::any);
  memory::desc src_any(dims_of(xs), dt::f32, tag::any), dst_any(dims_of(ys), dt::f32, tag::any);
  memory::dims dil0;  // oneDNN counts the gaps: ONNX's dilation minus one
  for (auto d : dilations) dil0.push_back(d - 1);
  bool has_bias = n.inputs.size() > 2 && !n.inputs[2].empty();
  memory::desc b_md({out_ch}, dt::f32, tag::a);
  ConvDescs descs{src_any, w_any, has_bias ? b_md : memory::desc(), dst_any, strides, dil0, lo, hi};
  ConvParts c = transposed ? conv_parts<dnnl::deconvolution_forward>(dnnl::algorithm::deconvolution_direct, descs,
                                                                     post_ops_of(g), m_.engine)
                           : conv_parts<dnnl::convolution_forward>(dnnl::algorithm::convolution_direct, descs,
                                                                   post_ops_of(g), m_.engine);
  dnnl::primitive p = c.primitive;
  memory::desc w_md = c.weights, src_md = c.src, dst_md = c.dst;
  std::vector<std::pair<int, memory>> fixed{{DNNL_ARG_WEIGHTS, constant_memory(n.inputs[1], w_plain, w_md)}};
  if (has_bias) fixed.emplace_back(DNNL_ARG_BIAS, constant_memory(n.inputs[2], b_md, b_md));
  size_t src = as_layout(n.inputs[0], src_md);
  size_t dst = residual_destination(g, dst_md);
  push_primitive(info_of(g, "conv"), p, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}, std::move(fixed));
}

void Lowering::add_matmul(const Group& g) {
  const Node& n = m_.interpreter->plan().nodes[g.nodes[0]];
  const Shape& as = m_.meta.at(n.inputs[0]).shape;
  const Shape& bs = m_.constants.at(n.inputs[1]).shape();
  bool trans_b = n.op_type == "Gemm" && attr_int(n, "transB", 0) != 0;
  // A of any rank ≥ 2 as rows × inner (its leading dims flattened), the result likewise.
  auto inner = memory::dim(as[as.rank() - 1]), cols = memory::dim(trans_b ? bs[0] : bs[1]);
  auto rows = memory::dim(as.num_elements()) / inner;
  memory::desc a_md({rows, inner}, dt::f32, tag::ab), dst_md({rows, cols}, dt::f32, tag::ab);
  memory::desc w_plain({inner, cols}, dt::f32, trans_b ? tag::ba : tag::ab), w_any({inner, cols}, dt::f32, tag::any);
  memory::desc b_md({1, cols}, dt::f32, tag::ab);
  std::optional<std::string> bias = g.bias;
  if (n.op_type == "Gemm" && n.inputs.size() > 2 && !n.inputs[2].empty()) bias = n.inputs[2];
  bool has_bias = bias.has_value();
  auto d = has_bias ? dnnl::matmul::desc(a_md, w_any, b_md, dst_md) : dnnl::matmul::desc(a_md, w_any, dst_md);
  dnnl::matmul::primitive_desc pd(d, post_ops_of(g), m_.engine);
  std::vector<std::pair<int, memory>> fixed{
      {DNNL_ARG_WEIGHTS, constant_memory(n.inputs[1], w_plain, pd.weights_desc())}};
  if (has_bias) fixed.emplace_back(DNNL_ARG_BIAS, constant_memory(*bias, b_md, b_md));
  size_t src = view(as_plain(n.inputs[0]), a_md);
  size_t dst = view(residual_destination(g, plain_desc(m_.meta.at(g.output).shape)), dst_md);
  push_primitive(info_of(g, "matmul"), dnnl::matmul(pd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}, std::move(fixed));
}

void Lowering::add_batch_matmul(const Group& g) {
  const Node& n = m_.interpreter->plan().nodes[g.nodes[0]];
  std::vector<std::pair<int, size_t>> args;
  std::vector<memory::desc> mds;
  for (size_t k = 0; k < 2; ++k) {
    auto t = g.transposed.find(k);
    if (t == g.transposed.end()) {
      mds.push_back(plain_desc(m_.meta.at(n.inputs[k]).shape));
      continue;
    }
    // The Transpose's source read in place: dims permuted, strides the source's row-major ones permuted.
    const Shape& src = m_.meta.at(t->second.source).shape;
    memory::dims dims, row_major(src.rank()), strides;
    for (size_t d = src.rank(), step = 1; d-- > 0; step *= src[d]) row_major[d] = memory::dim(step);
    for (int64_t p : t->second.perm)
      dims.push_back(memory::dim(src[size_t(p)])), strides.push_back(row_major[size_t(p)]);
    mds.emplace_back(dims, dt::f32, strides);
  }
  memory::desc dst_md = plain_desc(m_.meta.at(g.output).shape);
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(mds[0], mds[1], dst_md), post_ops_of(g), m_.engine);
  for (size_t k = 0; k < 2; ++k) {
    auto t = g.transposed.find(k);
    size_t b = t == g.transposed.end() ? as_plain(n.inputs[k]) : view(as_plain(t->second.source), mds[k]);
    args.emplace_back(k == 0 ? DNNL_ARG_SRC : DNNL_ARG_WEIGHTS, b);
  }
  args.emplace_back(DNNL_ARG_DST, define(g.output, dst_md));
  push_primitive(info_of(g, "matmul"), dnnl::matmul(pd), std::move(args), {});
}

void Lowering::add_pool(const Group& g) {
  const Node& n = m_.interpreter->plan().nodes[g.nodes[0]];
  const Shape &xs = m_.meta.at(n.inputs[0]).shape, &ys = m_.meta.at(g.output).shape;
  bool global = n.op_type.rfind("Global", 0) == 0, max = n.op_type.find("Max") != std::string::npos;
  size_t spatial = xs.rank() - 2;
  memory::dims kernel(spatial), strides(spatial, 1), dilations(spatial, 1), lo(spatial, 0), hi(spatial, 0);
  for (size_t d = 0; d < spatial; ++d) kernel[d] = memory::dim(xs[d + 2]);
  if (!global) {
    kernel = attr_ints(n, "kernel_shape", {});
    strides = attr_ints(n, "strides", strides);
    dilations = attr_ints(n, "dilations", dilations);
    spatial_padding(n, xs, ys, kernel, strides, dilations, lo, hi);
  }
  auto algo = max                                   ? dnnl::algorithm::pooling_max
              : attr_int(n, "count_include_pad", 0) ? dnnl::algorithm::pooling_avg_include_padding
                                                    : dnnl::algorithm::pooling_avg_exclude_padding;
  size_t src = buffer_of(n.inputs[0]);
  const memory::desc src_md = *m_.buffers[src].desc;
  memory::desc dst_any(dims_of(ys), dt::f32, tag::any);
  memory::dims gaps;  // oneDNN counts the gaps: ONNX's dilation minus one
  for (auto d : dilations) gaps.push_back(d - 1);
  dnnl::pooling_v2_forward::desc d(dnnl::prop_kind::forward_inference, algo, src_md, dst_any, strides, kernel, gaps, lo,
                                   hi);
  dnnl::pooling_v2_forward::primitive_desc pd(d, m_.engine);
  size_t dst = define(g.output, pd.dst_desc());
  push_primitive(info_of(g, "pool"), dnnl::pooling_v2_forward(pd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}, {});
}

void Lowering::add_resize(const Group& g) {
  const Node& n = m_.interpreter->plan().nodes[g.nodes[0]];
  auto algo = attr_string(n, "mode", "nearest") == "linear" ? dnnl::algorithm::resampling_linear
                                                            : dnnl::algorithm::resampling_nearest;
  size_t src = buffer_of(n.inputs[0]);
  memory::desc dst_any(dims_of(m_.meta.at(g.output).shape), dt::f32, tag::any);
  dnnl::resampling_forward::desc d(dnnl::prop_kind::forward_inference, algo, *m_.buffers[src].desc, dst_any);
  dnnl::resampling_forward::primitive_desc pd(d, m_.engine);
  size_t dst = define(g.output, pd.dst_desc());
  push_primitive(info_of(g, "resize"), dnnl::resampling_forward(pd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}, {});
}

GraphFacts Lowering::facts() const {
  return GraphFacts{&m_.meta,
                    [this](const std::string& name) -> const TensorData* {
                      auto it = m_.constants.find(name);
                      return it == m_.constants.end() ? nullptr : &it->second;
                    },
                    {},
                    m_.interpreter->model().opset};
}

void Lowering::add_reduce(const Group& g) {
  const Node& n = m_.interpreter->plan().nodes[g.nodes[0]];
  using A = dnnl::algorithm;
  static const std::map<std::string, std::pair<A, float>> algos{
      {"ReduceMean", {A::reduction_mean, 0.f}},      {"ReduceSum", {A::reduction_sum, 0.f}},
      {"ReduceMax", {A::reduction_max, 0.f}},        {"ReduceMin", {A::reduction_min, 0.f}},
      {"ReduceProd", {A::reduction_mul, 0.f}},       {"ReduceL1", {A::reduction_norm_lp_sum, 1.f}},
      {"ReduceL2", {A::reduction_norm_lp_sum, 2.f}}, {"ReduceSumSquare", {A::reduction_norm_lp_power_p_sum, 2.f}}};
  const Shape& xs = m_.meta.at(n.inputs[0]).shape;
  Shape kept = xs;
  std::vector<size_t> axes = reduced_axes(n, xs.rank(), facts()).value();  // lowerable_reduce found them
  for (size_t d : axes) kept[d] = 1;
  auto [algo, p] = algos.at(n.op_type);
  dnnl::reduction::desc d(algo, plain_desc(xs), plain_desc(kept), p, 0.f);
  dnnl::reduction::primitive_desc pd(d, m_.engine);  // before any step is placed: oneDNN may refuse it
  size_t src = as_plain(n.inputs[0]);
  size_t dst = define(g.output, plain_desc(m_.meta.at(g.output).shape));
  size_t at_kept_dims = view(dst, plain_desc(kept));  // keepdims 0: the same values without the reduced dims
  push_primitive(info_of(g, "reduce"), dnnl::reduction(pd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, at_kept_dims}}, {});
}

void Lowering::add_eltwise(const Group& g) {
  const Node& n = m_.interpreter->plan().nodes[g.nodes[0]];
  auto acts = *activation_of(n, facts());
  size_t src = buffer_of(n.inputs[0]);
  memory::desc md = *m_.buffers[src].desc;
  std::vector<dnnl::eltwise_forward::primitive_desc> pds;
  for (const auto& a : acts)
    pds.emplace_back(
        dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference, algorithm_of(a.kind), md, a.alpha, a.beta),
        m_.engine);
  size_t dst = define(g.output, md);
  for (size_t i = 0; i < pds.size(); ++i)
    push_primitive(info_of(g, "eltwise"), dnnl::eltwise_forward(pds[i]),
                   {{DNNL_ARG_SRC, i == 0 ? src : dst}, {DNNL_ARG_DST, dst}}, {});
}

void Lowering::add_binary(const Group& g) {
  const Node& n = m_.interpreter->plan().nodes[g.nodes[0]];
  const std::string &a = n.inputs[g.swap_operands ? 1 : 0], &b = n.inputs[g.swap_operands ? 0 : 1];
  static const std::map<std::string, dnnl::algorithm> algos{{"Add", dnnl::algorithm::binary_add},
                                                            {"Sub", dnnl::algorithm::binary_sub},
                                                            {"Mul", dnnl::algorithm::binary_mul},
                                                            {"Div", dnnl::algorithm::binary_div}};
  size_t src0 = buffer_of(a);
  memory::desc a_md = *m_.buffers[src0].desc;
  const Shape& out = m_.meta.at(a).shape;
  auto constant = m_.constants.find(b);
  Shape bs = constant != m_.constants.end() ? constant->second.shape() : m_.meta.at(b).shape;
  memory::desc b_md = bs == out ? a_md : plain_desc_of_rank(bs, out.rank());
  dnnl::binary::primitive_desc pd(dnnl::binary::desc(algos.at(n.op_type), a_md, b_md, a_md), post_ops_of(g), m_.engine);
  std::vector<std::pair<int, memory>> fixed;
  std::vector<std::pair<int, size_t>> args{{DNNL_ARG_SRC_0, src0}};
  if (constant != m_.constants.end()) {
    fixed.emplace_back(DNNL_ARG_SRC_1, constant_memory(b, plain_desc_of_rank(bs, out.rank()), b_md));
  } else if (bs == out) {
    args.emplace_back(DNNL_ARG_SRC_1, as_layout(b, a_md));
  } else {  // a broadcast operand: plain, viewed at the result's rank
    args.emplace_back(DNNL_ARG_SRC_1, view(as_plain(b), b_md));
  }
  size_t dst = define(g.output, a_md);
  args.emplace_back(DNNL_ARG_DST, dst);
  push_primitive(info_of(g, "binary"), dnnl::binary(pd), std::move(args), std::move(fixed));
}

void Lowering::add_layer_norm(const Group& g) {
  const Node& n = m_.interpreter->plan().nodes[g.nodes[0]];
  Group::Norm norm = g.norm ? *g.norm : Group::Norm{n.inputs[0], n.inputs[1], std::nullopt, 1e-5f};
  if (!g.norm) {
    if (n.inputs.size() > 2 && !n.inputs[2].empty()) norm.shift = n.inputs[2];
    if (attr(n, "epsilon")) norm.epsilon = attr(n, "epsilon")->f;
  }
  const Shape& xs = m_.meta.at(norm.input).shape;
  memory::desc md = plain_desc(xs), row({memory::dim(xs[xs.rank() - 1])}, dt::f32, tag::a);
  auto flags = dnnl::normalization_flags::none;
  if (norm.scale) flags = flags | dnnl::normalization_flags::use_scale;
  if (norm.shift) flags = flags | dnnl::normalization_flags::use_shift;
  dnnl::layer_normalization_forward::desc d(dnnl::prop_kind::forward_inference, md, norm.epsilon, flags);
  dnnl::layer_normalization_forward::primitive_desc pd(d, m_.engine);
  std::vector<std::pair<int, memory>> fixed;
  if (norm.scale) fixed.emplace_back(DNNL_ARG_SCALE, constant_memory(*norm.scale, row, row));
  if (norm.shift) fixed.emplace_back(DNNL_ARG_SHIFT, constant_memory(*norm.shift, row, row));
  size_t src = as_plain(norm.input), dst = define(g.output, md);
  push_primitive(info_of(g, "layer_norm"), dnnl::layer_normalization_forward(pd),
                 {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}, std::move(fixed));
}

void Lowering::add_softmax(const Group& g) {
  const Node& n = m_.interpreter->plan().nodes[g.nodes[0]];
  const Shape& xs = m_.meta.at(n.inputs[0]).shape;
  memory::desc md = plain_desc(xs);
  dnnl::softmax_forward::desc d(dnnl::prop_kind::forward_inference, md, int(std::max<size_t>(xs.rank(), 1) - 1));
  dnnl::softmax_forward::primitive_desc pd(d, m_.engine);
  size_t src = as_plain(n.inputs[0]), dst = define(g.output, md);
  push_primitive(info_of(g, "softmax"), dnnl::softmax_forward(pd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}, {});
}

void Lowering::add_transpose(const Group& g) {
  const Node& n = m_.interpreter->plan().nodes[g.nodes[0]];
  memory::desc from = permuted_desc(m_.meta.at(n.inputs[0]).shape, attr(n, "perm")->ints);
  memory::desc to = plain_desc(m_.meta.at(g.output).shape);
  dnnl::reorder::primitive_desc pd(m_.engine, from, m_.engine, to);
  size_t src = view(as_plain(n.inputs[0]), from), dst = define(g.output, to);
  push_primitive(info_of(g, "transpose"), dnnl::reorder(pd), {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}}, {});
}

void Lowering::add_concat(const Group& g) {
  const Node& n = m_.interpreter->plan().nodes[g.nodes[0]];
  int64_t rank = int64_t(m_.meta.at(g.output).shape.rank()), axis = attr_int(n, "axis", 0);
  std::vector<memory::desc> mds;
  std::vector<std::pair<int, size_t>> args;
  for (const auto& in : n.inputs) {
    size_t b = buffer_of(in);
    mds.push_back(*m_.buffers[b].desc);
    args.emplace_back(DNNL_ARG_MULTIPLE_SRC + int(args.size()), b);
  }
  dnnl::concat::primitive_desc pd(int(axis < 0 ? axis + rank : axis), mds, m_.engine);
  args.emplace_back(DNNL_ARG_DST, define(g.output, pd.dst_desc()));
  push_primitive(info_of(g, "concat"), dnnl::concat(pd), std::move(args), {});
}

void Lowering::add_batch_norm(const Group& g) {
  const Node& n = m_.interpreter->plan().nodes[g.nodes[0]];
  size_t src = buffer_of(n.inputs[0]);
  memory::desc md = *m_.buffers[src].desc, row({memory::dim(m_.meta.at(n.inputs[0]).shape[1])}, dt::f32, tag::a);
  auto flags = dnnl::normalization_flags::use_global_stats | dnnl::normalization_flags::use_scale |
               dnnl::normalization_flags::use_shift;
  float epsilon = float(attr(n, "epsilon") ? attr(n, "epsilon")->f : 1e-5);
  dnnl::batch_normalization_forward::desc d(dnnl::prop_kind::forward_inference, md, epsilon, flags);
  dnnl::batch_normalization_forward::primitive_desc pd(d, m_.engine);
  std::vector<std::pair<int, memory>> fixed;
  for (auto [i, arg] :
       {std::pair<size_t, int>{1, DNNL_ARG_SCALE}, {2, DNNL_ARG_SHIFT}, {3, DNNL_ARG_MEAN}, {4, DNNL_ARG_VARIANCE}})
    fixed.emplace_back(arg, constant_memory(n.inputs[i], row, row));
  size_t dst = define(g.output, md);
  push_primitive(info_of(g, "batch_norm"), dnnl::batch_normalization_forward(pd),
                 {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}, std::move(fixed));
}

void Lowering::add_reshape(const Group& g) {
  const Node& n = m_.interpreter->plan().nodes[g.nodes[0]];
  const Shape& xs = m_.meta.at(n.inputs[0]).shape;
  size_t src = buffer_of(n.inputs[0]);
  const ValueMeta& out = m_.meta.at(g.output);
  if (m_.slots.at(n.inputs[0]).plain) {  // the same bytes under the new shape: no step
    m_.slots.insert_or_assign(g.output, Slot{view(src, plain_desc(out.shape)), out, true, true, std::nullopt});
    return;
  }
  size_t dst = define(g.output, plain_desc(out.shape));
  size_t at_input_dims = view(dst, plain_desc(xs));
  memory::desc from = *m_.buffers[src].desc;
  dnnl::reorder::primitive_desc pd(m_.engine, from, m_.engine, plain_desc(xs));
  push_primitive(info_of(g, "reshape"), dnnl::reorder(pd), {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, at_input_dims}}, {});
}

bool Lowering::reads_held(const Group& g) const {
  for (const auto& name : m_.interpreter->plan().nodes[g.nodes[0]].inputs)
    if (auto s = m_.slots.find(name); s != m_.slots.end() && !s->second.in_arena) return true;
  return false;
}

void Lowering::add(const Group& g) {
  m_.nodes += g.nodes.size();
  // An elementwise op, binary op or reshape of a value the interpreter holds stays with the interpreter: copying
  // its operand into the arena costs what the op does.
  bool light = g.kind == Group::Kind::Eltwise || g.kind == Group::Kind::Binary || g.kind == Group::Kind::Reshape ||
               g.kind == Group::Kind::Transpose;
  if (g.kind != Group::Kind::Interpreter && !(light && reads_held(g))) {
    size_t steps = m_.steps.size(), buffers = m_.buffers.size();
    try {
      switch (g.kind) {
        case Group::Kind::Conv: add_conv(g); break;
        case Group::Kind::MatMul: add_matmul(g); break;
        case Group::Kind::BatchMatMul: add_batch_matmul(g); break;
        case Group::Kind::Pool: add_pool(g); break;
        case Group::Kind::Eltwise: add_eltwise(g); break;
        case Group::Kind::Binary: add_binary(g); break;
        case Group::Kind::Reshape: add_reshape(g); break;
        case Group::Kind::Transpose: add_transpose(g); break;
        case Group::Kind::Rnn: add_rnn(g); break;
        case Group::Kind::LayerNorm: add_layer_norm(g); break;
        case Group::Kind::Softmax: add_softmax(g); break;
        case Group::Kind::Concat: add_concat(g); break;
        case Group::Kind::BatchNorm: add_batch_norm(g); break;
        case Group::Kind::Where: add_where(g); break;
        case Group::Kind::Resize: add_resize(g); break;
        case Group::Kind::Reduce: add_reduce(g); break;
        case Group::Kind::Interpreter: break;
      }
      m_.fused += g.nodes.size() - 1;
      return;
    } catch (const dnnl::error&) {  // a case oneDNN does not implement: the interpreter runs these nodes
      if (m_.steps.size() != steps || m_.buffers.size() != buffers)
        throw Error("graph::compile", "oneDNN refused a group after its first steps were placed (a compiler bug)");
    }
  }
  std::vector<size_t> order = g.nodes;
  std::sort(order.begin(), order.end());
  for (size_t i : order) add_interpreter(i);
}

void Lowering::finish() {
  for (const auto& out : m_.outputs) {  // outputs in a blocked layout: made plain by a last step, read by a copy
    auto s = m_.slots.find(out);
    if (s == m_.slots.end() || !s->second.in_arena || s->second.plain) continue;
    memory::desc plain_md = plain_desc(s->second.meta.shape);
    size_t src = use(s->second.buffer), plain = new_buffer(plain_md.get_size(), plain_md);
    push_reorder(src, plain, out);
    s->second.buffer = plain, s->second.plain = true;
  }
  for (const auto& out : m_.outputs) {
    auto s = m_.slots.find(out);
    if (s == m_.slots.end()) continue;
    if (s->second.in_arena) extend(s->second.buffer, m_.steps.size());
    if (s->second.held) m_.held_last[*s->second.held] = m_.steps.size();  // past every step: never released
  }
  std::vector<BufferLife> lives;
  for (const auto& b : m_.buffers) lives.push_back(b.life);
  m_.arena_plan = plan_arena(lives);
  for (const auto& [view, owner] : aliases_) m_.arena_plan.offsets[view] = m_.arena_plan.offsets[owner];
  size_t bytes = std::max<size_t>(64, (m_.arena_plan.bytes + 63) / 64 * 64);
  m_.arena.reset(static_cast<std::byte*>(std::aligned_alloc(64, bytes)));
  if (!m_.arena) throw Error("graph::compile", "cannot allocate the arena (" + std::to_string(bytes) + " bytes)");
  m_.memories.clear();
  for (size_t i = 0; i < m_.buffers.size(); ++i)
    m_.memories.push_back(m_.buffers[i].desc ? memory(*m_.buffers[i].desc, m_.engine, m_.data(i)) : memory());
  for (auto& step : m_.steps) step.run = step.bind();
}

}  // namespace scorch::graph
