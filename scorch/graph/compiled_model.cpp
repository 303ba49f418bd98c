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

// Output name into out: its bytes overwritten when out already has the output's shape and dtype, else replaced.
void read_output(CompiledModel::Impl& m, const std::string& name, TensorData& out) {
  auto s = m.slots.find(name);
  if (s == m.slots.end()) {  // an output the interpreter folded into a constant
    auto c = m.interpreter->weights().find(name);
    if (c == m.interpreter->weights().end())
      throw Error("graph::run", "output '" + name + "' is computed by no node (a compiler bug: report it)");
    out = c->second.to_data();
    return;
  }
  const ValueMeta& meta = s->second.meta;
  if (s->second.held) {
    out = m.held[*s->second.held]->to_data();
    return;
  }
  size_t bytes = meta.shape.num_elements() * dtype_size(meta.dtype);
  if (out.shape() != meta.shape || out.dtype() != meta.dtype || out.bytes().size() != bytes)
    out = TensorData::from_bytes(std::vector<std::byte>(bytes), meta.shape, meta.dtype);
  std::memcpy(out.bytes_mut().data(), m.data(s->second.buffer), bytes);  // plain: finish() made it so
}

}  // namespace

std::vector<TensorData> CompiledModel::run(const std::vector<TensorData>& inputs) {
  std::vector<TensorData> out;
  run_into(inputs, out);
  return out;
}

void CompiledModel::run_into(const std::vector<TensorData>& inputs, std::vector<TensorData>& outputs) {
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
  outputs.resize(m.outputs.size());
  for (size_t i = 0; i < m.outputs.size(); ++i) read_output(m, m.outputs[i], outputs[i]);
}

}  // namespace scorch::graph
