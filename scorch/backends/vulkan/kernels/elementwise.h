#pragma once
// The Vulkan backend's elementwise loops, as the generated kernels (scorch/gen/vulkan_elementwise.cpp) call them:
// each maps a scalar_ops functor to its map.comp op code and queues one dispatch. kOpCode<F> is the one place a
// functor meets its shader op; a functor without one fails to compile here.
#include <type_traits>

#include "scorch/backends/common/scalar_ops.h"
#include "scorch/backends/vulkan/kernels/dispatch.h"
#include "scorch/core/error.h"

namespace scorch::backends::vulkan::kernels {

template <class F> constexpr int kOpCode = -1;
#define SCORCH_VK_OP(Functor, code) template <> inline constexpr int kOpCode<scalar_ops::Functor> = code;
// The functors of the float ops with a glsl attribute (op_table.txt), then the ones map.comp writes out itself.
SCORCH_VK_FUNCTORS(SCORCH_VK_OP)
SCORCH_VK_OP(Div, OP_DIV)
SCORCH_VK_OP(Remainder, OP_REM)
SCORCH_VK_OP(Minimum, OP_MIN)
SCORCH_VK_OP(Maximum, OP_MAX)
SCORCH_VK_OP(IsNan, OP_IS_NAN)
SCORCH_VK_OP(IsInf, OP_IS_INF)
SCORCH_VK_OP(BitNot, OP_BIT_NOT)
SCORCH_VK_OP(LogicalNot, OP_LOGICAL_NOT)
SCORCH_VK_OP(BitAnd, OP_BIT_AND)
SCORCH_VK_OP(BitOr, OP_BIT_OR)
SCORCH_VK_OP(BitXor, OP_BIT_XOR)
SCORCH_VK_OP(ShiftLeft, OP_SHL)
SCORCH_VK_OP(ShiftRight, OP_SHR)
SCORCH_VK_OP(LogicalAnd, OP_LOGICAL_AND)
SCORCH_VK_OP(LogicalOr, OP_LOGICAL_OR)
SCORCH_VK_OP(LogicalXor, OP_LOGICAL_XOR)
SCORCH_VK_OP(Equal, OP_EQ)
SCORCH_VK_OP(NotEqual, OP_NE)
SCORCH_VK_OP(Greater, OP_GT)
SCORCH_VK_OP(GreaterEqual, OP_GE)
SCORCH_VK_OP(Lower, OP_LT)
SCORCH_VK_OP(LowerEqual, OP_LE)
#undef SCORCH_VK_OP

/// The map.comp op code of functor F.
template <class F> constexpr int op_code() {
  static_assert(kOpCode<F> >= 0, "this scalar_ops functor has no map.comp op code (kernels/elementwise.h)");
  return kOpCode<F>;
}

/// True for the float ops whose shader computes in f32 only: f64 tensors run them on the host (kernels/host.h).
bool f32_only(int op);
/// op on the host's Cpu kernels when the tensor's dtype needs more than the shader gives (f64 transcendentals).
VulkanTensor host_unary(const char* name, int op, const VulkanTensor& x);
VulkanTensor host_binary(const char* name, int op, const VulkanTensor& a, const VulkanTensor& b);
VulkanTensor host_scalar(const char* name, int op, const VulkanTensor& a, Scalar s);

/// out = op(x): float tensors only (or numeric when numeric), same dtype out.
VulkanTensor map_unary(const char* name, int op, VulkanTensor x, bool numeric);
/// out = op(a, b), broadcast; same dtype out (bool for comparisons).
VulkanTensor map_binary(const char* name, int op, VulkanTensor a, VulkanTensor b, bool int_only);
/// out = op(a, s); same dtype out (bool for comparisons).
VulkanTensor map_scalar(const char* name, int op, VulkanTensor a, Scalar s, bool int_only);

template <class F> VulkanTensor unary_float(const char* name, VulkanTensor x, F) {
  return map_unary(name, op_code<F>(), std::move(x), false);
}
template <class F> VulkanTensor unary_numeric(const char* name, VulkanTensor x, F) {
  return map_unary(name, op_code<F>(), std::move(x), true);
}
template <class F> VulkanTensor binary_numeric(const char* name, VulkanTensor a, VulkanTensor b, F) {
  return map_binary(name, op_code<F>(), std::move(a), std::move(b), false);
}
template <class F> VulkanTensor scalar_numeric(const char* name, VulkanTensor a, Scalar s, F) {
  return map_scalar(name, op_code<F>(), std::move(a), s, false);
}
template <class F> VulkanTensor compare(const char* name, VulkanTensor a, VulkanTensor b, F) {
  return map_binary(name, op_code<F>(), std::move(a), std::move(b), false);
}
template <class F> VulkanTensor compare_scalar(const char* name, VulkanTensor a, Scalar s, F) {
  return map_scalar(name, op_code<F>(), std::move(a), s, false);
}
template <class F> VulkanTensor bool_binary(const char* name, VulkanTensor a, VulkanTensor b, F) {
  return map_binary(name, op_code<F>(), std::move(a), std::move(b), false);
}
template <class F> VulkanTensor int_binary(const char* name, VulkanTensor a, VulkanTensor b, F) {
  return map_binary(name, op_code<F>(), std::move(a), std::move(b), true);
}
template <class F> VulkanTensor int_scalar(const char* name, VulkanTensor a, Scalar s, F) {
  return map_scalar(name, op_code<F>(), std::move(a), s, true);
}

}  // namespace scorch::backends::vulkan::kernels
