// Einsum through the Tensor API's planner and runner (scorch/tensor/einsum.h): each operand's repeated letters
// reduced to their diagonal, letters no other operand or the output needs summed away, then the operands contracted
// pairwise through one batched matmul each, the pair with the smallest result first. ONNX's scalar output is rank 0.
#include "scorch/import/onnx/runtime/op_call_impl.h"
#include "scorch/tensor/einsum.h"

namespace scorch::onnx {
namespace {

template <class B> Value<B> einsum(const OpCall<B>& c) {
  if (c.num_inputs() == 0) c.template fail<ValueError>("no operands");
  std::vector<Shape> shapes;
  std::vector<typename B::FloatTensor> operands;
  for (size_t i = 0; i < c.num_inputs(); ++i) {
    shapes.push_back(c.in(i).shape());
    operands.push_back(c.in_float(i));
  }
  auto plan = einsum_detail::plan(c.attr_string("equation", ""), shapes);
  auto y = einsum_detail::run<B>(plan, std::move(operands), c.device());
  if (plan.rank == 0) y = KindOps<B, Float>::reshape(std::move(y), Shape{});
  return Value<B>::template of<Float>(std::move(y));
}

}  // namespace

template <class B> void register_einsum_ops(OpTable<B>& t) {
  t["Einsum"] = [](const OpCall<B>& c) -> std::vector<Value<B>> { return {einsum(c)}; };
}

}  // namespace scorch::onnx

SCORCH_ONNX_INSTANTIATE(register_einsum_ops)
