// Cpu's logical_not and bitwise_not; the other elementwise kernels that map a scalar_ops functor are
// generated from the op table (build tree: generated/scorch/gen/cpu_elementwise.cpp).
#include "scorch/backends/common/scalar_ops.h"
#include "scorch/backends/cpu/kernels/elementwise.h"
#include "scorch/backends/cpu/kernels/kernels.h"

namespace scorch::backends::cpu::kernels {
namespace so = scalar_ops;

T logical_not(T x) { return map_unary<bool, bool>(std::move(x), DType::Bool, so::LogicalNot{}); }

T bitwise_not(T x) {
  return visit_int("bitwise_not", x.dtype(),
                   [&]<class E>() { return map_unary<E, E>(std::move(x), x.dtype(), so::BitNot{}); });
}

}  // namespace scorch::backends::cpu::kernels
