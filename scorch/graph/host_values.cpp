// One-copy transfers between the arena and the interpreter's Cpu values (host_values.h).
#include "scorch/graph/host_values.h"

#include <cstring>

#include "scorch/backends/cpu/cpu_backend.h"
#include "scorch/core/error.h"

namespace scorch::graph {
namespace {

// v's Cpu tensor when it lives on the cpu stack (nullopt for another stack).
template <class K> std::optional<backends::cpu::CpuTensor> cpu_tensor(const onnx::Value<Dyn>& v) {
  const auto& t = v.template get<K>();
  if (t.stack() != dyn::stack_of<Cpu>) return std::nullopt;
  return dyn::unbox<Cpu>(t);
}

}  // namespace

void copy_out(const onnx::Value<Dyn>& v, std::byte* dst, size_t bytes) {
  std::optional<backends::cpu::CpuTensor> t;
  if (v.is<Float>()) t = cpu_tensor<Float>(v);
  else if (v.is<Int>()) t = cpu_tensor<Int>(v);
  else if (v.is<Bool>()) t = cpu_tensor<Bool>(v);
  if (t && t->is_contiguous() && t->numel() * dtype_size(t->dtype()) == bytes) {
    std::memcpy(dst, t->raw(), bytes);
    return;
  }
  TensorData data = v.to_data();
  if (data.bytes().size() != bytes)
    throw Error("graph::run", "a value of " + std::to_string(data.bytes().size()) + " bytes does not fit its " +
                                  std::to_string(bytes) + "-byte buffer (a compiler bug: report it)");
  std::memcpy(dst, data.bytes().data(), bytes);
}

onnx::Value<Dyn> copy_in(const std::byte* src, const Shape& shape, DType dtype, const dyn::DynDevice& device) {
  if (&device.stack() != dyn::stack_of<Cpu>) {
    size_t bytes = shape.num_elements() * dtype_size(dtype);
    return onnx::Value<Dyn>::from_data(TensorData::from_bytes(std::vector<std::byte>(src, src + bytes), shape, dtype),
                                       device);
  }
  backends::cpu::CpuTensor t(shape, dtype);
  std::memcpy(t.raw(), src, shape.num_elements() * dtype_size(dtype));
  if (is_float(dtype)) return onnx::Value<Dyn>::of<Float>(dyn::boxed<Cpu, Float>(std::move(t)));
  if (dtype == DType::Bool) return onnx::Value<Dyn>::of<Bool>(dyn::boxed<Cpu, Bool>(std::move(t)));
  return onnx::Value<Dyn>::of<Int>(dyn::boxed<Cpu, Int>(std::move(t)));
}

}  // namespace scorch::graph
