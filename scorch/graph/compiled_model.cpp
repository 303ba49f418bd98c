// Running a compiled model: inputs copied into their arena buffers, the steps in order, outputs read back in plain
// layout (compiled_model.h).
#include <omp.h>

#include <cstring>
#include <sstream>

#include "scorch/core/error.h"
#include "scorch/graph/plan_impl.h"

namespace scorch::graph {

CompiledModel::CompiledModel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CompiledModel::CompiledModel(CompiledModel&&) noexcept = default;
CompiledModel& CompiledModel::operator=(CompiledModel&&) noexcept = default;
CompiledModel::~CompiledModel() = default;

const std::vector<std::string>& CompiledModel::input_names() const { return impl_->inputs; }
const std::vector<std::string>& CompiledModel::output_names() const { return impl_->outputs; }
size_t CompiledModel::arena_bytes() const { return impl_->arena_plan.bytes; }
void CompiledModel::set_profiling(bool on) { impl_->profiling = on; }

void CompiledModel::reset_profile() {
  for (auto& s : impl_->steps) s.info.ms = 0;
}

std::vector<StepInfo> CompiledModel::profile() const {
  std::vector<StepInfo> out;
  for (const auto& s : impl_->steps) out.push_back(s.info);
  return out;
}

std::string CompiledModel::summary() const {
  std::map<std::string, size_t> kinds;
  for (const auto& s : impl_->steps) ++kinds[s.info.kind];
  std::ostringstream os;
  os << impl_->nodes << " nodes in " << impl_->steps.size() << " steps (";
  bool first = true;
  for (const auto& [kind, n] : kinds) os << (first ? "" : ", ") << n << " " << kind, first = false;
  os << "); " << impl_->fused << " nodes fused into the step before them, " << impl_->interpreted
     << " run by the interpreter; arena " << impl_->arena_plan.bytes << " bytes";
  return os.str();
}

namespace {

void copy_input(CompiledModel::Impl& m, const std::string& name, const TensorData& in) {
  const Slot& s = m.slots.at(name);
  if (in.dtype() != s.meta.dtype || in.shape() != s.meta.shape)
    throw Error("graph::run", "input '" + name + "' is " + in.shape().to_string() + " " +
                                  std::string(dtype_name(in.dtype())) + "; the model was compiled for " +
                                  s.meta.shape.to_string() + " " + std::string(dtype_name(s.meta.dtype)) +
                                  ": compile it again for this shape");
  std::memcpy(m.data(s.buffer), in.bytes().data(), in.bytes().size());
}

TensorData read_output(CompiledModel::Impl& m, const std::string& name) {
  auto s = m.slots.find(name);
  if (s == m.slots.end()) {  // an output the interpreter folded into a constant
    auto c = m.interpreter->weights().find(name);
    if (c == m.interpreter->weights().end())
      throw Error("graph::run", "output '" + name + "' is computed by no node (a compiler bug: report it)");
    return c->second.to_data();
  }
  const ValueMeta& meta = s->second.meta;
  if (s->second.held) return m.held[*s->second.held]->to_data();
  size_t bytes = meta.shape.num_elements() * dtype_size(meta.dtype);
  std::vector<std::byte> out(bytes);
  if (s->second.plain) {
    std::memcpy(out.data(), m.data(s->second.buffer), bytes);
  } else {
    dnnl::memory& src = m.memory(s->second.buffer);
    dnnl::memory dst(plain_desc(meta.shape), m.engine, out.data());
    dnnl::reorder(src, dst).execute(m.stream, src, dst);
    m.stream.wait();
  }
  return TensorData::from_bytes(std::move(out), meta.shape, meta.dtype);
}

}  // namespace

std::vector<TensorData> CompiledModel::run(const std::vector<TensorData>& inputs) {
  Impl& m = *impl_;
  if (inputs.size() != m.inputs.size())
    throw Error("graph::run", "the model takes " + std::to_string(m.inputs.size()) + " inputs, " +
                                  std::to_string(inputs.size()) + " were given");
  for (size_t i = 0; i < inputs.size(); ++i) copy_input(m, m.inputs[i], inputs[i]);
  omp_set_num_threads(static_cast<int>(m.threads));
  for (auto& step : m.steps) {
    if (!m.profiling) {
      step.run();
      continue;
    }
    auto t0 = std::chrono::steady_clock::now();
    step.run();
    m.stream.wait();
    step.info.ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  m.stream.wait();
  std::vector<TensorData> out;
  for (const auto& name : m.outputs) out.push_back(read_output(m, name));
  return out;
}

}  // namespace scorch::graph
